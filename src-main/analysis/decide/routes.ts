// Which route of a mix sets a configuration's tail: each route's p99 over the repetitions the decision
// counted (the median of theirs: a cell's histogram is not kept), the slowest against the rest.
import type { StoredCell } from '../../model/stored.ts';
import { median } from '../../common/median.ts';

export interface SlowestRoute {
  route: string;
  p99Us: number;
  /** The highest p99 among the other routes. */
  othersP99Us: number;
  /** Its share of the requests written (0..1). */
  share: number;
}

/** The slowest route of the cells' mix, when they ran one of two or more routes that all got answers. */
export function slowestRoute(cells: readonly Pick<StoredCell, 'load'>[]): SlowestRoute | null {
  const byRoute = new Map<string, { p99: number[]; share: number[] }>();
  for (const c of cells)
    for (const r of c.load?.routes ?? []) {
      if (r.requests <= 0) continue;
      const at = byRoute.get(r.route) ?? { p99: [], share: [] };
      at.p99.push(r.p99Us);
      at.share.push(r.share);
      byRoute.set(r.route, at);
    }
  if (byRoute.size < 2) return null;
  const ranked = [...byRoute].map(([route, v]) => ({ route, p99Us: median(v.p99), share: median(v.share) }));
  ranked.sort((a, b) => b.p99Us - a.p99Us || a.route.localeCompare(b.route));
  const [top, next] = ranked;
  return { route: top!.route, p99Us: top!.p99Us, othersP99Us: next!.p99Us, share: top!.share };
}
