// The try-out's HTTP: one request at a time on a fresh connection, with a timeout, reporting the
// status whatever it is (readiness wants a 2xx; a try-out wants to know what answered).
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import type { ProbeAnswer } from '../apps/try-out.ts';
import { HOP_BY_HOP } from '../load/h2-client.ts';

export interface ProbeRequest {
  method: string;
  path: string;
  headers?: Record<string, string> | undefined;
  body?: string | undefined;
}

/** An answer with its body (up to 1 MB) and raw headers, for a mix to judge and take captures from. */
export interface FullAnswer extends ProbeAnswer {
  body?: string;
  rawHeaders?: string[];
}

const BODY_KEPT = 1 << 20;

/**
 * Where to ask: over TLS (`tls`) for an app that serves HTTPS itself, its certificate not verified; over HTTP/2
 * (`protocol`) for one that serves it (h2 over TLS, h2c in clear), as its cells' load speaks to it.
 */
export interface ProbeAddress {
  host: string;
  port: number;
  tls?: boolean;
  protocol?: 'h2' | 'h2c' | undefined;
}

export function probeOnce(addr: ProbeAddress, r: ProbeRequest, timeoutMs: number): Promise<FullAnswer> {
  if (addr.protocol) return probeHttp2(addr, r, timeoutMs);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = (addr.tls ? https : http).request(
      {
        ...(addr.tls ? { rejectUnauthorized: false } : {}),
        host: addr.host,
        port: addr.port,
        method: r.method,
        path: r.path,
        headers: { ...(r.body !== undefined ? { 'content-length': Buffer.byteLength(r.body) } : {}), ...r.headers },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body.length < BODY_KEPT ? (body += d) : undefined));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body, rawHeaders: res.rawHeaders }),
        );
        res.on('error', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(r.body);
  });
}

/** The same over HTTP/2, on a session of its own (a fresh connection, as HTTP/1.1's agent: false). */
function probeHttp2(addr: ProbeAddress, r: ProbeRequest, timeoutMs: number): Promise<FullAnswer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const tls = addr.protocol === 'h2';
    const session = http2.connect(
      `${tls ? 'https' : 'http'}://${addr.host}:${addr.port}`,
      tls ? { rejectUnauthorized: false } : {},
    );
    const done = (a: FullAnswer): void => {
      clearTimeout(timer);
      session.destroy();
      resolve(a);
    };
    const timer = setTimeout(() => done({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    const failed = (e: NodeJS.ErrnoException): void => done({ error: e.code ?? e.message });
    session.on('error', failed);
    const headers: http2.OutgoingHttpHeaders = { ':method': r.method, ':path': r.path };
    if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
    // As the load sends a mix's request over HTTP/2: Host becomes :authority, hop-by-hop fields are dropped.
    for (const [k, v] of Object.entries(r.headers ?? {}))
      if (k.toLowerCase() === 'host') headers[':authority'] = v;
      else if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
    let req: http2.ClientHttp2Stream;
    try {
      req = session.request(headers);
    } catch (e) {
      return failed(e as NodeJS.ErrnoException);
    }
    req.on('error', failed);
    req.on('response', (h) => {
      const status = Number(h[':status'] ?? 0);
      // HTTP/1.1's raw headers, for a capture to read: the pseudo-headers are not headers.
      const rawHeaders = Object.entries(h)
        .filter(([k]) => !k.startsWith(':'))
        .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, String(v)]]).flat());
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (d: string) => (body.length < BODY_KEPT ? (body += d) : undefined));
      req.on('end', () => done({ status, ms: performance.now() - t0, body, rawHeaders }));
    });
    req.end(r.body);
  });
}

/**
 * Waits for the first answer of any status on `path` (the server is up), until `deadlineMs`, the
 * container's exit, or the signal. Returns the milliseconds it took, or undefined.
 */
export async function firstAnswer(
  addr: ProbeAddress,
  path: string,
  o: { deadlineMs: number; exited: Promise<number>; signal?: AbortSignal },
): Promise<number | undefined> {
  const t0 = performance.now();
  let stopped = false;
  void o.exited.then(() => (stopped = true));
  while (performance.now() - t0 < o.deadlineMs && !stopped && !o.signal?.aborted) {
    if (addr.host) {
      const a = await probeOnce(addr, { method: 'GET', path }, 1000);
      if (a.status !== undefined) return performance.now() - t0;
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  return undefined;
}
