// One cell's replicas (CellConfig.replicas ≥ 2): what each identical container of the app did. The
// cell's own readings (CellResult.load, .stats, .exit) are the totals over its replicas; these keep
// each replica's, so an uneven share of the load or one replica's OOM is seen, not averaged away.
// The type is declared in model/types.ts beside CellResult (which holds it), so the two files make no cycle.
export type { ReplicaReading } from './types.ts';
