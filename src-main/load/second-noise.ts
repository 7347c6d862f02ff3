// The host's per-second noise at this hour, read off a run's own steady cells: what three flat warm-up seconds may
// span (load/warmup.ts warmBound). A fixed bound fits a quiet host; on a busy one steady cells warmed up to the cap.
import { median } from '../common/median.ts';
import type { LoadResult } from '../model/types.ts';

/** Fewest measured seconds a cell needs for its successive differences to say anything. */
const MIN_SECONDS = 3;
/** Fewest steady cells before the run trusts its own reading (one odd cell is not the hour's noise). */
const MIN_CELLS = 2;

/**
 * One cell's second-to-second noise, σ as a share of its level: von Neumann's mean square successive
 * difference (σ² ≈ Σ(xᵢ₊₁ − xᵢ)² ÷ 2(n − 1)), which a slow drift barely moves, unlike the plain variance.
 * Undefined below MIN_SECONDS or with nothing served.
 */
export function secondNoise(perSecond: readonly number[]): number | undefined {
  const n = perSecond.length;
  if (n < MIN_SECONDS) return undefined;
  const mean = perSecond.reduce((a, b) => a + b, 0) / n;
  if (!(mean > 0)) return undefined;
  let ss = 0;
  for (let i = 1; i < n; i++) ss += (perSecond[i]! - perSecond[i - 1]!) ** 2;
  return Math.sqrt(ss / (2 * (n - 1))) / mean;
}

/** A finished cell as the run's noise reads it: its measured seconds, and whether they were found unsteady. */
export interface NoiseCell {
  load?: Pick<LoadResult, 'perSecondRps'> | null;
  unstable: boolean;
}

/**
 * The run's reading of the host's noise: the median over its steady cells so far (a cell flagged unstable drifted,
 * which is not noise). Undefined until MIN_CELLS have been measured: the judge then assumes a quiet host.
 */
export class RunNoise {
  private readonly cells: number[] = [];

  add(cell: NoiseCell): void {
    if (cell.unstable) return;
    const n = secondNoise(cell.load?.perSecondRps ?? []);
    if (n !== undefined) this.cells.push(n);
  }

  get(): number | undefined {
    return this.cells.length >= MIN_CELLS ? median(this.cells) : undefined;
  }
}
