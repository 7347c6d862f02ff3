// "What does HTTPS cost?" and "what does HTTP/2 change?": a configuration run over two links (the matrix's `tls` and
// `protocol` dimensions), everything else alike, compared by the contest the answer already runs (side-by-side.ts):
// how much goodput the one link takes from or gives to it, with the test that says so. Not where the network held
// either side: the link set both goodputs.
import { groupBy, workloadLabel } from '../decide/group.ts';
import { twinKey } from '../decide/links.ts';
import { relationClause, sideBySide, type ComparisonNote } from '../decide/side-by-side.ts';
import { onWhat, who } from '../names.ts';
import type { ConfigurationSummary } from '../types.ts';
import type { CellLoad } from '../../model/types.ts';

interface Pairing {
  kind: ComparisonNote['kind'];
  /** The parts of the link the two sides differ in. */
  link: Partial<CellLoad>;
  /** Which side a twin is on: the reference first. */
  isOther: (l: CellLoad) => boolean;
  name: (l: CellLoad) => string;
  subject: string;
}

function pairNotes(configurations: readonly ConfigurationSummary[], marginPct: number, p: Pairing): ComparisonNote[] {
  const out: ComparisonNote[] = [];
  for (const twins of groupBy(configurations, (c) => twinKey(c, p.link)).values()) {
    const ref = twins.find((c) => !p.isOther(c.load));
    const other = twins.find((c) => p.isOther(c.load));
    if (!ref || !other || ref.bottleneck === 'network' || other.bottleneck === 'network') continue;
    const [s] = sideBySide([ref, other], marginPct);
    if (!s) continue;
    const what = `${who({ mode: ref.mode, workers: ref.workers, replicas: ref.replicas })} on ${onWhat(ref)}`;
    const workload = workloadLabel(ref.app, ref.requestSet);
    out.push({
      kind: p.kind,
      scopeKey: ref.scopeKey,
      keys: [s.best.key, s.other.key],
      relation: s.relation,
      text: `${p.subject}, for ${what} (${workload}): ${relationClause(s, (c) => p.name(c.load), marginPct)}.`,
    });
  }
  return out;
}

/** One line per configuration measured plain and over HTTPS: "HTTPS, for 1 cluster worker on 1 CPU / 256 MB …". */
export const tlsNotes = (configurations: readonly ConfigurationSummary[], marginPct: number): ComparisonNote[] =>
  pairNotes(configurations, marginPct, {
    kind: 'tls',
    link: { tls: undefined, tlsResume: undefined }, // plain cells have no session to resume: still twins
    isOther: (l) => Boolean(l.tls),
    name: (l) => (l.tls ? `HTTPS${l.tlsResume ? ' with sessions resumed' : ''}` : 'plain HTTP'),
    subject: 'HTTPS',
  });

/**
 * One line per configuration measured over HTTP/1.1 and HTTP/2 with the same encryption (h2 against HTTP/1.1 over
 * TLS, h2c against plain HTTP/1.1): "HTTP/2, for 1 cluster worker on 1 CPU / 256 MB …".
 */
export const http2Notes = (configurations: readonly ConfigurationSummary[], marginPct: number): ComparisonNote[] =>
  pairNotes(configurations, marginPct, {
    kind: 'http2',
    link: { protocol: undefined, streams: undefined },
    isOther: (l) => Boolean(l.protocol),
    name: (l) => (l.protocol ? `HTTP/2 (${l.protocol})` : l.tls ? 'HTTP/1.1 over TLS' : 'HTTP/1.1'),
    subject: 'HTTP/2',
  });
