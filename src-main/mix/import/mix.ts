// Routes as a weighted mix: one request per route, weighted by how often the file has it, with the status
// it mostly got when that was no success (a redirect, a 304) and its most frequent body.
import type { RequestSpec } from '../../model/requests.ts';
import { type RouteGroup, pathTemplate, routeName } from './routes.ts';
import { byFrequency } from './templates.ts';
import type { ImportedRoute } from './types.ts';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** The most frequent status, the lowest among equals; undefined when it is a 2xx (the default expectation). */
function expectedStatus(g: RouteGroup): number | undefined {
  const counts = new Map<number, number>();
  for (const r of g.requests) if (r.status !== undefined) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  const [status] = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0] ?? [];
  return status === undefined || (status >= 200 && status < 300) ? undefined : status;
}

/** The most frequent body, with the content type it was sent with (no other header: cookies, tokens…). */
function bodyOf(g: RouteGroup): Pick<RequestSpec, 'headers' | 'body'> {
  const [body] = byFrequency(g.requests.flatMap((r) => (r.body === undefined ? [] : [r.body])));
  if (body === undefined) return {};
  const type = g.requests.find((r) => r.body === body && r.contentType)?.contentType;
  return { ...(type ? { headers: { 'content-type': type } } : {}), body };
}

interface Built {
  spec: RequestSpec;
  route: ImportedRoute;
}

export function toMix(groups: readonly RouteGroup[]): { requests: RequestSpec[]; routes: ImportedRoute[] } {
  // Weights are counts divided by their common divisor: the same shares in smaller numbers.
  const divisor = groups.reduce((d, g) => gcd(g.requests.length, d), 0) || 1;
  const built = groups.map((g): Built => {
    const name = routeName(g);
    const weight = g.requests.length / divisor;
    const status = expectedStatus(g);
    return {
      spec: {
        name,
        method: g.method,
        path: pathTemplate(g),
        ...bodyOf(g),
        ...(status !== undefined ? { status } : {}),
        weight,
      },
      route: {
        route: name,
        weight,
        count: g.requests.length,
        example: byFrequency(g.requests.map((r) => r.target))[0]!,
      },
    };
  });
  built.sort((a, b) => b.route.weight - a.route.weight || (a.route.route < b.route.route ? -1 : 1));
  return { requests: built.map((b) => b.spec), routes: built.map((b) => b.route) };
}
