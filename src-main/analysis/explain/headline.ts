// The answer's first sentence: the pick and how it stands (confident, equivalent, undecided). One
// source for the CLI, the UI, the HTML report, --json and the snippets' opening comment.
import { fmtMoney } from '../../common/cost.ts';
import { fmtNum } from '../../common/format.ts';
import { isLowerBound, whoSetThePace } from '../../common/bottleneck.ts';
import { joinAnd as listOf } from '../../common/text.ts';
import { answerPick } from '../size/sizing.ts';
import { goodputShort } from './phrases.ts';
import type { AnswerState, ConfigurationSummary, Headline, Recommendation, ScopeDecision } from '../types.ts';
import { onWhat, overWhat, who, whoContext } from '../names.ts';

export const STATE_WORDS: Record<AnswerState, string> = {
  confident: 'confident',
  equivalent: 'equivalent',
  undecided: 'undecided',
};

type Base = Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods' | 'headline'>;

/** A decision across CPU / memory pairs is on cost per million requests; within one pair, on goodput. */
export const acrossPairs = (s: ScopeDecision | null | undefined): boolean => (s?.pairs ?? 1) > 1;

/** "$0.0019 per million requests at 2,414 req/s" (≤ where the goodput is a lower bound). */
export function perMillionText(rec: Pick<Base, 'costs'>, c: ConfigurationSummary): string {
  const k = rec.costs?.configurations.find((x) => x.key === c.key);
  const money = k?.perMillion != null ? `${k.upperBound ? '≤ ' : ''}${fmtMoney(k.perMillion)}` : '—';
  return `${money} per million requests at ${goodputShort(c)}`;
}

/** The headline of a matrix answer; null when nothing can be deployed (an auto-size run speaks for itself). */
export function headlineOf(rec: Base): Headline | null {
  const p = answerPick(rec);
  if (!p) return null;
  const c = p.configuration;
  const byKey = new Map(rec.configurations.map((x) => [x.key, x]));
  // With replicas the pick's caps are per container, said with the totals its scope holds (its label).
  const where =
    ((c.replicas ?? 1) < 2 && p.basis === 'knee' && p.scope && !acrossPairs(p.scope) ? p.scope.label : onWhat(c)) +
    overWhat(c, rec.configurations);
  const decideBy = p.basis === 'knee' && p.scope ? p.scope.decideBy : [];
  const base = { state: p.state, key: c.key, contenders: p.contenders, decideBy };
  // Configurations of one scope named together say what they differ in: containers, Node.js version, flags.
  const ctx = whoContext(p.scope ? [c, ...p.scope.candidates.map((k) => byKey.get(k)!).filter(Boolean)] : [c]);
  const named = (x: ConfigurationSummary): string => who(x, ctx);
  if (p.basis === 'search')
    return { ...base, text: `Pick: ${who(c)} on ${where}, found by the auto-size search — confident.` };
  if (p.basis === 'slo') {
    return {
      ...base,
      text:
        p.state === 'confident'
          ? `Pick: ${named(c)} on ${where}, the cheapest configuration meeting the objective on its whole 95 % ` +
            'interval — confident.'
          : `Undecided: ${named(c)} on ${where} meets the objective on its mean only (its interval crosses a ` +
            'limit); more repetitions would decide it.',
    };
  }
  const s = p.scope!;
  const m = rec.marginPct;
  if (acrossPairs(s)) return { ...base, text: acrossPairsText(rec, s, c, named) };
  if (p.state === 'confident') {
    const rivals = s.rivals.length;
    const how =
      rivals === 0
        ? 'the only configuration that qualified'
        : `its goodput (${goodputShort(c)}) is significantly above every other (Welch's t-test, Holm-corrected, 5 ` +
          `%${s.lowerBounds.includes(c.key) ? '; a lower bound, the server was at least that fast' : ''})`;
    return { ...base, text: `Pick: ${named(c)} on ${where} — confident: ${how}.` };
  }
  if (p.state === 'equivalent') {
    const within = s.contenders
      .filter((k) => k !== c.key)
      .map((k) => byKey.get(k)!)
      .filter(Boolean);
    return {
      ...base,
      text:
        `Pick: ${named(c)} on ${where} — equivalent: ${listOf([named(c), ...within.map(named)])} are shown within ` +
        `${fmtNum(m, 0)} % of the best goodput (one-sided tests), so the cheapest (${goodputShort(c)}).`,
    };
  }
  const names = s.contenders
    .map((k) => byKey.get(k)!)
    .filter(Boolean)
    .map((x) => `${named(x)} (${goodputShort(x)})`);
  const bounds = s.contenders.filter((k) => s.lowerBounds.includes(k)).map((k) => byKey.get(k)!);
  const why = bounds.length
    ? `a measured lower bound (${whoSetThePace(bounds)}) keeps the test from separating them`
    : `the tests separate them neither beyond nor within the ${fmtNum(m, 0)} % margin`;
  return {
    ...base,
    text: `Undecided on ${s.label} between ${listOf(names)}: ${why}. What would decide it: ${listOf(decideBy)}.`,
  };
}

/**
 * The headline of a decision across CPU / memory pairs: goodput per dollar decided it, so the words
 * say cost per million requests and name the scope, every configuration of every pair.
 */
function acrossPairsText(
  rec: Base,
  s: ScopeDecision,
  c: ConfigurationSummary,
  named: (x: ConfigurationSummary) => string,
): string {
  const byKey = new Map(rec.configurations.map((x) => [x.key, x]));
  const m = fmtNum(rec.marginPct, 0);
  const scope = `the ${s.candidates.length} configurations measured on ${s.label}`;
  // Each with its link where the workload ran over several: no two configurations named here read alike.
  const each = (x: ConfigurationSummary): string => `${named(x)} on ${onWhat(x)}${overWhat(x, rec.configurations)}`;
  if (s.state === 'confident') {
    const how =
      s.rivals.length === 0
        ? `the only one of ${scope} that qualified`
        : `the lowest cost per million requests of ${scope} (${perMillionText(rec, c)}), significantly below ` +
          "every other (Welch's t-test on goodput per dollar, Holm-corrected, 5 %)";
    return `Pick: ${each(c)} — confident: ${how}.`;
  }
  const others = s.contenders
    .filter((k) => k !== c.key)
    .map((k) => byKey.get(k)!)
    .filter(Boolean);
  // The others are on other caps: named only as labelled alternatives, so no CPU but the pick's reads as the answer.
  if (s.state === 'equivalent')
    return (
      `Pick: ${each(c)} — equivalent: of ${scope}, it and ${others.length} other` +
      `${others.length === 1 ? ' is' : 's are'} shown within ${m} % of the lowest cost per million requests ` +
      `(one-sided tests), so the cheapest by the one order of cost (${perMillionText(rec, c)}). ` +
      `Alternatives within the margin: ${listOf(others.map(each))}.`
    );
  const names = [c, ...others].map((x) => `${each(x)} (${perMillionText(rec, x)})`);
  const bounds = [c, ...others].filter((x) => s.lowerBounds.includes(x.key));
  const why = bounds.length
    ? `a measured lower bound (${whoSetThePace(bounds)}) keeps the test from separating them`
    : `the tests separate their cost per million requests neither beyond nor within the ${m} % margin`;
  return (
    `Undecided across ${s.label} between ${listOf(names)}: ${why}; an undecided answer goes to the cheapest ` +
    'by the one order of cost of those not shown costlier per request, which leads. ' +
    `What would decide it: ${listOf(s.decideBy)}.`
  );
}
