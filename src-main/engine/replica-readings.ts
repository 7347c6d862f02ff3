// What a replicated cell keeps of each replica (model/replicas.ts): its measured share of the load,
// its own cgroup readings, its exit, where it ran and what the probe heard from it. Works on any
// target: a lone one has no `replicas`, and then nothing here changes what the cell records.
import { connectionsPerReplica, shares } from '../load/spread.ts';
import type { CellProbe } from '../model/probe.ts';
import type { ReplicaReading } from '../model/replicas.ts';
import type { CellConfig, ExitInfo, LoadResult, RanOn, StatsSummary } from '../model/types.ts';
import { collectProbe } from '../probe/collect.ts';
import type { CellClock } from '../probe/place.ts';
import type { ProvisionedTarget } from '../providers/provider.ts';
import { ReadingSum } from '../providers/replica-set.ts';
import { StatsSampler } from './stats-sampler.ts';
import { servingAtOnceOf } from '../probe/attach.ts';

/**
 * Pids restart at 1 in every container, so the cell's probe (the union of its replicas') numbers
 * replica i's processes pid + i × this: distinct in the union, and the replica readable from the pid.
 */
export const REPLICA_PID_STRIDE = 10_000_000;

/** The cell's total readings and, for a replicated target, each replica's, from one stats stream per replica. */
export interface CellSamplers {
  total: StatsSampler;
  parts?: StatsSampler[];
}

/** `cpuMillis` per replica: the total's CPU reads as a share of the cell's whole cap (replicas × cpuMillis). */
export function samplersFor(target: ProvisionedTarget, cpuMillis: number): CellSamplers {
  const replicas = target.replicas;
  if (!replicas || replicas.length < 2) return { total: new StatsSampler(target, cpuMillis) };
  const parts = replicas.map((r) => new StatsSampler(r, cpuMillis));
  const summed = {
    // Each replica's stream feeds its own sampler and the sum: one stream per container, not two.
    stats: async (onReading: Parameters<ProvisionedTarget['stats']>[0]) => {
      const sum = new ReadingSum(parts.length, onReading);
      await Promise.all(parts.map((p, i) => p.start(undefined, (r) => sum.add(i, r))));
      return () => parts.forEach((p) => p.stop());
    },
    ...(target.memoryPeak ? { memoryPeak: target.memoryPeak } : {}),
  };
  return { total: new StatsSampler(summed, cpuMillis * parts.length), parts };
}

/** The cell's probe: a lone target's, or the union of its replicas' (pids set apart), with each replica's own. */
export async function collectCellProbe(
  target: ProvisionedTarget,
  launch: { mode: CellConfig['mode']; workers: number },
  clock: CellClock,
  startedAtMs: number,
): Promise<{ probe: CellProbe; parts?: CellProbe[] }> {
  const replicas = target.replicas;
  if (!replicas || replicas.length < 2) return { probe: await collectProbe(target, launch, clock, startedAtMs) };
  const parts = await Promise.all(replicas.map((r) => collectProbe(r, launch, clock, startedAtMs)));
  return { probe: unionProbes(parts), parts };
}

/** The replicas' probes as the cell's: processes and seconds together, replica i's pids moved by i × the stride. */
export function unionProbes(parts: readonly CellProbe[]): CellProbe {
  const move = (pid: number, i: number): number => (pid > 0 ? pid + i * REPLICA_PID_STRIDE : pid);
  const expected = parts.every((p) => p.expected !== null) ? parts.reduce((a, p) => a + (p.expected ?? 0), 0) : null;
  const notes = parts.flatMap((p, i) => (p.note ? [`replica ${i + 1}: ${p.note}`] : []));
  const seconds = parts.flatMap((p, i) =>
    (p.seconds ?? []).map((s) => ({ ...s, pid: move(s.pid, i), ppid: move(s.ppid, i) })),
  );
  // Counted over the merged seconds (replicas' pids kept apart), as a lone target's is over its own.
  const serving = servingAtOnceOf(seconds);
  return {
    attached: parts.reduce((a, p) => a + p.attached, 0),
    expected,
    processes: parts.flatMap((p, i) => p.processes.map((x) => ({ ...x, pid: move(x.pid, i) }))),
    ...(serving ? { servingAtOnce: serving } : {}),
    ...(notes.length ? { note: notes.join('; ') } : {}),
    ...(parts.some((p) => p.seconds) ? { seconds } : {}),
  };
}

export interface ReplicaInputs {
  cfg: CellConfig;
  target: ProvisionedTarget;
  load?: LoadResult;
  /** Each replica's readings over the measured seconds (samplersFor's parts). */
  stats?: (StatsSummary | undefined)[];
  probes?: CellProbe[];
  ranOn: RanOn;
}

/** Each replica's reading, or undefined for a lone target. Each replica is asked its exit (the caller bounds it). */
export async function replicaReadings(x: ReplicaInputs): Promise<ReplicaReading[] | undefined> {
  const parts = x.target.replicas;
  if (!parts || parts.length < 2) return undefined;
  const counted = x.load?.replicaRequests;
  const requests = parts.map((_, i) => counted?.[i] ?? 0);
  const share = shares(requests);
  const conns = connectionsPerReplica(x.cfg.load.connections, parts.length);
  const exits = await Promise.all(parts.map((p) => p.exitInfo().catch((): ExitInfo | undefined => undefined)));
  return parts.map((p, i) => {
    const stats = x.stats?.[i];
    const exit = exits[i];
    const probe = x.probes?.[i];
    const { seconds: _stored, ...probeSummary } = probe ?? { seconds: undefined };
    return {
      index: i,
      requests: requests[i]!,
      share: share[i]!,
      connections: conns[i]!,
      ...(stats ? { stats } : {}),
      ...(exit ? { exit } : {}),
      ranOn: { ...x.ranOn, ...(p.node ? { node: p.node } : {}) },
      // The seconds are stored once, with the cell's probe (pids set apart by replica).
      ...(probe ? { probe: probeSummary as CellProbe } : {}),
    };
  });
}
