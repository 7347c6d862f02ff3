import type { ExitInfo, Flag, HostContention, LoadResult, StatsSummary } from '../model/types.ts';
import { stationarity } from '../load/steady-state.ts';
import { UNEVEN_SHARE } from '../common/thresholds.ts';

/** Throttled for more than this share of the measured time: the CPU cap, not the app, set the pace. */
const THROTTLE_SHARE = 0.05;

/**
 * Other processes took more than this share (%) of the cores the target and the load ran on, over
 * the measured seconds: the host, not the caps, may have set the pace. Basis, on this 2-core host
 * during normal hello/json cells with nothing else running: dockerd (its stats stream), containerd,
 * the container's shim, the VM agent and kernel threads take 2–5 ticks a second together, and the
 * measured share was 0–2.7 % per cell (single seconds up to 9 %: tick sampling against the
 * container's ns accounting). A vitest run started beside a cell measured 15 % over the cell and
 * 20–36 % in the seconds it ran, and halved the cell's throughput in those seconds.
 */
export const HOST_BUSY_PCT = 10;
/**
 * …or a burst: at least this many measured seconds each above twice that share (a short stall a mean over the cell
 * hides).
 */
const HOST_BUSY_BURST_SEC = 2;

/** Everything a reader should be warned about, each with its reason in plain words. */
export function cellFlags(
  load: LoadResult | undefined,
  stats: StatsSummary | undefined,
  exit: ExitInfo | undefined,
  memoryMb: number,
): Flag[] {
  const flags: Flag[] = [];
  if (load?.clientBound)
    flags.push({ kind: 'client-bound', reason: load.clientBoundReason ?? 'the load generator was saturated' });
  if (exit?.oomKilled)
    flags.push({
      kind: 'oom-killed',
      reason: `the kernel killed a process for exceeding the ${memoryMb} MB memory cap`,
    });
  if (load) {
    const failed = load.errors + load.timeouts + load.non2xx;
    const all = load.requests + load.errors + load.timeouts;
    if (failed > 0) {
      const pct = all > 0 ? (failed / all) * 100 : 100;
      flags.push({
        kind: 'errors',
        reason:
          `${failed} failed requests (${pct.toFixed(2)} %): ` +
          `${load.errors} errors, ${load.timeouts} timeouts, ${load.non2xx} with an unexpected status`,
      });
    }
  }
  // A replicated cell's throttling is summed over its replicas: its share is of their time together.
  const replicas = load?.replicaRequests?.length ?? 1;
  const containerMs = load ? load.measuredSec * 1000 * replicas : 0;
  if (stats && load && containerMs > 0 && stats.throttledMs / containerMs > THROTTLE_SHARE) {
    const of = replicas > 1 ? ` (${replicas} replicas × ${Math.round(load.measuredSec * 1000)} ms)` : '';
    flags.push({
      kind: 'throttled',
      reason: `CPU throttled for ${Math.round(stats.throttledMs)} ms of ${Math.round(containerMs)} ms${of} by its cap`,
    });
  }
  const steady = load?.perSecondRps ? stationarity(load.perSecondRps) : undefined;
  if (steady?.unstable) flags.push({ kind: 'unstable', reason: steady.reason! });
  const busy = stats?.host ? hostBusyReason(stats.host) : undefined;
  if (busy) flags.push({ kind: 'host-busy', reason: busy });
  if (exit && exit.restarts > 0)
    flags.push({ kind: 'restarts', reason: `${exit.restarts} worker process(es) replaced during the cell` });
  const uneven = load?.replicaRequests ? unevenShareReason(load.replicaRequests) : undefined;
  if (uneven) flags.push({ kind: 'uneven-share', reason: uneven });
  return flags;
}

/** Words for an uneven share of the load over the replicas (counted per replica by the load), or undefined. */
export function unevenShareReason(requests: readonly number[]): string | undefined {
  const total = requests.reduce((a, b) => a + b, 0);
  if (requests.length < 2 || total <= 0) return undefined;
  const even = 1 / requests.length;
  const off = requests
    .map((n, i) => ({ i, share: n / total }))
    .filter((r) => Math.abs(r.share - even) / even > UNEVEN_SHARE);
  if (off.length === 0) return undefined;
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  const which = off.map((r) => `replica ${r.i + 1} served ${pct(r.share)}`).join(', ');
  return `${which} of the responses, against ${pct(even)} each if even (more than ${UNEVEN_SHARE * 100} % off)`;
}

function hostBusyReason(h: HostContention): string | undefined {
  const burst = h.perSecondOtherPct.filter((p) => p > 2 * HOST_BUSY_PCT);
  const plural = h.cores.includes('-') || h.cores.includes(',') ? 's' : '';
  const where = `core${plural} ${h.cores} (the target's and the load's)`;
  if (h.otherPct > HOST_BUSY_PCT)
    return `other processes took ${Math.round(h.otherPct)} % of ${where} while it measured`;
  if (burst.length >= HOST_BUSY_BURST_SEC) {
    return (
      `other processes took over ${2 * HOST_BUSY_PCT} % of ${where} ` +
      `in ${burst.length} of ${h.perSecondOtherPct.length} measured seconds ` +
      `(up to ${Math.round(Math.max(...burst))} %)`
    );
  }
  return undefined;
}
