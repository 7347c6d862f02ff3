// A topology's memory and load spread, from its cells' per-replica readings (CellResult.replicas):
// the peak of one replica and of all of them together — a deployment gives every replica the same
// limit, so what R replicas need is R × the largest replica's peak —, and whether the load reached
// the replicas evenly. The peak is analysis/size/fresh-need.ts's cellPeak, the rule the answer's memory uses.
import { UNEVEN_SHARE } from '../../common/thresholds.ts';
import type { ReplicaReading } from '../../model/replicas.ts';
import type { StoredCell } from '../../model/stored.ts';
import { cellPeak } from './fresh-need.ts';
import type { ConfigurationSummary } from '../types.ts';

/** A stored cell with what the replicas engine records for it (absent on cells of one container). */
export type CellWithReplicas = StoredCell & { replicas?: readonly ReplicaReading[] | null };

export const replicasOf = (c: Pick<ConfigurationSummary, 'replicas'>): number => Math.max(1, c.replicas ?? 1);

/** The included cells of a configuration. */
export const cellsOf = <T extends StoredCell>(c: ConfigurationSummary, cells: readonly T[]): T[] =>
  cells.filter((x) => x.status === 'ok' && x.config.phase !== 'verify' && c.cellIndexes.includes(x.config.index));

export interface TopologyMemory {
  replicas: number;
  /** The largest peak of one replica over the repetitions (bytes); null where no replica's peak was recorded. */
  perReplicaBytes: number | null;
  /** What all replicas need together: perReplicaBytes × replicas (one container: its peak); null when unknown. */
  totalBytes: number | null;
}

/** Per replica and in total, by the peak rule; a cell of one container is its own replica. */
export function topologyMemory(c: ConfigurationSummary, cells: readonly CellWithReplicas[]): TopologyMemory {
  const replicas = replicasOf(c);
  const peaks: number[] = [];
  for (const cell of cellsOf(c, cells)) {
    if (replicas === 1) {
      const p = cellPeak(cell);
      if (p) peaks.push(p.bytes);
      continue;
    }
    for (const r of cell.replicas ?? []) {
      const p = cellPeak({ ...cell, stats: r.stats ?? null, memMaxBytes: null });
      if (p) peaks.push(p.bytes);
    }
  }
  const perReplicaBytes = peaks.length ? Math.max(...peaks) : null;
  return { replicas, perReplicaBytes, totalBytes: perReplicaBytes === null ? null : perReplicaBytes * replicas };
}

/** The most uneven spread of the load over a configuration's replicas, when any repetition's was uneven. */
export function unevenShare(
  c: ConfigurationSummary,
  cells: readonly CellWithReplicas[],
): { shares: number[]; even: number } | null {
  const replicas = replicasOf(c);
  if (replicas < 2) return null;
  const even = 1 / replicas;
  let worst: { shares: number[]; off: number } | null = null;
  for (const cell of cellsOf(c, cells)) {
    const shares = (cell.replicas ?? []).map((r) => r.share);
    if (shares.length < 2) continue;
    const off = Math.max(...shares.map((s) => Math.abs(s - even) / even));
    if (off > UNEVEN_SHARE && (!worst || off > worst.off)) worst = { shares, off };
  }
  return worst ? { shares: worst.shares, even } : null;
}
