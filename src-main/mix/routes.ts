// A mix's routes and the share of requests each should get: what the load side counts per request
// and what the realised proportions are checked against.
import { isSequence, type MixEntry, type RequestSpec } from '../model/requests.ts';

/** The route a request counts under: its name, else "METHOD path" (templates as written). */
export const routeName = (r: RequestSpec): string => r.name ?? `${r.method} ${r.path}`;

/** Any weight or sequence makes the list a mix chosen at random; without, the requests go in turn. */
export const isWeighted = (mix: readonly MixEntry[]): boolean =>
  mix.some((e) => isSequence(e) || e.weight !== undefined);

/** An entry's steps: a request alone, or a sequence's. */
export const stepsOf = (e: MixEntry): RequestSpec[] => (isSequence(e) ? e.sequence : [e]);

/** Every text of a request that may hold templates: its path, header values and body. */
export const textsOf = (r: RequestSpec): string[] => [r.path, ...Object.values(r.headers ?? {}), r.body ?? ''];

/** The weight an entry is chosen with (default 1). */
export const weightOf = (e: MixEntry): number => e.weight ?? 1;

export interface MixRoutes {
  /** Route names, first seen first. */
  names: string[];
  /** The share of requests written each should get (0..1, summing to 1): a chosen sequence writes all its steps. */
  expected: number[];
}

export function mixRoutes(mix: readonly MixEntry[]): MixRoutes {
  const names: string[] = [];
  const mass: number[] = [];
  for (const e of mix)
    for (const step of stepsOf(e)) {
      const name = routeName(step);
      let i = names.indexOf(name);
      if (i < 0) i = names.push(name) - 1;
      mass[i] = (mass[i] ?? 0) + (isWeighted(mix) ? weightOf(e) : 1);
    }
  const total = mass.reduce((a, b) => a + b, 0);
  return { names, expected: mass.map((m) => (total > 0 ? m / total : 0)) };
}

/** How far the realised shares may stray from the weights, in percentage points (cells of 5 s or more). */
export const SHARE_TOLERANCE_PP = 2;
export const SHARE_CHECK_MIN_SEC = 5;

/** "GET /products/{id} 71.3 % of requests, its weight asks 60 %": the routes off by more than the tolerance. */
export function offShares(routes: readonly { route: string; share: number; expectedShare: number }[]): string[] {
  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  return routes
    .filter((r) => Math.abs(r.share - r.expectedShare) * 100 > SHARE_TOLERANCE_PP)
    .map((r) => `${r.route} got ${pct(r.share)} of requests, its weight asks ${pct(r.expectedShare)}`);
}
