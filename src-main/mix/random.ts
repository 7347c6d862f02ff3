// The seeded generator behind every choice and value of a mix: one per connection, so a run's
// requests can be repeated exactly whatever the number of load threads.
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

export interface Rng {
  /** A whole number in [min, max], uniformly. */
  int(min: number, max: number): number;
  /** A number in [0, 1), uniformly. */
  float(): number;
}

/** The mix's seed when the matrix names none: identical runs send identical requests. */
export const DEFAULT_SEED = 1;

/** Connection `connection`'s own stream: distinct seeds per connection (a golden-ratio step keeps them apart). */
export function rngFor(seed: number, connection: number): Rng {
  const g = xoroshiro128plus((Math.imul(connection + 1, 0x9e3779b1) ^ seed) | 0);
  return {
    int: (min, max) => uniformInt(g, min, max),
    float: () => uniformFloat64(g),
  };
}
