// Memory in the answer: the peak a configuration reached, what each worker adds, the limit to
// deploy with, and what the matrix's memory caps showed (OOM kills, restarts, GC pressure). Pure
// functions of a stored run's cells and the grouped configurations.
import { fmtNum } from '../common/format.ts';
import type { StoredCell } from '../store/index.ts';
import { configurationKey, MAX_ERROR_PCT, memLabel } from './group.ts';
import { ALPHA, estimateOf, holm, mean, summarize, tQuantile, welch, type MetricStats } from './stats.ts';
import type { ConfigurationSummary, MemoryCap, MemoryOutcome, MemorySizing, PeakSource, WorkerSlope } from './types.ts';

/** The recommended limit is the peak times this… */
export const MEMORY_HEADROOM = 1.25;
/** …rounded up to a multiple of this many MB (MiB, as Docker's `--memory 256m` and Kubernetes' `256Mi` count). */
export const MEMORY_ROUND_MB = 32;
/** The rule in words, as the answer states it. */
export const MEMORY_LIMIT_RULE =
  `limit = peak × ${MEMORY_HEADROOM} rounded up to a multiple of ${MEMORY_ROUND_MB} MB, raised to the smallest clean cap when the matrix saw a cap at or above that fail`;

const MIB = 1024 * 1024;

/** Bytes as the caps are written: "182 MB" (MiB, like "256 MB" of a cap); one decimal below 10. */
export const fmtMb = (bytes: number): string => `${fmtNum(bytes / MIB, Math.abs(bytes) < 10 * MIB ? 1 : 0)} MB`;

/** peak × MEMORY_HEADROOM, rounded up to MEMORY_ROUND_MB (MB). */
export function limitFromPeak(peakBytes: number): number {
  return Math.max(MEMORY_ROUND_MB, Math.ceil((peakBytes * MEMORY_HEADROOM) / MIB / MEMORY_ROUND_MB) * MEMORY_ROUND_MB);
}

/**
 * A cell's peak memory and its source. New cells carry the cgroup's own peak (page cache included,
 * over the container's whole life); older ones only the highest 1 Hz reading after warmup without
 * inactive page cache ('legacy'), which can miss a short spike.
 */
export function cellPeak(c: StoredCell): { bytes: number; source: Exclude<PeakSource, 'mixed'> } | null {
  const s = c.stats;
  if (s?.memPeakBytes !== undefined && s.memPeakBytes > 0) return { bytes: s.memPeakBytes, source: s.memPeakSource ?? 'samples' };
  const legacy = s?.memMaxBytes ?? c.memMaxBytes;
  return legacy != null && legacy > 0 ? { bytes: legacy, source: 'legacy' } : null;
}

