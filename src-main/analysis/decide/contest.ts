// The goodput contest of one CPU / memory pair, with lower bounds: a client-bound or
// host-busy configuration's goodput is a lower bound on the server's (the load generator or the
// host set the pace, so the server was at least that fast). Such a bound is used as one: it can
// beat a clean estimate, but nothing can be shown to beat it, nor to be within a margin of it.
// The outcome has exactly three states: confident, equivalent, undecided.
import type { BoundPace } from '../../model/types.ts';
import { ALPHA, estimateOf, holm, welch, type Estimate } from './stats.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import type { Prices } from '../../common/cost.ts';
import { costOrder, priceOf, type Costed } from './cost-order.ts';
import type { AnswerState, ConfigurationSummary, MarginEvidence, RivalRelation, RivalTest } from '../types.ts';

/** The one order of cost (analysis/decide/cost-order.ts) and what each configuration costs an hour. */
export interface Pricing {
  order: (a: Costed, b: Costed) => number;
  /** Dollars an hour; goodput is compared per dollar, so at equal prices it is compared as it is. */
  price: (c: ConfigurationSummary) => number;
}

/** The example prices: at equal totals (one CPU / memory pair) every price is the same and goodput decides. */
export const DEFAULT_PRICING: Pricing = { order: costOrder(), price: (c) => priceOf(c) };

/** The pricing of a run: its order and price at `prices`. */
export const pricingAt = (prices: Prices): Pricing => ({ order: costOrder(prices), price: (c) => priceOf(c, prices) });

/** Its goodput is only a lower bound: the old name of common/bottleneck.ts `isLowerBound`, for decide.ts. */

export interface Contest {
  state: AnswerState;
  /** The highest measured goodput (a lower bound when its bottleneck was the client or the host). */
  best: ConfigurationSummary;
  /**
   * What the answer names: the best, or the cheapest shown within the margin of it; for 'undecided' the leading
   * contender, never to be said as a pick.
   */
  pick: ConfigurationSummary;
  /** The best's relation to every other candidate. */
  rivals: RivalTest[];
  /**
   * The configurations still in the running (pick and best first): the pick, the best and every rival not shown worse.
   */
  contenders: ConfigurationSummary[];
  /**
   * Why an undecided contest is undecided: 'noise' — more repetitions can settle it; 'bound' — a lower bound prevents
   * it, only a different experiment can.
   */
  blockedBy: ('noise' | 'bound')[];
}

/**
 * One rival against the best (goodput, higher is better), margin m:
 * - a cheaper rival is 'worse' when shown below (1 − m) × best (it is not good enough), 'good-enough'
 *   when shown above (1 − m) × best (non-inferior: its lower bound may stand in for it; the best
 *   must be an estimate, since nothing is within a margin of a bound);
 * - a costlier (or equally cheap) rival is 'worse' when shown below the best (the best is cheaper
 *   and faster), 'equivalent' when two one-sided tests put it within ±m of the best (both estimates);
 * - 'worse' needs the rival's own number to be an estimate: a bound can always be higher.
 * Anything else is 'undecided'. p-values are Holm-adjusted over the rivals, per kind of test.
 */
