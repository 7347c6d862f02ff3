// The memory dimension of the matrix: how each memory cap tried went for a configuration (clean, OOM
// kills, restarts, failed requests, GC pressure or a latency penalty) against the largest clean cap.
import { fmtNum } from '../../common/format.ts';
import { memLabel } from '../../common/resource-labels.ts';
import { MAX_ERROR_PCT } from '../../common/thresholds.ts';
import type { StoredCell } from '../../model/stored.ts';
import { cellPeak } from './fresh-need.ts';
import { sameBut } from '../decide/group.ts';
import { ALPHA, estimateOf, holm, welch, type MetricStats } from '../decide/stats.ts';
import type { ConfigurationSummary, MemoryCap, MemoryOutcome } from '../types.ts';

/** Configurations that differ only in the memory cap (same workload, load, mode, workers and CPU cap). */
export const sameButMemory = (a: ConfigurationSummary, c: ConfigurationSummary): boolean => sameBut('memoryMb', a, c);

/** "in 2 of 3 repetitions", "in its one repetition". */
const inReps = (k: number, n: number): string => (n === 1 ? 'in its one repetition' : `in ${k} of ${n} repetitions`);

/** What ended a cap's repetitions, before any test: an OOM kill, restarts, failed requests or nothing finished. */
function hardOutcome(a: ConfigurationSummary): { outcome: MemoryOutcome; detail: string } | null {
  const all = a.n + a.excluded.length;
  const oom =
    a.excluded.filter((e) => e.status === 'oom').length + (a.flags.find((f) => f.kind === 'oom-killed')?.cells ?? 0);
  if (oom > 0) return { outcome: 'oom', detail: `OOM-killed ${inReps(oom, all)}` };
  const restarts = a.flags.find((f) => f.kind === 'restarts');
  if (restarts) return { outcome: 'restarts', detail: `workers replaced ${inReps(restarts.cells, a.n)}` };
  if (a.errorPct !== null && a.errorPct > MAX_ERROR_PCT)
    return { outcome: 'errors', detail: `${fmtNum(a.errorPct, a.errorPct < 10 ? 1 : 0)} % of requests failed` };
  if (a.n === 0 || !a.rps || !a.p99Us)
    return {
      outcome: 'no-result',
      detail: `no repetition finished (${[...new Set(a.excluded.map((e) => e.reason))].join('; ') || 'not run'})`,
    };
  return null;
}

/**
 * One-sided Welch test that `x` is worse than `ref` by more than the margin: goodput below
 * (1 − m) × ref, or p99 above (1 + m) × ref. Means only, when a side has no interval.
 */
function penaltyTest(
  x: MetricStats,
  ref: MetricStats,
  marginPct: number,
  lowerIsWorse: boolean,
): { p: number | null; worse: boolean } {
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
export function memoryCaps(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
  marginPct: number,
): {
  caps: MemoryCap[];
  referenceMb: number | null;
  smallestCleanMb: number | null;
  failedAtMb: number | null;
  failedOutcome: MemoryOutcome | null;
} {
  const family = all.filter((a) => sameButMemory(a, c)).sort((a, b) => a.memoryMb - b.memoryMb);
  const hard = family.map(hardOutcome);
  const refIndex = hard
    .map((h, i) => (h === null ? i : -1))
    .filter((i) => i >= 0)
    .pop();
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
    if (h)
      return {
        memoryMb: a.memoryMb,
        outcome: h.outcome,
        detail: h.detail,
        peakBytes,
        rpsRatio: null,
        p99Ratio: null,
        pRps: null,
        pP99: null,
      };
    if (a === ref)
      return {
        memoryMb: a.memoryMb,
        outcome: 'ok',
        detail: family.length > 1 ? 'the largest clean cap: the reference' : 'ran clean',
        peakBytes,
        rpsRatio: null,
        p99Ratio: null,
        pRps: null,
        pP99: null,
      };
    const j = tested.indexOf(i);
    // Ratios stay finite (the HTTP transport's JSON has no Infinity): none against a zero reference.
    const rpsRatio = ref!.rps!.mean > 0 ? a.rps!.mean / ref!.rps!.mean : null;
    const p99Ratio = ref!.p99Us!.mean > 0 ? a.p99Us!.mean / ref!.p99Us!.mean : null;
    const pRps = rpsP[j]!;
    const pP99 = p99P[j]!;
    // A bound (client-bound, host-busy) below the reference says nothing of GC pressure: the server was at least that
    // fast.
    const rpsWorse = a.bottleneck !== null ? false : pRps !== null ? pRps <= ALPHA : rpsTests[j]!.worse;
    const p99Worse = pP99 !== null ? pP99 <= ALPHA : p99Tests[j]!.worse;
    const how = (p: number | null): string =>
      p === null ? 'on the means, no interval' : `Holm-adjusted p ${p < 0.001 ? '< 0.001' : fmtNum(p, 3)}`;
    const refName = memLabel(ref!.memoryMb);
    const base = { memoryMb: a.memoryMb, peakBytes, rpsRatio, p99Ratio, pRps, pP99 };
    if (rpsWorse)
      return {
        ...base,
        outcome: 'gc-pressure',
        detail:
          `goodput ${fmtNum((1 - (rpsRatio ?? 1)) * 100, 0)} % below ${refName} with no OOM kill or restart ` +
          `(${how(pRps)})`,
      };
    if (p99Worse)
      return {
        ...base,
        outcome: 'latency',
        detail: `p99 ${fmtNum(((p99Ratio ?? 1) - 1) * 100, 0)} % above ${refName} (${how(pP99)})`,
      };
    return {
      ...base,
      outcome: 'ok',
      detail: `no significant loss against ${refName} beyond ${fmtNum(marginPct, marginPct % 1 ? 1 : 0)} %`,
    };
  });
  return { caps, referenceMb: ref?.memoryMb ?? null, ...capBoundary(caps) };
}

/**
 * Walk down from the largest cap while it ran clean: the smallest clean cap, and the boundary where
 * it first did not (an undecided check counts as not clean: nothing showed it was).
 */
export function capBoundary(caps: readonly MemoryCap[]): {
  smallestCleanMb: number | null;
  failedAtMb: number | null;
  failedOutcome: MemoryOutcome | null;
} {
  let smallestCleanMb: number | null = null;
  let failed: MemoryCap | null = null;
  for (const cap of [...caps].reverse()) {
    // nothing finished there (cancelled, failed to start): no evidence either way
    if (cap.outcome === 'no-result') continue;
    if (cap.outcome === 'ok') smallestCleanMb = cap.memoryMb;
    else {
      failed = cap;
      break;
    }
  }
  return { smallestCleanMb, failedAtMb: failed?.memoryMb ?? null, failedOutcome: failed?.outcome ?? null };
}
