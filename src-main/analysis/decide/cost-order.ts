// The one order of cost: which of two configurations is cheaper. The contest, equivalence, the
// objective's pick, auto-size's search and the cost line all rank with it, so no two of them can
// disagree on which configuration is the cheaper one.
import { DEFAULT_PRICES, hourlyCost, type Prices } from '../../common/cost.ts';
import type { LaunchMode } from '../../model/types.ts';
import { MODE_ORDER } from './group.ts';

/** What the order reads of a configuration (a summary, an auto-size candidate, a cell's config). */
export interface Costed {
  cpuMillis: number;
  memoryMb: number;
  workers: number;
  mode: LaunchMode;
  replicas?: number;
}

const replicasOf = (c: Costed): number => Math.max(1, c.replicas ?? 1);

/** Dollars an hour for everything the configuration reserves (all its containers), at `prices`. */
export const priceOf = (c: Costed, prices: Prices = DEFAULT_PRICES): number =>
  hourlyCost({ cpuMillis: c.cpuMillis, memoryMb: c.memoryMb, replicas: replicasOf(c) }, prices);

/**
 * Cheaper first: the lower price per hour at the run's prices (the example prices when it has none);
 * at an equal price fewer containers (each carries its own runtime and launcher, which the caps do not
 * show), then fewer workers in total, less CPU, less memory, and the lighter launcher.
 */
export function costOrder(prices: Prices = DEFAULT_PRICES): (a: Costed, b: Costed) => number {
  return (a, b) => {
    const [ra, rb] = [replicasOf(a), replicasOf(b)];
    // Prices are sums of products: equal totals can differ in the last bits, which must not decide.
    const pa = priceOf(a, prices);
    const pb = priceOf(b, prices);
    const price = Math.abs(pa - pb) <= 1e-12 * Math.max(pa, pb) ? 0 : pa - pb;
    return (
      price ||
      ra - rb ||
      a.workers * ra - b.workers * rb ||
      a.cpuMillis * ra - b.cpuMillis * rb ||
      a.memoryMb * ra - b.memoryMb * rb ||
      MODE_ORDER[a.mode] - MODE_ORDER[b.mode]
    );
  };
}

/** The order in words (the method paragraph, the docs and the topology lines say it the same way). */
export const COST_ORDER_WORDS =
  "the lower price per hour at the run's prices; at an equal price fewer containers, then fewer workers in total, " +
  'less CPU, less memory, and the simpler launcher';
