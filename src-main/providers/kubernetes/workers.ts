// Whether every worker of a target is up, from its log: where this machine cannot reach the pod, the
// launchers' and apps' own lines say what the local readiness probe finds by counting pids.
import { WORKERS_LISTENING } from '../../docker/launch.ts';
import type { LaunchSpec } from '../../docker/launch.ts';

/** What the built-in apps print once they listen (apps/_lib/http-app.js); a user app may not. */
const APP_LISTENING = /rightsize:listening pid=(\d+)/g;
/** What PM2 prints for each instance it started: "App [name:0] online" (forked, not yet listening). */
const PM2_ONLINE = /App \[[^\]]*:(\d+)\] online/g;

const distinct = (log: string, re: RegExp): number => new Set([...log.matchAll(re)].map((m) => m[1])).size;

/**
 * Up, or what is still awaited in words. One process (single, image): the pod's readiness is all.
 * Cluster mode: the launcher's "all N workers listening" line. PM2: N distinct pids among the app's
 * "listening" lines; an app that prints none is taken at PM2's word (N instances online).
 */
export function workersUp(
  log: string,
  launch: Pick<LaunchSpec, 'mode'>,
  workers: number,
): { up: true } | { up: false; waiting: string } {
  if (workers <= 1 || launch.mode === 'single' || launch.mode === 'image') return { up: true };
  if (launch.mode === 'cluster') {
    return log.split('\n').some((l) => WORKERS_LISTENING.test(l))
      ? { up: true }
      : { up: false, waiting: `waiting for the launcher's "all ${workers} workers listening"` };
  }
  const pids = distinct(log, APP_LISTENING);
  if (pids >= workers) return { up: true };
  if (pids > 0) return { up: false, waiting: `${pids} of ${workers} worker processes listening` };
  const online = distinct(log, PM2_ONLINE);
  return online >= workers ? { up: true } : { up: false, waiting: `${online} of ${workers} PM2 instances online` };
}
