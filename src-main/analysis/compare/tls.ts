// "What does HTTPS cost?": a configuration run both over plain HTTP and over TLS (the matrix's `tls` dimension),
// everything else alike, compared by the contest the answer already runs (side-by-side.ts): how much goodput TLS
// takes from it, with the test that says so. Not where the network held either side: the link set both goodputs.
import { groupBy, workloadLabel } from '../decide/group.ts';
import { relationClause, sideBySide, type ComparisonNote } from '../decide/side-by-side.ts';
import { onWhat, who } from '../names.ts';
import type { ConfigurationSummary } from '../types.ts';

/** Everything of a configuration but whether it spoke TLS. */
const twinKey = (c: ConfigurationSummary): string =>
  JSON.stringify([
    c.app,
    c.requestSet,
    c.mode,
    c.workers,
    c.cpuMillis,
    c.memoryMb,
    c.replicas ?? 1,
    c.node ?? null,
    c.nodeFlags ?? [],
    c.envSet ?? {},
    { ...c.load, tls: undefined },
  ]);

/** One line per configuration measured plain and over HTTPS: "HTTPS, for 1 cluster worker on 1 CPU / 256 MB …". */
export function tlsNotes(configurations: readonly ConfigurationSummary[], marginPct: number): ComparisonNote[] {
  const out: ComparisonNote[] = [];
  for (const twins of groupBy(configurations, twinKey).values()) {
    const plain = twins.find((c) => !c.load.tls);
    const tls = twins.find((c) => c.load.tls);
    if (!plain || !tls || plain.bottleneck === 'network' || tls.bottleneck === 'network') continue;
    const [s] = sideBySide([plain, tls], marginPct);
    if (!s) continue;
    const name = (c: ConfigurationSummary): string => (c.load.tls ? 'HTTPS' : 'plain HTTP');
    const what = `${who({ mode: plain.mode, workers: plain.workers, replicas: plain.replicas })} on ${onWhat(plain)}`;
    const workload = workloadLabel(plain.app, plain.requestSet);
    out.push({
      kind: 'tls',
      scopeKey: plain.scopeKey,
      keys: [s.best.key, s.other.key],
      relation: s.relation,
      text: `HTTPS, for ${what} (${workload}): ${relationClause(s, name, marginPct)}.`,
    });
  }
  return out;
}
