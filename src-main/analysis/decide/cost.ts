// What each configuration costs, and which is cheapest, with the answer's own statistics: the
// cost per million requests is the configuration's hourly price over its goodput, so its 95 %
// interval is the goodput interval's, inverted, and "A costs less than B" is a one-sided Welch test
// of goodput_A − (hourly_A ÷ hourly_B) · goodput_B > 0, Holm-corrected over the rivals, as the
// contest tests goodput. A client-bound or host-busy goodput is a lower bound, so its cost is an
// upper bound: it can be shown cheaper than another, never another cheaper than it.
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
import { onWhat, who } from '../names.ts';
import { checkSlo } from './slo.ts';
import { ALPHA, estimateOf, holm, welch } from './stats.ts';
import { searchConfigLabel } from '../names.ts';
import type { CheapestCost, ConfigurationSummary, CostAnswer, SearchAnswer, Slo } from '../types.ts';

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

/** "2 cluster workers on 1 CPU / 256 MB"; with replicas the one label rule (phrases.ts who, onWhat). */
export function costLabel(c: ConfigurationSummary): string {
  return `${who(c)} on ${onWhat(c)}`;
}

/** The cost of one configuration: hourly, per million at its goodput (and interval), and at the rate. */
export function costOf(c: ConfigurationSummary, prices: Prices, slo: Slo | null): ConfigurationCost {
  const hourly = hourlyCost({ cpuMillis: c.cpuMillis, memoryMb: c.memoryMb, replicas: replicasOf(c) }, prices);
  const g = c.rps;
  const ci = g?.ci ?? null;
  const rate = slo && slo.minRps > 0 ? slo.minRps : null;
  const copies = g && rate !== null ? copiesFor(rate, g.mean) : null;
  return {
    key: c.key,
    label: costLabel(c),
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
 * The cheapest of one workload's candidates per million requests, tested against every other: shown
 * cheaper than all of them (Holm at 5 %) or not; never picked on point means.
 */
function cheapestOf(
  cs: ConfigurationSummary[],
  costs: Map<string, ConfigurationCost>,
  withSlo: boolean,
  head: { app: string; requestSet: string | null },
): CheapestCost {
  const heading = withSlo ? 'Cheapest per million requests meeting the objective' : 'Cheapest per million requests';
  const ranked = cs
    .filter((c) => costs.get(c.key)?.perMillion != null)
    .sort((a, b) => costs.get(a.key)!.perMillion! - costs.get(b.key)!.perMillion!);
  const lead = ranked[0];
  if (!lead)
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
  const kl = costs.get(lead.key)!;
  const leadText = `${kl.label} at ${costText(kl)} per million requests${atRateText(kl, lead.rps!.mean)}`;
  const second = ranked[1];
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
  const el = estimateOf(lead.rps!);
  // Lead cheaper than r ⟺ g_lead > (h_lead ÷ h_r) · g_r; r's bound could be higher, so no test against it.
  const raw = ranked.slice(1).map((r) => {
    const er = estimateOf(r.rps!);
    const ratio = kl.hourly / costs.get(r.key)!.hourly;
    const p = el && er && !isLowerBound(r) ? welch(el, er, ratio).pAbove : null;
    return { r, p };
  });
  const tested = raw.filter((x) => x.p !== null);
  const adjusted = holm(tested.map((x) => x.p!));
  const pOf = new Map(tested.map((x, i) => [x.r.key, adjusted[i]!]));
  const undecided = raw.filter((x) => !((pOf.get(x.r.key) ?? 1) <= ALPHA)).map((x) => x.r);
  const k2 = costs.get(second.key)!;
  const p2 = pOf.get(second.key);
  const pText = (p: number | undefined): string =>
    p === undefined ? 'no interval to test' : p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(p < 0.01 ? 3 : 2)}`;
  if (undecided.length === 0)
    return {
      ...head,
      state: 'decided',
      cheapest: lead.key,
      runnerUp: second.key,
      notDistinguishable: [],
      text:
        `${heading}: ${leadText}; the runner-up, ${k2.label}, would cost ${costText(k2)} ` +
        `(shown costlier, ${pText(p2)}).`,
    };
  const why = undecided.some((c) => isLowerBound(c))
    ? "a rival's cost is only an upper bound: the load generator, a dependency or the host set its pace"
    : undecided.some((c) => !estimateOf(c.rps!)) || !el
      ? undecided.some((c) => c.n > 1) || lead.n > 1
        ? 'too few repetitions to bound: no interval to test'
        : 'a single sample has no interval to test'
      : 'more repetitions would decide';
  const rival = undecided[0]!;
  const pr = pOf.get(rival.key);
  const kr = costs.get(rival.key)!;
  return {
    ...head,
    state: 'undecided',
    cheapest: lead.key,
    runnerUp: second.key,
    notDistinguishable: undecided.map((c) => c.key),
    text:
      `${heading}: not decided, ${kl.label} at ${costText(kl)} and ${kr.label} at ${costText(kr)} per million ` +
      `requests are not distinguishable (${pr === undefined ? '' : `${pText(pr)}; `}${why}).`,
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
): CostAnswer {
  const measured = configurations.filter((c) => c.n > 0 && c.rps);
  const list = measured.map((c) => costOf(c, prices, slo));
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
