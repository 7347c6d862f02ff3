// `show`'s per-route table of a run whose app sent a mix: each cell's routes as the load side counted
// them (share of requests against the weights, goodput, p50 and p99).
import { fmtNum, fmtUs } from '../common/format.ts';
import type { StoredCell } from '../model/stored.ts';
import { SHARE_TOLERANCE_PP } from '../mix/routes.ts';
import { table } from './format.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
const off = (r: { share: number; expectedShare: number }): boolean =>
  Math.abs(r.share - r.expectedShare) * 100 > SHARE_TOLERANCE_PP;

/** '' when no cell ran a mix of several routes. */
export function routesTable(cells: readonly StoredCell[]): string {
  const rows = cells.flatMap((c) =>
    (c.load?.routes ?? []).map((r) => [
      String(c.config.index + 1),
      r.route,
      `${pct(r.share)} (asks ${pct(r.expectedShare)})${off(r) ? ' !' : ''}`,
      fmtNum(r.goodputMean),
      fmtUs(r.p50Us),
      fmtUs(r.p99Us),
    ]),
  );
  if (!rows.length) return '';
  return `Routes (counted by the load side; ! = off its weight by more than ${SHARE_TOLERANCE_PP} points):\n${table(
    ['cell', 'route', 'share of requests', 'goodput req/s', 'p50', 'p99'],
    rows,
  )}\n`;
}
