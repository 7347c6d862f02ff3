// Every type of the answer, exported from one place: the aggregates and decisions
// (decision-types.ts), the whole answer (answer-types.ts), the sizing (sizing-types.ts) and the
// statistics (stats-types.ts). Each of those imports only model/ and the others, never a module
// with behaviour, so no import cycle runs through the types.

export type { Estimate, Interval, IntervalSource, MetricStats, TTest } from './stats-types.ts';

/** A service-level objective: every limit must hold (use minRps 0 / maxErrorPct 100 for "no limit"). */
export type { Slo } from '../model/search.ts';

export type * from './decision-types.ts';

export type * from './answer-types.ts';

export type * from './sizing-types.ts';
