// "More containers or more workers?": within a scope of equal total CPU and memory, the best
// configuration of each replica count is compared with the others by the answer's own contest
// (side-by-side.ts), with the memory each topology needs per replica and in total, and a caveat
// where the load reached the replicas unevenly.
import { fmtMb, fmtNum, fmtPct } from '../../common/format.ts';
import { pairLabel } from '../../common/resource-labels.ts';
import { capitalize, joinAnd } from '../../common/text.ts';
import { COST_ORDER_WORDS, costOrder } from '../decide/cost-order.ts';

// Within one scope every total is equal, so the example prices order it as any prices would.
const cheaper = costOrder();
import { groupBy } from '../decide/group.ts';
import { envText, who } from '../names.ts';
import { relationClause, sideBySide, type ComparisonNote, type SideBySide } from '../decide/side-by-side.ts';
import {
  replicasOf,
  topologyMemory,
  unevenShare,
  type CellWithReplicas,
  type TopologyMemory,
} from '../size/topology-memory.ts';
import type { ConfigurationSummary, ScopeDecision } from '../types.ts';

/** "2 containers × 1 cluster worker", "1 container × a single process". */
export function topologyLabel(c: ConfigurationSummary): string {
  // The one label rule, always naming the containers; the Node.js version and flags are alike within a
  // comparison (alikeKey), so they are left out.
  return who(
    { mode: c.mode, workers: c.workers, replicas: replicasOf(c) },
    { containers: true, node: false, flags: false },
  );
}

/** What a topology is besides its replicas and workers: configurations alike in these are compared. */
const alikeKey = (c: ConfigurationSummary): string =>
  JSON.stringify([c.node ?? null, c.nodeFlags ?? [], envText(c.envSet)]);

/** The best measured configuration of each replica count (ties: the cheaper), fewest replicas first. */
function representatives(cs: readonly ConfigurationSummary[]): ConfigurationSummary[] {
  const byReplicas = groupBy(
    cs.filter((c) => c.rps !== null && c.disqualified.length === 0),
    (c) => String(replicasOf(c)),
  );
  return [...byReplicas.values()]
    .map((group) => [...group].sort((a, b) => b.rps!.mean - a.rps!.mean || cheaper(a, b))[0]!)
    .sort((a, b) => replicasOf(a) - replicasOf(b));
}

/**
 * Which of a pair within the margin the answer deploys, by the one order of cost (cost-order.ts) (fewer containers
 * first at equal totals): "; the answer prefers 1 container × 2 cluster workers, fewer containers for
 * the same total". Nothing where one is shown worse or the pair is undecided.
 */
function preferred(s: SideBySide): string {
  if (s.relation !== 'equivalent' && s.relation !== 'good-enough') return '';
  const [first, second] = [s.best, s.other].sort(cheaper);
  const why =
    replicasOf(first!) < replicasOf(second!)
      ? 'fewer containers for the same total (less per-container overhead, fewer things to run)'
      : `the cheaper by the answer's rule (${COST_ORDER_WORDS})`;
  return `; the answer prefers ${topologyLabel(first!)}: ${why}`;
}

/** "the single container" or "the 2 containers", for the memory sentence. */
const theTopology = (c: ConfigurationSummary): string =>
  replicasOf(c) === 1 ? 'the single container' : `the ${replicasOf(c)} containers`;

const MIB = 2 ** 20;

/** A replica's peak to one decimal where whole MB would not multiply to the total said beside it (29.5 × 2 = 59). */
const eachMb = (m: TopologyMemory): string =>
  Math.round(m.perReplicaBytes! / MIB) * m.replicas === Math.round(m.totalBytes! / MIB)
    ? fmtMb(m.perReplicaBytes!)
    : `${fmtNum(m.perReplicaBytes! / MIB, 1)} MB`;

/** "1 container × 2 cluster workers peaked at 80 MB" / "2 containers × … at 60 MB each, 120 MB in total". */
function memoryPart(c: ConfigurationSummary, m: TopologyMemory): string | null {
  if (m.perReplicaBytes === null) return null;
  return m.replicas === 1
    ? `${topologyLabel(c)} peaked at ${fmtMb(m.perReplicaBytes)}`
    : `${topologyLabel(c)} at ${eachMb(m)} each, ${fmtMb(m.totalBytes!)} in total`;
}

/** Memory per replica and in total for both, and which needs less in total. */
export function memorySentence(
  a: ConfigurationSummary,
  b: ConfigurationSummary,
  cells: readonly CellWithReplicas[],
): string | null {
  const [ma, mb] = [topologyMemory(a, cells), topologyMemory(b, cells)];
  const parts = [memoryPart(a, ma), memoryPart(b, mb)].filter((x): x is string => x !== null);
  if (!parts.length) return null;
  const said = `Memory (peak): ${parts.join('; ')}`;
  if (ma.totalBytes === null || mb.totalBytes === null) {
    const missing = ma.totalBytes === null ? a : b;
    return `${said}; no per-replica peak was recorded for ${topologyLabel(missing)}.`;
  }
  const diff = ma.totalBytes - mb.totalBytes;
  if (diff === 0) return `${said}: the same in total.`;
  const [less, more] = diff < 0 ? [a, b] : [b, a];
  const uses = replicasOf(less) === 1 ? 'uses' : 'use';
  return `${said}: ${theTopology(less)} ${uses} ${fmtMb(Math.abs(diff))} less in total than ${theTopology(more)}.`;
}

/** The caveat of an uneven load spread, when either side had one. */
function unevenSentence(cs: readonly ConfigurationSummary[], cells: readonly CellWithReplicas[]): string | null {
  for (const c of cs) {
    const u = unevenShare(c, cells);
    if (!u) continue;
    return (
      `Caveat: the load did not reach ${topologyLabel(c)} evenly (shares ` +
      `${joinAnd(u.shares.map((s) => fmtPct(s * 100)))} in its most uneven repetition, against ` +
      `${fmtPct(u.even * 100)} each when even): its goodput is that of an uneven spread, as a per-connection ` +
      'balancer can give.'
    );
  }
  return null;
}

/**
 * One note per topology compared with the best topology of its scope (same Node.js and flags): the
 * contest's relation, the memory per replica and in total, the uneven-spread caveat.
 */
export function topologyNotes(
  configurations: readonly ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  cells: readonly CellWithReplicas[],
  marginPct: number,
): ComparisonNote[] {
  const out: ComparisonNote[] = [];
  for (const scope of scopes) {
    const mine = configurations.filter((c) => c.scopeKey === scope.key && c.n > 0);
    for (const alike of groupBy(mine, alikeKey).values()) {
      const reps = representatives(alike);
      if (reps.length < 2) continue;
      for (const s of sideBySide(reps, marginPct)) {
        const f = s.best;
        const where = pairLabel(f.cpuMillis * replicasOf(f), f.memoryMb * replicasOf(f));
        const sentence =
          `At ${where} in total (${scope.context}), ${relationClause(s, topologyLabel, marginPct)}` +
          `${preferred(s)}.`;
        const memory = memorySentence(s.best, s.other, cells);
        const uneven = unevenSentence([s.best, s.other], cells);
        out.push({
          kind: 'topology',
          scopeKey: scope.key,
          keys: [s.best.key, s.other.key],
          relation: s.relation,
          text: capitalize([sentence, memory, uneven].filter((x) => x !== null).join(' ')),
        });
      }
    }
  }
  return out;
}
