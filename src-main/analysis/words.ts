import { RATE_SHORTFALL } from '../common/thresholds.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import type { FlagKind } from '../model/types.ts';
import { withinMargin } from './decide.ts';
import { cpuLabel, loadLabel, MAX_ERROR_PCT, memLabel, pairLabel, workloadLabel } from './group.ts';
import { fmtMb, freshNeedText, limitFromPeak, MEMORY_HEADROOM, MEMORY_LIMIT_RULE, MEMORY_ROUND_MB } from './memory.ts';
import { describeSlo } from './slo.ts';
import { RUN_TO_RUN_SPREAD } from './stats.ts';
import type {
  ConfigurationSummary,
  FlagSummary,
  MemoryCap,
  PeakSource,
  Recommendation,
  ScopeDecision,
  Sizing,
  Slo,
  SloCheck,
  SloOutcome,
  UndecidedScope,
  Verdict,
} from './types.ts';

const MAX_LISTED_EXCLUSIONS = 10;

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function joinAnd(xs: string[]): string {
  return xs.length <= 1 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}

/** What one worker is called in each mode; an image app's workers are the ones its variable asked for. */
const NOUN: Record<Exclude<ConfigurationSummary['mode'], 'single'>, string> = {
  cluster: 'cluster worker',
  pm2: 'PM2 instance',
  image: 'image worker',
};

/** "a single process", "1 cluster worker", "4 PM2 instances", "3 image workers". */
export function who(c: Pick<ConfigurationSummary, 'mode' | 'workers'>): string {
  if (c.mode === 'single') return 'a single process';
  return `${c.workers} ${NOUN[c.mode]}${c.workers === 1 ? '' : 's'}`;
}

/** "2, 4 and 8 cluster workers" when the modes agree, else each named in full. */
export function whoList(cs: ConfigurationSummary[]): string {
  const sorted = [...cs].sort((a, b) => a.workers - b.workers);
  const mode = sorted[0]?.mode;
  if (sorted.length > 1 && mode !== 'single' && sorted.every((c) => c.mode === mode)) {
    return `${joinAnd(sorted.map((c) => String(c.workers)))} ${NOUN[mode as keyof typeof NOUN]}s`;
  }
  return joinAnd(sorted.map(who));
}

/** "was" for one process or worker, "were" for more. */
const be = (cs: ConfigurationSummary[]): string =>
  cs.length === 1 && (cs[0]!.mode === 'single' || cs[0]!.workers === 1) ? 'was' : 'were';

export function fmtPct(x: number): string {
  return `${fmtNum(x, x === 0 || x >= 10 ? 0 : x < 1 ? 2 : 1)} %`;
}

/** A knee margin in percent, without the sign: whole numbers as such, others to one decimal. */
export const fmtMargin = (m: number): string => fmtNum(m, Number.isInteger(m) ? 0 : 1);

export const fmtRatio = (r: number): string => fmtNum(r, Number.isInteger(r) ? 0 : Number.isInteger(r * 10) ? 1 : 2);

/** "1.79 ms ± 0.12": the half-width in the unit and precision fmtUs chose for the mean. */
export function fmtUsPm(meanUs: number, halfUs: number): string {
  const text = fmtUs(meanUs);
  const [num = '', unit = ''] = text.split(' ');
  const decimals = num.split('.')[1]?.length ?? 0;
  const scale = unit === 's' ? 1e6 : unit === 'ms' ? 1000 : 1;
  return `${text} ± ${(halfUs / scale).toFixed(decimals)}`;
}

/** "25,309 ± 812 req/s, n = 3", "25,309 ± 812 req/s, one run, batch means" or "25,309 req/s, a single sample". */
export function rpsText(c: ConfigurationSummary): string {
  const r = c.rps!;
  if (!r.ci) return `${fmtNum(r.mean)} req/s, a single sample`;
  return `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)} req/s, ${r.intervalFrom === 'batch-means' ? 'one run, batch means' : `n = ${r.n}`}`;
}

/**
 * A table cell's p99: "2.1 ms ± 0.3", "2.1 ms (1.9–2.4)" (one run: both ends, in the mean's unit when they share it) or
 * "2.1 ms (n = 1)".
 */