export function contest(
  candidates: readonly ConfigurationSummary[],
  marginPct: number,
  pricing: Pricing = DEFAULT_PRICING,
): Contest | null {
  if (candidates.length === 0) return null;
  const m = marginPct / 100;
  const { order, price } = pricing;
  // Goodput per dollar: c beats k·best where k = price(c) ÷ price(best); 1 within a CPU / memory pair.
  const perDollar = (c: ConfigurationSummary): number => c.rps!.mean / price(c);
  const best = [...candidates].sort((a, b) => perDollar(b) - perDollar(a) || order(a, b))[0]!;
  const k = (c: ConfigurationSummary): number => price(c) / price(best);
  const others = candidates.filter((c) => c !== best);
  const eb = estimateOf(best.rps!);
  type Raw = {
    c: ConfigurationSummary;
    cheaperThanBest: boolean;
    e: Estimate | null;
    pWorse: number | null;
    pGood: number | null;
    pEquiv: number | null;
  };
  const raw: Raw[] = others.map((c) => {
    const e = estimateOf(c.rps!);
    const cheaperThanBest = order(c, best) < 0;
    if (!e || !eb) return { c, cheaperThanBest, e, pWorse: null, pGood: null, pEquiv: null };
    const kc = k(c);
    // Worse: a one-sided test that the rival's estimate is below the (margin-scaled) best.
    const pWorse = isLowerBound(c) ? null : welch(e, eb, kc * (cheaperThanBest ? 1 - m : 1)).pBelow;
    // Good enough (cheaper rival): its goodput, or bound, shown above (1 − m) × the best's estimate.
    const pGood = cheaperThanBest && !isLowerBound(best) ? welch(e, eb, kc * (1 - m)).pAbove : null;
    // Equivalent: TOST, both sides estimates.
    // (Only for costlier rivals: a cheaper one is settled by the non-inferiority test above, and a
    // wider Holm family would only make equivalence harder to show.)
    const pEquiv =
      !cheaperThanBest && !isLowerBound(c) && !isLowerBound(best)
        ? Math.max(welch(e, eb, kc * (1 - m)).pAbove, welch(e, eb, kc * (1 + m)).pBelow)
        : null;
    return { c, cheaperThanBest, e, pWorse, pGood, pEquiv };
  });
  const adjust = (pick: (r: Raw) => number | null): Map<Raw, number> => {
    const withP = raw.filter((r) => pick(r) !== null);
    const adjusted = holm(withP.map((r) => pick(r)!));
    return new Map(withP.map((r, i) => [r, adjusted[i]!]));
  };
  const worseP = adjust((r) => r.pWorse);
  const goodP = adjust((r) => r.pGood);
  const equivP = adjust((r) => r.pEquiv);
  const floor = (c: ConfigurationSummary): number => (1 - m) * k(c) * best.rps!.mean;
  // The one margin test: within the margin of the best when the tests show it; an undecided rival when
  // not shown below it (estimate against estimate), else when its mean or bound is at or above the floor
  // (without an interval only the means speak; a bound below the floor says nothing for the cheaper one).
  const withinOf = (r: Raw, relation: RivalRelation): MarginEvidence | null => {
    if (relation === 'good-enough' || relation === 'equivalent') return 'shown-within';
    if (relation === 'worse') return null;
    const tested = r.e !== null && eb !== null;
    if (tested && !isLowerBound(r.c)) return 'not-below';
    return r.c.rps!.mean >= floor(r.c) ? (tested ? 'not-below' : 'means') : null;
  };
  const rivals: RivalTest[] = raw.map((r) => {
    const pw = worseP.get(r) ?? null;
    const pg = goodP.get(r) ?? null;
    const pe = equivP.get(r) ?? null;
    let relation: RivalRelation = 'undecided';
    let p: number | null = null;
    if (pw !== null && pw <= ALPHA) [relation, p] = ['worse', pw];
    else if (pg !== null && pg <= ALPHA) [relation, p] = ['good-enough', pg];
    else if (pe !== null && pe <= ALPHA) [relation, p] = ['equivalent', pe];
    else {
      const tried = [pw, pg, pe].filter((x): x is number => x !== null);
      p = tried.length ? Math.min(...tried) : null; // no interval on a side: no test ran
    }
    // What blocks an undecided rival: a bound on either side that the deciding test needs, or too few data.
    const blocked: RivalTest['blockedBy'] =
      relation !== 'undecided' ? null : blockOf(r.c, best, r.cheaperThanBest, m, k(r.c));
    return {
      key: r.c.key,
      relation,
      p,
      lowerBound: isLowerBound(r.c),
      blockedBy: blocked,
      within: withinOf(r, relation),
    };
  });
  const rival = (c: ConfigurationSummary): RivalTest | undefined => rivals.find((x) => x.key === c.key);
  const rel = (c: ConfigurationSummary): RivalRelation | null => rival(c)?.relation ?? null;
  const undecided = rivals.filter((r) => r.relation === 'undecided');
  const within = others.filter((c) => rel(c) === 'good-enough' || rel(c) === 'equivalent');
  const state: AnswerState = undecided.length ? 'undecided' : within.length ? 'equivalent' : 'confident';
  const inTheRunning = [best, ...others.filter((c) => rel(c) !== 'worse')];
  // The cheapest within the margin: decided, one shown within it, or the best; undecided, the leading
  // contender, the cheapest not shown worse (the weak knee, said as such).
  const pick = [best, ...others.filter((c) => rival(c)!.within !== null)].sort(order)[0]!;
  const contenders = [pick, ...inTheRunning.filter((c) => c !== pick)];
  const blockedBy = [...new Set(undecided.map((r) => r.blockedBy!))];
  return { state, best, pick, rivals, contenders, blockedBy };
}

/**
 * Whether more repetitions can decide an undecided rival ('noise') or a lower bound stands in the
 * way ('bound'): a lower-bound rival can be shown neither worse nor equivalent; against a lower-bound
 * best, a cheaper rival measured above (1 − m) × that bound can never be shown below it.
 */
function blockOf(
  c: ConfigurationSummary,
  best: ConfigurationSummary,
  cheaperThanBest: boolean,
  m: number,
  k: number,
): 'noise' | 'bound' {
  // A busy host is passing: repetitions on a quieter moment can replace a host-busy bound (group.ts
  // leaves host-busy repetitions out once two undisturbed ones exist). A load generator's ceiling is not.
  const fixed = (x: ConfigurationSummary): boolean => x.bottleneck === 'client';
  if (isLowerBound(c)) return fixed(c) ? 'bound' : 'noise';
  if (isLowerBound(best) && cheaperThanBest && c.rps!.mean >= (1 - m) * k * best.rps!.mean)
    return fixed(best) ? 'bound' : 'noise';
  return 'noise';
}

/** What would decide an undecided contest, in words the answer can print. */
export function whatWouldDecide(blockedBy: readonly ('noise' | 'bound')[], ceiling: BoundPace | null): string[] {
  // Contenders held at a bandwidth cap measure the link, not the server: repetitions would measure it again.
  if (ceiling === 'network')
    return [
      'more bandwidth, or smaller responses: the network held the contenders at its cap, so the server was never ' +
        'what set the pace (`networkMbps`)',
    ];
  const out: string[] = [];
  if (blockedBy.includes('noise')) {
    // A command with its value, never a config key: doubling the default budget (50 %) settles most ties here.
    out.push(
      `more repetitions of the contenders${ceiling === 'host' ? ' on a quieter host (other processes took CPU)' : ''}` +
        ': run it again with a larger settling budget (`rightsize run … --settle-budget 100`)',
    );
  }
  if (blockedBy.includes('bound') && ceiling === 'dependency') {
    out.push(
      'a dependency that keeps up: give the database or cache more CPU (its limits in the Compose file or the ' +
        "app's definition), then size the app again",
    );
  } else if (blockedBy.includes('bound')) {
    out.push(
      'a load the server cannot keep up with: a heavier app or request, a smaller CPU cap, more load ' +
        'threads (`--load-threads`), or a target with more cores',
    );
  }
  return out;
}
