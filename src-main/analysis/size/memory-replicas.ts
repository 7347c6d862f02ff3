// A replicated cell's memory seen as one replica's: every replica gets the same limit (a deployment
// cannot give them different ones), so the limit per replica rests on the largest replica's peak, not
// on the cell's total (the replicas together). The cgroup peak is each replica's own reading
// (CellResult.replicas[].stats); the processes' resident memory is read for the cell as a whole (one
// list, the containers' host pids together), so a replica's is their even share with the image's
// files counted in each — said as such in the answer.
import type { StoredCell } from '../../model/stored.ts';
import type { ReplicaReading } from '../../model/replicas.ts';
import type { StatsSummary } from '../../model/types.ts';
import { cellPeak } from './fresh-need.ts';
import type { CellWithReplicas } from './topology-memory.ts';
import type { ReplicaMemoryFrom } from '../types.ts';

type Processes = NonNullable<StatsSummary['processes']>;

const replicasOf = (c: StoredCell): number => Math.max(1, c.config.replicas ?? 1);

/**
 * The processes' figures for one replica: of R identical containers read together, each role's
 * largest 1/R of the processes, and the resident memory with file-backed pages counted once per
 * replica (each container maps the image's files itself) — Σ own part ÷ R + the largest file-backed
 * set; without file readings, the total ÷ R.
 */
function oneReplicasProcesses(s: StatsSummary, r: number): Partial<StatsSummary> {
  const procs: Processes = s.processes ?? [];
  if (!procs.length) return s.processesNotMeasured ? { processesNotMeasured: s.processesNotMeasured } : {};
  const byRole = new Map<string, Processes>();
  for (const p of procs) byRole.set(p.role, [...(byRole.get(p.role) ?? []), p]);
  const kept = [...byRole.values()].flatMap((ps) =>
    [...ps].sort((a, b) => b.rssPeakBytes - a.rssPeakBytes).slice(0, Math.ceil(ps.length / r)),
  );
  const withFiles = procs.every((p) => p.filePeakBytes !== undefined);
  const own = procs.reduce((a, p) => a + Math.max(p.anonPeakBytes ?? 0, p.rssPeakBytes - (p.filePeakBytes ?? 0)), 0);
  const files = withFiles ? Math.max(...procs.map((p) => p.filePeakBytes!)) : 0;
  const split = (x: number | undefined): number | undefined => (x === undefined ? undefined : x / r);
  const summed = split(s.rssTotalPeakBytes);
  const once = withFiles ? own / r + files : split(s.rssSharedOncePeakBytes);
  return {
    processes: kept,
    ...(summed !== undefined ? { rssTotalPeakBytes: summed } : {}),
    // Never above one replica's plain sum, as the engine's own rule (engine/process-memory.ts).
    ...(once !== undefined ? { rssSharedOncePeakBytes: summed !== undefined ? Math.min(once, summed) : once } : {}),
    ...(s.pssTotalBytes !== undefined ? { pssTotalBytes: s.pssTotalBytes / r } : {}),
  };
}

/**
 * One replica of a replicated cell (config.replicas ≥ 2), as a cell of its own: the largest replica's
 * cgroup readings where each replica has them, else the cell's ÷ replicas; one replica's share of the
 * processes. A cell of one container is returned as it is, with from null.
 */
export function asOneReplica(cell: StoredCell): { cell: StoredCell; from: ReplicaMemoryFrom | null } {
  const r = replicasOf(cell);
  if (r < 2) return { cell, from: null };
  const readings = ((cell as CellWithReplicas).replicas ?? []).filter((x) => x.stats);
  const peakOf = (x: ReplicaReading): number => cellPeak({ ...cell, stats: x.stats!, memMaxBytes: null })?.bytes ?? 0;
  const largest = readings.length ? readings.reduce((a, b) => (peakOf(b) > peakOf(a) ? b : a)) : null;
  const total = cell.stats;
  const processes = total ? oneReplicasProcesses(total, r) : {};
  if (largest && peakOf(largest) > 0) {
    return { cell: { ...cell, memMaxBytes: null, stats: { ...largest.stats!, ...processes } }, from: 'replicas' };
  }
  if (!total && cell.memMaxBytes == null) return { cell, from: null };
  const div = (x: number | undefined): number | undefined => (x === undefined ? undefined : x / r);
  const stats = total
    ? ({
        ...total,
        memMeanBytes: total.memMeanBytes / r,
        memMaxBytes: total.memMaxBytes / r,
        memLimitBytes: total.memLimitBytes / r,
        ...(total.memPeakBytes !== undefined ? { memPeakBytes: div(total.memPeakBytes) } : {}),
        ...processes,
      } as StatsSummary)
    : cell.stats;
  return {
    cell: { ...cell, stats, memMaxBytes: cell.memMaxBytes == null ? null : cell.memMaxBytes / r },
    from: 'even-split',
  };
}

/**
 * The cells by configuration key, each replicated one as one replica (asOneReplica), and how each
 * key's replicas were read ('even-split' where any repetition had to be split).
 */
export function oneReplicaCells(cells: ReadonlyMap<string, StoredCell[]>): {
  cells: Map<string, StoredCell[]>;
  from: Map<string, ReplicaMemoryFrom>;
} {
  const out = new Map<string, StoredCell[]>();
  const from = new Map<string, ReplicaMemoryFrom>();
  for (const [key, list] of cells) {
    const seen = list.map(asOneReplica);
    out.set(
      key,
      seen.map((x) => x.cell),
    );
    const froms = seen.map((x) => x.from).filter((x): x is ReplicaMemoryFrom => x !== null);
    if (froms.length) from.set(key, froms.includes('even-split') ? 'even-split' : 'replicas');
  }
  return { cells: out, from };
}

/** The cells' total peak (all replicas together), the highest over the repetitions; null where none was recorded. */
export function totalPeakBytes(cells: readonly StoredCell[]): number | null {
  const peaks = cells.map((c) => cellPeak(c)?.bytes ?? 0).filter((b) => b > 0);
  return peaks.length ? Math.max(...peaks) : null;
}
