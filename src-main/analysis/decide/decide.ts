// The decisions of one CPU / memory pair: who may be picked, the best, the knee and the lowest p99,
// each settled by a test (Welch's t-test, Holm-corrected where a best is picked among many), never
// by point means or by overlapping intervals.
import type { BoundPace } from '../../model/types.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import { contest, DEFAULT_PRICING, whatWouldDecide, type Contest, type Pricing } from './contest.ts';
import { pairLabel } from '../../common/resource-labels.ts';
import { groupBy, loadLabel, totalResources, workloadKey, workloadLabel } from './group.ts';
import { LINK, linkKey } from './links.ts';
import { linkAmong } from '../../common/labels.ts';
import { ALPHA, estimateOf, holm, welch, type MetricStats } from './stats.ts';
import type { ConfigurationSummary, PairTest, ScopeDecision, UndecidedScope } from '../types.ts';

const p99Of = (c: ConfigurationSummary): MetricStats => c.p99Us!;

interface Comparison {
  tests: PairTest[];
  notDistinguishable: string[];
}

/**
 * The pick against every other candidate on a metric the contest does not decide (the lowest p99):
 * two-sided Welch tests, Holm-adjusted over the family of comparisons (the pick was chosen among
 * them, so one uncorrected test per pair would find a "winner" by chance far more often than 5 %).
 * Where a side has no interval only means are known.
 */
export function comparePick(
  pick: ConfigurationSummary,
  others: ConfigurationSummary[],
  metric: (c: ConfigurationSummary) => MetricStats,
  higherIsBetter: boolean,
): Comparison {
  if (others.length === 0) return { tests: [], notDistinguishable: [] };
  const w = estimateOf(metric(pick));
  const raw = others.map((o) => {
    const e = estimateOf(metric(o));
    return { key: o.key, test: w && e ? welch(w, e) : null };
  });
  const withTest = raw.filter((r) => r.test !== null);
  const adjusted = holm(withTest.map((r) => r.test!.p));
  const tests: PairTest[] = raw.map((r) => {
    const i = withTest.indexOf(r);
    const pHolm = i >= 0 ? adjusted[i]! : null;
    // Significant and on the worse side (the pick has the better mean by construction, ties aside).
    const worseSide = r.test !== null && (higherIsBetter ? r.test.diff > 0 : r.test.diff < 0);
    return { key: r.key, test: r.test, pHolm, significant: pHolm !== null && pHolm <= ALPHA && worseSide };
  });
  const notDistinguishable = tests.filter((t) => t.test !== null && !t.significant).map((t) => t.key);
  return { tests, notDistinguishable };
}

/** The CPU caps of one shape are compared on goodput as it is (one shape, so price does not enter), less CPU first. */
const CPU_CAPS: Pricing = { order: (a, b) => a.cpuMillis - b.cpuMillis, price: () => 1 };

/**
 * The CPU caps tried for one configuration (the same in all but the cap, each qualified), by the
 * contest: its best, and each other cap's relation to it with whether it is within the margin
 * (RivalTest.within) — the one margin test, which CPU sizing reads. null without a cap.
 */
export const decideCpuCaps = (caps: readonly ConfigurationSummary[], marginPct: number): Contest | null =>
  contest(caps, marginPct, CPU_CAPS);

interface Candidates {
  candidates: ConfigurationSummary[];
  setAside: { key: string; reason: string }[];
  ceiling: ScopeDecision['ceiling'];
}

/**
 * Who may be picked: every qualified configuration (never one with errors above the limit or an OOM
 * kill). A client-bound or host-busy one stays a candidate: its goodput is a lower bound on the
 * server's and is used as one (contest.ts); setting it aside would pick a slower clean one over a
 * faster bounded one. `ceiling` says when every candidate's number is such a bound.
 */
export function candidatesOf(cs: ConfigurationSummary[]): Candidates {
  const candidates = cs.filter((c) => c.disqualified.length === 0);
  const setAside = cs
    .filter((c) => !candidates.includes(c))
    .map((c) => ({ key: c.key, reason: c.disqualified.join(', ') }));
  const ceiling =
    !candidates.length || candidates.some((c) => c.bottleneck === null)
      ? null
      : candidates.every((c) => c.bottleneck === 'client')
        ? 'client'
        : candidates.every((c) => c.bottleneck === 'dependency')
          ? 'dependency'
          : candidates.every((c) => c.bottleneck === 'network')
            ? 'network'
            : 'host';
  return { candidates, setAside, ceiling };
}

