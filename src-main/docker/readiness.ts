import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import type { Address } from './containers.ts';

export interface ReadyOptions {
  path: string;
  /**
   * Distinct worker pids to see on the health path before the app counts as ready (built-in apps send x-rightsize-pid).
   */
  processes: number;
  deadlineMs: number;
  attemptTimeoutMs?: number;
  intervalMs?: number;
  /**
   * For apps that send no pid header: another sign that every worker is up (the cluster launcher's
   * log line). Without it, the first 2xx counts as ready.
   */
  allListening?: () => Promise<boolean>;
  /** Settles when the container stops: no point polling a dead app until the deadline. */
  exited?: Promise<number>;
  signal?: AbortSignal;
  /** How long the same client error (404, 401, …) may answer before it is final ({@link DEFINITE_MS}). */
  definiteMs?: number;
  /** The app serves HTTPS: asked over TLS, its (self-signed) certificate not verified. */
  tls?: boolean;
  /** The app serves HTTP/2 in clear only (h2c): asked over HTTP/2. */
  h2c?: boolean;
}

/**
 * A health path that answers the same 4xx for this long is wrong, not starting: an app that is still
 * starting refuses the connection or answers 503, it does not turn a 404 into a 200. Waiting out the
 * whole deadline (30 s and more) for it was most of a misconfigured app's first cell.
 */
export const DEFINITE_MS = 5000;
/** Client errors a starting server may still give: timeout, too early, too many requests. */
const TRANSIENT_4XX = new Set([408, 425, 429]);
const isDefinite = (status: number): boolean => status >= 400 && status < 500 && !TRANSIENT_4XX.has(status);

/**
 * Polls the health path until it answers 2xx from `processes` distinct pids (or from any process
 * when the app sends no pid header), with a timeout on every attempt: a probe can hang while the
 * app starts, especially through a published port.
 */
export async function waitReady(addr: Address, o: ReadyOptions): Promise<{ ms: number; pids: number }> {
  const t0 = performance.now();
  const pids = new Set<string>();
  let exitCode: number | undefined;
  void o.exited?.then((c) => (exitCode = c));
  let last = 'no answer yet';
  let definite: { status: number; since: number } | undefined; // the same 4xx, answered since
  while (performance.now() - t0 < o.deadlineMs) {
    if (o.signal?.aborted) throw new Error('cancelled');
    if (exitCode !== undefined) throw new Error(`the container exited with code ${exitCode} before it was ready`);
    if (!addr.host) {
      // No address: the container stopped before it got one; `exited` settles in a moment.
      last = 'the container stopped at start';
      await new Promise((res) => setTimeout(res, o.intervalMs ?? 20));
      continue;
    }
    const r = await (o.h2c ? probeH2c : probe)(addr, o.path, o.attemptTimeoutMs ?? 1000, o.tls);
    if (r.ok) {
      if (!r.pid) {
        if (!o.allListening || (await o.allListening())) return { ms: performance.now() - t0, pids: 1 };
        last = 'the app answers, waiting for every worker to listen';
        await new Promise((res) => setTimeout(res, o.intervalMs ?? 20));
        continue;
      }
      pids.add(r.pid);
      if (pids.size >= o.processes) return { ms: performance.now() - t0, pids: pids.size };
      last = `${pids.size} of ${o.processes} worker processes answered`;
      continue; // more workers to find: ask again at once, each probe opens a new connection
    }
    last = r.reason;
    if (r.status !== undefined && isDefinite(r.status)) {
      if (!definite || definite.status !== r.status) definite = { status: r.status, since: performance.now() };
      const forMs = performance.now() - definite.since;
      if (forMs >= (o.definiteMs ?? DEFINITE_MS))
        throw new Error(
          `the health path gave the same answer for ${Math.round(forMs / 1000)} s: ` +
            `a path the app does not serve (${last})`,
        );
    } else definite = undefined;
    await new Promise((res) => setTimeout(res, o.intervalMs ?? 20));
  }
  throw new Error(`not ready within ${Math.round(o.deadlineMs / 1000)} s (${last})`);
}

type Probe = { ok: true; pid?: string } | { ok: false; reason: string; status?: number };

const answered = (status: number, pid: unknown): Probe =>
  status >= 200 && status < 300
    ? { ok: true, pid: typeof pid === 'string' ? pid : undefined }
    : { ok: false, reason: `health answered ${status}`, ...(status ? { status } : {}) };

/** The health path over HTTP/2 in clear, on a session of its own (a new connection: the cluster's next worker). */
function probeH2c(addr: Address, path: string, timeoutMs: number): Promise<Probe> {
  return new Promise((resolve) => {
    const session = http2.connect(`http://${addr.host}:${addr.port}`);
    const done = (p: Probe): void => {
      clearTimeout(timer);
      session.destroy();
      resolve(p);
    };
    const timer = setTimeout(() => done({ ok: false, reason: `no answer within ${timeoutMs} ms` }), timeoutMs);
    session.on('error', (e) => done({ ok: false, reason: e.message }));
    const req = session.request({ ':path': path });
    req.on('response', (h) => done(answered(Number(h[':status'] ?? 0), h['x-rightsize-pid'])));
    req.on('error', (e) => done({ ok: false, reason: e.message }));
    req.end();
  });
}

function probe(addr: Address, path: string, timeoutMs: number, tls = false): Promise<Probe> {
  return new Promise((resolve) => {
    // agent:false = a fresh connection per probe, so the cluster's round robin reaches every worker.
    const opts = { host: addr.host, port: addr.port, path, agent: false, timeout: timeoutMs };
    const onResponse = (res: http.IncomingMessage): void => {
      res.resume();
      resolve(answered(res.statusCode ?? 0, res.headers['x-rightsize-pid']));
    };
    const req = tls ? https.get({ ...opts, rejectUnauthorized: false }, onResponse) : http.get(opts, onResponse);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (e) => resolve({ ok: false, reason: e.message }));
  });
}
