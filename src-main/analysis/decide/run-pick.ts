// The answer's pick in a few fields, for the run list (which caches it per run: store/run-picks.ts).
import type { RunPick } from '../../model/stored.ts';
import { isLowerBound } from '../../common/bottleneck.ts';
import { envText, onWhat, overWhat } from '../names.ts';
import type { Recommendation } from '../answer-types.ts';

/** What the headline names (for an undecided answer its leading contender); null when nothing can be deployed. */
export function runPickOf(rec: Pick<Recommendation, 'headline' | 'configurations'>): RunPick | null {
  const h = rec.headline;
  const c = h ? rec.configurations.find((x) => x.key === h.key) : undefined;
  if (!h || !c) return null;
  const manyApps = new Set(rec.configurations.map((x) => x.app)).size > 1;
  const who = c.mode === 'single' ? 'single' : `${c.mode}×${c.workers}`;
  // Replicas ("2 × cluster×1 on 0.5 CPU / 256 MB each (1 CPU / 512 MB in total)"), the version and flags, as cellLabel.
  const r = Math.max(1, c.replicas ?? 1);
  const node = c.node !== undefined ? ` Node ${c.node}` : '';
  const env = envText(c.envSet);
  const runtime = `${node}${c.nodeFlags?.length ? ` ${c.nodeFlags.join(' ')}` : ''}${env ? ` ${env}` : ''}`;
  return {
    state: h.state,
    // Measured over one of several links: which one, so two runs' picks over different links never read alike.
    configuration:
      `${manyApps ? `${c.app} ` : ''}${r >= 2 ? `${r} × ` : ''}${who} on ${onWhat(c)}${runtime}` +
      overWhat(c, rec.configurations),
    app: c.app,
    mode: c.mode,
    workers: c.workers,
    cpuMillis: c.cpuMillis,
    memoryMb: c.memoryMb,
    goodputRps: c.rps?.mean ?? null,
    lowerBound: c.rps !== null && isLowerBound(c),
    p99Us: c.p99Us?.mean ?? null,
  };
}
