// The answer's short form: at most four bullets under the headline (the pick's numbers, how it
// stands against the rest, what to give it, what was left out), and the methods apart, so every
// reader can show the answer first and fold the reasoning away. The full sentences stay in `words`.
import { fmtMargin, fmtNum, fmtPct, fmtUs, fmtUsPm } from '../../common/format.ts';
import { cpuLabel, memLabel } from '../../common/resource-labels.ts';
import { capitalize, joinAnd } from '../../common/text.ts';
import { pickCause } from './answer-causes.ts';
import { isLowerBound, whoSetThePace } from '../../common/bottleneck.ts';
import { acrossPairs, perMillionText } from './headline.ts';
import { onWhat, overWhat, who, whoContext, type WhoContext } from '../names.ts';
import { answerPick } from '../size/sizing.ts';
import { otherLinks } from '../decide/links.ts';
import { goodputShort } from './phrases.ts';
import { sizingMethodText } from './sizing-words.ts';
import type { ConfigurationSummary, MethodNote, Recommendation, ScopeDecision } from '../types.ts';
import { ecosystemShort } from './trap-words.ts';

/** The most bullets under the headline: the answer stays one screen, the rest is behind a disclosure. */
export const MAX_SUMMARY = 4;

type Base = Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>;

const named = (cs: ConfigurationSummary[], ctx?: WhoContext, max = 3): string => {
  const shown = cs.slice(0, max).map((c) => `${who(c, ctx)} (${goodputShort(c)})`);
  return joinAnd(cs.length > max ? [...shown, `${cs.length - max} more`] : shown);
};

/** "10,497 ± 1,156 req/s, p99 4.7 ms ± 0.9 (3 repetitions, 95 % intervals)": the pick's numbers, once. */
function numbers(c: ConfigurationSummary): string {
  const r = c.rps!;
  const p = c.p99Us!;
  const rps = isLowerBound(c)
    ? `≥ ${fmtNum(r.mean)} req/s (a lower bound: ${whoSetThePace([c])})`
    : r.ci
      ? `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)} req/s`
      : `${fmtNum(r.mean)} req/s`;
  const p99 = p.ci ? fmtUsPm(p.mean, p.ci.halfWidth) : fmtUs(p.mean);
  const basis =
    r.intervalFrom === 'batch-means'
      ? 'one run: intervals from its own seconds'
      : r.ci
        ? `${r.n} repetitions, 95 % intervals`
        : r.n > 1
          ? `${r.n} repetitions: too few repetitions to bound`
          : 'a single sample, no interval';
  return `${rps}, p99 ${p99} (${basis})`;
}

/** The pick against the rest of its CPU / memory pair, in one sentence. */
function rivalsBullet(s: ScopeDecision, byKey: Map<string, ConfigurationSummary>, marginPct: number): string {
  const m = fmtMargin(marginPct);
  const others = s.candidates.filter((k) => k !== s.knee.key).map((k) => byKey.get(k)!);
  const ctx = whoContext([s.knee, ...others]);
  // The pick's own bound is said with its numbers; a rival's shows as "≥" where it is named.
  const boundNote = s.lowerBounds.some((k) => k !== s.knee.key)
    ? ` (≥: a lower bound, ${whoSetThePace(s.lowerBounds.map((k) => byKey.get(k)!).filter(Boolean))}.)`
    : '';
  if (others.length === 0) return `It was the only configuration measured on ${s.label}.${boundNote}`;
  if (s.state === 'undecided') {
    const rest = s.contenders.filter((k) => k !== s.knee.key).map((k) => byKey.get(k)!);
    // What would decide it is in the headline.
    return `Not yet separable from ${named(rest, ctx)}.${boundNote}`;
  }
  if (s.state === 'equivalent') {
    const tied = s.contenders.filter((k) => k !== s.knee.key).map((k) => byKey.get(k)!);
    return (
      `${capitalize(named(tied, ctx))} ${tied.length === 1 ? 'is' : 'are'} within ${m} % of the best by two ` +
      `one-sided tests: equivalent, so the cheapest is the pick.${boundNote}`
    );
  }
  const kneeNote =
    s.knee !== s.bestRps
      ? ` It is the knee: within ${m} % of the best, ${who(s.bestRps, ctx)} (${goodputShort(s.bestRps)}).`
      : '';
  const below = others.filter((c) => c !== s.bestRps);
  return (
    (below.length ? `Significantly slower on ${s.label}: ${named(below, ctx)}.` : '') +
    kneeNote +
    boundNote
  ).trim();
}

