import { bandwidthWords, cellLabel, linkWords } from '../../common/labels.ts';
import { fmtNum } from '../../common/format.ts';
import { skippedAfter } from '../../common/skipped-cells.ts';
import { MAX_ERROR_PCT, NOISY_CV, RATE_SHORTFALL } from '../../common/thresholds.ts';
import type { BoundPace, Bottleneck, CellConfig, CellLoad, FlagKind, LaunchMode, Sample } from '../../model/types.ts';
import type { StoredCell } from '../../model/stored.ts';
import { mean, summarize, summarizeOne, summarizeOneLog } from './stats.ts';
import type { ConfigurationSummary, Exclusion, FlagSummary } from '../types.ts';
import { compareEnv } from '../names.ts';
import { disqualifications } from './disqualify.ts';

export const ONE_REPETITION_NOTE =
  'one repetition: interval from batch means of its own seconds, blind to run-to-run variation; add repetitions';
export const TOO_FEW_NOTE =
  'too few repetitions to bound: an interval needs 3 or more, so no test decides with it; add repetitions';
export const NO_INTERVAL_NOTE = 'one repetition and no per-second series: no confidence interval; add repetitions';

/** Lightest launcher first: a single process has no primary; PM2 adds its daemon. Also breaks ties by cost. */
export const MODE_ORDER: Record<LaunchMode, number> = { single: 0, cluster: 1, pm2: 2, image: 3 };
const FLAG_ORDER: FlagKind[] = [
  'network-bound',
  'client-bound',
  'dependency-bound',
  'host-busy',
  'unstable',
  'oom-killed',
  'errors',
  'mix-off',
  'throttled',
  'restarts',
];

// A bandwidth cap, TLS and HTTP/2 are part of the conditions, like the load: only when set, so keys stored before stay.
const loadParts = (l: CellLoad): (string | number)[] =>
  [
    l.model === 'rate' ? ['rate', l.rate, l.connections] : ['closed', l.connections],
    l.networkMbps ? ['net', l.networkMbps] : [],
    l.tls ? ['tls', ...(l.tlsResume ? ['resume'] : [])] : [], // resume only when set: older keys stay
    l.protocol ? [l.protocol, l.streams ?? 1] : [],
  ].flat();

/** What is being served: the app and, when the matrix named request sets, which one. */
export const workloadKey = (w: { app: string; requestSet: string | null }): string =>
  JSON.stringify([w.app, w.requestSet]);
/**
 * What a configuration's replicas take in total: its caps are per replica, so R replicas take R times
 * each. One replica's totals are its caps.
 */
export const totalResources = (c: Pick<CellConfig, 'cpuMillis' | 'memoryMb' | 'replicas'>): [number, number] => [
  c.cpuMillis * (c.replicas ?? 1),
  c.memoryMb * (c.replicas ?? 1),
];
/**
 * Configurations with the same scope compete with each other: they serve the same workload under the
 * same load with the same TOTAL CPU and memory (caps × replicas), so "1 × 2000m / 1024 MB" and
 * "2 × 1000m / 512 MB" are compared like for like. Mode, workers, replicas, the Node.js version and
 * its flags are what differs within a scope. Without replicas the totals are the caps: old scopes keep
 * their keys.
 */
export const scopeKey = (c: CellConfig): string =>
  JSON.stringify([c.app, c.requests?.name ?? null, ...loadParts(c.load), ...totalResources(c)]);
/** The parts a configuration has only when its matrix named them (replicas ≥ 2, a Node.js version, flags, settings). */
const runtimeParts = (c: Pick<CellConfig, 'replicas' | 'node' | 'nodeFlags' | 'envSet'>): object[] => {
  const r = {
    ...((c.replicas ?? 1) >= 2 ? { replicas: c.replicas } : {}),
    ...(c.node !== undefined ? { node: c.node } : {}),
    ...(c.nodeFlags?.length ? { nodeFlags: c.nodeFlags } : {}),
    ...(c.envSet && Object.keys(c.envSet).length ? { envSet: c.envSet } : {}),
  };
  return Object.keys(r).length ? [r] : [];
};
/**
 * Repetitions of one configuration share this key. Replicas, the Node.js version and flags are in it
 * only when present, so a configuration stored before them keeps its key.
 */
