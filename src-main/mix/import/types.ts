// The importer's shapes: what it hands back, and each request as read from a file before it is
// filtered and grouped into routes.
import type { RequestSpec } from '../../model/requests.ts';

export interface ImportOptions {
  /** Keep scripts, styles, images, fonts and media: dropped by default, as a CDN or static server sends them. */
  keepStatic?: boolean | undefined;
  /** Keep requests to every host of a HAR (default: only `host`). */
  allHosts?: boolean | undefined;
  /** The host to keep (default: the most frequent one). Access logs name none, so it does not apply to them. */
  host?: string | undefined;
}

export type ImportFormat = 'har' | 'combined' | 'jsonl';

export interface ImportedRoute {
  /** "GET /products/{id}". */
  route: string;
  weight: number;
  /** Requests of the file counted under it. */
  count: number;
  /** One real path seen, e.g. "/products/7". */
  example: string;
}

export interface Dropped {
  static: number;
  otherHosts: number;
  /** Methods other than GET POST PUT PATCH DELETE HEAD, and records that were no request the app served. */
  other: number;
}

export type ImportOutcome =
  | {
      ok: true;
      format: ImportFormat;
      requests: RequestSpec[];
      routes: ImportedRoute[];
      dropped: Dropped;
      /** Requests read, dropped ones included. */
      total: number;
    }
  | { ok: false; problem: string };

/** One request as read from the file. */
export interface SeenRequest {
  method: string;
  /** Path and query as sent: "/products/7?color=red". */
  target: string;
  /** Lower case, with its port if any; access logs have none. */
  host?: string | undefined;
  status?: number | undefined;
  body?: string | undefined;
  contentType?: string | undefined;
  /** HAR's `_resourceType` (Chrome): "xhr", "image", "script"… */
  resourceType?: string | undefined;
  /** Why it is in the file but was no request the app served (a data: URL, a cached response, a TLS probe…). */
  notServed?: string | undefined;
}

export type ReadResult = { ok: true; format: ImportFormat; requests: SeenRequest[] } | { ok: false; problem: string };
