// The try-out's HTTP: one request at a time on a fresh connection, with a timeout, reporting the
// status whatever it is (readiness wants a 2xx; a try-out wants to know what answered).
import http from 'node:http';
import https from 'node:https';
import type { ProbeAnswer } from '../apps/try-out.ts';

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

/** Where to ask: over TLS (`tls`) for an app that serves HTTPS itself, its certificate not verified. */
export interface ProbeAddress {
  host: string;
  port: number;
  tls?: boolean;
}

export function probeOnce(addr: ProbeAddress, r: ProbeRequest, timeoutMs: number): Promise<FullAnswer> {
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
