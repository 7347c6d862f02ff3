// HTTP/2 load for one connection of a load thread: Node's own client (node:http2, nghttp2 inside), one
// session with up to `streams` requests in flight, for what h2load cannot send (h2load-client.ts): a
// constant rate, a mix, captures. Every response is timed, judged and counted as HTTP/1.1's are: from the
// intended send time, by the mix's verdicts, into the same per-second histograms and counts
// (docs/ARCHITECTURE.md, "HTTP/2"; its fidelity against h2load: BENCHMARKS.md).
import http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { answerIsRead, type Outgoing } from '../mix/connection.ts';
import type { TimingSink } from './client-timing.ts';
import type { ConnectionSchedule } from './pacing.ts';

/** What the mix judges a response by: its start is kept as text (a capture or a failure's words need no more). */
const BODY_KEPT = 64 * 1024;
/** A frame's header (RFC 9113 §4.1): counted with each DATA frame's payload, as a socket's bytes would be. */
const FRAME_HEADER = 9;
/** Hop-by-hop fields HTTP/2 forbids (RFC 9113 §8.2.2); Host becomes :authority. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
]);

export interface H2Request {
  headers: http2.OutgoingHttpHeaders;
  body?: Buffer;
}

/** An HTTP/1.1 request as the mix writes it (request line, fields, body), as HTTP/2 pseudo-headers and fields. */
export function h2Request(raw: Buffer | string): H2Request {
  const buf = typeof raw === 'string' ? Buffer.from(raw, 'latin1') : raw;
  const end = buf.indexOf('\r\n\r\n');
  const head = buf.subarray(0, end < 0 ? buf.length : end).toString('latin1').split('\r\n');
  const [method = 'GET', path = '/'] = head[0]!.split(' ');
  const headers: http2.OutgoingHttpHeaders = { ':method': method, ':path': path };
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    if (name === 'host') headers[':authority'] = value;
    else if (!HOP_BY_HOP.has(name)) headers[name] = value;
  }
  const body = end < 0 ? undefined : buf.subarray(end + 4);
  return body?.length ? { headers, body } : { headers };
}

export interface H2Options {
  /** https://host:port (h2, over TLS) or http://host:port (h2c). */
  origin: string;
  /** Requests in flight on the connection at most (closed loop: always that many). */
  streams: number;
  timeoutMs: number;
  /** The connection's next request (its mix). */
  next(): Outgoing;
  /** Judges an answer just before it is counted (the mix's verdict; the load thread keeps it for `sink.response`). */
  judge(o: Outgoing, status: number, body: string, rawHeaders: string[]): void;
  /** Constant rate: the connection's slots. Closed loop: none. */
  schedule?: ConnectionSchedule;
  stopped(): boolean;
  /** h2: a replacement session offers the TLS session the last one got, so its handshake is resumed. */
  resume?: boolean;
}

/** A request in flight: where its latency counts from, when it was written, and how to fail it (once). */
interface InFlight {
  origin: number;
  sentAt: number;
  fail(kind: 'errors' | 'timeouts'): boolean;
}

/**
 * One HTTP/2 connection under load until `destroy()`; a lost session is replaced, and what was in flight on it
 * counts as errors.
 */
