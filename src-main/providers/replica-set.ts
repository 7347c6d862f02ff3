// A replicated cell's R identical targets as one provisioned target, so the cell runner never asks how
// many there are: ready when all are, ended when the first one ends, removed all at once. Its readings
// are the totals (CPU and throttling summed, so CPU reads as a share of the cell's total cap; memory
// summed; OOM if any replica's; restarts summed) and each replica stays reachable in `replicas` for its
// own. The load spreads over `addresses`, one per replica, per connection (load/spread.ts).
import type { ExitInfo } from '../model/types.ts';
import type { DependencyTarget, ProcessSnapshot, ProvisionedTarget, StatsReading } from './provider.ts';

/** The cgroup readings of several targets taken about together, as one: counters and memory summed. */
export function sumReadings(rs: readonly StatsReading[]): StatsReading {
  const sum = (f: (r: StatsReading) => number): number => rs.reduce((a, r) => a + f(r), 0);
  const all = <K extends keyof StatsReading>(k: K): boolean => rs.every((r) => r[k] !== undefined);
  return {
    // Their mean instant: each replica's counter is read within the same second or so.
    atMs: Math.round(sum((r) => r.atMs) / rs.length),
    cpuNs: sum((r) => r.cpuNs),
    memBytes: sum((r) => r.memBytes),
    memLimitBytes: sum((r) => r.memLimitBytes),
    throttledPeriods: sum((r) => r.throttledPeriods),
    throttledNs: sum((r) => r.throttledNs),
    // Each replica's own peak, summed: an upper bound of what they held at once.
    ...(all('memPeakBytes') ? { memPeakBytes: sum((r) => r.memPeakBytes!) } : {}),
    ...(all('memUsageBytes') ? { memUsageBytes: sum((r) => r.memUsageBytes!) } : {}),
    ...(all('cfsPeriods') ? { cfsPeriods: sum((r) => r.cfsPeriods!) } : {}),
  };
}

/**
 * Feeds the replicas' readings in as they come, and gives out a summed reading each time every
 * replica has sent a new one (a replica that stops reporting stops the totals: it has ended).
 */
export class ReadingSum {
  private readonly latest: (StatsReading | undefined)[];
  private readonly fresh = new Set<number>();

  constructor(
    replicas: number,
    private readonly out: (r: StatsReading) => void,
  ) {
    this.latest = new Array<StatsReading | undefined>(replicas).fill(undefined);
  }

  add(replica: number, r: StatsReading): void {
    this.latest[replica] = r;
    this.fresh.add(replica);
    if (this.fresh.size < this.latest.length) return;
    this.fresh.clear();
    this.out(sumReadings(this.latest as StatsReading[]));
  }
}

/** The replicas' exits as the cell's: OOM if any was OOM-killed, the first exit code, restarts summed. */
export function sumExits(xs: readonly ExitInfo[]): ExitInfo {
  const oom = xs.find((x) => x.oomKilled);
  const code = oom?.exitCode ?? xs.find((x) => x.exitCode !== null && x.exitCode !== 0)?.exitCode ?? null;
  return {
    oomKilled: Boolean(oom),
    exitCode: code ?? xs.find((x) => x.exitCode !== null)?.exitCode ?? null,
    restarts: xs.reduce((a, x) => a + x.restarts, 0),
  };
}

/** Every replica's processes at about one instant (host pids: distinct across containers), or why not. */
export function unionSnapshots(snaps: readonly ProcessSnapshot[]): ProcessSnapshot {
  const bad = snaps.find((s): s is { ok: false; why: string } => !s.ok);
  if (bad) return bad;
  const ok = snaps as { ok: true; atMs: number; processes: import('./provider.ts').ProcessReading[] }[];
  return { ok: true, atMs: Math.max(...ok.map((s) => s.atMs)), processes: ok.flatMap((s) => s.processes) };
}

