import type { ExitInfo, Flag, LoadResult, StatsSummary } from './types.ts';

/** Throttled for more than this share of the measured time: the CPU cap, not the app, set the pace. */
const THROTTLE_SHARE = 0.05;

/** Everything a reader should be warned about, each with its reason in plain words. */
export function cellFlags(load: LoadResult | undefined, stats: StatsSummary | undefined, exit: ExitInfo | undefined, memoryMb: number): Flag[] {
  const flags: Flag[] = [];
  if (load?.clientBound) flags.push({ kind: 'client-bound', reason: load.clientBoundReason ?? 'the load generator was saturated' });
  if (exit?.oomKilled) flags.push({ kind: 'oom-killed', reason: `the kernel killed a process for exceeding the ${memoryMb} MB memory cap` });
  if (load) {
    const failed = load.errors + load.timeouts + load.non2xx;
    const all = load.requests + load.errors + load.timeouts;
    if (failed > 0) {
      const pct = all > 0 ? (failed / all) * 100 : 100;
      flags.push({ kind: 'errors', reason: `${failed} failed requests (${pct.toFixed(2)} %): ${load.errors} errors, ${load.timeouts} timeouts, ${load.non2xx} with an unexpected status` });
    }
  }
  if (stats && load && load.measuredSec > 0 && stats.throttledMs / (load.measuredSec * 1000) > THROTTLE_SHARE) {
    flags.push({ kind: 'throttled', reason: `CPU throttled for ${Math.round(stats.throttledMs)} ms of ${Math.round(load.measuredSec * 1000)} ms by its cap` });
  }
  if (exit && exit.restarts > 0) flags.push({ kind: 'restarts', reason: `${exit.restarts} worker process(es) replaced during the cell` });
  return flags;
}
