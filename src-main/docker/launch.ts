import path from 'node:path';
import { IN_IMAGE } from './base-image.ts';
import { placeNodeFlags } from './node-flags.ts';
import type { LaunchMode } from '../model/types.ts';

export interface LaunchSpec {
  mode: LaunchMode;
  workers: number;
  entry: string; // absolute path inside the image ('' for an image app)
  name: string;
  /** Arguments for the entry file (a user app's start arguments). */
  args?: string[];
  /** Image mode: the variable the image reads its worker count from (null: the image has a fixed count). */
  workersEnv?: string | null;
  recycleRssMb?: number;
  /**
   * Preload the runtime probe (launchers/probe.js) into every Node.js process through NODE_OPTIONS,
   * appended to `nodeOptions` (what the app's environment already sets). An image does not hold the
   * probe's file: its container gets it copied in and its NODE_OPTIONS there (docker/image-probe.ts).
   */
  probe?: boolean;
  /** The app's own NODE_OPTIONS (its environment's), which the probe's and the cell's flags are appended to. */
  nodeOptions?: string;
  /** The cell's Node.js flags (CellConfig.nodeFlags), for every process: see node-flags.ts for where each goes. */
  nodeFlags?: string[];
}

/**
 * pm2-runtime behind a wrapper that keeps its own command line out of the instances' argv (see
 * launchers/pm2.js): next to the cluster launcher, in the launchers folder every base image holds.
 */
export const PM2_LAUNCHER = path.posix.join(path.posix.dirname(IN_IMAGE.clusterLauncher), 'pm2.js');

/** The runtime probe, in the same launchers folder of every base image. */
export const PROBE_SCRIPT = path.posix.join(path.posix.dirname(IN_IMAGE.clusterLauncher), 'probe.js');

/** NODE_OPTIONS with the probe's preload appended to what the app sets (never replacing it). */
export function withProbeOption(nodeOptions: string | undefined, script: string = PROBE_SCRIPT): string {
  const flag = `--require ${script}`;
  const before = (nodeOptions ?? '').trim();
  if (before.includes(flag)) return before;
  return before ? `${before} ${flag}` : flag;
}

/**
 * The container command for a launch mode. N is always explicit: inside a container capped with
 * --cpus, os.cpus() still reports every host core, so "max" would over-fork.
 */
export function launchCommand(s: LaunchSpec): { cmd?: string[]; env: Record<string, string> } {
  const flags = placeNodeFlags(s.nodeFlags ?? []);
  const base = modeCommand(s, flags.argv);
  // An image gets the probe's file and its NODE_OPTIONS when its container is created (docker/image-probe.ts).
  const probe = s.probe === true && s.mode !== 'image';
  if (!probe && !flags.env.length) return base;
  // Inherited by every process the command starts: cluster workers, PM2's instances, the app's children.
  const own = [s.nodeOptions?.trim(), ...flags.env].filter(Boolean).join(' ');
  return { ...base, env: { ...base.env, NODE_OPTIONS: probe ? withProbeOption(own) : own } };
}

/** `argv`: the cell's flags NODE_OPTIONS refuses, on the first process's command line (none for an image). */
function modeCommand(s: LaunchSpec, argv: string[]): { cmd?: string[]; env: Record<string, string> } {
  const args = s.args ?? [];
  switch (s.mode) {
    case 'image': // the image's own command; only the worker count is ours to set
      return { env: s.workersEnv ? { [s.workersEnv]: String(s.workers) } : {} };
    case 'single':
      return { cmd: ['node', ...argv, s.entry, ...args], env: {} };
    case 'cluster':
      return {
        cmd: ['node', ...argv, IN_IMAGE.clusterLauncher], // the workers inherit the primary's execArgv
        env: {
          RS_ENTRY: s.entry,
          RS_WORKERS: String(s.workers),
          ...(args.length ? { RS_ARGS: JSON.stringify(args) } : {}),
          ...(s.recycleRssMb ? { RS_RECYCLE_RSS_MB: String(s.recycleRssMb) } : {}),
        },
      };
    case 'pm2':
      return {
        cmd: [
          'node',
          ...argv,
          PM2_LAUNCHER,
          'start',
          s.entry,
          '--name',
          s.name,
          '-i',
          String(s.workers),
          ...(s.recycleRssMb ? ['--max-memory-restart', `${s.recycleRssMb}M`] : []),
          // PM2 sets its instances' execArgv to its node_args (empty by default), not to its own.
          ...(argv.length ? ['--node-args', argv.join(' ')] : []),
          ...(args.length ? ['--', ...args] : []),
        ],
        // PM2 checks memory every 30 s by default: too slow to recycle anything within a cell.
        env: s.recycleRssMb ? { PM2_WORKER_INTERVAL: '1000' } : {},
      };
  }
}

/** How many processes answer requests in this mode: what readiness waits for. */
export function servingProcesses(mode: LaunchMode, workers: number): number {
  return mode === 'single' || mode === 'image' ? 1 : workers;
}

/**
 * Log lines that mean a worker process was replaced: our cluster launcher's, and PM2's (a crash:
 * "App [x:0] exited with code [0] via signal [SIGKILL]"; memory: "[PM2][WORKER] Process 0 restarted
 * because it exceeds --max-memory-restart"). A recycled PM2 worker also logs "App [x:_old_0] exited",
 * which the ":\d+]" leaves out so that it is not counted twice. Read only before teardown: PM2 logs
 * an "exited" line per instance when it is stopped.
 */
export const RESTART_LINE =
  /rightsize:worker-(replaced|recycled)|App \[[^\]]+:\d+\] exited with code|exceeds --max-memory-restart/;

/** What the cluster launcher prints once every worker listens: readiness for apps that do not name their pid. */
export const WORKERS_LISTENING = /rightsize:workers-listening/;
