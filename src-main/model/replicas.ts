// One cell's replicas (CellConfig.replicas ≥ 2): what each identical container of the app did. The
// cell's own readings (CellResult.load, .stats, .exit) are the totals over its replicas; these keep
// each replica's, so an uneven share of the load or one replica's OOM is seen, not averaged away.
import type { CellProbe } from './probe.ts';
import type { ExitInfo, RanOn, StatsSummary } from './types.ts';

export interface ReplicaReading {
  /** 0-based, in the order the replicas were started. */
  index: number;
  /** Responses this replica served over the measured seconds (counted by the load side, per connection). */
  requests: number;
  /** Its share of the cell's responses, 0..1 (1 ÷ replicas when the load is spread evenly). */
  share: number;
  /** Connections the load opened to it. */
  connections: number;
  stats?: StatsSummary;
  exit?: ExitInfo;
  ranOn?: RanOn;
  /** What the runtime probe heard from this replica's processes (absent: probe off). */
  probe?: CellProbe;
}
