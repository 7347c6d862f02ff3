// The one seeded generator (util/seeded-random.ts), the matrix's shuffled order that uses it, and
// the benchmarks' bootstrap interval of a median (bench/stats.ts) drawn from it.
import { describe, expect, it } from 'vitest';
import { median, medianInterval } from '../../bench/stats.ts';
import { seededShuffle } from '../../src-main/engine/seeded-shuffle.ts';
import { seededRandom } from '../../src-main/util/seeded-random.ts';

describe('seededRandom', () => {
  it('repeats its sequence for a seed, differs for another, and stays in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(xs);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
    // Spread over the whole range: each tenth holds 5–15 % of 1000 draws.
    for (let d = 0; d < 10; d++) {
      const n = xs.filter((x) => x >= d / 10 && x < (d + 1) / 10).length;
      expect(n).toBeGreaterThan(50);
      expect(n).toBeLessThan(150);
    }
  });

  it('gives the matrix one repeatable shuffled order, a permutation of its cells', () => {
    const cells = Array.from({ length: 20 }, (_, i) => i);
    const once = seededShuffle(cells, 7);
    expect(seededShuffle(cells, 7)).toEqual(once);
    expect(seededShuffle(cells, 8)).not.toEqual(once);
    expect([...once].sort((x, y) => x - y)).toEqual(cells);
    expect(once).not.toEqual(cells);
  });
});

describe('medianInterval (bootstrap)', () => {
  // Rounds of a ratio around 0.985 with ±1.5 % spread, from the generator so the test repeats.
  const rounds = (n: number, seed: number): number[] => {
    const r = seededRandom(seed);
    return Array.from({ length: n }, () => 0.985 + (r() - 0.5) * 0.03);
  };

  it('holds the measured median, repeats for its seed, and narrows with more rounds', () => {
    const few = rounds(12, 1);
    const many = rounds(96, 2);
    const [lo, hi] = medianInterval(few);
    expect(lo).toBeLessThanOrEqual(median(few));
    expect(hi).toBeGreaterThanOrEqual(median(few));
    expect(medianInterval(few)).toEqual([lo, hi]);
    const [mlo, mhi] = medianInterval(many);
    expect(mhi - mlo).toBeLessThan((hi - lo) / 1.5);
    // 96 rounds place a 0.985 median clearly below 0.99: the interval excludes it.
    expect(mhi).toBeLessThan(0.99);
  });

  it('has no interval for no rounds, and a point for identical ones', () => {
    expect(medianInterval([])).toEqual([NaN, NaN]);
    expect(medianInterval([0.99, 0.99, 0.99])).toEqual([0.99, 0.99]);
  });
});
