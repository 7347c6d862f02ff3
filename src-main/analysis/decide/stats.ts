// Small-sample statistics for repetitions of one configuration (typically 2–10 values) and for one
// cell's seconds by batch means, so the Student's t distribution, not the normal, sets the width of
// an interval; Welch's t-test and Holm's correction make the decisions. The t distribution itself
// comes from common/t-distribution.ts (stdlib's, checked against published tables in the unit tests).

import { studentTCdf, tQuantile } from '../../common/t-distribution.ts';
import { ALPHA } from '../../common/thresholds.ts';
import type { Estimate, Interval, IntervalSource, MetricStats, TTest } from '../stats-types.ts';

// ALPHA is a decision threshold (common/thresholds.ts), passed on with the tests it is for.
export { ALPHA, studentTCdf, tQuantile };
export type { Estimate, Interval, IntervalSource, MetricStats, TTest };

/** The level of every interval shown: the two-sided counterpart of ALPHA. */
export const CONFIDENCE = 0.95;

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('mean of no values');
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample standard deviation (n − 1); null below two values, where it is undefined. */
export function stddev(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Coefficient of variation (stddev ÷ mean); null below two values or for a zero mean. */
export function cv(xs: readonly number[]): number | null {
  const sd = stddev(xs);
  const m = xs.length ? mean(xs) : 0;
  return sd === null || m === 0 ? null : sd / Math.abs(m);
}

/** Two-sided confidence interval of the mean (Student's t); null below two values. */
export function confidenceInterval(xs: readonly number[], level = CONFIDENCE): Interval | null {
  const sd = stddev(xs);
  if (sd === null) return null;
  const m = mean(xs);
  const halfWidth = (tQuantile(1 - (1 - level) / 2, xs.length - 1) * sd) / Math.sqrt(xs.length);
  return { level, low: m - halfWidth, high: m + halfWidth, halfWidth };
}

/**
 * The fewest values (repetitions, or batches of one cell's seconds) an interval and a test rest on:
 * with two, Student's t has one degree of freedom (t = 12.7) and the interval is wider than the
 * number itself. Below it the answer says "too few repetitions to bound" and no test decides.
 */
export const MIN_VALUES_TO_BOUND = 3;

/**
 * A 95 % interval for a positive quantity (goodput, latency) from a mean and its standard error:
 * taken on the log scale (se ÷ mean there, the delta method), so it is asymmetric and never reaches
 * zero; `halfWidth` is half its width.
 */
export function positiveInterval(m: number, se: number, df: number, level = CONFIDENCE): Interval {
  if (!(m > 0)) return { level, low: m, high: m, halfWidth: 0 };
  const half = tQuantile(1 - (1 - level) / 2, df) * (se / m);
  const low = m * Math.exp(-half);
  const high = m * Math.exp(half);
  return { level, low, high, halfWidth: (high - low) / 2 };
}

/** Statistics over repetitions: the honest spread, since each repetition is a fresh container, placement and moment. */
export function summarize(values: readonly number[]): MetricStats {
  const sd = stddev(values);
  const n = values.length;
  const m = mean(values);
  const bounded = sd !== null && n >= MIN_VALUES_TO_BOUND;
  const se = bounded ? sd / Math.sqrt(n) : null;
  return {
    n,
    mean: m,
    stddev: sd,
    ci: se !== null ? positiveInterval(m, se, n - 1) : null,
    cv: cv(values),
    values: [...values],
    se,
    df: se !== null ? n - 1 : null,
    intervalFrom: se !== null ? 'repetitions' : null,
  };
}

/**
 * Batch means of one cell's per-second series. Consecutive seconds are autocorrelated (a GC pause,
 * a slow connection, the scheduler carry over into the next second), so treating n seconds as n
 * independent samples would make the interval far too narrow. The series is cut into k batches of
 * b = ⌊√n⌋ consecutive seconds (the usual rule: batches grow with the run so their means become
 * nearly independent); the earliest n − k·b seconds, nearest the warmup, are left out. Null below
 * two batches.
 */
export function batchMeans(series: readonly number[]): { means: number[]; batchSize: number } | null {
  const n = series.length;
  const b = Math.max(1, Math.floor(Math.sqrt(n)));
  const k = Math.floor(n / b);
  if (k < 2) return null;
  const skip = n - k * b;
  const means = Array.from({ length: k }, (_, i) => mean(series.slice(skip + i * b, skip + (i + 1) * b)));
  return { means, batchSize: b };
}

/** One value with no interval: too little to bound. */
const unbounded = (value: number): MetricStats => ({
  n: 1,
  mean: value,
  stddev: null,
  ci: null,
  cv: null,
  values: [value],
  se: null,
  df: null,
  intervalFrom: null,
});

/**
 * One repetition: the point is the cell's own mean, its uncertainty comes from the batch means of
 * its seconds (Student's t with k − 1 degrees of freedom). Null when the series is too short. This
 * sees second-to-second noise only, not run-to-run variation, so it is the weaker interval.
 */
export function summarizeOne(value: number, series: readonly number[] | null, level = CONFIDENCE): MetricStats {
  const batches = series ? batchMeans(series) : null;
  const sd = batches && batches.means.length >= MIN_VALUES_TO_BOUND ? stddev(batches.means) : null;
  if (!batches || sd === null)
    return unbounded(value);
  const k = batches.means.length;
  const se = sd / Math.sqrt(k);
  return {
    n: 1,
    mean: value,
    stddev: null,
    ci: positiveInterval(value, se, k - 1, level),
    cv: null,
    values: [value],
    se,
    df: k - 1,
    intervalFrom: 'batch-means',
  };
}

/**
 * Mean of batch means pooled over series (each cut by batchMeans), with its two-sided interval (Student's t, k − 1 df).
 * Null below two batches.
 */
export function pooledInterval(
  series: readonly (readonly number[])[],
  level = CONFIDENCE,
): { mean: number; low: number; high: number; batches: number; se: number } | null {
  const means = series.flatMap((s) => batchMeans(s)?.means ?? []);
  const sd = stddev(means);
  if (sd === null) return null;
  const m = mean(means);
  const se = sd / Math.sqrt(means.length);
  const half = tQuantile(1 - (1 - level) / 2, means.length - 1) * se;
  return { mean: m, low: m - half, high: m + half, batches: means.length, se };
}

/**
 * Batch means of per-second latency percentiles on a log scale: positive and right-skewed (one GC
 * pause makes one second ten times worse), so the interval is taken on their logarithms, asymmetric
 * and never below zero. `mean`, `low`, `high` are back on the original scale (a geometric mean and its
 * interval); `logSe` and `batches` are the log-scale standard error and how many batches it rests on.
 * Null below two batches. Shared by the answer (one repetition's p99) and auto-size's judge.
 */
export function logPooledInterval(
  series: readonly (readonly number[])[],
  level = CONFIDENCE,
): { mean: number; low: number; high: number; batches: number; logSe: number } | null {
  const iv = pooledInterval(
    series.map((s) => s.filter((x) => x > 0).map(Math.log)),
    level,
  );
  return (
    iv && { mean: Math.exp(iv.mean), low: Math.exp(iv.low), high: Math.exp(iv.high), batches: iv.batches, logSe: iv.se }
  );
}

/**
 * One repetition's p99: the point is the cell's own p99 over all its requests; its uncertainty is the
 * relative one of the per-second p99s' batch means on a log scale (logPooledInterval), so the interval
 * is value × e^(∓t·se), asymmetric: `ci.halfWidth` is then half its width, not mean − low. For the
 * tests (Welch), se = value × log-scale se (the delta method), with k − 1 degrees of freedom. Like
 * summarizeOne it sees second-to-second noise only, not run-to-run variation.
 */
export function summarizeOneLog(value: number, series: readonly number[] | null, level = CONFIDENCE): MetricStats {
  const pooled = series ? logPooledInterval([series], level) : null;
  const iv = pooled && pooled.batches >= MIN_VALUES_TO_BOUND ? pooled : null;
  if (!iv)
    return unbounded(value);
  const half = tQuantile(1 - (1 - level) / 2, iv.batches - 1) * iv.logSe;
  const low = value * Math.exp(-half);
  const high = value * Math.exp(half);
  return {
    n: 1,
    mean: value,
    stddev: null,
    ci: { level, low, high, halfWidth: (high - low) / 2 },
    cv: null,
    values: [value],
    se: value * iv.logSe,
    df: iv.batches - 1,
    intervalFrom: 'batch-means',
  };
}

export const estimateOf = (m: MetricStats): Estimate | null =>
  m.se === null || m.df === null ? null : { mean: m.mean, se: m.se, df: m.df };

/**
 * Welch's t-test of a − c·b = 0 (c = 1 compares two means; c = 1 − margin tests against a share of
 * b). Unequal variances and unequal degrees of freedom are allowed; df by Welch–Satterthwaite.
 */
export function welch(a: Estimate, b: Estimate, c = 1): TTest {
  const va = a.se ** 2;
  const vb = (c * b.se) ** 2;
  const diff = a.mean - c * b.mean;
  const se = Math.sqrt(va + vb);
  if (se === 0) {
    // Exactly repeated values on both sides: no spread at all, so any difference is certain and none is
    // none. t saturates at ±Number.MAX_VALUE rather than ±Infinity, which JSON (the HTTP transport) cannot carry.
    const p = diff === 0 ? 1 : 0;
    return {
      diff,
      t: Math.sign(diff) * Number.MAX_VALUE,
      df: a.df + b.df,
      p,
      pBelow: diff < 0 ? 0 : 1,
      pAbove: diff > 0 ? 0 : 1,
    };
  }
  const df = (va + vb) ** 2 / ((va > 0 ? va ** 2 / a.df : 0) + (vb > 0 ? vb ** 2 / b.df : 0));
  const t = diff / se;
  const pBelow = studentTCdf(t, df);
  const pAbove = studentTCdf(-t, df);
  return { diff, t, df, p: Math.min(1, 2 * Math.min(pBelow, pAbove)), pBelow, pAbove };
}

/** Holm's step-down adjustment: adjusted p-values in the input order (reject where adjusted ≤ α). */
export function holm(ps: readonly number[]): number[] {
  const m = ps.length;
  const order = ps.map((p, i) => [p, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([p, i], rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    out[i] = running;
  });
  return out;
}
