import { cgroupV2PeakPaths, readPeakFile } from '../../docker/cgroup-peak.ts';
import type { TargetContainer } from '../../docker/containers.ts';
import { servingProcesses, WORKERS_LISTENING } from '../../docker/launch.ts';
import { waitReady } from '../../docker/readiness.ts';
import type { DependencyTarget, ProvisionedTarget, StatsReading, TargetSpec } from '../provider.ts';
import { readContainerProcesses } from './process-memory.ts';
import { streamReadings } from './readings.ts';

/** Why a probed image's container has no probe: its file could not be copied in, or this provider started it. */
function imageProbeNote(c: TargetContainer, launch: TargetSpec['launch']): string | undefined {
  if (launch.mode !== 'image' || launch.probe !== true || c.imageProbed) return undefined;
  return c.probeNote ?? "no probe: an image app's task is started by the Swarm, which cannot be given the probe's file";
}

/**
 * A container as a provisioned target: readings from Docker's stats stream, its log and exit; `remove` as the provider
 * removes it.
 */
export function containerTarget(
  c: TargetContainer,
  spec: Pick<TargetSpec, 'launch' | 'health' | 'tls' | 'protocol'>,
  o: {
    remove: () => Promise<void>;
    node?: string;
    local?: boolean;
    cores?: number[];
    placementWarning?: string;
    dependencies?: DependencyTarget[];
  },
): ProvisionedTarget {
  const logTail = async (lines: number): Promise<string> => (await c.logTail(lines)).join('\n');
  const probeNote = imageProbeNote(c, spec.launch);
  return {
    id: c.id,
    ...(probeNote ? { probeNote } : {}),
    ...(o.cores ? { cores: o.cores } : {}),
    ...(o.placementWarning ? { placementWarning: o.placementWarning } : {}),
    // Reachable from here: the health path is asked until every worker answers.
    waitReady: ({ workers, deadlineMs, signal }) =>
      waitReady(c.address, {
        path: spec.health ?? '/',
        processes: servingProcesses(spec.launch.mode, workers),
        // Apps without our pid header: the cluster launcher says when all N workers listen.
        ...(spec.launch.mode === 'cluster'
          ? { allListening: async () => (await logTail(200)).split('\n').some((l) => WORKERS_LISTENING.test(l)) }
          : {}),
        deadlineMs,
        exited: c.exited,
        ...(signal ? { signal } : {}),
        ...(spec.tls ? { tls: true } : {}),
        ...(spec.protocol === 'h2c' ? { h2c: true } : {}),
      }),
    address: { host: c.address.host, port: c.address.port },
    ...(o.node ? { node: o.node } : {}),
    ...(o.dependencies ? { dependencies: o.dependencies } : {}),
    exited: c.exited,
    stats: (onReading: (r: StatsReading) => void) => streamReadings(c.container, onReading),
    // This machine's engine on cgroup v2: the peak is a file in the host's cgroup tree, not in the stream.
    ...(o.local ? { memoryPeak: () => readPeakFile(cgroupV2PeakPaths(c.id)) } : {}),
    // This machine's engine, where the target's cores are pinned: the warm-up's cap is raised there, in place.
    ...(o.local ? { setCpuMillis: (m: number) => c.setCpuMillis(m) } : {}),
    // This machine's engine: each process's resident memory from the host's /proc (a remote engine's are not visible
    // here).
    ...(o.local ? { processMemory: () => readContainerProcesses(c.id, c.container) } : {}),
    logTail,
    exitInfo: () => c.exitInfo(),
    remove: o.remove,
  };
}
