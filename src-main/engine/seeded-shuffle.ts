// The one seeded order of cells: a shuffled matrix and settling's rounds both take it, so a seed
// repeats a run's order exactly.
import { seededRandom } from '../util/seeded-random.ts';

/** A shuffled copy (seeded: the same seed gives the same order). */
export function seededShuffle<T>(xs: readonly T[], seed: number): T[] {
  const copy = [...xs];
  shuffleInPlace(copy, seed);
  return copy;
}

/** Fisher–Yates with a seeded generator: the same seed gives the same order. */
export function shuffleInPlace<T>(xs: T[], seed: number): void {
  const rand = seededRandom(seed);
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}