export const configurationKey = (c: CellConfig): string =>
  JSON.stringify([
    c.app,
    c.requests?.name ?? null,
    c.mode,
    c.workers,
    c.cpuMillis,
    c.memoryMb,
    ...loadParts(c.load),
    ...runtimeParts(c),
  ]);

/** Whether two configurations run the same topology and runtime: replicas, Node.js version and flags. */
export const sameRuntime = (
  a: Pick<CellConfig, 'replicas' | 'node' | 'nodeFlags' | 'envSet'>,
  c: Pick<CellConfig, 'replicas' | 'node' | 'nodeFlags' | 'envSet'>,
): boolean => JSON.stringify(runtimeParts(a)) === JSON.stringify(runtimeParts(c));

/**
 * Whether two configurations differ at most in one cap (`free`): the same workload, load, mode,
 * workers, replicas, Node.js version and flags, and the same other cap. The memory and CPU
 * dimensions of the matrix are read this way.
 */
export function sameBut(free: 'cpuMillis' | 'memoryMb', a: ConfigurationSummary, c: ConfigurationSummary): boolean {
  const fixed = free === 'cpuMillis' ? 'memoryMb' : 'cpuMillis';
  return (
    a.app === c.app &&
    a.requestSet === c.requestSet &&
    JSON.stringify(a.load) === JSON.stringify(c.load) &&
    a.mode === c.mode &&
    a.workers === c.workers &&
    sameRuntime(a, c) &&
    a[fixed] === c[fixed]
  );
}

export const loadLabel = (l: CellLoad): string =>
  (l.model === 'closed'
    ? `${l.connections} connections`
    : `a constant ${fmtNum(l.rate)} req/s over ${l.connections} connections`) +
  linkWords(l) +
  bandwidthWords(l);
export const workloadLabel = (app: string, requestSet: string | null): string =>
  requestSet ? `${app} [${requestSet}]` : app;

/**
 * What capped these repetitions' goodput (a lower bound then), from their stored bottlenecks: the network at its cap,
 * the load generator (never where one missed its constant rate by the server's fault), a dependency, other
 * processes, or nothing.
 */
const PACES_AFTER_CLIENT = ['dependency', 'host'] as const;
type ConfigurationPace = { bottleneck: BoundPace | null; shortfallBy: 'server' | 'client' | null };
export function bottleneckOf(cells: readonly StoredCell[]): ConfigurationPace {
  const has = (b: Bottleneck): boolean => cells.some((c) => c.bottleneck === b);
  const shortfalls = cells.map(cellShortfall);
  const shortfallBy = shortfalls.includes('server') ? 'server' : shortfalls.includes('client') ? 'client' : null;
  const client = has('client') && shortfallBy !== 'server';
  const bottleneck = has('network') ? 'network' : client ? 'client' : (PACES_AFTER_CLIENT.find(has) ?? null);
  return { bottleneck, shortfallBy };
}

/** Why a cell is left out, or null when it counts. */
function exclusionReason(c: StoredCell): string | null {
  switch (c.status) {
    case 'ok': {
      // An unstable repetition (its seconds drifted or stepped) still counts: leaving it out moved
      // estimates toward the pick and made configurations lose for data not used. Its flag and the
      // wider spread it brings say how sure the answer can be.
      return c.rpsMean === null || c.p99Us === null ? 'no load result' : null;
    }
    case 'oom':
      return 'OOM-killed';
    case 'failed': {
      const first = c.failure?.split('\n')[0]?.trim();
      // Never started: its app's first cell failed at start in a way every cell of it would repeat.
      if (skippedAfter(first) !== undefined) return first!;
      return first ? `failed (${first.length > 120 ? `${first.slice(0, 119)}…` : first})` : 'failed';
    }
    case 'cancelled':
      return 'cancelled';
    case 'interrupted':
      return 'interrupted (the process running it stopped)';
    case 'running':
      return 'not finished';
  }
}

