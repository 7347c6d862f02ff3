// Where a replicated cell's containers and its load go on one machine (this machine's engine, or a
// remote engine): each replica on cores of its own where the host has them, the load on the cores
// after them. A host with too few cores for that puts the replicas together on the cores their total
// cap needs — each keeps its own cap through CFS, they share those cores' caches — and says so; one
// without even those runs them unpinned, as a single target's placement does (placement.ts).
import { planPlacement } from './placement.ts';
import { coresNeeded } from '../common/cores.ts';

export { coresNeeded };

export interface ReplicaPlacement {
  /** cpuset per replica, in replica order ("0", "1-2"); absent: not pinned. */
  replicaCpus?: string[];
  /** Cores for the load threads; absent: not pinned. */
  loadCpus?: string;
  warning?: string;
}

const range = (from: number, count: number): string => (count === 1 ? String(from) : `${from}-${from + count - 1}`);
const coresWord = (n: number): string => `${n} core${n === 1 ? '' : 's'}`;

/**
 * Why a replicated cell cannot run on a host of `hostCores` at all (its replicas' caps add up to more
 * than the host has), in the matrix's words; undefined when it can (perhaps sharing cores: see the plan's warning).
 */
export function replicaCoresProblem(
  cell: { cpuMillis: number; replicas?: number },
  hostCores: number,
): string | undefined {
  const r = cell.replicas ?? 1;
  if (r < 2 || r * cell.cpuMillis <= hostCores * 1000) return undefined;
  return (
    `${r} replicas × ${cell.cpuMillis}m is ${r * cell.cpuMillis}m in total, ` +
    `more than this host's ${coresWord(hostCores)} (${hostCores * 1000}m)`
  );
}

/** The cpusets of a cell's replicas and its load on a host of `hostCores` (`enabled`: the placement 'auto'). */
export function planReplicaPlacement(
  cpuMillis: number,
  replicas: number,
  hostCores: number,
  enabled: boolean,
): ReplicaPlacement {
  const one = (p: { targetCpus?: string; loadCpus?: string; warning?: string }): ReplicaPlacement => ({
    ...(p.targetCpus ? { replicaCpus: new Array<string>(replicas).fill(p.targetCpus) } : {}),
    ...(p.loadCpus ? { loadCpus: p.loadCpus } : {}),
    ...(p.warning ? { warning: p.warning } : {}),
  });
  if (replicas <= 1 || !enabled) return one(planPlacement(cpuMillis, hostCores, enabled));
  const need = Math.ceil(cpuMillis / 1000);
  const { apart, together } = coresNeeded({ cpuMillis, replicas });
  if (apart <= hostCores) {
    const used = replicas * need;
    const free = hostCores - used;
    // As for one target: up to two load threads per target core, the last spare core left to the engine.
    const forLoad = Math.min(free >= 3 ? free - 1 : free, used * 2);
    return {
      replicaCpus: Array.from({ length: replicas }, (_, i) => range(i * need, need)),
      loadCpus: range(used, forLoad),
    };
  }
  const shared = planPlacement(replicas * cpuMillis, hostCores, true);
  if (!shared.targetCpus) {
    return {
      warning:
        `core placement off: ${replicas} replicas of ${cpuMillis}m need ${coresWord(together - 1)} together ` +
        `and the load generator one more, but this host has ${hostCores}; all share cores and results are pessimistic`,
    };
  }
  return {
    ...one(shared),
    warning:
      `replicas share ${shared.targetCpus.includes('-') ? 'cores' : 'core'} ${shared.targetCpus}: ` +
      `this host has ${coresWord(hostCores)}, and ${replicas} replicas on cores of their own plus the load need ` +
      `${apart}; each replica still holds its ${cpuMillis}m cap (CFS), but they share the core's caches ` +
      `and scheduler, and the load runs apart on ${shared.loadCpus}`,
  };
}
