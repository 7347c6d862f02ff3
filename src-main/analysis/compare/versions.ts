// "Does upgrading Node.js let us run smaller?" and "does this flag help?": within a scope,
// configurations alike but for their Node.js version (or their flags) are compared by the answer's
// own contest (side-by-side.ts). A version shown faster gets what that means in CPU: a smaller cap
// the run measured holding the slower one's goodput, or else an estimate said as one.
import { fmtNum } from '../../common/format.ts';
import { capitalize } from '../../common/text.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import { groupBy } from '../decide/group.ts';
import { onWhat, who } from '../names.ts';
import {
  evidence,
  gainPct,
  relationClause,
  sideBySide,
  type ComparisonNote,
  type SideBySide,
} from '../decide/side-by-side.ts';
import type { ConfigurationSummary, ScopeDecision } from '../types.ts';

/** A CPU estimate is rounded up to a multiple of this many millicores: it never claims less than it must. */
export const CPU_ESTIMATE_STEP = 25;

const replicasOf = (c: ConfigurationSummary): number => Math.max(1, c.replicas ?? 1);
const flagsOf = (c: ConfigurationSummary): string[] => c.nodeFlags ?? [];

/** "Node 22 (22.11.0)", "Node 22.11.0", "the default Node.js (20.18.0)". */
export function nodeLabel(c: Pick<ConfigurationSummary, 'node' | 'nodeVersions'>): string {
  const exact = c.nodeVersions ?? [];
  const named = c.node ?? null;
  const ran = exact.length && !(exact.length === 1 && exact[0] === named) ? ` (${exact.join(', ')})` : '';
  return `${named === null ? 'the default Node.js' : `Node ${named}`}${ran}`;
}

/** "--max-semi-space-size=32", "no flags". */
export const flagsLabel = (c: ConfigurationSummary): string => (flagsOf(c).length ? flagsOf(c).join(' ') : 'no flags');

/**
 * "2 cluster workers on 1 CPU / 256 MB"; with replicas "2 containers × 1 cluster worker on 0.5 CPU /
 * 256 MB each (1 CPU / 512 MB in total)". The version and flags are what the sentence compares: left out.
 */
function setting(c: ConfigurationSummary): string {
  return `${who({ mode: c.mode, workers: c.workers, replicas: c.replicas })} on ${onWhat(c)}`;
}

/** " per container" where the caps said are a replica's. */
const each = (c: ConfigurationSummary): string => (replicasOf(c) > 1 ? ' per container' : '');

/** Configurations that differ from `c` only in their CPU cap. */
const sameButCpu = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.app === c.app &&
  a.requestSet === c.requestSet &&
  JSON.stringify(a.load) === JSON.stringify(c.load) &&
  a.mode === c.mode &&
  a.workers === c.workers &&
  replicasOf(a) === replicasOf(c) &&
  (a.node ?? null) === (c.node ?? null) &&
  JSON.stringify(flagsOf(a)) === JSON.stringify(flagsOf(c)) &&
  a.memoryMb === c.memoryMb;

/**
 * What a version shown faster means in CPU: the smallest cap the run measured it at holding the
 * slower one's goodput (on the means), or else an estimate — the cap × slower ÷ faster goodput,
 * rounded up to CPU_ESTIMATE_STEP — which assumes goodput scales in proportion to CPU and says so.
 * Nothing where either side is a lower bound (the ratio is then not the server's).
 */
