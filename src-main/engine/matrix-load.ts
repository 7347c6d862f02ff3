// The matrix's `load`: its shape, what each field holds, its ranges, and the TLS session resumption the load
// offers on its TLS cells (issue 44). Kept apart from matrix.ts, which puts these loads in its cells.
import { z } from 'zod';
import type { CellLoad } from '../model/cell-load.ts';
import { anyHttp2, anyTls, type Dimensions } from './matrix-dimensions.ts';

/** The one rule for a connection count, whichever the load model (and auto-size's): the same words everywhere. */
export const MAX_CONNECTIONS = 10_000;
export const connectionCountProblem = (c: number): string | undefined =>
  Number.isInteger(c) && c >= 1 && c <= MAX_CONNECTIONS
    ? undefined
    : `${c} is not a connection count from 1 to ${MAX_CONNECTIONS}`;

const nums = z.array(z.number());
/** Load threads: absent = one per core the target's cpuset leaves free (at least 1); set to override. */
const threads = z.number().optional();
/** HTTP/2's requests in flight on each connection (h2 and h2c cells; absent: 1). */
const streams = z.number().optional();
/** A re-opened TLS connection offers its last session, as a returning browser does (absent or false: never). */
const tlsResume = z.boolean().optional();
const ClosedLoad = z.strictObject({ model: z.literal('closed'), connections: nums, threads, streams, tlsResume });
const RateLoad = z.strictObject({
  model: z.literal('rate'),
  rates: nums,
  connections: z.number().default(20),
  threads,
  streams,
  tlsResume,
});
/** The load when a matrix names none. */
export const DEFAULT_LOAD = { model: 'closed', connections: [20] } as const;
export const LoadSchema = z
  .discriminatedUnion('model', [ClosedLoad, RateLoad])
  .default({ ...DEFAULT_LOAD, connections: [...DEFAULT_LOAD.connections] });
export type MatrixLoad = z.output<typeof LoadSchema>;

/** The most HTTP/2 requests in flight on one connection (nghttp2's default limit a server announces is 100). */
export const MAX_STREAMS = 100;

/** What each load field holds, for "is missing: give …" and "should be …". */
export const LOAD_HINTS: Record<string, string> = {
  load: 'an object: {"model": "closed", "connections": [20]} or {"model": "rate", "rates": [500], "connections": 20}',
  'load.model': '"closed" (a fixed number of connections) or "rate" (requests per second)',
  'load.connections': 'connection counts, e.g. [20] (with "rate": one number, e.g. 20)',
  'load.rates': 'a list of request rates per second, e.g. [500, 1000]',
  'load.streams': 'HTTP/2 requests in flight on each connection, a whole number, e.g. 10 (default 1)',
  'load.threads':
    'how many load threads send the requests, a whole number, e.g. 2 (default: one per core the target leaves free)',
  'load.tlsResume': 'true: a re-opened TLS connection resumes its last session (default false: a full handshake each)',
};

/** The TLS cells' loads resume sessions when the matrix asks; plain and h2c cells have no session to resume. */
export const withResume = (load: CellLoad, m: { load: MatrixLoad }): CellLoad =>
  m.load.tlsResume && load.tls ? { ...load, tlsResume: true } : load;

type Bad = (path: string, message: string) => void;

/** Every range problem of the load's fields; `cores`: the host's, which load threads may not outnumber. */
export function loadProblems(m: Dimensions & { load?: MatrixLoad }, cores: number, bad: Bad): void {
  const dimension = (path: string, xs: unknown[]): void => {
    if (xs.length === 0) bad(path, 'needs at least one value');
  };
  if (m.load?.model === 'closed') {
    dimension('load.connections', m.load.connections);
    for (const c of m.load.connections) {
      const wrong = connectionCountProblem(c);
      if (wrong) bad('load.connections', wrong);
    }
  } else if (m.load?.model === 'rate') {
    dimension('load.rates', m.load.rates);
    for (const r of m.load.rates)
      if (!(r > 0) || r > 1_000_000) bad('load.rates', `${r} is not a rate from 1 to 1000000 req/s`);
    const wrong = connectionCountProblem(m.load.connections);
    if (wrong) bad('load.connections', wrong);
    for (const r of m.load.rates)
      if (r > 0 && r < m.load.connections)
        bad(
          'load.rates',
          `${r} req/s over ${m.load.connections} connections is under one request a second each; use fewer connections`,
        );
  }
  const n = m.load?.threads;
  if (n !== undefined) {
    const connections = m.load!.model === 'closed' ? m.load!.connections : [m.load!.connections];
    const fewest = connections.filter((c) => Number.isInteger(c) && c >= 1).reduce((a, b) => Math.min(a, b), Infinity);
    if (!Number.isInteger(n) || n < 1)
      bad('load.threads', `${n} is not a number of load threads (a whole number, 1 or more)`);
    else if (n > cores)
      bad(
        'load.threads',
        `${n} load threads is more than this host's ${cores} cores: each thread needs a core of its own to keep up`,
      );
    else if (n > fewest)
      bad(
        'load.threads',
        `${n} load threads is more than the ${fewest} connection${fewest === 1 ? '' : 's'} ` +
          'to share among them: every thread needs at least one connection',
      );
  }
  const s = m.load?.streams;
  if (s !== undefined) {
    if (!Number.isInteger(s) || s < 1 || s > MAX_STREAMS)
      bad('load.streams', `${s} is not a number of streams: a whole number from 1 to ${MAX_STREAMS}`);
    else if (!anyHttp2(m))
      bad('load.streams', 'streams are HTTP/2\'s: add "h2" or "h2c" to protocol, or leave streams out');
  }
  if (m.load?.tlsResume && !anyTls(m))
    bad(
      'load.tlsResume',
      'resumes TLS sessions, and no cell speaks TLS: add true to "tls" or "h2" to "protocol", or leave tlsResume out',
    );
}
