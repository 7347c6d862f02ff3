import { readFileSync } from 'node:fs';

/**
 * Where a container's cgroup v2 `memory.peak` lives when this process sees the host's cgroup tree
 * (Linux, local engine): the systemd driver's scope, then the cgroupfs driver's folder. Docker
 * Desktop and remote engines have neither, and kernels before 5.19 have no memory.peak. (Docker's
 * stats stream carries no peak on v2; on v1 it sends max_usage, see providers/docker/readings.ts.)
 */
export const cgroupV2PeakPaths = (containerId: string): string[] => [
  `/sys/fs/cgroup/system.slice/docker-${containerId}.scope/memory.peak`,
  `/sys/fs/cgroup/docker/${containerId}/memory.peak`,
];

/** The first of these files that holds a number of bytes, or undefined. */
export function readPeakFile(paths: readonly string[]): number | undefined {
  for (const p of paths) {
    try {
      const v = Number(readFileSync(p, 'utf8').trim());
      if (Number.isFinite(v) && v > 0) return v;
    } catch {
      // not this driver's layout, not this host's tree, or an older kernel
    }
  }
  return undefined;
}
