// A cell's runtime probe as three per-second charts, one line per serving process: event-loop
// utilization, event-loop delay p99 and GC share. Which processes serve, their names and the GC
// share rule are the engine's own (src-main/common/probe-series.ts, probe-gc.ts), shared with the
// HTML report and the CSV. Warm-up seconds (t < 0) come first under the shaded warm-up band.
import type { ChartConfiguration } from 'chart.js';
import type { LaunchMode, ProbeSecond } from '../../src-main/contract/api.ts';
import { GC_POOL_SECONDS, gcSharePooled, othersNote, probeProcesses } from '../../src-main/contract/present.ts';
import { lineConfig, lineSet, type LineSet, type XY } from './charts.ts';
import { warmupBand, withBand } from './warmup-band.ts';

export interface ProbePanels {
  elu: ChartConfiguration<'line', XY[]>;
  delay: ChartConfiguration<'line', XY[]>;
  gc: ChartConfiguration<'line', XY[]>;
  /** Serving processes drawn (one line each). */
  lines: number;
  /** Warm-up seconds drawn before measurement (x = 1…warmup), under the band. */
  warmup: number;
  /** The processes left out (a cluster primary, PM2's daemon), in words; '' when none. */
  othersNote: string;
}

export interface ProbePanelOptions {
  mode?: LaunchMode;
  /**
   * Warm-up seconds the cell's other charts draw before measurement: the probe's seconds line up with
   * theirs (x = warm-up + t + 1). The probe's own warm-up seconds count when there are more of them.
   */
  warmupSec?: number;
  /** Live charts draw no point markers (cheaper to redraw). */
  points?: boolean;
}

/** The three panels of a cell's probe seconds, or null when no serving process reported. */
export function probePanels(seconds: readonly ProbeSecond[], o: ProbePanelOptions = {}): ProbePanels | null {
  const { serving, others } = probeProcesses(seconds, o.mode);
  if (!serving.length) return null;
  const earliest = Math.min(0, ...seconds.map((s) => s.t));
  const warmup = Math.max(o.warmupSec ?? 0, -earliest);
  const x = (t: number): number => warmup + t + 1;
  const sets = (value: (s: ProbeSecond, k: number, process: number) => number | null): LineSet[] =>
    serving.map((p, i) =>
      lineSet(
        p.label,
        p.seconds.map((s, k) => ({ x: x(s.t), y: value(s, k, i) })),
        i,
        o.points === false ? { pointRadius: 0 } : {},
      ),
    );
  // Pooled once per process, not per point.
  const pooled = serving.map((p) => gcSharePooled(p.seconds));
  const band = warmupBand(seconds.some((s) => s.t < 0) ? warmup : 0);
  const xTitle = band ? 'time (s, from the end of start-up; shaded: warm-up, not measured)' : 'time (s)';
  const panel = (title: string, yTitle: string, data: LineSet[], yMax?: number): ChartConfiguration<'line', XY[]> => {
    const c = lineConfig(title, xTitle, yTitle, data, { yMin: 0, xMin: 0 });
    if (yMax !== undefined) c.options!.scales!['y']!.max = yMax;
    return withBand(c, band);
  };
  return {
    elu: panel(
      'Event-loop utilization per second',
      'event-loop utilization (0–1, 1 = never idle)',
      sets((s) => s.elu),
      1,
    ),
    delay: panel(
      'Event-loop delay p99 per second',
      'event-loop delay p99 (ms)',
      sets((s) => s.delayP99Ms),
    ),
    gc: panel(
      `Time in GC pauses (each second with the ${GC_POOL_SECONDS - 1} before it)`,
      'GC share (% of the time)',
      sets((_s, k, i) => {
        const share = pooled[i]?.[k] ?? null;
        return share === null ? null : 100 * share;
      }),
    ),
    lines: serving.length,
    warmup,
    othersNote: othersNote(others),
  };
}

/** Why a cell shows no probe charts, in words: what the probe said, or that it was off. */
export function noProbeText(
  probe: { note?: string } | null | undefined,
  asked: boolean,
  seconds: readonly ProbeSecond[],
  mode?: LaunchMode,
): string {
  if (probe?.note) return sentence(probe.note);
  if (!asked)
    return 'No runtime probe in this cell: it ran with the probe off ("probe": false, --no-probe) or before Rightsize had one.';
  const { others } = probeProcesses(seconds, mode);
  if (others.length)
    return `No worker reported to the runtime probe; only ${others.map((p) => p.label).join(', ')}, which serve${others.length > 1 ? '' : 's'} no requests.`;
  return 'No runtime probe data: no process of this cell reported while it was measured.';
}

/** A probe's note as a sentence: "The probe could not attach to …." */
export const sentence = (note: string): string =>
  `${note.charAt(0).toUpperCase()}${note.slice(1)}${/[.!?]$/.test(note) ? '' : '.'}`;