function decideScope(
  cs: ConfigurationSummary[],
  marginPct: number,
  label: string,
  context: string,
  pricing: Pricing,
  key = cs[0]!.scopeKey,
): ScopeDecision | UndecidedScope {
  const first = cs[0]!;
  const { candidates, setAside, ceiling } = candidatesOf(cs);
  const c = contest(candidates, marginPct, pricing);
  if (!c) return { key, label, context, setAside };
  const { best: bestRps, pick: knee } = c;
  const kneeEvidence: ScopeDecision['kneeEvidence'] =
    !knee.rps!.ci || !bestRps.rps!.ci ? 'means' : c.state === 'undecided' ? 'not-below' : 'shown-within';
  const lowestP99 = [...candidates].sort((a, b) => a.p99Us!.mean - b.p99Us!.mean || pricing.order(a, b))[0]!;
  // Latency by its own test; how sure the answer is, is the contest's state alone (its lists below are the contest's).
  const p99 = comparePick(
    lowestP99,
    candidates.filter((x) => x !== lowestP99),
    p99Of,
    false,
  );
  return {
    key,
    label,
    context,
    app: first.app,
    requestSet: first.requestSet,
    load: first.load,
    cpuMillis: knee.cpuMillis,
    memoryMb: knee.memoryMb,
    pairs: new Set(cs.map((x) => x.scopeKey)).size,
    configurations: cs.map((x) => x.key),
    candidates: candidates.map((x) => x.key),
    setAside,
    state: c.state,
    contenders: c.contenders.map((x) => x.key),
    rivals: c.rivals,
    lowerBounds: candidates.filter(isLowerBound).map((x) => x.key),
    decideBy: c.state === 'undecided' ? whatWouldDecide(c.blockedBy, ceiling ?? paceOf(candidates)) : [],
    settleable: c.state === 'undecided' && !c.blockedBy.includes('bound'),
    ceiling,
    bestRps,
    knee,
    kneeEvidence,
    lowestP99,
    p99Tests: p99.tests,
    notDistinguishableRps: c.contenders.filter((x) => x !== bestRps).map((x) => x.key),
    notDistinguishableP99: p99.notDistinguishable,
    clearlyBelowRps: c.rivals.filter((r) => r.relation === 'worse').map((r) => r.key),
  };
}

/**
 * One decision per scope (workload × load × CPU × memory) with any included repetition; scopes where nothing qualified
 * are listed apart.
 */
export function decideScopes(
  configurations: ConfigurationSummary[],
  marginPct: number,
  pricing: Pricing = DEFAULT_PRICING,
): { scopes: ScopeDecision[]; undecided: UndecidedScope[] } {
  const byScope = groupBy(
    configurations.filter((x) => x.n > 0),
    (c) => c.scopeKey,
  );
  const scopes: ScopeDecision[] = [];
  const undecided: UndecidedScope[] = [];
  for (const cs of byScope.values()) {
    const f = cs[0]!;
    const d = decideScope(
      cs,
      marginPct,
      // A scope holds equal totals (group.ts scopeKey): with replicas, the label says the total.
      pairLabel(...totalResources(f)) + (cs.some((x) => (x.replicas ?? 1) > 1) ? ' in total' : ''),
      `${workloadLabel(f.app, f.requestSet)}, ${loadLabel(f.load)}`,
      pricing,
    );
    if ('bestRps' in d) scopes.push(d);
    else undecided.push(d);
  }
  return { scopes, undecided };
}

/** "0.5 CPU / 256 MB and 1 CPU / 256 MB", or "4 CPU / memory pairs" when the list would not read. */
function pairsLabel(scopes: readonly ScopeDecision[]): string {
  if (scopes.length > 3) return `${scopes.length} CPU / memory pairs`;
  const pairs = scopes.map((s) => s.label);
  // One pair under several loads (connections, TLS, a bandwidth cap): each named with its load, never twice alike;
  // with its link alone where only the link differs, as the pick is named (names.ts overWhat).
  const loads = scopes.map((s) => s.load);
  const linkOnly = new Set(loads.map((l) => JSON.stringify({ ...l, ...LINK }))).size === 1;
  const named = (s: ScopeDecision): string =>
    linkOnly ? `${s.label}${linkAmong(s.load, loads)}` : `${s.label}, ${loadLabel(s.load)}`;
  const labels = new Set(pairs).size < pairs.length ? scopes.map(named) : pairs;
  return labels.length <= 2 ? labels.join(' and ') : `${labels.slice(0, -1).join(', ')} and ${labels.at(-1)}`;
}

/**
 * The answer's decision, one per workload: the contest over every qualified configuration of the
 * workload, whatever its CPU / memory pair and link, on goodput per dollar at the run's prices (the lowest
 * cost per million requests), ties and undecided cases to the cheaper by the one order of cost. With
 * one pair every price is equal, so this is that pair's own decision, unchanged. Where the workload was
 * measured over several links, each link's own decision is kept with it (`links`): the deployed pick is
 * for the link it was measured over, and every other link's pick is named, with its link, as an alternative.
 */
export function decideWorkloads(
  configurations: ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  marginPct: number,
  pricing: Pricing = DEFAULT_PRICING,
): ScopeDecision[] {
  const across = (ss: ScopeDecision[], key: string): ScopeDecision => {
    if (ss.length === 1) return ss[0]!;
    const keys = new Set(ss.flatMap((s) => s.configurations));
    const cs = configurations.filter((c) => keys.has(c.key));
    const f = ss[0]!;
    const loads = new Set(ss.map((s) => JSON.stringify(s.load))).size;
    const context = loads > 1 ? workloadLabel(f.app, f.requestSet) : f.context;
    // Every scope in the list has a qualified candidate, so the contest over them has one too.
    return decideScope(cs, marginPct, pairsLabel(ss), context, pricing, key) as ScopeDecision;
  };
  return [...groupBy(scopes, (s) => workloadKey(s)).values()].map((ss) => {
    const key = `answer:${workloadKey(ss[0]!)}`;
    const d = across(ss, key);
    const byLink = [...groupBy(ss, (s) => linkKey(s.load)).entries()];
    return byLink.length > 1 ? { ...d, links: byLink.map(([k, ls]) => across(ls, `${key}:${k}`)) } : d;
  });
}

/** The pace behind the lower bounds among candidates of mixed paces, for what would decide it. */
const paceOf = (candidates: readonly ConfigurationSummary[]): BoundPace =>
  candidates.some((x) => x.bottleneck === 'host')
    ? 'host'
    : candidates.some((x) => x.bottleneck === 'dependency')
      ? 'dependency'
      : candidates.some((x) => x.bottleneck === 'network')
        ? 'network'
        : 'client';
