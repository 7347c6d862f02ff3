// A cell's probe, read once the load is over and before the target is removed: the target's log
// (stdout and stderr of every process, wherever the target runs — a container's log, a Swarm task's,
// a pod's) parsed, placed in the cell's time and summarized. Never throws: a log that cannot be read
// is a note ("no probe data on this target"), not a failed cell.
import type { CellProbe } from '../model/probe.ts';
import type { LaunchMode } from '../model/types.ts';
import { summarizeProbe } from './attach.ts';
import { isProbeLine, parseProbeLog } from './parse.ts';
import { placeReports, type CellClock } from './place.ts';

/** The little of a target this needs: its log's last lines. */
export interface LogSource {
  logTail(lines: number): Promise<string>;
}

/** Lines to ask for: every process's every second since the target started, with room for restarts and the app's. */
export function logLinesFor(processes: number, secondsSinceStart: number): number {
  return Math.ceil((processes + 2) * (secondsSinceStart + 30) * 1.5) + 2000;
}

export async function collectProbe(
  target: LogSource,
  launch: { mode: LaunchMode; workers: number },
  clock: CellClock,
  startedAtMs: number,
): Promise<CellProbe> {
  const lines = logLinesFor(launch.workers + 1, (Date.now() - startedAtMs) / 1000);
  let log: string;
  try {
    log = await target.logTail(lines);
  } catch (e) {
    const why = (e as Error)?.message?.split('\n')[0] ?? String(e);
    return {
      attached: 0,
      expected: null,
      processes: [],
      note: `no probe data on this target: its log could not be read (${why})`,
    };
  }
  const { reports, off, runtimes } = parseProbeLog(log);
  return summarizeProbe(placeReports(reports, clock), launch, off, runtimes);
}

/** The app's last `n` log lines without the probe's (what a failed cell shows): probe lines can outnumber the app's. */
export async function appLogTail(target: LogSource, n: number): Promise<string> {
  const log = await target.logTail(n * 20 + 400);
  return log
    .split('\n')
    .filter((l) => !isProbeLine(l))
    .slice(-n)
    .join('\n');
}