/** Failed requests and all attempts, counted as the `errors` flag counts them (engine/flags.ts). */
export function failedAndAttempts(c: StoredCell): [number, number] {
  const failed = (c.errors ?? 0) + (c.timeouts ?? 0) + (c.non2xx ?? 0);
  return [failed, (c.requests ?? 0) + (c.errors ?? 0) + (c.timeouts ?? 0)];
}

/**
 * A cell's throughput as goodput: responses with their expected status per second. New cells carry
 * it (load.goodputMean); older ones lose the unexpected-status share of their responses (errors and
 * timeouts never were responses, so they were never in rpsMean).
 */
export function cellGoodput(c: StoredCell): number {
  if (c.load?.goodputMean !== undefined) return c.load.goodputMean;
  const rps = c.rpsMean ?? 0;
  const responses = c.requests ?? 0;
  return responses > 0 ? (rps * Math.max(0, responses - (c.non2xx ?? 0))) / responses : rps;
}

/**
 * Goodput of each measured second: stored with the load result, or derived from the stored samples of older cells; null
 * when neither exists.
 */
export function cellGoodSeries(c: StoredCell, samples?: ReadonlyMap<number, readonly Sample[]>): number[] | null {
  const l = c.load;
  if (l?.perSecondGood?.length) return l.perSecondGood;
  if (l?.perSecondRps?.length) {
    const share = (c.rpsMean ?? 0) > 0 ? cellGoodput(c) / c.rpsMean! : 1;
    return l.perSecondRps.map((r) => r * share);
  }
  const ss = samples?.get(c.id);
  return ss?.length ? [...ss].sort((a, b) => a.t - b.t).map((x) => Math.max(0, x.rps - x.non2xx)) : null;
}

/** p99 of each measured second (µs), from the stored samples; null without them. */
export function cellP99Series(c: StoredCell, samples?: ReadonlyMap<number, readonly Sample[]>): number[] | null {
  const ss = samples?.get(c.id);
  return ss?.length ? [...ss].sort((a, b) => a.t - b.t).map((x) => x.p99Us) : null;
}

/**
 * Which side a missed constant rate (goodput below RATE_SHORTFALL of it) was on, as stored: the load generator's when
 * it was the cell's bottleneck (common/bottleneck.ts); else the server's when the load side recorded a shortfall (for
 * older cells, store migration 11) or the requests were answered at the rate and failed. null: held, or not recorded.
 */
export function cellShortfall(c: StoredCell): 'server' | 'client' | null {
  const load = c.config.load;
  if (load.model !== 'rate' || !c.bottleneck || cellGoodput(c) >= load.rate * RATE_SHORTFALL) return null;
  if (c.bottleneck === 'client') return 'client';
  return c.load?.shortfallBy || (c.rpsMean ?? 0) >= load.rate * RATE_SHORTFALL ? 'server' : null;
}

function flagSummaries(cells: StoredCell[]): FlagSummary[] {
  const out: FlagSummary[] = [];
  for (const kind of FLAG_ORDER) {
    const withIt = cells.filter((c) => c.flags.some((f) => f.kind === kind));
    if (withIt.length === 0) continue;
    const reasons = [...new Set(withIt.flatMap((c) => c.flags.filter((f) => f.kind === kind).map((f) => f.reason)))];
    out.push({ kind, cells: withIt.length, of: cells.length, reasons });
  }
  return out;
}

