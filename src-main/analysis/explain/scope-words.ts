// The sentences about each CPU / memory pair: the best, the knee, how sure, the lower bounds, the
// configurations set aside, the lowest p99, and whether "cluster size = CPU count" held.
import { fmtMargin, fmtNum, fmtPct, fmtRatio } from '../../common/format.ts';
import { capitalize } from '../../common/text.ts';
import { RATE_SHORTFALL } from '../../common/thresholds.ts';
import { be, caveats, p99Text, rpsText } from './phrases.ts';
import { who, whoContext, whoList, type WhoContext } from '../names.ts';
import type { ConfigurationSummary, ScopeDecision, UndecidedScope } from '../types.ts';

/** How a constant rate that was missed is explained, by the side that was the bottleneck. */
function shortfallSentences(short: ConfigurationSummary[], ctx?: WhoContext): string[] {
  const by = (side: ConfigurationSummary['shortfallBy']): ConfigurationSummary[] =>
    short.filter((c) => c.shortfallBy === side);
  const out: string[] = [];
  const server = by('server');
  const client = by('client');
  const unknown = by(null);
  if (server.length)
    out.push(
      `${capitalize(whoList(server, ctx))} fell short of the rate with every connection waiting on the server: ` +
        'the server was saturated.',
    );
  if (client.length)
    out.push(
      `${capitalize(whoList(client, ctx))} fell short of the rate because a load thread was saturated: the load ` +
        'generator fell behind, so the server may be faster than measured.',
    );
  if (unknown.length)
    out.push(
      `${capitalize(whoList(unknown, ctx))} fell short of the rate; the run did not record which side was the ` +
        'bottleneck.',
    );
  return out;
}

/**
 * The lower bounds of a pair, said once: used as bounds (contest.ts), they may beat an estimate, nothing beats them.
 */
function boundsSentence(s: ScopeDecision, pick: (keys: string[]) => ConfigurationSummary[], ctx?: WhoContext): string {
  const held = pick(s.lowerBounds);
  return (
    `${capitalize(whoList(held, ctx))} ${be(held)} client-bound or host-busy: ` +
    `${held.length === 1 ? 'its' : 'their'} goodput ` +
    `(${held.map((c) => `≥ ${fmtNum(c.rps!.mean)} req/s`).join(', ')}) is a lower bound — the server was at ` +
    'least that fast — and counts as one: it can beat a measured estimate, but nothing is shown faster than it ' +
    'or within a margin of it.'
  );
}

/** Undecided because a lower bound stands in the way (more repetitions cannot decide it): the contest's own finding. */
const boundBlocked = (s: ScopeDecision): boolean => s.state === 'undecided' && !s.settleable;

/** How sure the pair's answer is: its state, with what the contest found behind it (never a second test). */
function stateSentence(
  s: ScopeDecision,
  best: ConfigurationSummary,
  pick: (keys: string[]) => ConfigurationSummary[],
  marginPct = 5,
  ctx?: WhoContext,
): string {
  if (s.state === 'confident')
    return "Welch's t-test puts every other configuration here significantly below it (Holm-corrected, 5 %).";
  if (s.state === 'equivalent') {
    const tied = pick(s.contenders);
    return (
      `${capitalize(whoList(tied, ctx))} are shown within ${fmtMargin(marginPct)} % of the best throughput ` +
      `(one-sided Welch's t-tests, Holm-corrected, 5 %): equivalent, so the cheapest is the pick.`
    );
  }
  if (boundBlocked(s)) return boundsSentence(s, pick, ctx);
  if (s.rivals.every((r) => r.p !== null))
    return (
      `${capitalize(whoList([best, ...pick(s.notDistinguishableRps)], ctx))} are not distinguishable on ` +
      `throughput (Welch's t-test, Holm-corrected, 5 %).`
    );
  return best.rps!.ci
    ? 'Some configurations here have no interval: against those, only means were compared.'
    : best.rps!.n > 1
      ? 'These have too few repetitions to bound (an interval needs 3): means compared, with no test.'
      : 'These are single samples with no per-second series: means compared, with no test.';
}

