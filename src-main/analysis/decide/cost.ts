// What each configuration costs, and which is cheapest, with the answer's own statistics: the
// cost per million requests is the configuration's hourly price over its goodput, so its 95 %
// interval is the goodput interval's, inverted. Which is cheapest is the contest's decision on
// goodput per dollar (contest.ts), read here, never tested again. A client-bound or host-busy
// goodput is a lower bound, so its cost is an upper bound: never shown costlier than another.
import {
  copiesFor,
  costText,
  DEFAULT_PRICES,
  type ConfigurationCost,
  fmtMoney,
  hourlyCost,
  isPrices,
  perMillion,
  type PriceSource,
  type Prices,
} from '../../common/cost.ts';
import { fmtNum } from '../../common/format.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import { groupBy, workloadKey } from './group.ts';
import { onWhat, overWhat, who } from '../names.ts';
import { checkSlo } from './slo.ts';
import { estimateOf } from './stats.ts';
import { contest, pricingAt, type Pricing } from './contest.ts';
import { searchConfigLabel } from '../names.ts';
import type { CheapestCost, ConfigurationSummary, CostAnswer, RivalTest, SearchAnswer, Slo } from '../types.ts';

export { costText, type ConfigurationCost };

/** A run's stored prices (its matrix's or search spec's `prices`), else null. */
export function storedPrices(matrix: unknown): Prices | null {
  const p = (matrix as { prices?: unknown } | null)?.prices;
  if (p && typeof p === 'object' && !('replicaHour' in p)) {
    const withPod = { ...p, replicaHour: 0 };
    return isPrices(withPod) ? withPod : null;
  }
  return isPrices(p) ? { cpuHour: p.cpuHour, gbHour: p.gbHour, replicaHour: p.replicaHour } : null;
}

/** The prices to cost a run at: given now over stored with the run over the example defaults. */
export function pricesFor(matrix: unknown, given?: Partial<Prices>): { prices: Prices; source: PriceSource } {
  const stored = storedPrices(matrix);
  const base = stored ?? DEFAULT_PRICES;
  const anyGiven = given && Object.values(given).some((v) => v !== undefined);
  if (anyGiven) return { prices: { ...base, ...stripUndefined(given) }, source: 'given' };
  return { prices: { ...base }, source: stored ? 'run' : 'default' };
}

const stripUndefined = (p: Partial<Prices>): Partial<Prices> =>
  Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Partial<Prices>;

const replicasOf = (c: ConfigurationSummary): number => (c.replicas && c.replicas >= 2 ? c.replicas : 1);

/**
 * "2 cluster workers on 1 CPU / 256 MB"; with replicas the one label rule (phrases.ts who, onWhat); with the link it
 * was measured over where its workload had several among `cs`.
 */
export function costLabel(c: ConfigurationSummary, cs: readonly ConfigurationSummary[] = []): string {
  return `${who(c)} on ${onWhat(c)}${overWhat(c, cs)}`;
}

/** The cost of one configuration: hourly, per million at its goodput (and interval), and at the rate. */
export function costOf(
  c: ConfigurationSummary,
  prices: Prices,
  slo: Slo | null,
  cs: readonly ConfigurationSummary[] = [],
): ConfigurationCost {
  const hourly = hourlyCost({ cpuMillis: c.cpuMillis, memoryMb: c.memoryMb, replicas: replicasOf(c) }, prices);
  const g = c.rps;
  const ci = g?.ci ?? null;
  const rate = slo && slo.minRps > 0 ? slo.minRps : null;
  const copies = g && rate !== null ? copiesFor(rate, g.mean) : null;
  return {
    key: c.key,
    label: costLabel(c, cs),
    replicas: replicasOf(c),
    hourly,
    perMillion: g ? perMillion(hourly, g.mean) : null,
    interval: ci ? { low: perMillion(hourly, ci.high)!, high: perMillion(hourly, ci.low) } : null,
    upperBound: g !== null && isLowerBound(c),
    atRate:
      rate !== null && copies !== null
        ? {
            rate,
            copies,
            copiesLow: ci ? (copiesFor(rate, ci.high) ?? copies) : copies,
            copiesHigh: ci ? copiesFor(rate, ci.low) : copies,
            hourly: copies * hourly,
          }
        : null,
    meets: slo && g && c.p99Us && c.errorPct !== null ? checkSlo(c, slo).every((k) => k.ok) : null,
  };
}