/** The pick against every configuration of every pair, on cost per million requests, in one sentence. */
function costRivalsBullet(rec: Base, s: ScopeDecision, byKey: Map<string, ConfigurationSummary>): string {
  const rest = (keys: string[]): ConfigurationSummary[] =>
    keys
      .filter((k) => k !== s.knee.key)
      .map((k) => byKey.get(k)!)
      .filter(Boolean);
  const list = (cs: ConfigurationSummary[]): string =>
    joinAnd(
      cs
        .slice(0, 3)
        .map((x) => `${who(x)} on ${onWhat(x)}${overWhat(x, rec.configurations)} (${perMillionText(rec, x)})`),
    );
  if (s.candidates.length === 1) return `It was the only configuration that qualified on ${s.label}.`;
  if (s.state === 'undecided')
    return `Not yet separable on cost per million requests from ${list(rest(s.contenders))}.`;
  if (s.state === 'equivalent')
    return (
      `${capitalize(list(rest(s.contenders)))} cost within ${fmtMargin(rec.marginPct)} % of it per million ` +
      'requests (two one-sided tests): equivalent, so the cheapest by the one order of cost is the pick.'
    );
  const worse = rest(s.candidates);
  const tail = worse.length > 3 ? ` and ${worse.length - 3} more` : '';
  return `Every other configuration costs significantly more per million requests: ${list(worse)}${tail}.`;
}

/**
 * What to give the pick: its memory limit and CPU request, in one sentence (the method is in `methods`);
 * with replicas, per container and in total.
 */
function resourcesBullet(rec: Base, c: ConfigurationSummary): string | null {
  const s = (rec.sizing ?? []).find((x) => x.key === c.key);
  if (!s) return null;
  const r = Math.max(1, c.replicas ?? 1);
  const { limitMb } = s.memory;
  const { requestMillis } = s.cpu;
  const mem = limitMb !== null ? `a memory limit of ${memLabel(limitMb)}` : null;
  const cpu =
    requestMillis !== null
      ? `${cpuLabel(requestMillis)}${s.cpu.caps.length <= 1 ? ' (the only CPU cap tried: less may do)' : ''}`
      : null;
  const parts = [mem, cpu].filter((x): x is string => x !== null);
  if (!parts.length) return null;
  // Which memory goes where, said once: the snippets carry what verification ran for their target.
  const where =
    limitMb !== null && limitMb !== c.memoryMb
      ? ' (the memory rule’s limit: each deploy snippet carries the limit verified for its target, until then the ' +
        `${memLabel(c.memoryMb)} cap it was measured under)`
      : '';
  if (r < 2) return `Give it ${joinAnd(parts)}${where}.`;
  const total = [
    limitMb !== null ? memLabel(limitMb * r) : null,
    requestMillis !== null ? cpuLabel(requestMillis * r) : null,
  ].filter((x): x is string => x !== null);
  return `Give each of its ${r} containers ${joinAnd(parts)} (${joinAnd(total)} in total).`;
}

/** What the answer rests on less than all of the run: unfinished cells and the repetitions left out. */
function leftOutBullet(rec: Base): string | null {
  const parts: string[] = [];
  const { run } = rec;
  if (run.status !== 'completed')
    parts.push(`run ${run.id} is ${run.status}: ${run.cellsIncluded} of ${run.cellsTotal} cells count`);
  if (rec.exclusions.length) {
    const why = [...new Set(rec.exclusions.map((e) => e.reason.split(' (')[0]!.split(':')[0]!))];
    parts.push(
      `${rec.exclusions.length} repetition${rec.exclusions.length === 1 ? '' : 's'} left out (${joinAnd(why)})`,
    );
  }
  const noisy = rec.noise.map((n) => `${n.label} varied ${fmtPct(n.cv * 100)}`);
  if (noisy.length) parts.push(`noisy: ${noisy.join(', ')}`);
  return parts.length ? `${capitalize(parts.join('; '))}.` : null;
}

