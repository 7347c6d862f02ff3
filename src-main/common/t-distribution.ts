// Student's t distribution (CDF and quantiles), used by the answer's tests and intervals and by the
// engine's steady-state checks. The numbers come from stdlib (@stdlib/stats-base-dists-t-*, built on
// the regularised incomplete beta function and its inverse); this wrapper is the one typed entry point.
import cdf from '@stdlib/stats-base-dists-t-cdf';
import quantile from '@stdlib/stats-base-dists-t-quantile';

/**
 * Above this many degrees of freedom t is the normal distribution to 13 digits, and stdlib's quantile
 * loses its precision (it returns 0 at 1e300, NaN at Infinity): such df are taken as this one.
 */
const DF_NORMAL = 1e12;

/** P(T ≤ t) for Student's t with `df` degrees of freedom (df may be fractional, as Welch's is); NaN for df ≤ 0. */
export function studentTCdf(t: number, df: number): number {
  return cdf(t, Math.min(df, DF_NORMAL));
}

/** The p-quantile of Student's t with `df` degrees of freedom (e.g. tQuantile(0.975, 2) ≈ 4.303). */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new Error(`t quantile needs 0 < p < 1, got ${p}`);
  if (!(df > 0)) throw new Error(`t quantile needs df > 0, got ${df}`);
  return quantile(p, Math.min(df, DF_NORMAL));
}
