// What the answer does not deploy but a reader may want instead, each labelled as an alternative:
// the lowest p99 when it is much lower than the pick's, and more goodput for more resources. They
// read the decision; they never change it.
import { fmtNum, fmtUs } from '../../common/format.ts';
import { priceOf } from '../decide/cost-order.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import { workloadKey } from '../decide/group.ts';
import { linkKey, otherLinks, twinKey } from '../decide/links.ts';
import { onWhat, overWhat, who } from '../names.ts';
import { answerPick } from '../size/sizing.ts';
import { goodputShort } from './phrases.ts';
import { ALPHA, estimateOf, welch } from '../decide/stats.ts';
import { MUCH_LOWER_P99 } from '../../common/thresholds.ts';
import type { Alternative, ConfigurationSummary, Recommendation, ScopeDecision } from '../types.ts';
import type { Prices } from '../../common/cost.ts';

type Base = Pick<Recommendation, 'search' | 'scopes' | 'decisions' | 'sloOutcomes' | 'configurations' | 'slo'> & {
  costs?: { prices: Prices };
};

/** "2×", "1.9×": one decimal below 10, none where it would read ".0". */
export const ratio = (x: number): string => `${fmtNum(x, x < 10 && Math.abs(x - Math.round(x)) >= 0.05 ? 1 : 0)}×`;

/** One-sided: a's mean is shown below b's (higher: above); on the means where a side has no interval. */
function shown(a: ConfigurationSummary['rps'], b: ConfigurationSummary['rps'], below: boolean): boolean {
  const ea = a && estimateOf(a);
  const eb = b && estimateOf(b);
  if (!ea || !eb) return below ? a!.mean < b!.mean : a!.mean > b!.mean;
  const t = welch(ea, eb);
  return (below ? t.pBelow : t.pAbove) <= ALPHA;
}

/** "for 2× the CPU", "for 1.5× the price per hour": what the alternative costs more of. */
function forWhat(alt: ConfigurationSummary, pick: ConfigurationSummary, prices: Prices | undefined): string {
  const same = (alt.replicas ?? 1) === (pick.replicas ?? 1);
  if (same && alt.memoryMb === pick.memoryMb && alt.cpuMillis !== pick.cpuMillis)
    return `for ${ratio(alt.cpuMillis / pick.cpuMillis)} the CPU`;
  return `for ${ratio(priceOf(alt, prices) / priceOf(pick, prices))} the price per hour`;
}

/**
 * Each other link's own pick (decideWorkloads `links`), where it is not the deployed configuration: what to deploy
 * if that is the link you serve over, with the deployed configuration's goodput there when it was measured.
 */
function linkAlternatives(rec: Base, pick: ConfigurationSummary, scope: ScopeDecision | null): Alternative[] {
  const cs = rec.configurations;
  return otherLinks(scope, pick).other.map((d) => {
    const k = d.knee;
    const twin = cs.find(
      (x) => x.n > 0 && x.rps && linkKey(x.load) === linkKey(d.load) && twinKey(x) === twinKey(pick),
    );
    const how = d.state === 'undecided' ? 'the leading contender there, undecided' : `the pick there, ${d.state}`;
    const there = twin ? `; the deployed ${who(pick)} measured ${goodputShort(twin)} there` : '';
    return {
      key: k.key,
      kind: 'link' as const,
      text:
        `Alternative if you serve${overWhat(k, cs)}: ${who(k)} on ${onWhat(k)}, ${goodputShort(k)} (${how})` + there,
    };
  });
}

export function alternativesOf(rec: Base): Alternative[] {
  const p = answerPick(rec);
  if (!p || p.basis === 'search') return [];
  const pick = p.configuration;
  const prices = rec.costs?.prices;
  const rivals = rec.configurations.filter(
    (c) =>
      c !== pick && c.n > 0 && c.rps && c.p99Us && c.disqualified.length === 0 && workloadKey(c) === workloadKey(pick),
  );
  const out: Alternative[] = [];
  const fastest = [...rivals].sort((a, b) => a.p99Us!.mean - b.p99Us!.mean)[0];
  if (fastest && fastest.p99Us!.mean <= MUCH_LOWER_P99 * pick.p99Us!.mean && shown(fastest.p99Us, pick.p99Us, true))
    out.push({
      key: fastest.key,
      kind: 'latency',
      text:
        `Alternative for latency: ${who(fastest)} on ${onWhat(fastest)}${overWhat(fastest, rec.configurations)}, ` +
        `p99 ${fmtUs(fastest.p99Us!.mean)} against ` +
        `the pick's ${fmtUs(pick.p99Us!.mean)} (${ratio(pick.p99Us!.mean / fastest.p99Us!.mean)} lower), ` +
        `${forWhat(fastest, pick, prices)}`,
    });
  // A bound can always be higher, so only an estimate is said to hold more.
  const most = isLowerBound(pick) ? undefined : [...rivals].sort((a, b) => b.rps!.mean - a.rps!.mean)[0];
  if (
    most &&
    (most.cpuMillis !== pick.cpuMillis || most.memoryMb !== pick.memoryMb) &&
    shown(most.rps, pick.rps, false)
  )
    out.push({
      key: most.key,
      kind: 'throughput',
      text:
        `Alternative for throughput: ${onWhat(most)} would hold ${goodputShort(most)} with ${who(most)}` +
        `${overWhat(most, rec.configurations)}: ${ratio(most.rps!.mean / pick.rps!.mean)} the goodput ` +
        `${forWhat(most, pick, prices)}`,
    });
  out.push(...linkAlternatives(rec, pick, p.scope));
  return out.map((a) => ({ ...a, text: `${a.text}.` }));
}
