// The types of the small-sample statistics (analysis/decide/stats.ts): a mean with its interval, what a
// test needs of it, and a test's result. Types only, so the answer's types import them without a cycle.

export interface Interval {
  level: number;
  low: number;
  high: number;
  /** mean − low = high − mean; for an interval from a log scale (asymmetric), half of high − low. */
  halfWidth: number;
}

/** Where an interval came from: between-repetition spread, batch means of one cell's seconds, or nowhere. */
export type IntervalSource = 'repetitions' | 'batch-means' | null;

export interface MetricStats {
  n: number;
  mean: number;
  /** Between repetitions; null with one value. */
  stddev: number | null;
  /** 95 % interval of the mean; null when there is nothing to base one on. */
  ci: Interval | null;
  /** Coefficient of variation between repetitions; null with one value. */
  cv: number | null;
  /** The repetition values (one per included cell). */
  values: number[];
  /** Standard error of the mean, and its degrees of freedom (the t distribution's); null without an interval. */
  se: number | null;
  df: number | null;
  /** What the interval (and the tests) rest on. */
  intervalFrom: IntervalSource;
}

/** What a test needs of a mean: its value, its standard error and the degrees of freedom of that error. */
export interface Estimate {
  mean: number;
  se: number;
  df: number;
}

export interface TTest {
  /** The difference tested (a − c·b). */
  diff: number;
  t: number;
  /** Welch–Satterthwaite degrees of freedom. */
  df: number;
  /** Two-sided p-value. */
  p: number;
  /** One-sided p-values: P(a − c·b this low | true difference 0), and this high. */
  pBelow: number;
  pAbove: number;
}