function compareConfigs(a: ConfigurationSummary, b: ConfigurationSummary): number {
  return (
    a.app.localeCompare(b.app) ||
    (a.requestSet ?? '').localeCompare(b.requestSet ?? '') ||
    a.load.model.localeCompare(b.load.model) ||
    (a.load.model === 'rate' ? a.load.rate : 0) - (b.load.model === 'rate' ? b.load.rate : 0) ||
    a.load.connections - b.load.connections ||
    a.cpuMillis - b.cpuMillis ||
    a.memoryMb - b.memoryMb ||
    MODE_ORDER[a.mode] - MODE_ORDER[b.mode] ||
    a.workers - b.workers ||
    (a.replicas ?? 1) - (b.replicas ?? 1) ||
    (a.node ?? '').localeCompare(b.node ?? '', undefined, { numeric: true }) ||
    (a.nodeFlags ?? []).join(' ').localeCompare((b.nodeFlags ?? []).join(' ')) ||
    compareEnv(a.envSet, b.envSet)
  );
}

/** A summary's replicas, Node.js version and flags (only those present), and the exact versions its cells ran. */
function runtimeFields(
  first: CellConfig,
  included: StoredCell[],
): Pick<ConfigurationSummary, 'replicas' | 'node' | 'nodeFlags' | 'envSet' | 'nodeVersions'> {
  // CellResult.nodeVersion as the store gives it back (cells stored before it have none).
  const ran = (c: StoredCell): string | undefined => (c as StoredCell & { nodeVersion?: string }).nodeVersion;
  const versions = [...new Set(included.flatMap((c) => (ran(c) ? [ran(c)!] : [])))];
  return {
    ...(runtimeParts(first)[0] as Pick<ConfigurationSummary, 'replicas' | 'node' | 'nodeFlags' | 'envSet'> | undefined),
    ...(versions.length ? { nodeVersions: versions } : {}),
  };
}

/** The items by key, in first-seen order of the keys (each group in input order). */
export function groupBy<T, K>(xs: Iterable<T>, key: (x: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const x of xs) {
    const k = key(x);
    const group = out.get(k);
    if (group) group.push(x);
    else out.set(k, [x]);
  }
  return out;
}

