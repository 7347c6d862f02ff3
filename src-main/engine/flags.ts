import type {
  CellResult,
  DependencyReading,
  ExitInfo,
  Flag,
  HostContention,
  LoadResult,
  StatsSummary,
} from '../model/types.ts';
import { stationarity } from '../load/steady-state.ts';
import {
  APP_HEADROOM_PCT,
  DEPENDENCY_SATURATED_PCT,
  HOST_BUSY_BURST_SEC,
  HOST_BUSY_PCT,
  MIN_PERIODS_FOR_SHARE,
  NETWORK_BOUND_SHARE,
  THROTTLED_TIME_SHARE,
  UNEVEN_SHARE,
} from '../common/thresholds.ts';
import { cellBottleneck } from '../common/bottleneck.ts';
import { offShares, SHARE_CHECK_MIN_SEC } from '../mix/routes.ts';
import { fmtNum, fmtPct } from '../common/format.ts';
import { linkShare } from '../common/link-share.ts';
import { throttledShare } from '../common/throttled-share.ts';

/**
 * The flags step of a measured cell: its flags, and what set its pace (common/bottleneck.ts), decided here once
 * from them and the load result, and stored with the cell. The load is the one the probe has checked
 * (engine/client-check.ts).
 */
export function cellFlagsAndBottleneck(
  load: LoadResult | undefined,
  stats: StatsSummary | undefined,
  exit: ExitInfo | undefined,
  memoryMb: number,
  dependencies?: readonly DependencyReading[],
  networkMbps?: number,
): Pick<CellResult, 'flags' | 'bottleneck'> {
  const flags = cellFlags(load, stats, exit, memoryMb, dependencies, networkMbps);
  const bottleneck = cellBottleneck({ flags, load });
  return { flags, ...(bottleneck ? { bottleneck } : {}) };
}

/** Everything a reader should be warned about, each with its reason in plain words. */
export function cellFlags(
  load: LoadResult | undefined,
  stats: StatsSummary | undefined,
  exit: ExitInfo | undefined,
  memoryMb: number,
  dependencies?: readonly DependencyReading[],
  networkMbps?: number,
): Flag[] {
  const flags: Flag[] = [];
  const link = load && networkMbps ? networkBoundReason(load, networkMbps) : undefined;
  if (link) flags.push({ kind: 'network-bound', reason: link });
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
  if (stats && load && containerMs > 0 && stats.throttledMs / containerMs > THROTTLED_TIME_SHARE) {
    const of = replicas > 1 ? ` (${replicas} replicas × ${Math.round(load.measuredSec * 1000)} ms)` : '';
    flags.push({
      kind: 'throttled',
      reason: `CPU throttled for ${Math.round(stats.throttledMs)} ms of ${Math.round(containerMs)} ms${of} by its cap`,
    });
  }
  const steady = load?.perSecondRps ? stationarity(load.perSecondRps) : undefined;
  if (steady?.unstable) flags.push({ kind: 'unstable', reason: steady.reason! });
  const bound = load && stats ? dependencyBoundReason(stats, dependencies ?? []) : undefined;
  if (bound) flags.push({ kind: 'dependency-bound', reason: bound });
  const busy = stats?.host ? hostBusyReason(stats.host) : undefined;
  if (busy) flags.push({ kind: 'host-busy', reason: busy });
  if (exit && exit.restarts > 0)
    flags.push({ kind: 'restarts', reason: `${exit.restarts} worker process(es) replaced during the cell` });
  const uneven = load?.replicaRequests ? unevenShareReason(load.replicaRequests) : undefined;
  if (uneven) flags.push({ kind: 'uneven-share', reason: uneven });
  const off = load?.routes && load.measuredSec >= SHARE_CHECK_MIN_SEC ? offShares(load.routes) : [];
  if (off.length) flags.push({ kind: 'mix-off', reason: off.join('; ') });
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

/** Words for a cell whose responses filled its bandwidth cap (common/link-share.ts), or undefined. */
export function networkBoundReason(
  load: Pick<LoadResult, 'bytesPerSec' | 'replicaRequests' | 'perSecondBytes'>,
  networkMbps: number,
): string | undefined {
  const { mbps, cap, share, fromSeconds } = linkShare(load, networkMbps);
  if (share < NETWORK_BOUND_SHARE) return undefined;
  const replicas = load.replicaRequests?.length ?? 1;
  const of =
    replicas > 1
      ? `its ${replicas} replicas' ${fmtNum(cap)} Mbit/s (${fmtNum(networkMbps)} each)`
      : `its ${fmtNum(cap)} Mbit/s`;
  const when = fromSeconds ? ' in the median second' : '';
  const carried = `its responses carried ${fmtNum(mbps, 0)} Mbit/s${when}, ${fmtPct(share * 100)}`;
  return `${carried} of ${of} bandwidth cap: the network set the pace`;
}

/**
 * A dependency at its own CPU cap: it used that share of it on average, or it ran out of its quota in that share of
 * the enforcement periods it was busy in. The kernel counts a period only while the group has work, so the second
 * reading is blind to idle time around the load (a reading's second begun before it) and to time spent on the disk.
 */
function atCap(d: DependencyReading): { d: DependencyReading; pct: number; throttled?: number } | undefined {
  const s = d.stats;
  if (!s) return undefined;
  if (s.cpuPctMean >= DEPENDENCY_SATURATED_PCT) return { d, pct: s.cpuPctMean };
  const throttled = throttledShare(s, MIN_PERIODS_FOR_SHARE);
  return throttled !== undefined && throttled * 100 >= DEPENDENCY_SATURATED_PCT
    ? { d, pct: s.cpuPctMean, throttled }
    : undefined;
}

/** Words for a dependency at its own CPU cap while the app had room (the first such, by CPU share), or undefined. */
export function dependencyBoundReason(app: StatsSummary, deps: readonly DependencyReading[]): string | undefined {
  if (app.cpuPctMean >= APP_HEADROOM_PCT) return undefined;
  const [first] = deps.flatMap((d) => atCap(d) ?? []).sort((a, b) => b.pct - a.pct);
  if (!first) return undefined;
  const { d, pct, throttled } = first;
  const quota = throttled !== undefined ? ` (out of it in ${fmtPct(throttled * 100)} of its busy periods)` : '';
  return (
    `${d.name} (${d.image}) used ${Math.round(pct)} % of its ${d.cpuMillis / 1000} CPU cap${quota} ` +
    `while the app used ${Math.round(app.cpuPctMean)} % of its own: ${d.name} set the pace`
  );
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