export function cpuEquivalent(
  s: SideBySide,
  all: readonly ConfigurationSummary[],
  name: (c: ConfigurationSummary) => string,
): string | null {
  if (s.relation !== 'worse' || isLowerBound(s.best) || isLowerBound(s.other)) return null;
  const cap = s.best.cpuMillis;
  const want = s.other.rps!.mean;
  const measured = all
    .filter((a) => a.n > 0 && a.rps !== null && a.disqualified.length === 0 && !isLowerBound(a))
    .filter((a) => sameButCpu(a, s.best) && a.cpuMillis < cap && a.rps!.mean >= want)
    .sort((a, b) => a.cpuMillis - b.cpuMillis)[0];
  if (measured)
    return (
      `${name(s.best)} at ${measured.cpuMillis}m already served ${fmtNum(measured.rps!.mean)} req/s, at least ` +
      `${name(s.other)}'s ${fmtNum(want)} at ${cap}m${each(s.best)} (measured, on the means)`
    );
  const estimate = Math.ceil((cap * want) / s.best.rps!.mean / CPU_ESTIMATE_STEP) * CPU_ESTIMATE_STEP;
  if (estimate >= cap) return null;
  return (
    `the same goodput would fit in about ${estimate}m instead of ${cap}m${each(s.best)} — an estimate, not a ` +
    'measurement: ' +
    `${cap}m × ${fmtNum(want)} ÷ ${fmtNum(s.best.rps!.mean)}, rounded up to ${CPU_ESTIMATE_STEP}m, if goodput ` +
    `scales in proportion to CPU; no cell ran at ${estimate}m, so measure it there before deploying it`
  );
}

/** Notes for configurations alike but in `differ`, within each scope. */
function notesBy(
  kind: 'version' | 'flags',
  configurations: readonly ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  marginPct: number,
): ComparisonNote[] {
  const alike = (c: ConfigurationSummary): string =>
    JSON.stringify([c.mode, c.workers, replicasOf(c), kind === 'version' ? flagsOf(c) : (c.node ?? null)]);
  const differ = (c: ConfigurationSummary): string =>
    kind === 'version' ? (c.node ?? '') : JSON.stringify(flagsOf(c));
  const out: ComparisonNote[] = [];
  for (const scope of scopes) {
    const mine = configurations.filter((c) => c.scopeKey === scope.key && c.n > 0);
    for (const group of groupBy(mine, alike).values()) {
      if (new Set(group.map(differ)).size < 2) continue;
      for (const s of sideBySide(group, marginPct)) {
        out.push({
          kind,
          scopeKey: scope.key,
          keys: [s.best.key, s.other.key],
          relation: s.relation,
          text:
            kind === 'version'
              ? versionSentence(s, scope, configurations, marginPct)
              : flagsSentence(s, scope, marginPct),
        });
      }
    }
  }
  return out;
}

function versionSentence(
  s: SideBySide,
  scope: ScopeDecision,
  all: readonly ConfigurationSummary[],
  marginPct: number,
): string {
  const where = `${setting(s.best)} (${scope.context})`;
  // The setting first where the clause ends in what would decide it.
  if (s.relation !== 'worse') return `With ${where}, ${relationClause(s, nodeLabel, marginPct)}.`;
  const cpu = cpuEquivalent(s, all, nodeLabel);
  return (
    `${capitalize(relationClause(s, nodeLabel, marginPct, ' per CPU'))}, with ${where}` + `${cpu ? `: ${cpu}` : ''}.`
  );
}

function flagsSentence(s: SideBySide, scope: ScopeDecision, marginPct: number): string {
  const where = `with ${setting(s.best)} (${scope.context})`;
  const [best, other] = [flagsOf(s.best), flagsOf(s.other)];
  // Against no flags, the flag's effect is the sentence: "adds 6 % goodput" or "costs 5 %".
  if (s.relation === 'worse' && (other.length === 0 || best.length === 0)) {
    const detail = evidence(s);
    return best.length
      ? `${best.join(' ')} adds ${gainPct(s.gain)} goodput ${where} ${detail}.`
      : `${other.join(' ')} costs ${gainPct(1 - s.other.rps!.mean / s.best.rps!.mean)} goodput ${where} ${detail}.`;
  }
  return `${capitalize(where)}, ${relationClause(s, flagsLabel, marginPct)}.`;
}

/** Node.js versions compared where the run measured alike configurations on more than one. */
export const versionNotes = (
  configurations: readonly ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  marginPct: number,
): ComparisonNote[] => notesBy('version', configurations, scopes, marginPct);

/** Node.js flags compared where the run measured alike configurations with more than one set of flags. */
export const flagNotes = (
  configurations: readonly ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  marginPct: number,
): ComparisonNote[] => notesBy('flags', configurations, scopes, marginPct);
