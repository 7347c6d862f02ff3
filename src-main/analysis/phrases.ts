// The phrases every sentence of the answer shares: who ran ("2 cluster workers"), its numbers with
// their intervals, its flags and caveats, and how sure a pick is in a few words.
import { fmtNum, fmtPct, fmtUs, fmtUsPm } from '../common/format.ts';
import { pairLabel } from '../common/resource-labels.ts';
import { joinAnd } from '../common/text.ts';
import type { FlagKind } from '../model/types.ts';
import { RUN_TO_RUN_SPREAD } from './stats.ts';
import type { ConfigurationSummary, FlagSummary, Verdict } from './types.ts';

/** What one worker is called in each mode; an image app's workers are the ones its variable asked for. */
const NOUN: Record<Exclude<ConfigurationSummary['mode'], 'single'>, string> = {
  cluster: 'cluster worker',
  pm2: 'PM2 instance',
  image: 'image worker',
};

/** What a label may name: the mode and workers, and where present the replicas, Node.js version and flags. */
export type Named = Pick<ConfigurationSummary, 'mode' | 'workers'> &
  Partial<Pick<ConfigurationSummary, 'replicas' | 'node' | 'nodeFlags'>>;

/**
 * What the configurations named together differ in, so each label says it even where its own value is
 * the default: "1 container ×" beside "2 containers ×", "the default Node.js" beside "Node 22", "no
 * flags" beside a flag.
 */
export interface WhoContext {
  containers: boolean;
  node: boolean;
  flags: boolean;
}

/** The context of a set of configurations named side by side (whoContext of the scope, of the contenders). */
export function whoContext(cs: readonly Named[]): WhoContext {
  return {
    containers: cs.some((c) => (c.replicas ?? 1) >= 2),
    node: new Set(cs.map((c) => c.node ?? null)).size > 1,
    flags: new Set(cs.map((c) => (c.nodeFlags ?? []).join(' '))).size > 1,
  };
}

/** "a single process", "1 cluster worker", "4 PM2 instances": the mode and workers alone. */
const workersOf = (c: Named): string =>
  c.mode === 'single' ? 'a single process' : `${c.workers} ${NOUN[c.mode]}${c.workers === 1 ? '' : 's'}`;

/**
 * The one label of a configuration: "a single process", "1 cluster worker", "4 PM2 instances"; with
 * replicas "2 containers × 1 cluster worker" (workers are per container); with a Node.js version or
 * flags "2 cluster workers (Node 22, --max-semi-space-size=32)". A caller that names the containers
 * or the version itself passes only {mode, workers}.
 */
export function who(c: Named, ctx?: WhoContext): string {
  const r = Math.max(1, c.replicas ?? 1);
  const topology = r >= 2 || ctx?.containers ? `${r} container${r === 1 ? '' : 's'} × ${workersOf(c)}` : workersOf(c);
  const node = c.node !== undefined ? `Node ${c.node}` : ctx?.node ? 'the default Node.js' : null;
  const flags = c.nodeFlags?.length ? c.nodeFlags.join(' ') : ctx?.flags ? 'no flags' : null;
  const runtime = [node, flags].filter((x): x is string => x !== null);
  return runtime.length ? `${topology} (${runtime.join(', ')})` : topology;
}

/**
 * Where a configuration ran: "1 CPU / 256 MB"; with replicas its caps each and the totals, "0.5 CPU /
 * 256 MB each (1 CPU / 512 MB in total)" (a scope holds equal totals: analysis/group.ts scopeKey).
 */
export function onWhat(c: Pick<ConfigurationSummary, 'cpuMillis' | 'memoryMb' | 'replicas'>): string {
  const r = Math.max(1, c.replicas ?? 1);
  const each = pairLabel(c.cpuMillis, c.memoryMb);
  return r >= 2 ? `${each} each (${pairLabel(c.cpuMillis * r, c.memoryMb * r)} in total)` : each;
}

/** "2, 4 and 8 cluster workers" when the modes, replicas, version and flags agree, else each named in full. */
export function whoList(cs: ConfigurationSummary[], ctx?: WhoContext): string {
  const sorted = [...cs].sort((a, b) => a.workers - b.workers);
  const first = sorted[0];
  const runtime = (c: Named): string => JSON.stringify([c.replicas ?? 1, c.node ?? null, c.nodeFlags ?? []]);
  const alike =
    first !== undefined &&
    first.mode !== 'single' &&
    sorted.every((c) => c.mode === first.mode && runtime(c) === runtime(first));
  if (sorted.length > 1 && alike) {
    // The shared parts said once around the counts: "2 containers × 1 and 2 cluster workers (Node 22)".
    const one = who({ ...first, workers: 2 }, ctx);
    const counts = `${joinAnd(sorted.map((c) => String(c.workers)))} ${NOUN[first.mode as keyof typeof NOUN]}s`;
    return one.replace(`2 ${NOUN[first.mode as keyof typeof NOUN]}s`, counts);
  }
  return joinAnd(sorted.map((c) => who(c, ctx)));
}

/** "was" for one process or worker, "were" for more. */
export const be = (cs: ConfigurationSummary[]): string =>
  cs.length === 1 && (cs[0]!.mode === 'single' || cs[0]!.workers === 1) ? 'was' : 'were';

/** "25,309 ± 812 req/s, n = 3", "25,309 ± 812 req/s, one run, batch means" or "25,309 req/s, a single sample". */
export function rpsText(c: ConfigurationSummary): string {
  const r = c.rps!;
  if (!r.ci)
    return `${fmtNum(r.mean)} req/s, ${r.n > 1 ? `n = ${r.n}, too few repetitions to bound` : 'a single sample'}`;
  return (
    `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)} req/s, ` +
    `${r.intervalFrom === 'batch-means' ? 'one run, batch means' : `n = ${r.n}`}`
  );
}