/** At most MAX_SUMMARY short sentences under the headline; every one is also said, longer, in `words`. */
export function summaryOf(rec: Base, words: readonly string[]): string[] {
  const p = answerPick(rec);
  if (!p || p.basis === 'search') return words.slice(0, p ? MAX_SUMMARY - 1 : 2);
  const c = p.configuration;
  const byKey = new Map(rec.configurations.map((x) => [x.key, x]));
  const out: string[] = [];
  let askedAt = -1;
  const ctx = p.scope ? whoContext(p.scope.candidates.map((k) => byKey.get(k)!).filter(Boolean)) : undefined;
  // One container in a scope of replicas: its caps are the scope's totals, said as such.
  const where =
    ((c.replicas ?? 1) < 2 && p.basis === 'knee' && p.scope && !acrossPairs(p.scope) ? p.scope.label : onWhat(c)) +
    overWhat(c, rec.configurations);
  out.push(`${capitalize(who(c, ctx))} on ${where}: ${numbers(c)}.`);
  if (p.basis === 'slo' && p.outcome)
    out.push(
      `${p.outcome.meeting} of ${p.outcome.considered} configurations meet the objective; this is the cheapest.`,
    );
  else if (p.scope) {
    // Why, from the runtime probe, said with how the pick stands: the summary keeps its four bullets.
    // Causes and comparisons are per CPU / memory pair: the pick's own pair.
    const why = pickCause(rec.causes, c.scopeKey, c.key);
    const rivals = acrossPairs(p.scope)
      ? costRivalsBullet(rec, p.scope, byKey)
      : rivalsBullet(p.scope, byKey, rec.marginPct);
    // Where another link picked it too, the answer holds over that link as well: said so, undecided ones apart.
    const same = otherLinks(p.scope, c).same;
    const over = (ds: ScopeDecision[]): string => joinAnd(ds.map((d) => overWhat(d.knee, rec.configurations).trim()));
    const sure = same.filter((d) => d.state !== 'undecided');
    const leads = same.filter((d) => d.state === 'undecided');
    const holds =
      (sure.length ? ` It is the pick ${over(sure)} too.` : '') +
      (leads.length ? ` It leads ${over(leads)} too, undecided there.` : '');
    out.push(rivals + holds + (why ? ` Why: ${why.text}.` : ''));
    // The question the run asked of the pick's scope (containers or workers, which Node.js): its first line.
    const asked = rec.comparisons?.find((n) => n.scopeKey === c.scopeKey && n.keys.includes(c.key));
    if (asked) ((askedAt = out.length), out.push(asked.text));
    // A mix: the route that sets the pick's tail (decide/routes.ts).
    const route = rec.causes.find((n) => n.kind === 'route' && n.scope === c.scopeKey && n.key === c.key);
    if (route) out.push(`${capitalize(route.text)}.`);
  }
  const res = resourcesBullet(rec, c);
  if (res) out.push(res);
  // A container trap of the pick's (decide/traps.ts): one bullet at most, the rest under --explain. One that would
  // kill or multiply the deployed processes takes the place of the comparison the run asked, which --explain keeps.
  const trap = trapBullet(rec, c.key, c.app, c.mode === 'single' ? 1 : c.workers);
  if (trap && out.length >= MAX_SUMMARY && askedAt >= 0 && trap.grave) out.splice(askedAt, 1);
  if (trap && out.length < MAX_SUMMARY) out.push(trap.text);
  const left = leftOutBullet(rec);
  if (left) out.push(left);
  // Another link's own pick comes before the cost line: which to deploy turns on the link you serve over.
  const links = (rec.alternatives ?? []).filter((a) => a.kind === 'link');
  for (const a of links) if (out.length < MAX_SUMMARY) out.push(a.text);
  // The cost line of the pick's workload (analysis/decide/cost.ts), when there is room for it.
  const cost = rec.costs?.cheapest.find((k) => k.app === c.app && k.requestSet === c.requestSet);
  if (cost && cost.state !== 'none' && out.length < MAX_SUMMARY) out.push(cost.text);
  // What the pick gives up, labelled as alternatives (analysis/explain/alternatives.ts), while there is room.
  for (const a of rec.alternatives ?? []) if (out.length < MAX_SUMMARY && !links.includes(a)) out.push(a.text);
  // Pairs, not scopes: one pair measured over several links is still one pair.
  const more = new Set(rec.scopes.map((x) => x.label)).size - 1;
  if (more > 0 && out.length < MAX_SUMMARY)
    out.push(
      `${more} other CPU / memory pair${more === 1 ? '' : 's'}: in the chart and the table, each as ` +
        '"if you are given".',
    );
  return out.filter((x) => x.length > 0).slice(0, MAX_SUMMARY);
}

const TRAP_ORDER = ['forks-by-host', 'heap-above-cap', 'threadpool', 'parallelism', 'versions', 'not-checked'];

/**
 * The pick's weightiest trap in one sentence, and how many more --explain says; null without any. `grave`: it would
 * multiply the deployed processes or have them killed.
 */
function trapBullet(rec: Base, key: string, app: string, instances: number): { text: string; grave: boolean } | null {
  const mine = (rec.traps ?? [])
    .filter((t) => t.key === key || (t.key === null && (t.app === undefined || t.app === app)))
    .sort((a, b) => TRAP_ORDER.indexOf(a.kind) - TRAP_ORDER.indexOf(b.kind));
  if (!mine.length) return null;
  const more = mine.length - 1;
  // An app's ecosystem file, said of the pick: the instances it deploys.
  const first = mine[0]!.ecosystem ? ecosystemShort(mine[0]!.ecosystem, instances) : mine[0]!.short;
  const grave = mine[0]!.kind === 'forks-by-host' || mine[0]!.kind === 'heap-above-cap';
  const text = more ? `${first.replace(/\.$/, '')} (and ${more} more trap${more === 1 ? '' : 's'}: --explain).` : first;
  return { text, grave };
}

/** The methods, each under a title: the same paragraphs the full words end with. */
export function methodsOf(rec: Base): MethodNote[] {
  const out: MethodNote[] = [];
  if (rec.scopes.length || rec.undecided.length || rec.search)
    out.push({ title: 'How this was decided', text: rec.method.replace(/^How this was decided: /, '') });
  if ((rec.sizing ?? []).some((x) => x.recommended))
    out.push({
      title: 'How memory and CPU were sized',
      text: sizingMethodText(rec.marginPct).replace(/^How memory and CPU were sized: /, ''),
    });
  return out;
}

/** The full words without the method paragraphs (shown apart, under their titles). */
export const reasoningOf = (words: readonly string[], methods: readonly MethodNote[]): string[] =>
  words.filter((w) => !methods.some((m) => w.endsWith(m.text)));
