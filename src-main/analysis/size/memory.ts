// Memory in the answer: the peak a configuration reached, what each worker adds, the limit to
// deploy with, and what the matrix's memory caps showed (memory-caps.ts). Pure functions of a stored
// run's cells and the grouped configurations.
import { fitLine } from '../../common/least-squares.ts';
import type { StoredCell } from '../../model/stored.ts';
import { cellPeak, freshNeed, type FreshNeed } from './fresh-need.ts';
import { configurationKey, sameRuntime } from '../decide/group.ts';
import { memoryCaps } from './memory-caps.ts';
import { oneReplicaCells, totalPeakBytes } from './memory-replicas.ts';
import { summarize, tQuantile } from '../decide/stats.ts';
import type { ConfigurationSummary, MemorySizing, WorkerSlope } from '../types.ts';

export { fmtMb } from '../../common/format.ts';
export {
  cellFreshNeed,
  cellPeak,
  FRESH_MEASURE_WORDS,
  freshNeed,
  freshNeedText,
  type FreshMeasure,
  type FreshNeed,
} from './fresh-need.ts';
export { memoryCaps, sameButMemory } from './memory-caps.ts';

/** The recommended limit is the peak times this… */
export const MEMORY_HEADROOM = 1.25;

/** …rounded up to a multiple of this many MB (MiB, as Docker's `--memory 256m` and Kubernetes' `256Mi` count). */
export const MEMORY_ROUND_MB = 32;

/** The rule in words, as the answer states it. */
export const MEMORY_LIMIT_RULE =
  `limit = what a fresh deployment needs (the larger of the cgroup's peak and the processes' resident memory, ` +
  `file-backed pages counted once) × ${MEMORY_HEADROOM} rounded up to a multiple of ${MEMORY_ROUND_MB} MB, ` +
  'raised to the smallest clean cap when the matrix saw a cap at or above that fail';

const MIB = 1024 * 1024;

/**
 * peak × MEMORY_HEADROOM, rounded up to MEMORY_ROUND_MB (MB). The peak: what a fresh deployment needs
 * (FreshNeed.bytes), or a cgroup peak where that is all there is.
 */
export function limitFromPeak(peakBytes: number): number {
  return Math.max(MEMORY_ROUND_MB, Math.ceil((peakBytes * MEMORY_HEADROOM) / MIB / MEMORY_ROUND_MB) * MEMORY_ROUND_MB);
}

/**
 * The memory an auto-size search gives a configuration for a need (bytes): limitFromPeak, then the
 * first of its memory steps (min, min + step, …, max) at or above that; the bounds' maximum without a
 * need or when no step is. The search (engine/auto-size/search.ts) and the answer's words both use it.
 */
export function memoryStepFor(needBytes: number | null, bounds: { min: number; max: number }, stepMb: number): number {
  if (needBytes === null) return bounds.max;
  const want = limitFromPeak(needBytes);
  for (let m = bounds.min; m < bounds.max; m += stepMb) if (m >= want) return m;
  return bounds.max;
}

/**
 * Cells whose memory counts: every one that finished 'ok' (an unstable repetition's memory is still real), by
 * configuration key.
 */