export function scopeSentences(
  s: ScopeDecision,
  byKey: Map<string, ConfigurationSummary>,
  marginPct: number,
  withContext: boolean,
  given = false,
): string[] {
  const cs = s.candidates.map((k) => byKey.get(k)!);
  const pick = (keys: string[]): ConfigurationSummary[] => keys.map((k) => byKey.get(k)!);
  // What the configurations of the pair differ in (containers, Node.js, flags) is said in every name.
  const ctx = whoContext(cs);
  // With several pairs the answer is one configuration; each pair's own pick answers the seeds' question, labelled so.
  const where = `${given ? 'If you are given' : 'On'} ${s.label}${withContext ? ` (${s.context})` : ''}`;
  const out: string[] = [];
  const { bestRps: best, knee, lowestP99: low } = s;
  const only = s.candidates.length === 1;

  if (only) {
    out.push(
      `${where}, only ${who(best, ctx)} (${fmtRatio(best.workersPerCpu)} per CPU) ${be([best])} ` +
        `${s.setAside.length ? 'a candidate' : 'measured'}: ${rpsText(best)}; p99 ${p99Text(best)}.`,
    );
    if (s.lowerBounds.length) out.push(boundsSentence(s, pick, ctx));
  } else if (s.load.model === 'rate') {
    // At a constant rate req/s is what was asked for; what differs is whether it was delivered, and latency.
    const rate = s.load.rate;
    const short = cs.filter((c) => c.rps!.mean < rate * RATE_SHORTFALL);
    out.push(
      `${where}, the load was a constant ${fmtNum(rate)} req/s: ${cs.length - short.length} of ${cs.length} ` +
        `configurations delivered at least ${fmtPct(RATE_SHORTFALL * 100)} of it.`,
    );
    out.push(...shortfallSentences(short, ctx));
  } else {
    const bound = s.lowerBounds.includes(best.key) ? ', a lower bound: the server was at least that fast' : '';
    out.push(
      `${where}, ${who(best, ctx)} (${fmtRatio(best.workersPerCpu)} per CPU) gave the best throughput ` +
        `(${rpsText(best)}${bound}).`,
    );
    if (knee !== best) {
      const head = `${capitalize(who(knee, ctx))} (${fmtRatio(knee.workersPerCpu)} per CPU) ${be([knee])}`;
      const value = `${s.lowerBounds.includes(knee.key) ? '≥ ' : ''}${fmtNum(knee.rps!.mean)} req/s`;
      const m = fmtMargin(marginPct);
      out.push(
        s.kneeEvidence === 'shown-within'
          ? `${head} within ${m} % of it by the test (${value}): the knee.`
          : s.kneeEvidence === 'not-below'
            ? `${head} the knee (${value}): not significantly more than ${m} % below the best, but not shown ` +
              `within ${m} % either, so this is weak.`
            : `${head} within ${m} % of it on the means, with no interval (${value}): the knee.`,
      );
    } else if (s.state !== 'undecided' && cs.some((c) => c.workers < best.workers)) {
      out.push(
        `Fewer workers were significantly more than ${fmtMargin(marginPct)} % below it, so it is also the knee.`,
      );
    }
    out.push(stateSentence(s, best, pick, marginPct, ctx));
    if (s.lowerBounds.length && !boundBlocked(s)) out.push(boundsSentence(s, pick, ctx));
    const tied = new Set(s.notDistinguishableRps);
    const more = cs.filter((c) => c.workers > best.workers && !tied.has(c.key));
    if (more.length) {
      const clearly = new Set(s.clearlyBelowRps);
      out.push(
        more.every((c) => clearly.has(c.key))
          ? `More workers only cost throughput: ${whoList(more, ctx)} ${be(more)} significantly slower.`
          : `More workers were no better (${whoList(more, ctx)}).`,
      );
    }
  }
  if (s.ceiling === 'client') {
    out.push(
      'Every candidate here was client-bound: the load generator, not the server, set the ceiling, so the ' +
        'server may be faster than any of these numbers and the comparison says little.',
    );
  } else if (s.ceiling === 'dependency') {
    out.push(
      "Every candidate here was held by a dependency at its own CPU cap: the app's database or cache, not the " +
        'server, set the ceiling, so the server may be faster than any of these numbers.',
    );
  } else if (s.ceiling === 'network') {
    out.push(
      'Every candidate here filled its bandwidth cap: the network, not the server, set the ceiling, so this is ' +
        'not a CPU question: more CPU or workers would not serve more.',
    );
  } else if (s.ceiling === 'host') {
    out.push(
      'Every candidate here was client-bound, dependency-bound, network-bound or host-busy: the load generator, a ' +
        'dependency, the network or other processes on the host, not the server, set the ceiling.',
    );
  }
  if (s.setAside.length) {
    const aside = s.setAside.map((x) => `${who(byKey.get(x.key)!, ctx)} (${x.reason})`);
    out.push(`Not picked on ${s.label}: ${aside.join('; ')}.`);
  }
  if (!only) {
    out.push(`Lowest p99: ${who(low, ctx)} (${p99Text(low)}).`);
    if (s.notDistinguishableP99.length)
      out.push(`${capitalize(whoList([low, ...pick(s.notDistinguishableP99)], ctx))} are not distinguishable on p99.`);
  }
  for (const c of [...new Set([best, knee, low])]) {
    const cav = caveats(c);
    if (cav.length) out.push(`Caveat for ${who(c, ctx)} on ${s.label}: ${cav.join('; ')}.`);
  }
  return out;
}

