// The one seeded order of cells: a shuffled matrix and settling's rounds both take it, so a seed
// repeats a run's order exactly.

/** A shuffled copy (seeded: the same seed gives the same order). */
export function seededShuffle<T>(xs: readonly T[], seed: number): T[] {
  const copy = [...xs];
  shuffleInPlace(copy, seed);
  return copy;
}

/** Fisher–Yates with a seeded generator (mulberry32): the same seed gives the same order. */
export function shuffleInPlace<T>(xs: T[], seed: number): void {
  let a = seed >>> 0;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}
