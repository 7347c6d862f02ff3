import { fmtNum } from '../../common/format.ts';
import { costOrder, type Costed } from './cost-order.ts';
import { groupBy, workloadKey } from './group.ts';
import type { ConfigurationSummary, Slo, SloCheck, SloOutcome } from '../types.ts';

export const SLO_EXAMPLE = 'p99<=20ms,rps>=1000,errors<=1%';

const UNIT_TO_MS: Record<string, number> = { us: 0.001, µs: 0.001, μs: 0.001, ms: 1, s: 1000 };

/**
 * Parses "p99<=20ms,rps>=1000,errors<=1%". All three limits are required so the objective is
 * explicit (rps>=0 or errors<=100% mean "no limit"). Throws an Error whose message says what to fix.
 */
export function parseSlo(text: string): Slo {
  const found: Partial<Slo> = {};
  const clauses = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (clauses.length === 0) throw new Error(`The SLO is empty; write e.g. "${SLO_EXAMPLE}".`);
  for (const clause of clauses) {
    const m = /^([a-z0-9/]+)\s*(<=|>=|≤|≥|<|>|=)\s*([0-9]*\.?[0-9]+)\s*([a-zµμ%]*)$/i.exec(clause);
    if (!m) throw new Error(`Cannot read "${clause}" in the SLO; write e.g. "${SLO_EXAMPLE}".`);
    const [, rawName, rawOp, rawValue, rawUnit] = m as unknown as [string, string, string, string, string];
    const name = rawName.toLowerCase();
    const op = rawOp.replace('≤', '<=').replace('≥', '>=');
    const value = Number(rawValue);
    const unit = rawUnit.toLowerCase();
    const field: keyof Slo | undefined =
      name === 'p99'
        ? 'p99Ms'
        : name === 'rps' || name === 'req/s'
          ? 'minRps'
          : ['errors', 'error', 'err'].includes(name)
            ? 'maxErrorPct'
            : undefined;
    if (!field) throw new Error(`Unknown SLO criterion "${rawName}": use p99, rps and errors (e.g. "${SLO_EXAMPLE}").`);
    if (found[field] !== undefined) throw new Error(`"${rawName}" appears twice in the SLO.`);
    const want = field === 'minRps' ? '>=' : '<=';
    if (op !== want)
      throw new Error(
        `Write "${rawName}${want}…" in the SLO: ${field === 'minRps' ? 'throughput is a floor' : 'it is a ceiling'}.`,
      );
    if (field === 'p99Ms') {
      const factor = UNIT_TO_MS[unit];
      if (factor === undefined)
        throw new Error(`p99 needs a unit, µs, ms or s (e.g. "p99<=20ms"), not "${rawUnit || 'none'}".`);
      if (value <= 0) throw new Error('The p99 limit must be above 0.');
      found.p99Ms = value * factor;
    } else if (field === 'minRps') {
      if (unit !== '')
        throw new Error(`rps takes a plain number of requests per second (e.g. "rps>=1000"), not "${rawUnit}".`);
      found.minRps = value;
    } else {
      if (unit !== '' && unit !== '%')
        throw new Error(`errors takes a percentage (e.g. "errors<=1%"), not "${rawUnit}".`);
      if (value > 100) throw new Error('The error limit is a percentage: 0 to 100.');
      found.maxErrorPct = value;
    }
  }
  const missing = (['p99Ms', 'minRps', 'maxErrorPct'] as const)
    .filter((k) => found[k] === undefined)
    .map((k) => ({ p99Ms: 'p99', minRps: 'rps', maxErrorPct: 'errors' })[k]);
  if (missing.length)
    throw new Error(
      `The SLO needs p99, rps and errors; missing ${missing.join(', ')} (use rps>=0 or errors<=100% for no ` +
        `limit), e.g. "${SLO_EXAMPLE}".`,
    );
  return found as Slo;
}