export function p99Short(c: ConfigurationSummary): string {
  const p = c.p99Us!;
  if (!p.ci) return `${fmtUs(p.mean)} (n = 1)`;
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
  if (!p.ci) return `${fmtUs(p.mean)}, a single sample`;
  return `${p99Short(c)}, ${p.intervalFrom === 'batch-means' ? 'one run, batch means of its per-second p99s' : `n = ${p.n}`}`;
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
  const spread = `back-to-back runs of one configuration differed by up to ${fmtPct(RUN_TO_RUN_SPREAD * 100)} in goodput (the repeatability benchmark)`;
  if (!widths.length) return `${spread}, and that is the uncertainty these numbers carry`;
  const width = widths[Math.floor(widths.length / 2)]!;
  const ratio = RUN_TO_RUN_SPREAD / width;
  return ratio > 1.5
    ? `${spread}, while a single run's interval is ${fmtPct(width * 100)} wide: about ${fmtNum(ratio, ratio < 10 ? 1 : 0)} times narrower than the variation it cannot see, so a difference below ${fmtPct(RUN_TO_RUN_SPREAD * 100)} is not settled by one run`
    : `${spread}, about as wide as a single run's interval here (${fmtPct(width * 100)}), but that interval does not include it`;
}

const FLAG_WORDS: Record<FlagKind, string> = {
  'client-bound': 'the load generator may have set the pace, so the server may be faster than measured',
  'oom-killed': 'a process hit the memory cap and was killed',
  errors: 'requests failed',
  throttled: 'the CPU cap, not the app, set the pace',
  restarts: 'worker processes were replaced',
  unstable: 'throughput drifted or stepped during the measured seconds, so its mean is not a steady state',
  'host-busy': 'other processes on the host took CPU from the target or the load generator',
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
function caveats(c: ConfigurationSummary): string[] {
  const out = c.flags.map((f) => flagPhrase(f, c.shortfallBy));
  if (c.excluded.length) {
    const reasons = joinAnd([...new Set(c.excluded.map((e) => e.reason))]);
    out.push(
      `${c.excluded.length} of its ${c.excluded.length + c.n} repetitions ${c.excluded.length === 1 ? 'was' : 'were'} excluded (${reasons})`,
    );
  }
  return out;
}

/** How a constant rate that was missed is explained, by the side that was the bottleneck. */
function shortfallSentences(short: ConfigurationSummary[]): string[] {
  const by = (side: ConfigurationSummary['shortfallBy']): ConfigurationSummary[] =>
    short.filter((c) => c.shortfallBy === side);
  const out: string[] = [];
  const server = by('server');
  const client = by('client');
  const unknown = by(null);
  if (server.length)
    out.push(
      `${capitalize(whoList(server))} fell short of the rate with every connection waiting on the server: the server was saturated.`,
    );
  if (client.length)
    out.push(
      `${capitalize(whoList(client))} fell short of the rate because a load thread was saturated: the load generator fell behind, so the server may be faster than measured.`,
    );
  if (unknown.length)
    out.push(
      `${capitalize(whoList(unknown))} fell short of the rate; the run did not record which side was the bottleneck.`,
    );
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

/**
 * The lower bounds of a pair, said once: used as bounds (contest.ts), they may beat an estimate, nothing beats them.
 */
function boundsSentence(s: ScopeDecision, pick: (keys: string[]) => ConfigurationSummary[]): string {
  const held = pick(s.lowerBounds);
  return `${capitalize(whoList(held))} ${be(held)} client-bound or host-busy: ${held.length === 1 ? 'its' : 'their'} goodput (${held.map((c) => `≥ ${fmtNum(c.rps!.mean)} req/s`).join(', ')}) is a lower bound — the server was at least that fast — and counts as one: it can beat a measured estimate, but nothing is shown faster than it or within a margin of it.`;
}

function verdictSentence(
  s: ScopeDecision,
  best: ConfigurationSummary,
  pick: (keys: string[]) => ConfigurationSummary[],
  marginPct = 5,
): string {
  if (s.state === 'equivalent') {
    const tied = pick(s.contenders);
    return `${capitalize(whoList(tied))} are shown within ${fmtMargin(marginPct)} % of the best throughput (one-sided Welch's t-tests, Holm-corrected, 5 %): equivalent, so the cheapest is the pick.`;
  }
  switch (s.rpsVerdict) {
    case 'not-distinguishable':
      return `${capitalize(whoList([best, ...pick(s.notDistinguishableRps)]))} are not distinguishable on throughput (Welch's t-test, Holm-corrected, 5 %).`;
    case 'clear':
      return "Welch's t-test puts every other configuration here significantly below it (Holm-corrected, 5 %).";
    case 'bottlenecked':
      return boundsSentence(s, pick);
    default:
      return best.rps!.ci
        ? 'Some configurations here have no interval: against those, only means were compared.'
        : 'These are single samples with no per-second series: means compared, with no test.';
  }
}

function scopeSentences(
  s: ScopeDecision,
  byKey: Map<string, ConfigurationSummary>,
  marginPct: number,
  withContext: boolean,
): string[] {
  const cs = s.candidates.map((k) => byKey.get(k)!);
  const pick = (keys: string[]): ConfigurationSummary[] => keys.map((k) => byKey.get(k)!);
  const where = `On ${s.label}${withContext ? ` (${s.context})` : ''}`;
  const out: string[] = [];
  const { bestRps: best, knee, lowestP99: low } = s;
  const only = s.candidates.length === 1;

  if (only) {
    out.push(
      `${where}, only ${who(best)} (${fmtRatio(best.workersPerCpu)} per CPU) ${be([best])} ${s.setAside.length ? 'a candidate' : 'measured'}: ${rpsText(best)}; p99 ${p99Text(best)}.`,
    );
    if (s.lowerBounds.length) out.push(boundsSentence(s, pick));
  } else if (s.load.model === 'rate') {
    // At a constant rate req/s is what was asked for; what differs is whether it was delivered, and latency.
    const rate = s.load.rate;
    const short = cs.filter((c) => c.rps!.mean < rate * RATE_SHORTFALL);
    out.push(
      `${where}, the load was a constant ${fmtNum(rate)} req/s: ${cs.length - short.length} of ${cs.length} configurations delivered at least ${fmtPct(RATE_SHORTFALL * 100)} of it.`,
    );
    out.push(...shortfallSentences(short));
  } else {
    const bound = s.lowerBounds.includes(best.key) ? ', a lower bound: the server was at least that fast' : '';
    out.push(
      `${where}, ${who(best)} (${fmtRatio(best.workersPerCpu)} per CPU) gave the best throughput (${rpsText(best)}${bound}).`,
    );
    if (knee !== best) {
      const head = `${capitalize(who(knee))} (${fmtRatio(knee.workersPerCpu)} per CPU) ${be([knee])}`;
      const value = `${s.lowerBounds.includes(knee.key) ? '≥ ' : ''}${fmtNum(knee.rps!.mean)} req/s`;
      const m = fmtMargin(marginPct);
      out.push(
        s.kneeEvidence === 'shown-within'
          ? `${head} within ${m} % of it by the test (${value}): the knee.`
          : s.kneeEvidence === 'not-below'
            ? `${head} the knee (${value}): not significantly more than ${m} % below the best, but not shown within ${m} % either, so this is weak.`
            : `${head} within ${m} % of it on the means, with no interval (${value}): the knee.`,
      );
    } else if (s.state !== 'undecided' && cs.some((c) => c.workers < best.workers)) {
      out.push(
        `Fewer workers were significantly more than ${fmtMargin(marginPct)} % below it, so it is also the knee.`,
      );
    }
    out.push(verdictSentence(s, best, pick, marginPct));
    if (s.lowerBounds.length && s.rpsVerdict !== 'bottlenecked') out.push(boundsSentence(s, pick));
    const tied = new Set(s.notDistinguishableRps);
    const more = cs.filter((c) => c.workers > best.workers && !tied.has(c.key));
    if (more.length) {
      const clearly = new Set(s.clearlyBelowRps);
      out.push(
        more.every((c) => clearly.has(c.key))
          ? `More workers only cost throughput: ${whoList(more)} ${be(more)} significantly slower.`
          : `More workers were no better (${whoList(more)}).`,
      );
    }
  }
  if (s.ceiling === 'client') {
    out.push(
      'Every candidate here was client-bound: the load generator, not the server, set the ceiling, so the server may be faster than any of these numbers and the comparison says little.',
    );
  } else if (s.ceiling === 'host') {
    out.push(
      'Every candidate here was client-bound or host-busy: the load generator or other processes on the host, not the server, set the ceiling.',
    );
  }
  if (s.setAside.length) {
    out.push(
      `Not picked on ${s.label}: ${s.setAside.map((x) => `${who(byKey.get(x.key)!)} (${x.reason})`).join('; ')}.`,
    );
  }
  if (!only) {
    out.push(`Lowest p99: ${who(low)} (${p99Text(low)}).`);
    if (s.p99Verdict === 'not-distinguishable')
      out.push(`${capitalize(whoList([low, ...pick(s.notDistinguishableP99)]))} are not distinguishable on p99.`);
  }
  for (const c of [...new Set([best, knee, low])]) {
    const cav = caveats(c);
    if (cav.length) out.push(`Caveat for ${who(c)} on ${s.label}: ${cav.join('; ')}.`);
  }
  return out;
}

function undecidedSentence(u: UndecidedScope, byKey: Map<string, ConfigurationSummary>, withContext: boolean): string {
  return `On ${u.label}${withContext ? ` (${u.context})` : ''}, no configuration qualifies to be picked: ${u.setAside.map((x) => `${who(byKey.get(x.key)!)} (${x.reason})`).join('; ')}.`;
}

/**
 * The method in one paragraph, the same for every answer (the README quotes it): what counts as
 * throughput, where intervals come from, which test decides, and what is never picked.
 */
export function methodText(marginPct: number): string {
  return (
    'How this was decided: throughput is goodput, the responses per second that had their expected status (failed statuses, errors and timeouts do not count). ' +
    "A configuration's 95 % interval comes from the spread of its repetitions (Student's t) when it ran at least twice; " +
    "with one repetition it comes from batch means of that cell's own seconds (consecutive seconds are autocorrelated, so they are averaged in batches of ⌊√n⌋ seconds before the spread is taken; for p99, of the per-second p99s on a log scale), which is weaker: " +
    `it cannot see run-to-run variation, and back-to-back runs of one configuration differed by up to ${fmtPct(RUN_TO_RUN_SPREAD * 100)} in the repeatability benchmark. ` +
    "The highest goodput is compared with every other configuration by one-sided Welch's t-tests, Holm-corrected at 5 % across those comparisons: " +
    `a cheaper configuration is picked instead when it is shown within ${fmtMargin(marginPct)} % of the best, a costlier one is ruled out when it is shown below the best, and two within ±${fmtMargin(marginPct)} % by two one-sided tests are equivalent, where the cheaper wins (fewer workers, then less CPU, then less memory, then the simpler launcher). ` +
    'The answer is confident when a test separates the pick from every rival, equivalent when the rest are shown within the margin, and undecided otherwise: then it names the contenders, runs more repetitions of only them while its settling budget lasts, and says what would decide it. ' +
    "A client-bound or host-busy configuration's goodput is a lower bound (the load generator or the host set the pace, so the server was at least that fast): it can beat an estimate, but nothing is shown faster than it or within a margin of it. " +
    'A repetition whose seconds drifted or stepped (unstable) is left out, so a configuration is judged on its steady repetitions. ' +
    `A configuration with more than ${MAX_ERROR_PCT} % failed requests or an OOM kill is never picked.`
  );
}

function checkText(k: SloCheck): string {
  switch (k.criterion) {
    case 'p99':
      return `p99 ${fmtUs(k.value * 1000)}, ${fmtPct(k.miss * 100)} over the ${fmtNum(k.limit, k.limit % 1 ? 2 : 0)} ms limit`;
    case 'rps':
      return `${fmtNum(k.value)} req/s, ${fmtPct(k.miss * 100)} short of ${fmtNum(k.limit)}`;
    case 'errors':
      return `${fmtPct(k.value)} of requests failed, above the ${fmtPct(k.limit)} limit`;
  }
}

function sloSentences(o: SloOutcome, slo: Slo, withWorkload: boolean, withLoad: boolean): string[] {
  const forWhat = withWorkload ? ` for ${workloadLabel(o.app, o.requestSet)}` : '';
  const c = o.met ?? o.closest!;
  const on = `${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}${withLoad ? ` at ${loadLabel(c.load)}` : ''}`;
  const values = `p99 ${fmtUs(c.p99Us!.mean)}, ${fmtNum(c.rps!.mean)} req/s, ${fmtPct(c.errorPct!)} errors`;
  if (!o.met) {
    const missed = o.checks.filter((k) => !k.ok).map(checkText);
    return [`No configuration meets ${describeSlo(slo)}${forWhat}. Closest: ${on} (${c.label}) — ${joinAnd(missed)}.`];
  }
  const out = [
    `Cheapest configuration meeting ${describeSlo(slo)}${forWhat}: ${on} (${values}; ${o.meeting} of ${o.considered} configurations meet it).`,
  ];
  // A zero rps floor is "no limit": a wide interval dipping below 0 says nothing.
  const unsure = o.checks.filter((k) => k.sure === false && k.limit > 0);
  if (c.n < 2) {
    out.push(
      c.rps!.intervalFrom === 'batch-means'
        ? 'That ran once: its intervals come from its own seconds, which cannot see run-to-run variation; add repetitions before relying on it.'
        : 'That is a single sample: no confidence interval; add repetitions before relying on it.',
    );
  } else if (unsure.length)
    out.push(
      `It meets it on the mean only: its 95 % interval crosses the ${joinAnd(unsure.map((k) => k.criterion))} limit, so it may not hold.`,
    );
  else out.push('Its 95 % intervals are within the limits too.');
  const cav = caveats(c);
  if (cav.length) out.push(`Caveat for ${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}: ${cav.join('; ')}.`);
  return out;
}

/**
 * `One worker per CPU` (the seed experiments' rule) checked where the matrix tried it: within the margin of the best?
 */
function cpuRuleSentence(
  scopes: ScopeDecision[],
  byKey: Map<string, ConfigurationSummary>,
  marginPct: number,
): string | null {
  const checked = scopes.flatMap((s) => {
    if (s.load.model !== 'closed' || s.candidates.length < 2) return [];
    const ruleWorkers = Math.max(1, Math.round(s.cpuMillis / 1000));
    const rule = s.candidates.map((k) => byKey.get(k)!).filter((c) => c.workers === ruleWorkers && c.mode !== 'single');
    if (rule.length === 0) return [];
    const held = rule.some((c) => s.candidates.includes(c.key) && withinMargin(c, s.bestRps, marginPct).within);
    return [{ s, held }];
  });
  if (checked.length === 0) return null;
  const held = checked.filter((x) => x.held).length;
  const ratios = checked.map(({ s }) => `${fmtRatio(s.bestRps.workersPerCpu)} on ${s.label}`).join(', ');
  return `"Cluster size = CPU count" was not significantly more than ${fmtMargin(marginPct)} % below the best on ${held} of ${checked.length} CPU / memory pair${checked.length === 1 ? '' : 's'} where it was tried (workers per CPU of the best: ${ratios}).`;
}

/** Where a peak came from, in words. */
export const PEAK_SOURCE_WORDS: Record<PeakSource, string> = {
  cgroup: "the cgroup's own peak, page cache included",
  samples:
    'the highest 1 Hz reading, page cache included: the engine reported no peak of its own, so a short spike may be missed',
  legacy: 'the highest 1 Hz reading after warmup: this run predates peak recording, so a short spike may be missed',
  mixed: "the cgroup's own peak where recorded, else the highest 1 Hz reading",
};

/** "38 ± 6 MB per worker (slope of peak memory over 1, 2 and 4 workers, 95 % CI)". */
export function perWorkerText(s: Sizing): string {
  const w = s.memory.perWorker;
  if (!w) return `no memory per worker: ${s.memory.perWorkerNote}`;
  const over = `slope of peak memory over ${joinAnd(w.workerCounts.map(String))} workers`;
  return w.halfWidth === null
    ? `${fmtMb(w.bytesPerWorker)} per worker (${over}; two points, so no interval)`
    : `${fmtMb(w.bytesPerWorker).replace(' MB', '')} ± ${fmtMb(w.halfWidth)} per worker (${over}, ${w.points} repetitions, 95 % CI)`;
}

/** "limit = peak × 1.25, rounded up to 32 MB" and what raised it, in words. */
export function limitText(s: Sizing): string {
  const m = s.memory;
  if (m.limitMb === null) return 'no memory limit: no peak was recorded';
  // What the rule multiplied: the fresh need where the run measured the processes, else the peak.
  const rss = m.fresh?.measure === 'rss';
  const basis = rss ? m.fresh!.bytes : m.peakBytes!;
  const rule = `${rss ? "the processes' resident memory" : 'peak'} × ${MEMORY_HEADROOM}, rounded up to a multiple of ${MEMORY_ROUND_MB} MB`;
  return m.limitFrom === 'matrix'
    ? `${memLabel(m.limitMb)}: ${rule} would be ${memLabel(limitFromPeak(basis))}, but ${memLabel(m.failedAtMb!)} failed in the matrix, so the smallest clean cap above it`
    : `${memLabel(m.limitMb)} (${rule})`;
}

const capPhrase = (c: MemoryCap): string => `at ${memLabel(c.memoryMb)}: ${c.detail}`;

/** The memory and CPU sentences of one recommended configuration. */
export function sizingSentences(
  s: Sizing,
  byKey: Map<string, ConfigurationSummary>,
  slo: Slo | null,
  marginPct: number,
  withContext: boolean,
): string[] {
  const c = byKey.get(s.key)!;
  const name = `${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}${withContext ? ` (${workloadLabel(c.app, c.requestSet)}, ${loadLabel(c.load)})` : ''}`;
  const m = s.memory;
  const out: string[] = [];
  if (m.peakBytes !== null) {
    const reps = m.repetitions > 1 ? `, the highest of ${m.repetitions} repetitions` : '';
    const fresh = m.fresh?.measure === 'rss' ? ` A fresh deployment needs ${freshNeedText(m.fresh)}.` : '';
    out.push(
      `Memory for ${name}: peak ${fmtMb(m.peakBytes)} (${PEAK_SOURCE_WORDS[m.peakSource!]}${reps}; ${fmtPct(m.peakShareOfCap! * 100)} of its cap); ${perWorkerText(s)}.${fresh} Recommended memory limit: ${limitText(s)}.`,
    );
  } else {
    out.push(`Memory for ${name}: no peak was recorded, so there is no recommended limit.`);
  }
  const below = m.smallestCleanMb === null ? m.caps : m.caps.filter((x) => x.memoryMb < m.smallestCleanMb!);
  if (m.caps.length <= 1) {
    out.push(`The matrix tried only ${memLabel(c.memoryMb)} for it, so nothing shows how much less would do.`);
  } else if (m.smallestCleanMb !== null) {
    const fails = below.filter((x) => x.outcome !== 'ok' && x.outcome !== 'no-result');
    out.push(
      `In the matrix it ran without OOM kills, restarts or a latency penalty down to ${memLabel(m.smallestCleanMb)}${fails.length ? `; ${fails.map(capPhrase).join('; ')}` : m.smallestCleanMb === m.caps[0]!.memoryMb ? ', the smallest cap tried' : ''}.`,
    );
  } else {
    out.push(`It did not run clean at any memory cap tried: ${m.caps.map(capPhrase).join('; ')}.`);
  }
  const tooSmall = below.filter((x) => x.outcome === 'oom' || x.outcome === 'restarts');
  if (tooSmall.length)
    out.push(
      `${joinAnd(tooSmall.map((x) => memLabel(x.memoryMb)))} ${tooSmall.length === 1 ? 'is' : 'are'} clearly too small for ${who(c)}.`,
    );
  const gc = m.caps.filter((x) => x.outcome === 'gc-pressure');
  if (gc.length)
    out.push(
      `GC pressure at ${joinAnd(gc.map((x) => memLabel(x.memoryMb)))}: throughput was lost at a tighter cap with no OOM kill, so the garbage collector, not the CPU, held it back.`,
    );
  if (
    m.limitMb !== null &&
    m.limitMb > c.memoryMb &&
    m.fresh?.measure !== 'rss' &&
    m.caps.some((x) => x.memoryMb === c.memoryMb && x.outcome === 'ok')
  ) {
    out.push(
      `The limit is above the ${memLabel(c.memoryMb)} it ran clean at: the peak counts page cache, which the kernel reclaims before an OOM kill, so the clean run is the firmer evidence and the limit errs on the generous side.`,
    );
  }
  out.push(cpuSentence(s, c, slo, marginPct));
  return out;
}

function cpuSentence(s: Sizing, c: ConfigurationSummary, slo: Slo | null, marginPct: number): string {
  const u = s.cpu;
  const failed = u.failedAtMillis === null ? null : u.caps.find((x) => x.cpuMillis === u.failedAtMillis)!;
  let head: string;
  if (u.caps.length <= 1)
    head = `CPU: the matrix tried only ${cpuLabel(c.cpuMillis)} for ${who(c)} at ${memLabel(c.memoryMb)}, so nothing shows whether less would do.`;
  else if (u.requestMillis === null) {
    head = slo
      ? `CPU: no CPU cap tried meets ${describeSlo(slo)} for ${who(c)} at ${memLabel(c.memoryMb)}.`
      : `CPU: no CPU cap tried holds the throughput for ${who(c)} at ${memLabel(c.memoryMb)}.`;
  } else {
    const what = slo
      ? `that meets ${describeSlo(slo)} for ${who(c)} at ${memLabel(c.memoryMb)} (on the means)`
      : `that holds the throughput of ${who(c)} at ${memLabel(c.memoryMb)}: not significantly more than ${fmtMargin(marginPct)} % below the best over the CPU caps tried${u.evidence === 'means' ? ' (on the means, no interval)' : ''}`;
    head = `CPU: ${cpuLabel(u.requestMillis)} is the smallest request ${what}${failed ? `; at ${cpuLabel(failed.cpuMillis)}: ${failed.miss}` : ''}.`;
  }
  if (u.throttledMsPerSec === null) return head;
  const share = u.throttledShare === null ? '' : ` (${fmtPct(u.throttledShare * 100)} of CFS periods)`;
  const thr =
    u.throttledMsPerSec < 0.5
      ? 'was not throttled'
      : `was throttled ${fmtNum(u.throttledMsPerSec)} ms per second${share}`;
  return `${head} At its ${cpuLabel(c.cpuMillis)} cap it used ${fmtPct(u.cpuPctOfCap!)} of the cap and ${thr}.`;
}

/** How memory and CPU are judged, in one paragraph (the HTML report's method and the README quote it). */
export function sizingMethodText(marginPct: number): string {
  return (
    "How memory and CPU were sized: peak memory is the cgroup's own high-water mark over the container's life (cgroup v1 max_usage; v2 memory.peak where readable), page cache included, because the cap is charged with it; where the engine has no peak, the highest 1 Hz reading. " +
    "The cgroup's peak misses the image's files that earlier containers already cached, which a fresh deployment must load again, so where the run read each server process's resident memory (this machine's engine) the limit is based on the larger of the two, file-backed pages counted once. " +
    'Memory per worker is the least-squares slope of peak memory against the worker count at the same mode, CPU and memory cap, with its 95 % interval. ' +
    `The memory limit: ${MEMORY_LIMIT_RULE}. ` +
    `Across the memory caps of the matrix, a cap ran clean without an OOM kill, restarts, more than ${MAX_ERROR_PCT} % failed requests, or goodput or p99 worse than the largest clean cap by more than ${fmtMargin(marginPct)} % (one-sided Welch's t-test, Holm-corrected over the caps); goodput lost that way with no OOM kill is GC pressure. ` +
    `The CPU request is the smallest CPU cap that meets the objective, or without one that is not significantly more than ${fmtMargin(marginPct)} % below the best goodput over the CPU caps; throttling is the time the CFS quota held the cap back.`
  );
}

/** The memory and CPU sentences of the recommended configurations (part of `explain`'s words). */
function recommendedSizingSentences(rec: Omit<Recommendation, 'words' | 'sizingWords'>): string[] {
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1;
  const sized = (rec.sizing ?? []).filter((x) => x.recommended);
  return sized.flatMap((x) => sizingSentences(x, byKey, rec.slo, rec.marginPct, withContext || sized.length > 1));
}

/**
 * Which of the words are about memory and CPU (the sizing sentences and how they were judged): the
 * UI shows them with the sizing evidence, below the table, so that the answer's first screen stays short.
 */
export function sizingWordsOf(rec: Omit<Recommendation, 'words' | 'sizingWords'>): string[] {
  if (rec.run.cellsIncluded === 0) return [];
  const method = (rec.sizing ?? []).some((x) => x.recommended) ? [sizingMethodText(rec.marginPct)] : [];
  return [...recommendedSizingSentences(rec), ...method];
}

/** The answer in plain sentences, most decisive first. */
export function explain(rec: Omit<Recommendation, 'words' | 'sizingWords'>): string[] {
  const out: string[] = [];
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const { run } = rec;
  // Only cells that finished with results count; cancelled, interrupted and unfinished cells are not results.
  if (run.cellsIncluded === 0) {
    out.push(
      `${run.status === 'completed' ? `No cell of run ${run.id}` : `Run ${run.id} is ${run.status} and no cell of it`} finished with results: there is nothing to recommend.`,
    );
  } else {
    if (run.status !== 'completed') {
      out.push(
        `Run ${run.id} is ${run.status}: ${run.cellsIncluded} of ${run.cellsTotal} cells finished with results; this answer covers only those.`,
      );
    }
    if (rec.slo) {
      const multi = rec.sloOutcomes.length > 1;
      const loads = new Set(rec.configurations.map((c) => loadLabel(c.load))).size > 1;
      for (const o of rec.sloOutcomes) out.push(...sloSentences(o, rec.slo, multi, loads));
    }
    const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1;
    for (const s of rec.scopes) out.push(...scopeSentences(s, byKey, rec.marginPct, withContext));
    for (const u of rec.undecided) out.push(undecidedSentence(u, byKey, withContext));
    const rule = cpuRuleSentence(rec.scopes, byKey, rec.marginPct);
    if (rule) out.push(rule);
    out.push(...recommendedSizingSentences(rec));
    const measured = rec.configurations.filter((c) => c.n > 0);
    const single = measured.filter((c) => c.n === 1);
    if (single.length) {
      const bare = single.filter((c) => !c.rps!.ci).length;
      const weak =
        bare === single.length
          ? 'with no per-second series there is no interval at all, only means'
          : `a single run's interval comes from its own seconds (batch means) and cannot see run-to-run variation — a fresh container, other cores, the host's other work: ${singleRunWeakness(single)}${bare ? ` (${bare} of them ${bare === 1 ? 'has' : 'have'} no per-second series, so no interval at all)` : ''}`;
      out.push(
        single.length === measured.length
          ? `Every configuration ran once: ${weak}; run 3 or more repetitions ("repetitions": 3) for the honest interval.`
          : `${single.length} of ${measured.length} configurations ran once: ${weak}.`,
      );
    }
  }
  for (const n of rec.noise)
    out.push(
      `${n.label} is noisy: its req/s varied by ${fmtPct(n.cv * 100)} (coefficient of variation) over ${n.n} repetitions; ${n.suggestion}.`,
    );
  for (const e of rec.exclusions.slice(0, MAX_LISTED_EXCLUSIONS)) out.push(`${e.text}.`);
  if (rec.exclusions.length > MAX_LISTED_EXCLUSIONS)
    out.push(`…and ${rec.exclusions.length - MAX_LISTED_EXCLUSIONS} more cells excluded (see the cells table).`);
  // The method stays the last sentence; how memory and CPU were sized comes just before it.
  if ((rec.sizing ?? []).some((x) => x.recommended)) out.push(sizingMethodText(rec.marginPct));
  if (rec.scopes.length || rec.undecided.length) out.push(rec.method);
  return out;
}
