// Reports placed in their cell's time. A report covers the second before its `at` (its `ms`); it
// belongs to the cell second its middle falls in, counted like Sample.t from the start of
// measurement (t = 0 is the first measured second; warm-up seconds are t < 0, as a stored cell's
// warm-up throughput is drawn before t = 0). Reports from before the load or after the measurement
// are left out: they describe start-up and teardown, not the cell.
import type { ProbeReport, ProbeSecond } from '../model/probe.ts';

export interface CellClock {
  /** When the load began (its warm-up), this machine's clock, ms since the epoch. */
  loadFromMs: number;
  /** When the first measured second began. */
  measureFromMs: number;
  /** Measured seconds: t runs up to measuredSec - 1. */
  measuredSec: number;
}

export function placeReports(reports: readonly ProbeReport[], clock: CellClock): ProbeSecond[] {
  const seen = new Set<string>();
  const out: ProbeSecond[] = [];
  for (const r of [...reports].sort((a, b) => a.at - b.at)) {
    const middle = r.at - (r.ms ?? 1000) / 2;
    if (middle < clock.loadFromMs) continue;
    const t = Math.floor((middle - clock.measureFromMs) / 1000);
    if (t >= clock.measuredSec) continue;
    // Two reports of one process in one second (a late timer, then a prompt one): the first stands.
    const key = `${r.pid}:${t}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { at: _at, ...rest } = r;
    out.push({ ...rest, t, ...(t < 0 ? { warmup: true as const } : {}) });
  }
  return out.sort((a, b) => a.t - b.t || a.pid - b.pid);
}