export function undecidedSentence(
  u: UndecidedScope,
  byKey: Map<string, ConfigurationSummary>,
  withContext: boolean,
): string {
  return (
    `On ${u.label}${withContext ? ` (${u.context})` : ''}, no configuration qualifies to be picked: ` +
    `${u.setAside.map((x) => `${who(byKey.get(x.key)!)} (${x.reason})`).join('; ')}.`
  );
}

/**
 * `One worker per CPU` (the seed experiments' rule) checked where the matrix tried it: within the margin of the best,
 * as the pair's contest judged it (RivalTest.within)?
 */
export function cpuRuleSentence(
  scopes: ScopeDecision[],
  byKey: Map<string, ConfigurationSummary>,
  marginPct: number,
): string | null {
  const checked = scopes.flatMap((s) => {
    if (s.load.model !== 'closed' || s.candidates.length < 2) return [];
    const ruleWorkers = Math.max(1, Math.round(s.cpuMillis / 1000));
    const rule = s.candidates.map((k) => byKey.get(k)!).filter((c) => c.workers === ruleWorkers && c.mode !== 'single');
    if (rule.length === 0) return [];
    const within = (c: ConfigurationSummary): boolean =>
      c.key === s.bestRps.key || s.rivals.some((r) => r.key === c.key && r.within !== null);
    const held = rule.some(within);
    return [{ s, held }];
  });
  if (checked.length === 0) return null;
  const held = checked.filter((x) => x.held).length;
  const ratios = checked.map(({ s }) => `${fmtRatio(s.bestRps.workersPerCpu)} on ${s.label}`).join(', ');
  return (
    `"Cluster size = CPU count" was within ${fmtMargin(marginPct)} % of the best by the contest (not ruled out ` +
    `by its one-sided Welch's t-tests, Holm-corrected) on ${held} of ${checked.length} CPU / memory ` +
    `pair${checked.length === 1 ? '' : 's'} where it was tried (workers per CPU of the best: ${ratios}).`
  );
}
