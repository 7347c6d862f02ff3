// The line of cause a mix adds: which route sets the pick's p99 ("POST /orders p99 41 ms against ≤ 6 ms
// for the other routes"), read from decide/routes.ts for each CPU / memory pair's pick.
import type { RunDetail } from '../../model/stored.ts';
import { fmtPct, fmtUs } from '../../common/format.ts';
import { configurationKey } from '../decide/group.ts';
import { slowestRoute } from '../decide/routes.ts';
import type { CauseNote, Exclusion, ScopeDecision } from '../types.ts';

export function routeCauses(
  run: RunDetail,
  scopes: readonly ScopeDecision[],
  exclusions: readonly Pick<Exclusion, 'cellIndex'>[] = [],
): CauseNote[] {
  const left = new Set(exclusions.map((e) => e.cellIndex));
  const counted = run.cells.filter(
    (c) => c.status === 'ok' && c.config.phase !== 'verify' && !left.has(c.config.index),
  );
  const out: CauseNote[] = [];
  for (const s of scopes) {
    const pick = s.knee.key;
    const slow = slowestRoute(counted.filter((c) => configurationKey(c.config) === pick));
    if (!slow) continue;
    const text =
      `${slow.route} sets the p99: ${fmtUs(slow.p99Us)} against ≤ ${fmtUs(slow.othersP99Us)} ` +
      `for the other routes (it is ${fmtPct(slow.share * 100)} of the requests)`;
    out.push({ kind: 'route', key: pick, scope: s.key, scopeLabel: s.label, text });
  }
  return out;
}
