import { IN_IMAGE } from './base-image.ts';
import type { LaunchMode } from '../engine/types.ts';

export interface LaunchSpec {
  mode: LaunchMode;
  workers: number;
  entry: string; // absolute path inside the image
  name: string;
  recycleRssMb?: number;
}

/**
 * The container command for a launch mode. N is always explicit: inside a container capped with
 * --cpus, os.cpus() still reports every host core, so "max" would over-fork.
 */
export function launchCommand(s: LaunchSpec): { cmd: string[]; env: Record<string, string> } {
  switch (s.mode) {
    case 'single':
      return { cmd: ['node', s.entry], env: {} };
    case 'cluster':
      return {
        cmd: ['node', IN_IMAGE.clusterLauncher],
        env: {
          RS_ENTRY: s.entry,
          RS_WORKERS: String(s.workers),
          ...(s.recycleRssMb ? { RS_RECYCLE_RSS_MB: String(s.recycleRssMb) } : {}),
        },
      };
    case 'pm2':
      return {
        cmd: [
          'node', IN_IMAGE.pm2Runtime, 'start', s.entry, '--name', s.name, '-i', String(s.workers),
          ...(s.recycleRssMb ? ['--max-memory-restart', `${s.recycleRssMb}M`] : []),
        ],
        // PM2 checks memory every 30 s by default: too slow to recycle anything within a cell.
        env: s.recycleRssMb ? { PM2_WORKER_INTERVAL: '1000' } : {},
      };
  }
}

/** How many processes answer requests in this mode: what readiness waits for. */
export function servingProcesses(mode: LaunchMode, workers: number): number {
  return mode === 'single' ? 1 : workers;
}

/**
 * Log lines that mean a worker process was replaced: our cluster launcher's, and PM2's (a crash:
 * "App [x:0] exited with code [0] via signal [SIGKILL]"; memory: "[PM2][WORKER] Process 0 restarted
 * because it exceeds --max-memory-restart"). A recycled PM2 worker also logs "App [x:_old_0] exited",
 * which the ":\d+]" leaves out so that it is not counted twice. Read only before teardown: PM2 logs
 * an "exited" line per instance when it is stopped.
 */
export const RESTART_LINE = /rightsize:worker-(replaced|recycled)|App \[[^\]]+:\d+\] exited with code|exceeds --max-memory-restart/;
