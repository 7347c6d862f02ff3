// What an app's load sends: requests, weighted mixes, sequences and the values drawn into them
// (load/mix/ sends them, apps/request-schema.ts checks them).

/**
 * Where a sequence step takes a value from its response, for later steps of the same connection's sequence
 * (`{{name}}`): exactly one of a JSON path (`$.token`), a response header, or a regex (its first group, else the
 * whole match) over the body.
 */
export type Capture = { json: string } | { header: string } | { regex: string };

/** One request of an app's load: what is sent and the status it must get (apps/request-schema.ts checks it). */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** May hold templates: `{{int 1 5000}}`, `{{zipf 1 5000 1.1}}`, `{{pick a b}}`, `{{uuid}}`, `{{seq}}`, captures. */
  path: string;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
  /** The status this request must get; anything else counts as an error. Default: any 2xx. */
  status?: number | undefined;
  /** Its share of the choices (top-level requests only; default 1). Any weight or sequence makes the list a mix. */
  weight?: number | undefined;
  /** The route it counts under (default "METHOD path"); requests with one name are one route. */
  name?: string | undefined;
  /** Values this step takes from its response for the next steps of its sequence. */
  capture?: Record<string, Capture> | undefined;
}

/** Requests sent in order on one connection (login → browse → order), chosen as one entry with its weight. */
export interface SequenceSpec {
  sequence: RequestSpec[];
  weight?: number | undefined;
  /** What the run page calls the flow (default: its steps' routes joined by →). */
  name?: string | undefined;
}

/**
 * An app's load. Without weights or sequences, the requests are sent in turn on each connection (as before
 * mixes existed); with any, each connection chooses entries in proportion to their weights, from a seeded generator.
 */
export type MixEntry = RequestSpec | SequenceSpec;

export const isSequence = (e: MixEntry): e is SequenceSpec => 'sequence' in e;

/**
 * One route's share of a cell's measured seconds (LoadResult.routes), counted by the load side per request.
 * Latency is µs, from the intended send time as for the whole cell.
 */
export interface RouteResult {
  route: string;
  /** Requests of this route written, and their share of all requests written (0..1). */
  sent: number;
  share: number;
  /** The share its weights ask for (0..1). */
  expectedShare: number;
  /** Responses, those with the expected status, and good ones per measured second. */
  requests: number;
  good: number;
  goodputMean: number;
  p50Us: number;
  p99Us: number;
}

/** One route's second (LoadSecond.routes): responses, good ones, and latency (µs; 0 without responses). */
export interface RouteSecondFigures {
  rps: number;
  good: number;
  p50Us: number;
  p99Us: number;
}
