// Why a configuration may never be the answer: failed requests above the limit (with the database
// connections its pool asked for against what the database takes, and the server's own reasons where
// its responses gave them) or an OOM kill.
import { connectionsText, poolConnections } from '../../common/connections.ts';
import { mergeReasons, reasonsText } from '../../common/failure-reason.ts';
import { fmtNum } from '../../common/format.ts';
import { MAX_ERROR_PCT } from '../../common/thresholds.ts';
import type { StoredCell } from '../../model/stored.ts';
import type { Exclusion } from '../types.ts';

/** `: 503 "sorry, too many clients already" (1,234)`: the reasons the included cells' failed responses gave. */
const failedWhy = (cells: readonly StoredCell[]): string =>
  reasonsText(mergeReasons(cells.map((c) => c.load?.failureReasons)));

/** ", at 4 processes × PG_POOL_SIZE 10 = 40 database connections against db's max_connections 30"; '' if no pool. */
function connectionsWhy(cells: readonly StoredCell[]): string {
  const c = cells[0];
  const p = c ? poolConnections({ ...c.config, env: { ...c.config.env, ...c.config.envSet } }) : null;
  if (!p) return '';
  const limit = c!.dependencies?.find((d) => d.maxConnections !== undefined);
  return `, at ${connectionsText(p)}${limit ? ` against ${limit.name}'s max_connections ${limit.maxConnections}` : ''}`;
}

/** Why a configuration may never be best or knee, from its included repetitions and its excluded ones. */
export function disqualifications(included: StoredCell[], excluded: Exclusion[], errorPct: number | null): string[] {
  const out: string[] = [];
  if (errorPct !== null && errorPct > MAX_ERROR_PCT) {
    const pct = fmtNum(errorPct, errorPct < 10 ? 1 : 0);
    out.push(`${pct} % of requests failed (above ${MAX_ERROR_PCT} %)${connectionsWhy(included)}${failedWhy(included)}`);
  }
  if (
    excluded.some((e) => e.status === 'oom') ||
    included.some((c) => c.flags.some((f) => f.kind === 'oom-killed') || c.exit?.oomKilled)
  )
    out.push('OOM-killed');
  return out;
}
