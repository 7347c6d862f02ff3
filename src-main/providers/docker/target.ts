import { cgroupV2PeakPaths, readPeakFile } from '../../docker/cgroup-peak.ts';
import type { TargetContainer } from '../../docker/containers.ts';
import type { ProvisionedTarget, StatsReading } from '../provider.ts';
import { readContainerProcesses } from './process-memory.ts';
import { dockerReading, type RawDockerStats } from './readings.ts';

/**
 * A container as a provisioned target: readings from Docker's stats stream, its log and exit; `remove` as the provider
 * removes it.
 */
export function containerTarget(
  c: TargetContainer,
  o: { remove: () => Promise<void>; node?: string; local?: boolean },
): ProvisionedTarget {
  return {
    id: c.id,
    address: { host: c.address.host, port: c.address.port },
    ...(o.node ? { node: o.node } : {}),
    exited: c.exited,
    stats: async (onReading: (r: StatsReading) => void) => {
      const stream = (await c.container.stats({ stream: true })) as unknown as NodeJS.ReadableStream & {
        destroy(): void;
      };
      let buf = '';
      stream.on('data', (chunk: Buffer) => {
        buf += chunk.toString();
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          const r = line ? dockerReading(JSON.parse(line) as RawDockerStats) : undefined;
          if (r) onReading(r);
        }
      });
      stream.on('error', () => {}); // ends when the container goes away
      return () => stream.destroy();
    },
    // This machine's engine on cgroup v2: the peak is a file in the host's cgroup tree, not in the stream.
    ...(o.local ? { memoryPeak: () => readPeakFile(cgroupV2PeakPaths(c.id)) } : {}),
    // This machine's engine: each process's resident memory from the host's /proc (a remote engine's are not visible
    // here).
    ...(o.local ? { processMemory: () => readContainerProcesses(c.id, c.container) } : {}),
    logTail: async (lines: number) => (await c.logTail(lines)).join('\n'),
    exitInfo: () => c.exitInfo(),
    remove: o.remove,
  };
}