/** Groups the cells into configurations, aggregates the included repetitions and lists every exclusion. */
export function groupCells(
  cells: StoredCell[],
  samples?: ReadonlyMap<number, readonly Sample[]>,
): { configurations: ConfigurationSummary[]; exclusions: Exclusion[] } {
  // A verification cell ran the pick as a snippet deploys it (its own limits): evidence for the snippet, not a
  // repetition.
  const byKey = groupBy(
    cells.filter((c) => c.config.phase !== 'verify'),
    (c) => configurationKey(c.config),
  );
  const configurations: ConfigurationSummary[] = [];
  const exclusions: Exclusion[] = [];
  for (const [key, group] of byKey) {
    const first = group[0]!.config;
    const included: StoredCell[] = [];
    const excluded: Exclusion[] = [];
    // A host-busy repetition was disturbed from outside (not the server's doing, not the load
    // generator's): where two or more undisturbed repetitions remain, it is left out; otherwise it
    // stays, and the configuration's goodput is a lower bound.
    const counted = group.filter((c) => exclusionReason(c) === null);
    const quiet = counted.filter((c) => !c.flags.some((f) => f.kind === 'host-busy'));
    const dropBusy = quiet.length >= 2 && quiet.length < counted.length;
    for (const c of group) {
      const busy = c.flags.find((f) => f.kind === 'host-busy');
      const reason =
        exclusionReason(c) ??
        (dropBusy && busy
          ? `host-busy (${busy.reason}), with ${quiet.length} undisturbed repetitions to judge on`
          : null);
      if (reason === null) included.push(c);
      else
        excluded.push({
          cellIndex: c.config.index,
          repetition: c.config.repetition,
          key,
          status: c.status,
          reason,
          text: `${cellLabel(c.config)}: ${reason}, excluded`,
        });
    }
    exclusions.push(...excluded);
    const [failed, attempts] = included.map(failedAndAttempts).reduce(([f, a], [f1, a1]) => [f + f1, a + a1], [0, 0]);
    const goodput = included.map(cellGoodput);
    // With repetitions their spread is the honest one; one repetition leans on its own seconds.
    const rps =
      included.length === 0
        ? null
        : included.length === 1
          ? summarizeOne(goodput[0]!, cellGoodSeries(included[0]!, samples))
          : summarize(goodput);
    const errorPct = included.length === 0 ? null : attempts > 0 ? (failed / attempts) * 100 : failed > 0 ? 100 : 0;
    const notes: string[] = [];
    if (included.length === 0) notes.push('every repetition was excluded');
    if (included.length === 1) notes.push(rps?.ci ? ONE_REPETITION_NOTE : NO_INTERVAL_NOTE);
    if (included.length > 1 && !rps?.ci) notes.push(TOO_FEW_NOTE);
    const { bottleneck, shortfallBy } = bottleneckOf(included);
    configurations.push({
      key,
      scopeKey: scopeKey(first),
      label: cellLabel({ ...first, repetition: 0, phase: 'matrix' }),
      app: first.app,
      requestSet: first.requests?.name ?? null,
      mode: first.mode,
      workers: first.workers,
      cpuMillis: first.cpuMillis,
      memoryMb: first.memoryMb,
      load: first.load,
      ...runtimeFields(first, included),
      n: included.length,
      cellIndexes: included.map((c) => c.config.index),
      rps,
      rpsAll: included.length ? mean(included.map((c) => c.rpsMean!)) : null,
      intervalFrom: rps?.intervalFrom ?? null,
      // Like throughput: the repetitions' spread, or with one repetition batch means of its per-second
      // p99s on a log scale (stats.ts summarizeOneLog); p99Us.intervalFrom says which.
      p99Us:
        included.length === 0
          ? null
          : included.length === 1
            ? summarizeOneLog(included[0]!.p99Us!, cellP99Series(included[0]!, samples))
            : summarize(included.map((c) => c.p99Us!)),
      errorPct,
      workersPerCpu: first.workers / (first.cpuMillis / 1000),
      flags: flagSummaries(included),
      excluded,
      noisy: rps?.cv != null && rps.cv > NOISY_CV,
      disqualified: disqualifications(included, excluded, errorPct),
      // A busy load thread did not set the pace where every connection was waiting on the server.
      bottleneck,
      // Never claim the client was the bottleneck when a repetition saw the server saturated.
      shortfallBy,
      notes,
    });
  }
  configurations.sort(compareConfigs);
  exclusions.sort((a, b) => a.cellIndex - b.cellIndex);
  return { configurations, exclusions: foldSkipped(exclusions, cells) };
}

/**
 * The cells skipped after their app's first cell failed at start, said once per app: folded into
 * that cell's exclusion (or, if it is not among them, one line for them all). Each configuration
 * still lists its own excluded cells.
 */
function foldSkipped(exclusions: Exclusion[], cells: StoredCell[]): Exclusion[] {
  const failure = new Map(cells.map((c) => [c.config.index, c.failure]));
  const appOf = new Map(cells.map((c) => [c.config.index, c.config.app]));
  const skipped = groupBy(
    exclusions.filter((e) => skippedAfter(failure.get(e.cellIndex)) !== undefined),
    (e) => skippedAfter(failure.get(e.cellIndex))!,
  );
  if (skipped.size === 0) return exclusions;
  const out: Exclusion[] = [];
  for (const e of exclusions) {
    const after = skippedAfter(failure.get(e.cellIndex));
    const group = skipped.get(after ?? e.cellIndex + 1);
    if (!group) {
      out.push(e);
      continue;
    }
    const n = group.length;
    const others = `${n} other cell${n === 1 ? '' : 's'} of ${appOf.get(e.cellIndex)}`;
    if (after === undefined) {
      // The first cell: it says what happened to the others.
      out.push({ ...e, text: `${e.text}; its ${others} skipped at once (the same failure expected), excluded too` });
    } else if (group[0] === e && !exclusions.some((x) => x.cellIndex === after - 1)) {
      out.push({ ...e, text: `${others.replace(/^\d+ other/, String(n))} ${e.reason}, excluded` });
    }
  }
  return out;
}
