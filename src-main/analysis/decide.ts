// The decisions of one CPU / memory pair: who may be picked, the best, the knee and the lowest p99,
// each settled by a test (Welch's t-test, Holm-corrected where a best is picked among many), never
// by point means or by overlapping intervals.
import { groupBy, loadLabel, MODE_ORDER, pairLabel, workloadLabel } from './group.ts';
import { ALPHA, estimateOf, holm, welch, type MetricStats } from './stats.ts';
import type { ConfigurationSummary, PairTest, ScopeDecision, UndecidedScope, Verdict } from './types.ts';

/** Exact ties go to the cheaper configuration: fewer workers, then the lighter launcher. */
const cheaper = (a: ConfigurationSummary, b: ConfigurationSummary): number => a.workers - b.workers || MODE_ORDER[a.mode] - MODE_ORDER[b.mode];

const rpsOf = (c: ConfigurationSummary): MetricStats => c.rps!;
const p99Of = (c: ConfigurationSummary): MetricStats => c.p99Us!;

interface Comparison {
  verdict: Verdict;
  tests: PairTest[];
  notDistinguishable: string[];
  /** Others significantly worse than the pick. */
  worse: string[];
}

/**
 * The pick against every other candidate: two-sided Welch tests, Holm-adjusted over the family of
 * comparisons (the pick was chosen among them, so one uncorrected test per pair would find a
 * "winner" by chance far more often than 5 %). Where a side has no interval only means are known.
 */
export function comparePick(pick: ConfigurationSummary, others: ConfigurationSummary[], metric: (c: ConfigurationSummary) => MetricStats, higherIsBetter: boolean): Comparison {
  if (others.length === 0) return { verdict: 'only-one', tests: [], notDistinguishable: [], worse: [] };
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
  const worse = tests.filter((t) => t.significant).map((t) => t.key);
  const unknown = tests.some((t) => t.test === null);
  const verdict: Verdict = notDistinguishable.length ? 'not-distinguishable' : unknown ? 'single-sample' : 'clear';
  return { verdict, tests, notDistinguishable, worse };
}

/**
 * Whether `c` is not significantly below (1 − margin) × best: a one-sided Welch test of
 * c − (1 − m)·best < 0 at ALPHA. Uncorrected on purpose: the claim made is "not shown below", and a
 * correction would only make that easier. 'shown-within' when the opposite one-sided test also
 * shows it above the floor; 'means' without intervals.
 */
export function withinMargin(c: ConfigurationSummary, best: ConfigurationSummary, marginPct: number): { within: boolean; evidence: ScopeDecision['kneeEvidence'] } {
  const share = 1 - marginPct / 100;
  if (c === best) return { within: true, evidence: 'shown-within' };
  const a = estimateOf(c.rps!);
  const b = estimateOf(best.rps!);
  if (!a || !b) return { within: c.rps!.mean >= best.rps!.mean * share, evidence: 'means' };
  const t = welch(a, b, share);
  return { within: t.pBelow > ALPHA, evidence: t.pAbove <= ALPHA ? 'shown-within' : 'not-below' };
}

interface Candidates {
  candidates: ConfigurationSummary[];
  setAside: { key: string; reason: string }[];
  ceiling: ScopeDecision['ceiling'];
}

/**
 * Who may be picked: never a disqualified configuration (errors above the limit, OOM);
 * a client-bound or host-busy one only when no clean one qualifies, and then the answer says that
 * the load generator or the host, not the server, set the ceiling.
 */
export function candidatesOf(cs: ConfigurationSummary[]): Candidates {
  const qualified = cs.filter((c) => c.disqualified.length === 0);
  const clean = qualified.filter((c) => c.bottleneck === null);
  const candidates = clean.length ? clean : qualified;
  const setAside = cs
    .filter((c) => !candidates.includes(c))
    .map((c) => ({
      key: c.key,
      reason: c.disqualified.length ? c.disqualified.join(', ') : c.bottleneck === 'client' ? 'client-bound: the load generator set its pace' : 'host-busy: other processes took CPU',
    }));
  const ceiling = clean.length || !qualified.length ? null : qualified.every((c) => c.bottleneck === 'client') ? 'client' : 'host';
  return { candidates, setAside, ceiling };
}

function decideScope(cs: ConfigurationSummary[], marginPct: number, label: string, context: string): ScopeDecision | UndecidedScope {
  const first = cs[0]!;
  const { candidates, setAside, ceiling } = candidatesOf(cs);
  if (candidates.length === 0) return { key: first.scopeKey, label, context, setAside };
  const bestRps = [...candidates].sort((a, b) => b.rps!.mean - a.rps!.mean || cheaper(a, b))[0]!;
  // The knee: fewest workers first, then the higher mean, then the lighter launcher.
  const byWorkers = [...candidates].sort((a, b) => a.workers - b.workers || b.rps!.mean - a.rps!.mean || cheaper(a, b));
  let knee = bestRps;
  let kneeEvidence: ScopeDecision['kneeEvidence'] = 'shown-within';
  for (const c of byWorkers) {
    const m = withinMargin(c, bestRps, marginPct);
    if (m.within) {
      knee = c;
      kneeEvidence = m.evidence;
      break;
    }
  }
  const lowestP99 = [...candidates].sort((a, b) => a.p99Us!.mean - b.p99Us!.mean || cheaper(a, b))[0]!;
  const tested = comparePick(bestRps, candidates.filter((c) => c !== bestRps), rpsOf, true);
  // A client-bound or host-busy number is a lower bound: whoever was set aside for it may be the
  // faster one, and a ceiling shared by all is the load generator's or the host's, not the server's.
  const bottlenecked = ceiling !== null || cs.some((c) => c.disqualified.length === 0 && c.bottleneck !== null && !candidates.includes(c));
  const rps: Comparison = bottlenecked ? { ...tested, verdict: 'bottlenecked' } : tested;
  const p99 = comparePick(lowestP99, candidates.filter((c) => c !== lowestP99), p99Of, false);
  return {
    key: first.scopeKey,
    label,
    context,
    app: first.app,
    requestSet: first.requestSet,
    load: first.load,
    cpuMillis: first.cpuMillis,
    memoryMb: first.memoryMb,
    configurations: cs.map((c) => c.key),
    candidates: candidates.map((c) => c.key),
    setAside,
    ceiling,
    bestRps,
    knee,
    kneeEvidence,
    lowestP99,
    rpsVerdict: rps.verdict,
    p99Verdict: p99.verdict,
    rpsTests: rps.tests,
    p99Tests: p99.tests,
    notDistinguishableRps: rps.notDistinguishable,
    notDistinguishableP99: p99.notDistinguishable,
    clearlyBelowRps: rps.worse,
  };
}

/** One decision per scope (workload × load × CPU × memory) with any included repetition; scopes where nothing qualified are listed apart. */
export function decideScopes(configurations: ConfigurationSummary[], marginPct: number): { scopes: ScopeDecision[]; undecided: UndecidedScope[] } {
  const byScope = groupBy(configurations.filter((x) => x.n > 0), (c) => c.scopeKey);
  const scopes: ScopeDecision[] = [];
  const undecided: UndecidedScope[] = [];
  for (const cs of byScope.values()) {
    const f = cs[0]!;
    const d = decideScope(cs, marginPct, pairLabel(f.cpuMillis, f.memoryMb), `${workloadLabel(f.app, f.requestSet)}, ${loadLabel(f.load)}`);
    if ('bestRps' in d) scopes.push(d);
    else undecided.push(d);
  }
  return { scopes, undecided };
}
