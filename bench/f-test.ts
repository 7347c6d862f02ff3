// The upper tail of the F distribution, for the benchmarks' one-way analysis of variance (@stdlib, as the t
// distribution of src-main/common is).
import fCdf from '@stdlib/stats-base-dists-f-cdf';

/** P(F ≥ f) for F with d1 and d2 degrees of freedom. */
export const fDistributionUpperP = (f: number, d1: number, d2: number): number => 1 - fCdf(f, d1, d2);
