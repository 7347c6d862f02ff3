// The costs in CSV: the run's prices and each cell's cost at them (columns of the cells CSV), and
// one row per configuration with the answer's cost figures (its goodput interval turned into a
// cost interval, the copies at the objective's rate). Money as exact decimals, not rounded to cents.
import { hourlyCost, perMillion } from '../common/cost.ts';
import { pricesFor } from '../analysis/decide/cost.ts';
import { bottleneckOf } from '../analysis/decide/group.ts';
import type { Recommendation } from '../analysis/types.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import { toCsv } from './csv-text.ts';

/** Six significant digits: $0.0114583, not the 0.011 a fixed three decimals would give. */
const money = (x: number | null | undefined): string | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : String(Number(x.toPrecision(6)));

export const COST_HEADER = [
  'price_vcpu_hour',
  'price_gb_hour',
  'price_replica_hour',
  'price_source',
  'cost_per_hour',
  'cost_per_million_requests',
  'cost_is_upper_bound',
];

/**
 * Per cell: the run's prices (stored with it, else the example defaults), the hourly cost of its
 * reserved resources, and the cost per million at its own goodput (a client-bound or host-busy
 * cell's goodput is a lower bound, so that cost is an upper bound).
 */
export function costColumns(run: RunDetail): (c: StoredCell) => (string | boolean | null)[] {
  const { prices, source } = pricesFor(run.matrix);
  return (c) => {
    const hourly = hourlyCost(c.config, prices);
    const goodput = c.load?.goodputMean ?? c.rpsMean;
    const bounded = bottleneckOf([c]).bottleneck !== null; // the answer's rule (analysis/decide/group.ts)
    return [
      money(prices.cpuHour),
      money(prices.gbHour),
      money(prices.replicaHour),
      source,
      money(hourly),
      c.status === 'ok' && goodput != null ? money(perMillion(hourly, goodput)) : null,
      c.status === 'ok' ? bounded : null,
    ];
  };
}

/** One row per configuration of the answer, with its cost at the answer's prices. */
export function configurationsCsv(rec: Recommendation): string {
  const costs = new Map((rec.costs?.configurations ?? []).map((k) => [k.key, k]));
  const p = rec.costs?.prices;
  const cheapest = new Set((rec.costs?.cheapest ?? []).filter((x) => x.state === 'decided').map((x) => x.cheapest));
  const rows = rec.configurations.map((c) => {
    const k = costs.get(c.key);
    return [
      rec.run.id,
      c.label,
      c.app,
      c.requestSet,
      c.mode,
      c.workers,
      c.cpuMillis,
      c.memoryMb,
      c.replicas ?? 1,
      c.n,
      c.rps ? money(c.rps.mean) : null,
      c.rps?.ci ? money(c.rps.ci.low) : null,
      c.rps?.ci ? money(c.rps.ci.high) : null,
      c.bottleneck !== null,
      money(p?.cpuHour),
      money(p?.gbHour),
      money(p?.replicaHour),
      rec.costs?.source,
      money(k?.hourly),
      money(k?.perMillion),
      money(k?.interval?.low),
      money(k?.interval?.high),
      k?.upperBound ?? null,
      k?.atRate?.rate ?? null,
      k?.atRate?.copies ?? null,
      money(k?.atRate?.hourly),
      k?.meets ?? null,
      cheapest.has(c.key),
    ];
  });
  return toCsv(
    [
      'run_id',
      'configuration',
      'app',
      'request_set',
      'mode',
      'workers',
      'cpu_millicores',
      'memory_mb',
      'replicas',
      'repetitions',
      'goodput_mean',
      'goodput_ci_low',
      'goodput_ci_high',
      'goodput_is_lower_bound',
      'price_vcpu_hour',
      'price_gb_hour',
      'price_replica_hour',
      'price_source',
      'cost_per_hour',
      'cost_per_million_requests',
      'cost_per_million_ci_low',
      'cost_per_million_ci_high',
      'cost_is_upper_bound',
      'objective_rate_rps',
      'copies_for_rate',
      'cost_per_hour_at_rate',
      'meets_objective',
      'cheapest_shown',
    ],
    rows,
  );
}
