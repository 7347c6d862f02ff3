// The host's per-second noise at this hour, read off a run's own steady cells: what three flat warm-up seconds may
// span (load/warmup.ts warmBound). A fixed bound fits a quiet host; on a busy one steady cells warmed up to the cap.
import type { CellStatus, Flag, FlagKind, LoadResult } from '../model/types.ts';

/** Fewest measured seconds a cell needs for its successive differences to say anything. */
const MIN_SECONDS = 3;
/** Fewest steady cells before the run trusts its own reading. */
const MIN_CELLS = 2;
/** A cell flagged so moved for a reason of its own (a drift, failures, a restart): its spread is not the host's. */
const NOT_NOISE: readonly FlagKind[] = ['unstable', 'errors', 'restarts', 'oom-killed'];

/**
 * One cell's second-to-second noise, σ as a share of its level: von Neumann's mean square successive
 * difference (σ² ≈ Σ(xᵢ₊₁ − xᵢ)² ÷ 2(n − 1)), which a slow drift barely moves, unlike the plain variance,
 * less the counting noise a second's count carries by itself (its mean, for independent arrivals), which
 * the judge already allows for. Undefined below MIN_SECONDS or with nothing served.
 */
export function secondNoise(perSecond: readonly number[]): number | undefined {
  const n = perSecond.length;
  if (n < MIN_SECONDS) return undefined;
  const mean = perSecond.reduce((a, b) => a + b, 0) / n;
  if (!(mean > 0)) return undefined;
  let ss = 0;
  for (let i = 1; i < n; i++) ss += (perSecond[i]! - perSecond[i - 1]!) ** 2;
  return Math.sqrt(Math.max(0, ss / (2 * (n - 1)) - mean)) / mean;
}

/** A finished cell as the run's noise reads it (a fresh result, or one read back from the store). */
export interface NoiseCell {
  status: CellStatus;
  flags: readonly Pick<Flag, 'kind'>[];
  load?: Pick<LoadResult, 'perSecondRps'> | null;
}

/**
 * The run's reading of the host's noise: the lower median over its steady cells so far (the smaller middle one:
 * one odd cell among two cannot widen the bound). Undefined until MIN_CELLS have been measured: the judge then
 * assumes a quiet host.
 */
export class RunNoise {
  private readonly cells: number[] = [];

  add(cell: NoiseCell): void {
    if (cell.status !== 'ok' || cell.flags.some((f) => NOT_NOISE.includes(f.kind))) return;
    const n = secondNoise(cell.load?.perSecondRps ?? []);
    if (n !== undefined) this.cells.push(n);
  }

  get(): number | undefined {
    if (this.cells.length < MIN_CELLS) return undefined;
    return [...this.cells].sort((a, b) => a - b)[(this.cells.length - 1) >> 1];
  }
}
