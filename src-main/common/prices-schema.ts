// The shape of a run's prices where a matrix or an auto-size spec carries them ("prices": {…}),
// so they are stored with the run and its answer is costed at them (common/cost.ts).
import { z } from 'zod';
import { MAX_PRICE } from './cost.ts';

const price = z.number().min(0).max(MAX_PRICE);

export const PricesSchema = z.strictObject({
  /** Per vCPU-hour. */
  cpuHour: price,
  /** Per GB-hour of memory limit. */
  gbHour: price,
  /** Per replica (container / pod) hour; 0 when nothing is charged per pod. */
  replicaHour: price.default(0),
});

/** What the matrix and spec validation say for a bad "prices". */
export const PRICES_HINT =
  'prices per hour in dollars, e.g. {"cpuHour": 0.0316, "gbHour": 0.0042, "replicaHour": 0} (each 0 to ' +
  `${MAX_PRICE})`;