/** "p99 ≤ 20 ms, ≥ 1,000 req/s, errors ≤ 1 %"; limits that constrain nothing are left out. */
export function describeSlo(s: Slo): string {
  const parts = [`p99 ≤ ${fmtNum(s.p99Ms, s.p99Ms % 1 === 0 ? 0 : 2)} ms`];
  if (s.minRps > 0) parts.push(`≥ ${fmtNum(s.minRps)} req/s`);
  if (s.maxErrorPct < 100) parts.push(`errors ≤ ${fmtNum(s.maxErrorPct, s.maxErrorPct % 1 === 0 ? 0 : 2)} %`);
  return parts.join(', ');
}

/** The three checks of one configuration (which must have included repetitions), on its means. */
export function checkSlo(c: ConfigurationSummary, s: Slo): SloCheck[] {
  if (!c.rps || !c.p99Us || c.errorPct === null) throw new Error(`checkSlo: ${c.label} has no included repetition`);
  const p99Ms = c.p99Us.mean / 1000;
  const p99Ci = c.p99Us.ci;
  const rpsCi = c.rps.ci;
  return [
    {
      criterion: 'p99',
      value: p99Ms,
      limit: s.p99Ms,
      ok: p99Ms <= s.p99Ms,
      miss: (p99Ms - s.p99Ms) / s.p99Ms,
      sure: p99Ci ? p99Ci.high / 1000 <= s.p99Ms : null,
    },
    {
      criterion: 'rps',
      value: c.rps.mean,
      limit: s.minRps,
      ok: c.rps.mean >= s.minRps,
      miss: s.minRps > 0 ? (s.minRps - c.rps.mean) / s.minRps : -1,
      sure: rpsCi ? rpsCi.low >= s.minRps : null,
    },
    {
      criterion: 'errors',
      value: c.errorPct,
      limit: s.maxErrorPct,
      ok: c.errorPct <= s.maxErrorPct,
      // Against a zero limit any failure is infinitely far; no failure is exactly on it.
      miss: s.maxErrorPct > 0 ? (c.errorPct - s.maxErrorPct) / s.maxErrorPct : c.errorPct > 0 ? Infinity : 0,
      sure: null,
    },
  ];
}

const worstMiss = (checks: SloCheck[]): number => Math.max(...checks.map((c) => c.miss));
// Misses can be Infinity (errors against a 0 % limit), where subtraction would give NaN.
const cmp = (a: number, b: number): number => (a === b ? 0 : a < b ? -1 : 1);

/**
 * Per workload (an SLO for one app says nothing about another): the cheapest configuration that
 * meets every limit, or the one that missed by the least on its worst criterion.
 */
export function sloOutcomes(
  configurations: ConfigurationSummary[],
  slo: Slo,
  order: (a: Costed, b: Costed) => number = costOrder(),
): SloOutcome[] {
  // The one order of cost (analysis/decide/cost-order.ts); at an equal cost the lower p99.
  const byCost = (a: ConfigurationSummary, b: ConfigurationSummary): number =>
    order(a, b) || (a.p99Us?.mean ?? 0) - (b.p99Us?.mean ?? 0);
  // A configuration that failed requests beyond the limit, was OOM-killed or never settled is no answer to an SLO.
  const byWorkload = groupBy(
    configurations.filter((x) => x.n > 0 && x.disqualified.length === 0),
    workloadKey,
  );
  return [...byWorkload.values()].map((cs): SloOutcome => {
    const checked = cs.map((c) => ({ c, checks: checkSlo(c, slo) }));
    const meeting = checked.filter((x) => x.checks.every((k) => k.ok)).sort((a, b) => byCost(a.c, b.c));
    const head = { app: cs[0]!.app, requestSet: cs[0]!.requestSet, meeting: meeting.length, considered: cs.length };
    if (meeting[0]) return { ...head, met: meeting[0].c, closest: null, checks: meeting[0].checks };
    const closest = [...checked].sort(
      (a, b) =>
        cmp(worstMiss(a.checks), worstMiss(b.checks)) || cmp(a.c.errorPct ?? 0, b.c.errorPct ?? 0) || byCost(a.c, b.c),
    )[0]!;
    return { ...head, met: null, closest: closest.c, checks: closest.checks };
  });
}