export interface ReplicaSetOptions {
  /** Removes every replica (and whatever holds them: a service, a deployment). Default: each replica's own remove. */
  remove?: () => Promise<void>;
  placementWarning?: string;
  cores?: number[];
  /** Where they ran, for "where each cell ran" (default: the replicas' distinct nodes, in order). */
  node?: string;
  /** The set's id (default: the replicas' ids joined by commas). */
  id?: string;
  /** The dependencies every replica shares (one database for all of them, as in production). */
  dependencies?: readonly DependencyTarget[];
}

/** R started targets as one (R ≥ 1; each replica's `node`, `cores` and warnings are gathered). */
export function replicaSet(parts: readonly ProvisionedTarget[], o: ReplicaSetOptions = {}): ProvisionedTarget {
  if (parts.length === 0) throw new Error('a replica set needs at least one replica');
  const nodes = [...new Set(parts.map((p) => p.node).filter((n): n is string => Boolean(n)))];
  const node = o.node ?? (nodes.length ? nodes.join(', ') : undefined);
  const cores = o.cores ?? [...new Set(parts.flatMap((p) => p.cores ?? []))].sort((a, b) => a - b);
  const warning = o.placementWarning ?? parts.find((p) => p.placementWarning)?.placementWarning;
  const peaks = parts.map((p) => p.memoryPeak);
  const procs = parts.map((p) => p.processMemory);
  return {
    id: o.id ?? parts.map((p) => p.id).join(','),
    address: parts[0]!.address,
    addresses: parts.map((p) => p.address),
    replicas: parts,
    ...(o.dependencies ? { dependencies: o.dependencies } : {}),
    ...(node ? { node } : {}),
    ...(cores.length ? { cores } : {}),
    ...(warning ? { placementWarning: warning } : {}),
    ...(parts[0]!.probeNote ? { probeNote: parts[0]!.probeNote } : {}),
    // The first replica to stop by itself ends the cell, as a lone target's exit does.
    exited: Promise.race(parts.map((p) => p.exited)),
    stats: async (onReading) => {
      const sum = new ReadingSum(parts.length, onReading);
      const stops = await Promise.all(parts.map((p, i) => p.stats((r) => sum.add(i, r))));
      return () => stops.forEach((stop) => stop());
    },
    ...(peaks.every(Boolean)
      ? {
          memoryPeak: () => {
            const xs = peaks.map((f) => f!());
            return xs.every((x) => x !== undefined) ? xs.reduce((a, b) => a! + b!, 0) : undefined;
          },
        }
      : {}),
    ...(procs.every(Boolean)
      ? { processMemory: async () => unionSnapshots(await Promise.all(procs.map((f) => f!()))) }
      : {}),
    waitReady: async (w) => ({
      ms: Math.max(...(await Promise.all(parts.map((p) => p.waitReady(w)))).map((r) => r.ms)),
    }),
    // Each replica's lines, marked with its number (the probe's lines are read per replica, not from here).
    logTail: async (lines) => {
      const logs = await Promise.all(parts.map((p) => p.logTail(lines)));
      return logs.flatMap((log, i) => (log ? log.split('\n').map((l) => `replica ${i + 1}: ${l}`) : [])).join('\n');
    },
    exitInfo: async () => sumExits(await Promise.all(parts.map((p) => p.exitInfo()))),
    remove:
      o.remove ??
      (async () => {
        const done = await Promise.allSettled(parts.map((p) => p.remove()));
        const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
        if (failed) throw failed.reason;
      }),
  };
}

/**
 * Starts `count` replicas with `start(i)`, all at once; if any fails, those started are removed and the
 * first failure is thrown (nothing is left behind a failed start).
 */
export async function startReplicas(
  count: number,
  start: (replica: number) => Promise<ProvisionedTarget>,
): Promise<ProvisionedTarget[]> {
  const done = await Promise.allSettled(Array.from({ length: count }, (_, i) => start(i)));
  const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
  if (!failed) return done.map((d) => (d as PromiseFulfilledResult<ProvisionedTarget>).value);
  await Promise.allSettled(done.flatMap((d) => (d.status === 'fulfilled' ? [d.value.remove()] : [])));
  throw failed.reason;
}