export function h2Connection(sink: TimingSink, o: H2Options): { destroy(): void } {
  const converted = new WeakMap<Outgoing, H2Request>(); // a fixed request's bytes, converted once
  let session: http2.ClientHttp2Session | undefined;
  let connected = false;
  let destroyed = false;
  const late: number[] = []; // constant rate: slots that came while every stream was busy (their due times)
  let slotTimer: ReturnType<typeof setTimeout> | undefined;
  const live = new Map<http2.ClientHttp2Stream, InFlight>();
  // Timeouts by one sweep a connection, not a timer a request: at thousands a second, timers were a cost of their own.
  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const [stream, r] of live)
        if (now - r.sentAt >= o.timeoutMs && r.fail('timeouts')) stream.close(http2.constants.NGHTTP2_CANCEL);
      fill();
    },
    Math.min(1000, o.timeoutMs / 2),
  );

  let tlsSession: Buffer | undefined; // the last one the server gave (resume only)
  const connect = (): void => {
    const s = http2.connect(o.origin, { rejectUnauthorized: false, ...(tlsSession ? { session: tlsSession } : {}) });
    session = s;
    connected = false;
    s.once('connect', (_s, socket) => {
      connected = true;
      const tls = socket as Partial<TLSSocket>;
      sink.opened(performance.now(), tls.isSessionReused?.() ?? false);
      if (o.resume) socket.on('session', (t: Buffer) => (tlsSession = t));
      fill();
    });
    s.on('error', () => {});
    s.on('close', () => {
      if (session !== s) return; // replaced, or destroyed when the load stopped: nothing more to count
      session = undefined;
      for (const r of [...live.values()]) r.fail('errors');
      if (destroyed || o.stopped()) return;
      // A server that refused the connection is asked again a little later, not in a loop.
      setTimeout(() => !destroyed && !o.stopped() && connect(), connected ? 0 : 100);
    });
  };

  const send = (origin: number): void => {
    const out = o.next();
    let req = converted.get(out);
    if (!req) converted.set(out, (req = h2Request(out.requestBuffer)));
    const route = out.step?.route ?? 0;
    const sentAt = performance.now();
    sink.sent(route);
    const stream = session!.request(req.headers, { endStream: !req.body });
    if (req.body) stream.end(req.body);
    let status = 0;
    let bytes = 0;
    let read = false; // the answer is judged on its body and fields: keep them
    let raw: string[] = [];
    let text = '';
    let ended = false;
    const settle = (): boolean => {
      if (ended) return false;
      ended = true;
      live.delete(stream);
      return true;
    };
    const r: InFlight = {
      origin,
      sentAt,
      fail: (kind) => {
        if (!settle()) return false;
        const now = performance.now();
        sink.failed(kind, 1, now - sentAt, now);
        return true;
      },
    };
    live.set(stream, r);
    stream.on('response', (h) => {
      status = Number(h[':status']);
      read = answerIsRead(out, status);
      let n = FRAME_HEADER; // the HEADERS frame, counted before HPACK
      for (const k in h) {
        if (k.startsWith(':')) continue;
        const v = String(h[k]);
        n += k.length + v.length;
        if (read) raw.push(k, v);
      }
      bytes += n;
    });
    stream.on('data', (c: Buffer) => {
      bytes += FRAME_HEADER + c.length;
      if (read && text.length < BODY_KEPT) text += c.toString('utf8', 0, Math.min(c.length, BODY_KEPT - text.length));
    });
    stream.on('end', () => {
      if (!settle()) return;
      const now = performance.now();
      o.judge(out, status, text, raw);
      sink.response(status, bytes, now - origin, now - sentAt, now, route);
      fill();
    });
    // An error, or a close with no end (a reset stream): a failed request, and the next one goes.
    const onFailure = (): void => void (r.fail('errors') && fill());
    stream.on('error', onFailure);
    stream.on('close', onFailure);
  };

  /** Sends what may go now: closed loop, until `streams` are in flight; constant rate, the slots already due. */
  function fill(): void {
    if (destroyed || o.stopped() || !connected || !session || session.closed || session.destroyed) return;
    if (!o.schedule) {
      while (live.size < o.streams) send(performance.now());
      return;
    }
    while (live.size < o.streams && late.length) send(late.shift()!);
  }

  /** Constant rate: each slot sends on time if a stream is free, else waits for one and counts the wait. */
  const nextSlot = (): void => {
    if (destroyed || o.stopped()) return;
    const { delayMs, due } = o.schedule!.next(performance.now());
    slotTimer = setTimeout(() => {
      late.push(delayMs === 0 ? due : performance.now()); // on time: a timer's lateness is the client's
      fill();
      nextSlot();
    }, delayMs);
  };

  connect();
  if (o.schedule) nextSlot();
  return {
    destroy(): void {
      destroyed = true;
      clearInterval(sweep);
      if (slotTimer) clearTimeout(slotTimer);
      const s = session;
      session = undefined;
      s?.destroy();
    },
  };
}
