// Requests grouped into routes: the same method, the same path once its ids are placeholders, and the same
// query parameter names. "GET /products/7" and "GET /products/12" are one route, "GET /products/{id}".
import type { KeptRequest } from './filter.ts';
import { PICK_PATH_WORDS, PICK_QUERY_WORDS, literal, valueTemplate } from './templates.ts';

type Kind = 'id' | 'uuid';

/** A place of the path or query whose value changes from request to request, and the values seen there. */
interface Slot {
  label: string;
  values: string[];
}

export interface QueryParam extends Slot {
  name: string;
  /** Written without "=" ("?debug"). */
  bare: boolean;
}

export interface RouteGroup {
  method: KeptRequest['method'];
  /** Literal segments, and slots for ids. */
  segments: (string | Slot)[];
  query: QueryParam[];
  requests: KeptRequest[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** MongoDB ObjectIds: the ids of many Node apps, 24 hex digits. */
const OBJECT_ID = /^[0-9a-f]{24}$/i;

const kindOf = (segment: string): Kind | undefined =>
  /^\d+$/.test(segment) || OBJECT_ID.test(segment) ? 'id' : UUID.test(segment) ? 'uuid' : undefined;

/** "{id}", then "{id2}", "{id3}"… for the same name again. */
function labeller(): (name: string) => string {
  const seen = new Map<string, number>();
  return (name) => {
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name}${n}`;
  };
}

interface Split {
  segments: { text: string; kind: Kind | undefined }[];
  /** Sorted by name (the order of equal names kept): clients write the same parameters in different orders. */
  query: { name: string; value: string | undefined }[];
}

function split(target: string): Split {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const query = (q < 0 ? '' : target.slice(q + 1))
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? { name: pair, value: undefined } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { segments: path.split('/').map((text) => ({ text, kind: kindOf(text) })), query };
}

const keyOf = (method: string, s: Split): string =>
  `${method} ${s.segments.map((x) => x.kind ?? x.text).join('/')}?${s.query.map((x) => x.name).join('&')}`;

function newGroup(r: KeptRequest, s: Split): RouteGroup {
  const label = labeller();
  return {
    method: r.method,
    segments: s.segments.map((x) => (x.kind ? { label: label(x.kind), values: [] } : x.text)),
    query: s.query.map((x) => ({ name: x.name, label: label(x.name), values: [], bare: true })),
    requests: [],
  };
}

/** The routes of the requests, in the order first seen. */
export function groupRoutes(requests: readonly KeptRequest[]): RouteGroup[] {
  const groups = new Map<string, RouteGroup>();
  for (const r of requests) {
    const s = split(r.target);
    const key = keyOf(r.method, s);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = newGroup(r, s)));
    g.requests.push(r);
    s.segments.forEach((x, i) => {
      const slot = g.segments[i];
      if (typeof slot === 'object') slot.values.push(x.text);
    });
    s.query.forEach((x, i) => {
      const p = g.query[i]!;
      p.values.push(x.value ?? '');
      if (x.value !== undefined) p.bare = false;
    });
  }
  return [...groups.values()];
}

const varies = (s: Slot): boolean => new Set(s.values).size > 1;

/** "GET /products/{id}?page={page}&sort=price": placeholders for ids and for query values that vary. */
export function routeName(g: RouteGroup): string {
  const path = g.segments.map((x) => (typeof x === 'string' ? x : `{${x.label}}`)).join('/');
  const query = g.query.map((p) =>
    varies(p) ? `${p.name}={${p.label}}` : p.bare ? p.name : `${p.name}=${p.values[0] ?? ''}`,
  );
  return `${g.method} ${path}${query.length ? `?${query.join('&')}` : ''}`;
}

/** The path a request of the route is sent to, its varying values drawn from those seen. */
export function pathTemplate(g: RouteGroup): string {
  const path = g.segments
    .map((x) => (typeof x === 'string' ? literal(x) : valueTemplate(x.values, PICK_PATH_WORDS)))
    .join('/');
  const query = g.query.map((p) =>
    p.bare ? literal(p.name) : `${literal(p.name)}=${valueTemplate(p.values, PICK_QUERY_WORDS)}`,
  );
  return `${path}${query.length ? `?${query.join('&')}` : ''}`;
}