/** ", at the objective's 2,000 req/s ⌈2,000 ÷ 1,234⌉ = 2 copies, $0.13 an hour". */
function atRateText(k: ConfigurationCost, goodput: number): string {
  const a = k.atRate;
  if (!a) return '';
  const range =
    a.copiesHigh !== a.copies || a.copiesLow !== a.copies
      ? ` (${a.copiesLow}–${a.copiesHigh ?? '?'} over the interval)`
      : '';
  const bound = k.upperBound ? ' at most' : '';
  return (
    `; at the objective's ${fmtNum(a.rate)} req/s:${bound} ⌈${fmtNum(a.rate)} ÷ ${fmtNum(goodput)}⌉ = ` +
    `${a.copies} cop${a.copies === 1 ? 'y' : 'ies'}${range}, ${bound ? '≤ ' : ''}${fmtMoney(a.hourly)} an hour`
  );
}

/**
 * The lowest cost per million requests of one workload's candidates, by the answer's own contest
 * (contest.ts, on goodput per dollar at these prices, margin and all): the cost line reads its
 * decision and never tests again, so it cannot contradict the headline. Never picked on point means.
 */
function cheapestOf(
  cs: ConfigurationSummary[],
  costs: Map<string, ConfigurationCost>,
  withSlo: boolean,
  head: { app: string; requestSet: string | null },
  marginPct: number,
  pricing: Pricing,
): CheapestCost {
  const heading = withSlo ? 'Cheapest per million requests meeting the objective' : 'Cheapest per million requests';
  const priced = cs.filter((c) => costs.get(c.key)?.perMillion != null);
  const c = contest(priced, marginPct, pricing);
  if (!c)
    return {
      ...head,
      state: 'none',
      cheapest: null,
      runnerUp: null,
      notDistinguishable: [],
      text: withSlo
        ? 'No configuration meets the objective, so none is priced as its answer.'
        : 'No configuration has a goodput to price.',
    };
  const lead = c.best;
  const kl = costs.get(lead.key)!;
  const leadText = `${kl.label} at ${costText(kl)} per million requests${atRateText(kl, lead.rps!.mean)}`;
  const perMillionOf = (x: ConfigurationSummary): number => costs.get(x.key)!.perMillion!;
  const rest = priced.filter((x) => x !== lead).sort((a, b) => perMillionOf(a) - perMillionOf(b));
  const second = rest[0];
  if (!second)
    return {
      ...head,
      state: 'only-one',
      cheapest: lead.key,
      runnerUp: null,
      notDistinguishable: [],
      text:
        `Cost: only ${kl.label} ${withSlo ? 'meets the objective' : 'was measured'}, ` +
        `at ${costText(kl)} per million requests${atRateText(kl, lead.rps!.mean)}.`,
    };
  const rivalOf = (x: ConfigurationSummary): RivalTest => c.rivals.find((r) => r.key === x.key)!;
  const pText = (p: number | null): string =>
    p === null ? 'no interval to test' : p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(p < 0.01 ? 3 : 2)}`;
  const k2 = costs.get(second.key)!;
  const base = { ...head, cheapest: lead.key, runnerUp: second.key };
  if (c.state === 'confident')
    return {
      ...base,
      state: 'decided',
      notDistinguishable: [],
      text:
        `${heading}: ${leadText}; the runner-up, ${k2.label}, would cost ${costText(k2)} ` +
        `(shown costlier, ${pText(rivalOf(second).p)}).`,
    };
  if (c.state === 'equivalent') {
    const within = rest.filter((x) => rivalOf(x).within === 'shown-within');
    const list = within.map((x) => `${costs.get(x.key)!.label} at ${costText(costs.get(x.key)!)}`).join(', ');
    const answer = c.pick !== lead ? ` The answer is the cheapest of them, ${costs.get(c.pick.key)!.label}.` : '';
    return {
      ...base,
      state: 'equivalent',
      notDistinguishable: within.map((x) => x.key),
      text: `${heading}: ${leadText}; shown within ${marginPct} % of it: ${list}.${answer}`,
    };
  }
  const undecided = rest.filter((x) => rivalOf(x).relation === 'undecided');
  const why = c.blockedBy.includes('bound')
    ? "a rival's cost is only an upper bound: the load generator, a dependency or the host set its pace"
    : undecided.some((x) => !estimateOf(x.rps!)) || !estimateOf(lead.rps!)
      ? undecided.some((x) => x.n > 1) || lead.n > 1
        ? 'too few repetitions to bound: no interval to test'
        : 'a single sample has no interval to test'
      : 'more repetitions would decide';
  const rival = undecided[0]!;
  const pr = rivalOf(rival).p;
  const kr = costs.get(rival.key)!;
  return {
    ...base,
    state: 'undecided',
    notDistinguishable: undecided.map((x) => x.key),
    text:
      `${heading}: not decided, ${kl.label} at ${costText(kl)} and ${kr.label} at ${costText(kr)} per million ` +
      `requests are not distinguishable (${pr === null ? '' : `${pText(pr)}; `}${why}).`,
  };
}

/**
 * Every configuration's cost, and per workload the cheapest one meeting the objective (every one
 * that qualifies when there is none) against its runner-up.
 */
export function costsOf(
  configurations: readonly ConfigurationSummary[],
  slo: Slo | null,
  prices: Prices,
  source: PriceSource,
  marginPct: number,
): CostAnswer {
  const pricing = pricingAt(prices);
  const measured = configurations.filter((c) => c.n > 0 && c.rps);
  const list = measured.map((c) => costOf(c, prices, slo, measured));
  const byKey = new Map(list.map((k) => [k.key, k]));
  const qualified = measured.filter((c) => c.disqualified.length === 0 && (!slo || byKey.get(c.key)!.meets));
  const all = groupBy(
    measured.filter((c) => c.disqualified.length === 0),
    workloadKey,
  );
  const cheapest = [...all.entries()].map(([w, cs]) => {
    const head = { app: cs[0]!.app, requestSet: cs[0]!.requestSet };
    const one = cheapestOf(
      qualified.filter((c) => workloadKey(c) === w),
      byKey,
      slo !== null,
      head,
      marginPct,
      pricing,
    );
    // Several workloads: each line says whose it is.
    const name = head.requestSet ? `${head.app} (${head.requestSet})` : head.app;
    return all.size > 1 ? { ...one, text: `${name}: ${one.text}` } : one;
  });
  return { prices, source, rate: slo && slo.minRps > 0 ? slo.minRps : null, configurations: list, cheapest };
}

/**
 * An auto-size run's cost line: what its search found (or met so far) costs, an hour and per million
 * requests at the rate it was judged at — the search, not a contest over its cells, is the answer.
 */
export function searchCostLine(search: SearchAnswer, prices: Prices): CheapestCost {
  const c = search.found ?? search.bestSoFar;
  const head = { app: search.app, requestSet: null, runnerUp: null, notDistinguishable: [] };
  if (!c)
    return {
      ...head,
      state: 'none',
      cheapest: null,
      text: 'The search found nothing to price: none met the objective.',
    };
  const hourly = hourlyCost(c, prices);
  const what = search.found ? 'What the search found' : 'The cheapest met so far (cheaper ones not ruled out)';
  return {
    ...head,
    state: search.found ? 'only-one' : 'undecided',
    cheapest: search.foundKey,
    text:
      `${what}, ${searchConfigLabel(c)}, costs ${fmtMoney(hourly)} an hour: ` +
      `${fmtMoney(perMillion(hourly, search.rate))} per million requests at ${fmtNum(search.rate)} req/s.`,
  };
}