/** Cells whose memory counts: every one that finished 'ok' (an unstable repetition's memory is still real), by configuration key. */
export function finishedCellsByKey(cells: readonly StoredCell[]): Map<string, StoredCell[]> {
  const out = new Map<string, StoredCell[]>();
  for (const c of cells) {
    if (c.status !== 'ok') continue;
    const k = configurationKey(c.config);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

/**
 * Ordinary least squares of y on x with the slope's 95 % interval (Student's t, n − 2 df). Written
 * here rather than taken from simple-statistics, whose linearRegression gives the point estimate
 * but not the slope's standard error, which is the part that matters; stats.ts already has the t
 * distribution, and this module is bundled into the renderer. Null below two distinct x.
 */
export function leastSquares(points: readonly { x: number; y: number }[]): { slope: number; intercept: number; halfWidth: number | null; n: number } | null {
  const n = points.length;
  if (n < 2 || new Set(points.map((p) => p.x)).size < 2) return null;
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  if (n === 2) return { slope, intercept, halfWidth: null, n };
  const sse = points.reduce((a, p) => a + (p.y - intercept - slope * p.x) ** 2, 0);
  const se = Math.sqrt(sse / (n - 2) / sxx);
  return { slope, intercept, halfWidth: tQuantile(0.975, n - 2) * se, n };
}

/** Configurations that differ from `c` only in the worker count (same workload, load, mode, CPU and memory cap). */
const sameButWorkers = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.scopeKey === c.scopeKey && a.mode === c.mode;
/** …only in the memory cap. */
export const sameButMemory = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.app === c.app && a.requestSet === c.requestSet && JSON.stringify(a.load) === JSON.stringify(c.load) && a.mode === c.mode && a.workers === c.workers && a.cpuMillis === c.cpuMillis;

/** Memory per worker for `c`: the slope of every repetition's peak against its worker count, at c's mode, CPU and memory cap. */
export function perWorkerSlope(c: ConfigurationSummary, all: readonly ConfigurationSummary[], cells: Map<string, StoredCell[]>): { slope: WorkerSlope | null; note: string | null } {
  if (c.mode === 'single') return { slope: null, note: 'a single process: no workers to add' };
  const family = all.filter((a) => sameButWorkers(a, c));
  const points = family.flatMap((a) => (cells.get(a.key) ?? []).flatMap((cell) => {
    const p = cellPeak(cell);
    return p ? [{ x: a.workers, y: p.bytes }] : [];
  }));
  const counts = [...new Set(points.map((p) => p.x))].sort((x, y) => x - y);
  if (counts.length < 2) {
    return { slope: null, note: `the matrix ran only ${counts.length ? `${counts[0]} worker${counts[0] === 1 ? '' : 's'}` : 'this'} in ${c.mode} mode at this CPU and memory cap, so there is no slope` };
  }
  const fit = leastSquares(points)!;
  return {
    slope: { bytesPerWorker: fit.slope, halfWidth: fit.halfWidth, baseBytes: fit.intercept, points: fit.n, workerCounts: counts, memoryMb: c.memoryMb, cpuMillis: c.cpuMillis },
    note: null,
  };
}

/** "in 2 of 3 repetitions", "in its one repetition". */
const inReps = (k: number, n: number): string => (n === 1 ? 'in its one repetition' : `in ${k} of ${n} repetitions`);

/** What ended a cap's repetitions, before any test: an OOM kill, restarts, failed requests or nothing finished. */
function hardOutcome(a: ConfigurationSummary): { outcome: MemoryOutcome; detail: string } | null {
  const all = a.n + a.excluded.length;
  const oom = a.excluded.filter((e) => e.status === 'oom').length + (a.flags.find((f) => f.kind === 'oom-killed')?.cells ?? 0);
  if (oom > 0) return { outcome: 'oom', detail: `OOM-killed ${inReps(oom, all)}` };
  const restarts = a.flags.find((f) => f.kind === 'restarts');
  if (restarts) return { outcome: 'restarts', detail: `workers replaced ${inReps(restarts.cells, a.n)}` };
  if (a.errorPct !== null && a.errorPct > MAX_ERROR_PCT) return { outcome: 'errors', detail: `${fmtNum(a.errorPct, a.errorPct < 10 ? 1 : 0)} % of requests failed` };
  if (a.n === 0 || !a.rps || !a.p99Us) return { outcome: 'no-result', detail: `no repetition finished (${[...new Set(a.excluded.map((e) => e.reason))].join('; ') || 'not run'})` };
  return null;
}

/**
 * One-sided Welch test that `x` is worse than `ref` by more than the margin: goodput below
 * (1 − m) × ref, or p99 above (1 + m) × ref. Means only, when a side has no interval.
 */
function penaltyTest(x: MetricStats, ref: MetricStats, marginPct: number, lowerIsWorse: boolean): { p: number | null; worse: boolean } {
  const share = lowerIsWorse ? 1 - marginPct / 100 : 1 + marginPct / 100;
  const a = estimateOf(x);
  const b = estimateOf(ref);
  if (!a || !b) return { p: null, worse: lowerIsWorse ? x.mean < ref.mean * share : x.mean > ref.mean * share };
  const t = welch(a, b, share);
  // With a test, `worse` is decided on the Holm-adjusted p by the caller.
  return { p: lowerIsWorse ? t.pBelow : t.pAbove, worse: false };
}

/**
 * The memory dimension of the matrix for `c`: each cap tried for the same workload, load, mode,
 * workers and CPU, judged against the largest cap that ran clean. A tighter cap that lost goodput or
 * p99 beyond the margin, significantly (one-sided Welch, Holm-adjusted over the caps tested), with no
 * OOM kill or restart, shows GC pressure (goodput) or a latency penalty (p99).
 */
export function memoryCaps(c: ConfigurationSummary, all: readonly ConfigurationSummary[], cells: Map<string, StoredCell[]>, marginPct: number): {
  caps: MemoryCap[]; referenceMb: number | null; smallestCleanMb: number | null; failedAtMb: number | null; failedOutcome: MemoryOutcome | null;
} {
  const family = all.filter((a) => sameButMemory(a, c)).sort((a, b) => a.memoryMb - b.memoryMb);
  const hard = family.map(hardOutcome);
  const refIndex = hard.map((h, i) => (h === null ? i : -1)).filter((i) => i >= 0).pop();
  const ref = refIndex === undefined ? undefined : family[refIndex]!;
  // Tests against the reference for every clean cap below it, Holm-adjusted per metric over those caps.
  const tested = family.map((a, i) => (ref && hard[i] === null && a !== ref ? i : -1)).filter((i) => i >= 0);
  const rpsTests = tested.map((i) => penaltyTest(family[i]!.rps!, ref!.rps!, marginPct, true));
  const p99Tests = tested.map((i) => penaltyTest(family[i]!.p99Us!, ref!.p99Us!, marginPct, false));
  const adjust = (ts: { p: number | null }[]): (number | null)[] => {
    const withP = ts.map((t, i) => (t.p === null ? -1 : i)).filter((i) => i >= 0);
    const adj = holm(withP.map((i) => ts[i]!.p!));
    return ts.map((_, i) => (withP.includes(i) ? adj[withP.indexOf(i)]! : null));
  };
  const rpsP = adjust(rpsTests);
  const p99P = adjust(p99Tests);
  const caps: MemoryCap[] = family.map((a, i) => {
    const peaks = (cells.get(a.key) ?? []).map(cellPeak).filter((p) => p !== null);
    const peakBytes = peaks.length ? Math.max(...peaks.map((p) => p.bytes)) : null;
    const h = hard[i];
    if (h) return { memoryMb: a.memoryMb, outcome: h.outcome, detail: h.detail, peakBytes, rpsRatio: null, p99Ratio: null, pRps: null, pP99: null };
    if (a === ref) return { memoryMb: a.memoryMb, outcome: 'ok', detail: family.length > 1 ? 'the largest clean cap: the reference' : 'ran clean', peakBytes, rpsRatio: null, p99Ratio: null, pRps: null, pP99: null };
    const j = tested.indexOf(i);
    // Ratios stay finite (the HTTP transport's JSON has no Infinity): none against a zero reference.
    const rpsRatio = ref!.rps!.mean > 0 ? a.rps!.mean / ref!.rps!.mean : null;
    const p99Ratio = ref!.p99Us!.mean > 0 ? a.p99Us!.mean / ref!.p99Us!.mean : null;
    const pRps = rpsP[j]!;
    const pP99 = p99P[j]!;
    const rpsWorse = pRps !== null ? pRps <= ALPHA : rpsTests[j]!.worse;
    const p99Worse = pP99 !== null ? pP99 <= ALPHA : p99Tests[j]!.worse;
    const how = (p: number | null): string => (p === null ? 'on the means, no interval' : `Holm-adjusted p ${p < 0.001 ? '< 0.001' : fmtNum(p, 3)}`);
    const refName = memLabel(ref!.memoryMb);
    const base = { memoryMb: a.memoryMb, peakBytes, rpsRatio, p99Ratio, pRps, pP99 };
    if (rpsWorse) return { ...base, outcome: 'gc-pressure', detail: `goodput ${fmtNum((1 - (rpsRatio ?? 1)) * 100, 0)} % below ${refName} with no OOM kill or restart (${how(pRps)})` };
    if (p99Worse) return { ...base, outcome: 'latency', detail: `p99 ${fmtNum(((p99Ratio ?? 1) - 1) * 100, 0)} % above ${refName} (${how(pP99)})` };
    return { ...base, outcome: 'ok', detail: `no significant loss against ${refName} beyond ${fmtNum(marginPct, marginPct % 1 ? 1 : 0)} %` };
  });
  // Walk down from the largest cap while it ran clean: the boundary is where it first did not.
  let smallestCleanMb: number | null = null;
  let failed: MemoryCap | null = null;
  for (const cap of [...caps].reverse()) {
    if (cap.outcome === 'no-result') continue; // nothing finished there (cancelled, failed to start): no evidence either way
    if (cap.outcome === 'ok') smallestCleanMb = cap.memoryMb;
    else {
      failed = cap;
      break;
    }
  }
  return { caps, referenceMb: ref?.memoryMb ?? null, smallestCleanMb, failedAtMb: failed?.memoryMb ?? null, failedOutcome: failed?.outcome ?? null };
}

/** Peak, memory per worker, the recommended limit and the memory caps' evidence for one configuration. */
export function memorySizing(c: ConfigurationSummary, all: readonly ConfigurationSummary[], cells: Map<string, StoredCell[]>, marginPct: number): MemorySizing {
  const peaks = (cells.get(c.key) ?? []).map(cellPeak).filter((p) => p !== null);
  const sources = new Set(peaks.map((p) => p.source));
  const peakBytes = peaks.length ? Math.max(...peaks.map((p) => p.bytes)) : null;
  const summary = peaks.length ? summarize(peaks.map((p) => p.bytes)) : null;
  const { slope, note } = perWorkerSlope(c, all, cells);
  const caps = memoryCaps(c, all, cells, marginPct);
  let limitMb = peakBytes === null ? null : limitFromPeak(peakBytes);
  let limitFrom: MemorySizing['limitFrom'] = limitMb === null ? null : 'peak';
  // The rule's value is not enough where the matrix saw a cap that large fail: take the smallest clean one above it.
  if (limitMb !== null && caps.failedAtMb !== null && caps.failedAtMb >= limitMb && caps.smallestCleanMb !== null) {
    limitMb = caps.smallestCleanMb;
    limitFrom = 'matrix';
  }
  return {
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
  };
}