export function finishedCellsByKey(cells: readonly StoredCell[]): Map<string, StoredCell[]> {
  const out = new Map<string, StoredCell[]>();
  for (const c of cells) {
    // A verification cell ran under the snippet's own limits: evidence for the snippet, not for sizing.
    if (c.status !== 'ok' || c.config.phase === 'verify') continue;
    const k = configurationKey(c.config);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

/**
 * Ordinary least squares of y on x (common/least-squares.ts) with the slope's 95 % interval
 * (Student's t, n − 2 df): simple-statistics' linearRegression gives the point estimate but not the
 * slope's standard error, which is the part that matters. Null below two distinct x.
 */
export function leastSquares(
  points: readonly { x: number; y: number }[],
): { slope: number; intercept: number; halfWidth: number | null; n: number } | null {
  const fit = fitLine(points);
  if (!fit) return null;
  const { slope, intercept, n, slopeSe } = fit;
  return { slope, intercept, halfWidth: slopeSe === null ? null : tQuantile(0.975, n - 2) * slopeSe, n };
}

/** Configurations that differ from `c` only in the worker count (same workload, load, mode, CPU and memory cap). */
const sameButWorkers = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.scopeKey === c.scopeKey && a.mode === c.mode && sameRuntime(a, c);

/**
 * Memory per worker for `c`: the slope of every repetition's peak against its worker count, at c's mode, CPU and memory
 * cap.
 */
export function perWorkerSlope(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
): { slope: WorkerSlope | null; note: string | null } {
  if (c.mode === 'single') return { slope: null, note: 'a single process: no workers to add' };
  const family = all.filter((a) => sameButWorkers(a, c));
  const points = family.flatMap((a) =>
    (cells.get(a.key) ?? []).flatMap((cell) => {
      const p = cellPeak(cell);
      return p ? [{ x: a.workers, y: p.bytes }] : [];
    }),
  );
  const counts = [...new Set(points.map((p) => p.x))].sort((x, y) => x - y);
  if (counts.length < 2) {
    return {
      slope: null,
      note:
        `the matrix ran only ${counts.length ? `${counts[0]} worker${counts[0] === 1 ? '' : 's'}` : 'this'} ` +
        `in ${c.mode} mode at this CPU and memory cap, so there is no slope`,
    };
  }
  const fit = leastSquares(points)!;
  return {
    slope: {
      bytesPerWorker: fit.slope,
      halfWidth: fit.halfWidth,
      baseBytes: fit.intercept,
      points: fit.n,
      workerCounts: counts,
      memoryMb: c.memoryMb,
      cpuMillis: c.cpuMillis,
    },
    note: null,
  };
}

/** MemorySizing with what a fresh deployment needs (the limit's base). */
export type MemorySizingWithFresh = MemorySizing & { fresh: FreshNeed | null };

/**
 * Peak, memory per worker, the recommended limit and the memory caps' evidence for one
 * configuration. The limit is taken from what a fresh deployment needs (`fresh`): the peak where
 * the cells carry no process readings (older runs, targets whose processes are not visible here).
 */
export function memorySizing(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  finished: Map<string, StoredCell[]>,
  marginPct: number,
): MemorySizingWithFresh {
  // Replicas: the limit is per container, from one replica's memory (the largest), never the total.
  const raw = finished.get(c.key) ?? [];
  const view = oneReplicaCells(finished);
  const cells = view.cells;
  const own = cells.get(c.key) ?? [];
  const peaks = own.map(cellPeak).filter((p) => p !== null);
  const fresh = freshNeed(own);
  const sources = new Set(peaks.map((p) => p.source));
  const peakBytes = peaks.length ? Math.max(...peaks.map((p) => p.bytes)) : null;
  const summary = peaks.length ? summarize(peaks.map((p) => p.bytes)) : null;
  const { slope, note } = perWorkerSlope(c, all, cells);
  const caps = memoryCaps(c, all, cells, marginPct);
  const need = fresh?.bytes ?? peakBytes;
  let limitMb = need === null ? null : limitFromPeak(need);
  let limitFrom: MemorySizing['limitFrom'] = limitMb === null ? null : 'peak';
  // The rule's value is not enough where the matrix saw a cap that large fail: take the smallest clean one above it.
  if (limitMb !== null && caps.failedAtMb !== null && caps.failedAtMb >= limitMb && caps.smallestCleanMb !== null) {
    limitMb = caps.smallestCleanMb;
    limitFrom = 'matrix';
  }
  const count = Math.max(1, c.replicas ?? 1);
  const from = view.from.get(c.key);
  const replicas =
    count >= 2 && from
      ? { count, from, totalPeakBytes: totalPeakBytes(raw), limitTotalMb: limitMb === null ? null : limitMb * count }
      : null;
  return {
    ...(replicas ? { replicas } : {}),
    peakBytes,
    peakMeanBytes: summary?.mean ?? null,
    peakHalfWidthBytes: summary?.ci?.halfWidth ?? null,
    peakSource: sources.size === 0 ? null : sources.size === 1 ? [...sources][0]! : 'mixed',
    repetitions: peaks.length,
    peakShareOfCap: peakBytes === null ? null : peakBytes / (c.memoryMb * MIB),
    perWorker: slope,
    perWorkerNote: note,
    limitMb,
    limitFrom,
    ...caps,
    fresh,
  };
}