/**
 * A table cell's p99: "2.1 ms ± 0.3", "2.1 ms (1.9–2.4)" (one run: both ends, in the mean's unit when they share it) or
 * "2.1 ms (n = 1)".
 */
export function p99Short(c: ConfigurationSummary): string {
  const p = c.p99Us!;
  if (!p.ci) return `${fmtUs(p.mean)} (n = ${p.n}${p.n > 1 ? ', too few to bound' : ''})`;
  // From one run the interval is taken on a log scale: asymmetric, so both ends are given.
  if (p.intervalFrom === 'batch-means') {
    const [low, high] = [fmtUs(p.ci.low), fmtUs(p.ci.high)];
    const unit = (t: string): string => t.split(' ')[1] ?? '';
    // One unit for all three where they share it: narrow enough for a table column.
    const same = unit(low) === unit(high) && unit(high) === unit(fmtUs(p.mean));
    return same ? `${fmtUs(p.mean)} (${low.split(' ')[0]}–${high.split(' ')[0]})` : `${fmtUs(p.mean)} (${low}–${high})`;
  }
  return fmtUsPm(p.mean, p.ci.halfWidth);
}

/**
 * "2.1 ms ± 0.3, n = 3", "2.1 ms (1.9 ms–2.4 ms), one run, batch means of its per-second p99s" or "2.1 ms, a single
 * sample".
 */
export function p99Text(c: ConfigurationSummary): string {
  const p = c.p99Us!;
  if (!p.ci) return `${fmtUs(p.mean)}, ${p.n > 1 ? `n = ${p.n}, too few repetitions to bound` : 'a single sample'}`;
  return (
    `${p99Short(c)}, ` +
    `${p.intervalFrom === 'batch-means' ? 'one run, batch means of its per-second p99s' : `n = ${p.n}`}`
  );
}

/**
 * How much weaker one repetition's interval is: its typical relative width (median over the
 * configurations that ran once) against the run-to-run spread the repeatability benchmark measured.
 */
export function singleRunWeakness(single: readonly ConfigurationSummary[]): string {
  const widths = single
    .filter((c) => c.rps?.ci && c.rps.mean > 0)
    .map((c) => (2 * c.rps!.ci!.halfWidth) / c.rps!.mean)
    .sort((a, b) => a - b);
  const spread =
    `back-to-back runs of one configuration differed by up to ${fmtPct(RUN_TO_RUN_SPREAD * 100)} in goodput ` +
    '(the repeatability benchmark)';
  if (!widths.length) return `${spread}, and that is the uncertainty these numbers carry`;
  const width = widths[Math.floor(widths.length / 2)]!;
  const ratio = RUN_TO_RUN_SPREAD / width;
  return ratio > 1.5
    ? `${spread}, while a single run's interval is ${fmtPct(width * 100)} wide: about ` +
        `${fmtNum(ratio, ratio < 10 ? 1 : 0)} times narrower than the variation it cannot see, so a difference ` +
        `below ${fmtPct(RUN_TO_RUN_SPREAD * 100)} is not settled by one run`
    : `${spread}, about as wide as a single run's interval here (${fmtPct(width * 100)}), but that interval ` +
        'does not include it';
}

const FLAG_WORDS: Record<FlagKind, string> = {
  'client-bound': 'the load generator may have set the pace, so the server may be faster than measured',
  'oom-killed': 'a process hit the memory cap and was killed',
  errors: 'requests failed',
  throttled: 'the CPU cap, not the app, set the pace',
  restarts: 'worker processes were replaced',
  unstable: 'throughput drifted or stepped during the measured seconds, so its mean is not a steady state',
  'host-busy': 'other processes on the host took CPU from the target or the load generator',
  'uneven-share': 'the replicas did not get an even share of the load, so the cell is not the topology it names',
};

/** Said instead of "the server may be faster" where every connection was waiting on the server. */
const CLIENT_BOUND_BUT_SERVER =
  'a load thread was busy too, but every connection was waiting on the server, so the server set the pace';

/**
 * "client-bound in 2 of 3 repetitions — the load generator may have set the pace… (busy 95 %)".
 * With `shortfallBy` 'server' a client-bound flag never claims the server may be faster.
 */
export function flagPhrase(f: FlagSummary, shortfallBy: ConfigurationSummary['shortfallBy'] = null): string {
  const where = f.of === 1 ? '' : ` in ${f.cells} of ${f.of} repetitions`;
  const words = f.kind === 'client-bound' && shortfallBy === 'server' ? CLIENT_BOUND_BUT_SERVER : FLAG_WORDS[f.kind];
  return `${f.kind}${where} — ${words}${f.reasons[0] ? ` (${f.reasons[0]})` : ''}`;
}

/** Flags and excluded repetitions of a configuration someone may act on. */
export function caveats(c: ConfigurationSummary): string[] {
  const out = c.flags.map((f) => flagPhrase(f, c.shortfallBy));
  if (c.excluded.length) {
    const reasons = joinAnd([...new Set(c.excluded.map((e) => e.reason))]);
    out.push(
      `${c.excluded.length} of its ${c.excluded.length + c.n} repetitions ` +
        `${c.excluded.length === 1 ? 'was' : 'were'} excluded (${reasons})`,
    );
  }
  return out;
}

/** How sure a pick is, in two or three words (tables in the UI). */
export function verdictShort(v: Verdict): string {
  switch (v) {
    case 'clear':
      return 'clear';
    case 'not-distinguishable':
      return 'not distinguishable';
    case 'single-sample':
      return 'means only';
    case 'only-one':
      return 'only candidate';
    case 'bottlenecked':
      return 'not confident'; // the load generator or the host set the pace: the words say which
  }
}
