// Zipf-distributed integers: value min + k - 1 with probability ∝ 1 / k^s, the head hot as real
// catalogues are. Sampled by inverting the CDF (a table of the range, binary-searched).

/** The widest range a zipf template may span: its table is 8 bytes a value, per load thread. */
export const ZIPF_MAX_VALUES = 1_000_000;

export interface Sampler {
  (u: number): number;
}

const tables = new Map<string, Float64Array>();

/** The cumulative probabilities of ranks 1..n with exponent s (cached: one table per range and exponent). */
function cdf(n: number, s: number): Float64Array {
  const key = `${n}:${s}`;
  let t = tables.get(key);
  if (!t) {
    t = new Float64Array(n);
    let sum = 0;
    for (let k = 1; k <= n; k++) t[k - 1] = sum += 1 / k ** s;
    for (let i = 0; i < n; i++) t[i]! /= sum;
    tables.set(key, t);
  }
  return t;
}

/** The probability of rank k (1-based) among n with exponent s: for tests and the docs' tables. */
export function zipfProbability(k: number, n: number, s: number): number {
  const t = cdf(n, s);
  return t[k - 1]! - (k > 1 ? t[k - 2]! : 0);
}

/** A sampler mapping a uniform u in [0, 1) to a value in [min, max]. */
export function zipfSampler(min: number, max: number, s: number): Sampler {
  const t = cdf(max - min + 1, s);
  return (u) => {
    let lo = 0;
    let hi = t.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    return min + lo;
  };
}
