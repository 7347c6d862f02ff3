// Is a cell's throughput in a steady state? Two pure decisions over per-second req/s:
//  - during warmup: may measurement start now (the last few seconds flat)? — warmup.ts, kept
//    apart so the load agent's bundle carries no statistics library;
//  - after measurement: did the measured seconds drift or step (then the cell is `unstable`)?
// The t distribution and the least-squares line come from common/: one implementation of each for
// every test Rightsize makes.
import { fitLine } from '../common/least-squares.ts';
import { studentTCdf } from '../common/t-distribution.ts';
import { UNSTABLE_ALPHA, UNSTABLE_CHANGE } from '../common/thresholds.ts';

export { isWarm, WARM_WINDOW_SEC, warmupBounds, warmupCapSec } from './warmup.ts';

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

export interface Stationarity {
  unstable: boolean;
  /** Plain words, when unstable: what moved and by how much. */
  reason?: string;
  /** Least-squares trend, % of the mean per second, and its two-sided p-value (null below 3 seconds). */
  trendPctPerSec: number | null;
  trendP: number | null;
  /**
   * The strongest level shift: seconds [from, to) (0-based; to = n is a step from `from` on)
   * against the rest, the change in % of the rest's level, and its p-value (Bonferroni over every cut).
   */
  shift: { from: number; to: number; changePct: number; p: number } | null;
}

const twoSidedP = (t: number, df: number): number =>
  Number.isFinite(t) ? Math.min(1, 2 * studentTCdf(-Math.abs(t), df)) : 0;
const signedPct = (x: number): string =>
  `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x) >= 10 ? Math.round(Math.abs(x)) : Math.abs(x).toFixed(1)} %`;

/** Ordinary least squares slope of y (n ≥ 3) against 0..n−1, with its t statistic (df n − 2). */
function trend(y: readonly number[]): { slope: number; t: number } {
  const { slope, slopeSe: se } = fitLine(y.map((v, i) => ({ x: i, y: v })))!;
  return { slope, t: se === 0 ? (slope === 0 ? 0 : Math.sign(slope) * Infinity) : slope / se! };
}

/**
 * The strongest level shift: every way of cutting the seconds into one stretch and the rest (a step
 * is a stretch that runs to the end; a dip or a burst sits in the middle), each side at least two
 * seconds. The difference of the two means is set against its standard error from the pooled
 * residual variance (df n − 2: in a steady state both sides share one noise), which keeps the test
 * usable on 5-second cells where a two-second side would leave Welch's test one degree of freedom.
 */
function strongestShift(
  y: readonly number[],
): { from: number; to: number; inside: number; rest: number; t: number; tried: number } | null {
  const n = y.length;
  // Prefix sums of values and squares (shifted by the mean, for precision): every cut in O(1), all in O(n²).
  const c = meanOf(y);
  const s1 = [0];
  const s2 = [0];
  for (const v of y) {
    s1.push(s1.at(-1)! + (v - c));
    s2.push(s2.at(-1)! + (v - c) ** 2);
  }
  let best: { from: number; to: number; inside: number; rest: number; t: number } | null = null;
  let tried = 0;
  // [i, j) against the rest, i ≥ 1: a stretch from 0 is the same cut as the rest starting at its end.
  for (let i = 1; i < n; i++) {
    for (let j = i + 2; j <= n; j++) {
      const k = j - i;
      if (n - k < 2) continue;
      tried++;
      const sumIn = s1[j]! - s1[i]!;
      const sumRest = s1[n]! - sumIn;
      const sse = Math.max(0, s2[n]! - sumIn ** 2 / k - sumRest ** 2 / (n - k));
      const mi = c + sumIn / k;
      const mr = c + sumRest / (n - k);
      const se = Math.sqrt((sse / (n - 2)) * (1 / k + 1 / (n - k)));
      const t = se === 0 ? (mi === mr ? 0 : Math.sign(mi - mr) * Infinity) : (mi - mr) / se;
      if (!best || Math.abs(t) > Math.abs(best.t)) best = { from: i, to: j, inside: mi, rest: mr, t };
    }
  }
  return best ? { ...best, tried } : null;
}

/**
 * Tests the measured seconds for a drift (least-squares trend, t-test) and a level shift (the
 * strongest stretch against the rest, Bonferroni over every cut). Unstable when either is
 * significant at UNSTABLE_ALPHA and moves throughput by at least UNSTABLE_CHANGE.
 */
export function stationarity(series: readonly number[]): Stationarity {
  const n = series.length;
  const m = n ? meanOf(series) : 0;
  if (n < 3 || !(m > 0)) return { unstable: false, trendPctPerSec: null, trendP: null, shift: null };
  const tr = trend(series);
  const trendP = twoSidedP(tr.t, n - 2);
  const trendPctPerSec = (tr.slope / m) * 100;
  const sh = strongestShift(series);
  const shift = sh
    ? { from: sh.from, to: sh.to, changePct: changePct(sh), p: Math.min(1, twoSidedP(sh.t, n - 2) * sh.tried) }
    : null;

  const reasons: string[] = [];
  if (
    sh &&
    shift!.p < UNSTABLE_ALPHA &&
    Math.abs(sh.inside - sh.rest) >= UNSTABLE_CHANGE * Math.max(sh.inside, sh.rest)
  ) {
    reasons.push(`${shiftWords(sh, n, shift!.changePct)} (p ${fmtP(shift!.p)})`);
  }
  if (trendP < UNSTABLE_ALPHA && Math.abs(tr.slope) * (n - 1) >= UNSTABLE_CHANGE * m) {
    reasons.push(`a trend of ${signedPct(trendPctPerSec)}/s over ${n} s (p ${fmtP(trendP)})`);
  }
  return {
    unstable: reasons.length > 0,
    ...(reasons.length ? { reason: `not a steady state: ${reasons.join('; ')}` } : {}),
    trendPctPerSec,
    trendP,
    shift,
  };
}

type Shift = NonNullable<ReturnType<typeof strongestShift>>;

/** The stretch's level against the rest's (for a step, the rest is what came before it). */
const changePct = (s: Shift): number => (s.rest > 0 ? ((s.inside - s.rest) / s.rest) * 100 : Infinity);

/** A step (a stretch to the end) reads as "after the first k s"; a stretch in the middle, against the rest. */
function shiftWords(s: Shift, n: number, change: number): string {
  const size = Number.isFinite(change) ? `${Math.round(Math.abs(change))} %` : 'from nothing';
  if (s.to === n) {
    const where = s.from * 2 === n ? 'between the first and the second half' : `after the first ${s.from} of ${n} s`;
    return `throughput ${change < 0 ? 'fell' : 'rose'} ${size} ${where}`;
  }
  return (
    `throughput was ${size} ${change < 0 ? 'lower' : 'higher'} in seconds ${s.from + 1}–${s.to} of ${n} than ` +
    'in the rest'
  );
}

const fmtP = (p: number): string => (p < 0.001 ? '< 0.001' : `= ${p.toFixed(3)}`);
