// Configurations that differ in one thing only — the topology (containers × workers), the Node.js
// version, the Node.js flags — compared by the contest the answer already runs (contest.ts: one-sided
// Welch tests, Holm over the rivals, TOST for equivalence, client-bound goodput as a lower bound). No
// second test: a line about them can never disagree with the statistics behind the headline.
import { fmtMargin, fmtNum } from '../../common/format.ts';
import { contest } from './contest.ts';
import { isLowerBound, whoSetThePace } from '../../common/bottleneck.ts';
import type { ConfigurationSummary, RivalRelation } from '../types.ts';

export type { ComparisonNote } from '../types.ts';

/** One rival against the best of its set, as the contest judged it. */
export interface SideBySide {
  /** The highest goodput of the set (a lower bound where the load generator or the host was its bottleneck). */
  best: ConfigurationSummary;
  other: ConfigurationSummary;
  relation: RivalRelation;
  /** Holm-adjusted p of the deciding test (the smallest tried when undecided); null without intervals. */
  p: number | null;
  /** What keeps an undecided pair undecided: too few data, or a lower bound. */
  blockedBy: 'noise' | 'bound' | null;
  /** best ÷ other − 1 on the means (0.12 = 12 % more). */
  gain: number;
}

/**
 * Every rival of the set against its best, by contest.ts; [] when fewer than two qualify (a
 * configuration with errors above the limit or an OOM kill is not compared, as it is never picked).
 */
export function sideBySide(cs: readonly ConfigurationSummary[], marginPct: number): SideBySide[] {
  const qualified = cs.filter((c) => c.n > 0 && c.rps !== null && c.disqualified.length === 0);
  if (qualified.length < 2) return [];
  const result = contest(qualified, marginPct);
  if (!result) return [];
  return result.rivals.map((r) => {
    const other = qualified.find((c) => c.key === r.key)!;
    const gain = other.rps!.mean > 0 ? result.best.rps!.mean / other.rps!.mean - 1 : 0;
    return { best: result.best, other, relation: r.relation, p: r.p, blockedBy: r.blockedBy, gain };
  });
}

/** "10,020 ± 120", "≥ 9,950" (a lower bound), "9,950" (no interval): goodput in req/s, the unit said once. */
export function goodputShort(c: ConfigurationSummary): string {
  const r = c.rps!;
  if (isLowerBound(c)) return `≥ ${fmtNum(r.mean)}`;
  return r.ci ? `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)}` : fmtNum(r.mean);
}

/** "10,020 ± 120 against 9,950 ± 90 req/s". */
const against = (s: SideBySide): string => `${goodputShort(s.best)} against ${goodputShort(s.other)} req/s`;

export const pText = (p: number | null): string =>
  p === null ? 'no interval: means only' : p < 0.001 ? 'p < 0.001' : `p ${fmtNum(p, 3)}`;

/** "12 %", "0.8 %": a gain on the means. */
export const gainPct = (g: number): string => `${fmtNum(g * 100, Math.abs(g) >= 0.1 ? 0 : 1).replace(/\.0$/, '')} %`;

/** "(11,200 ± 200 against 10,000 ± 180 req/s; one-sided Welch, Holm 5 %: p 0.002)": the numbers and the test. */
export function evidence(s: SideBySide): string {
  const bound = isLowerBound(s.best) || isLowerBound(s.other);
  const bounds = [s.best, s.other].filter(isLowerBound);
  const boundNote = bound ? `; ≥: a lower bound, ${whoSetThePace(bounds)}` : '';
  return `(${against(s)}; one-sided Welch, Holm 5 %: ${pText(s.p)}${boundNote})`;
}

/**
 * The pair in words, by the contest's relation: `name` says who each is, `more` what "more" is of
 * ("" or " per CPU"). The numbers and the test that decided it close the clause.
 */
export function relationClause(
  s: SideBySide,
  name: (c: ConfigurationSummary) => string,
  marginPct: number,
  more = '',
): string {
  const [a, b] = [name(s.best), name(s.other)];
  const m = fmtMargin(marginPct);
  const numbers = against(s);
  switch (s.relation) {
    case 'worse':
      return (
        `${a} serves ${isLowerBound(s.best) ? 'at least ' : ''}${gainPct(s.gain)} more${more} than ${b} ` + evidence(s)
      );
    case 'equivalent':
      return `${a} and ${b} are equivalent on goodput (TOST ±${m} %: ${pText(s.p)}; ${numbers})`;
    case 'good-enough':
      return `${b} is shown within ${m} % of ${a} on goodput ${evidence(s)}`;
    case 'undecided':
      return s.blockedBy === 'bound'
        ? `${a} and ${b} cannot be ordered here (${numbers}): a lower bound stands in the way, so no test can ` +
            'say which serves more; a load the server cannot keep up with would'
        : s.p === null && (isLowerBound(s.best) || isLowerBound(s.other))
          ? // A busy host's bound: no test applies to it, but undisturbed repetitions can replace it.
            `${a} and ${b} are not distinguishable here (${numbers}; ≥: a lower bound, the host or the load ` +
            'generator set the pace, so no test applies): repetitions on a quieter host could tell them apart'
          : `${a} and ${b} are not distinguishable here (${numbers}; ` +
            (s.p === null
              ? 'no interval: means only'
              : `neither shown apart nor within ±${m} %: the smallest Holm-adjusted ${pText(s.p)}`) +
            '): more repetitions could tell them apart ("repetitions")';
  }
}
