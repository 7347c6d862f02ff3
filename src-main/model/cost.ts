// The prices a run is costed at and what one configuration costs at them: plain data, so the answer's
// types (analysis/answer-types.ts) and the arithmetic (common/cost.ts) share them without a cycle.

/** Prices in dollars (or any one currency: the arithmetic does not care; the words write "$"). */
export interface Prices {
  /** Per vCPU-hour: 1000 millicores of CPU cap reserved for an hour. */
  cpuHour: number;
  /** Per GB-hour: 1024 MB of memory limit reserved for an hour. */
  gbHour: number;
  /** Per replica (container / pod) hour on top of its CPU and memory; 0 where nothing is charged per pod. */
  replicaHour: number;
}

/** Where a run's prices came from: stored with the run, given now (report --cpu-price …), or the example. */
export type PriceSource = 'run' | 'given' | 'default';

/** One configuration's cost at the given prices. */
export interface ConfigurationCost {
  key: string;
  /** "2 cluster workers on 1 CPU / 256 MB" (× replicas when more than one). */
  label: string;
  replicas: number;
  /** Dollars an hour for its reserved resources (every replica). */
  hourly: number;
  /** Dollars per million requests at its mean goodput; null without goodput. */
  perMillion: number | null;
  /** From the goodput's 95 % interval (low cost at high goodput); high is null when the interval reaches 0 req/s. */
  interval: { low: number; high: number | null } | null;
  /** Its goodput is a lower bound (client-bound or host-busy): the cost is an upper bound, "≤". */
  upperBound: boolean;
  /** At the objective's rate: ⌈rate ÷ goodput⌉ copies (over the interval: copiesLow–copiesHigh), their cost an hour. */
  atRate: { rate: number; copies: number; copiesLow: number; copiesHigh: number | null; hourly: number } | null;
  /** Whether it meets the objective on the answer's own checks (null without an objective). */
  meets: boolean | null;
}
