// Times every response from its own request, on autocannon's per-connection Client (autocannon 8,
// lib/httpClient.js), whatever happens to the connection.
//
// Left alone, the Client gets reconnects wrong for timing:
// - when the server closes a connection ('end') it reconnects without clearing its queue of
//   requests in flight, so every later response on that client is timed from the previous
//   request's start; a socket that both errors and ends even reconnects twice;
// - on a timeout it reconnects and already sends the next request before it emits 'timeout', so a
//   listener that drops "the request in flight" on 'timeout' drops the new one (the next response
//   is then timed from nothing: ~1 µs);
// - a half-read response stays in the shared parser and prefixes the new connection's data.
// So this module owns the client's (re)connect and send: each request written records its own start
// (and, at constant rate, its slot), a reconnect forgets exactly the requests written on the old
// connection and detaches that socket, and a response is timed from the start recorded for it.
import type { Socket } from 'node:net';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import type { ConnectionSchedule } from './pacing.ts';

/** The parts of autocannon's Client this module uses (it is an EventEmitter). */
export interface AcClient {
  on(event: 'response', fn: (status: number, bytes: number) => void): unknown;
  on(event: 'headers', fn: (info: { shouldKeepAlive?: boolean }) => void): unknown;
  on(event: 'timeout' | 'connError', fn: () => void): unknown;
  conn?: Socket;
  /** Its own copy of autocannon's options: `tlsOptions` are spread into each tls.connect. */
  opts: { tlsOptions: ConnectionOptions };
  /** Its connections speak TLS. */
  secure?: boolean;
  destroyed: boolean;
  parser: { initialize(type: string): void; type: string };
  pipelinedRequests: { clear(): void };
  _connect(): void;
  _doRequest(): void;
  destroy(): void;
  /** What it sends next (autocannon's iterator, or the mix's that the load thread puts in its place). */
  requestIterator: { currentRequest?: { step?: { route: number } } };
}

/** Where the timings go. `now` is performance.now() of the event. */
export interface TimingSink {
  /**
   * A response to the request it answers. `latencyMs` counts from the request's origin (its send, or
   * its slot when a constant-rate connection was still busy past it); `serviceMs` from its actual send.
   */
  response(status: number, bytes: number, latencyMs: number, serviceMs: number, now: number, route: number): void;
  /** Requests that will never be answered: the connection failed, ended or timed out under them. */
  failed(kind: 'errors' | 'timeouts', count: number, busyMs: number, now: number): void;
  /** A request written, of the mix's route `route` (0 without a mix). */
  sent(route: number): void;
  /** A connection opened: TCP connected, or over TLS its handshake done (`resumed`: a session resumed). */
  opened(now: number, resumed?: boolean): void;
}

export interface TimingOptions {
  /** Constant rate: this connection's slots. Closed loop: none (send as soon as the last answer came). */
  schedule?: ConnectionSchedule;
  /** True once the load is stopping: nothing more is sent. */
  stopped: () => boolean;
  /** Over TLS: a re-opened connection offers the session the last one got (TLS 1.3 ticket or 1.2 session). */
  resume?: boolean;
}

const noop = (): void => {};

/** Call from autocannon's `setupClient`: it runs in the Client's constructor, before the first connect. */
export function instrumentClient(client: AcClient, sink: TimingSink, opts: TimingOptions): void {
  const connect = client._connect;
  const doRequest = client._doRequest;
  // The request in flight on the current connection (pipelining 1: at most one; NaN = none):
  // where its latency counts from, and when it was actually written.
  let origin = NaN;
  let sentAt = NaN;
  let route = 0; // its route in the mix
  let closing = false; // the last response said "Connection: close": the next request goes on a new connection
  let waiting: ReturnType<typeof setTimeout> | undefined; // constant rate: a request waiting for its slot
  let lostOnReconnect = 0;
  let lostBusyMs = 0;

  const inFlight = (): boolean => !Number.isNaN(origin);
  /** The request in flight, if any, will never be answered: say so (kind given) or just forget it. */
  const drop = (kind?: 'errors' | 'timeouts'): void => {
    if (!inFlight()) return;
    const now = performance.now();
    if (kind) sink.failed(kind, 1, now - sentAt, now);
    else {
      lostOnReconnect = 1;
      lostBusyMs = now - sentAt;
    }
    origin = sentAt = NaN;
  };
  const write = (from: number, now: number): void => {
    origin = from;
    sentAt = now;
    doRequest.call(client); // takes the next request from the iterator and writes it
    route = client.requestIterator.currentRequest?.step?.route ?? 0;
    sink.sent(route);
  };

  // autocannon's TLS client offers no session, so every connection it opens pays a full handshake, unless `resume`
  // puts the last session received in the options autocannon spreads into its next tls.connect.
  let session: Buffer | undefined;
  const countOpened = (conn: Socket): void => {
    if (!client.secure) return void conn.once('connect', () => sink.opened(performance.now(), false));
    const tls = conn as TLSSocket;
    tls.once('secureConnect', () => sink.opened(performance.now(), tls.isSessionReused()));
    if (opts.resume) tls.on('session', (s: Buffer) => (session = s));
  };
  if (client.conn) countOpened(client.conn); // the first, made as the client was: not connected yet
  client._connect = function (this: AcClient) {
    const old = this.conn;
    if (old) {
      // A reconnect ('end', 'error', timeout or our own after "Connection: close").
      old.removeAllListeners('data');
      old.removeAllListeners('end');
      old.removeAllListeners('error');
      old.on('error', noop);
      old.destroy();
      this.pipelinedRequests.clear();
      this.parser.initialize(this.parser.type);
      lostOnReconnect = 0;
      drop(); // kept for the 'timeout' that follows a timeout's reconnect
      closing = false;
    }
    if (session) this.opts.tlsOptions = { ...this.opts.tlsOptions, session };
    connect.call(this);
    countOpened(this.conn!);
    // Before autocannon's own 'end' listener, which reconnects: what was in flight is lost.
    this.conn!.prependListener('end', () => drop('errors'));
  };

  const reconnectSoon = (): void => {
    closing = false;
    const old = client.conn;
    // Not from inside the parser's callback (we are in it): the next turn, unless the server's own close got there
    // first.
    setImmediate(() => {
      if (!opts.stopped() && !client.destroyed && client.conn === old) client._connect();
    });
  };

  const schedule = opts.schedule;
  client._doRequest = schedule
    ? function () {
        if (closing) return reconnectSoon();
        if (opts.stopped() || waiting || inFlight()) return;
        const now = performance.now();
        const { delayMs, due } = schedule.next(now);
        if (delayMs === 0) return write(due, now); // late: the connection was busy past its slot, count the wait
        waiting = setTimeout(() => {
          waiting = undefined;
          if (opts.stopped() || client.destroyed) return;
          const t = performance.now();
          write(t, t); // on time: a timer's lateness is the client's, not the server's
        }, delayMs);
      }
    : function () {
        if (closing) return reconnectSoon();
        if (opts.stopped()) return;
        const now = performance.now();
        write(now, now);
      };

  client.on('headers', (info) => {
    if (info.shouldKeepAlive === false) closing = true;
  });
  client.on('response', (status, bytes) => {
    if (!inFlight()) return; // nothing written on this connection is unanswered
    const now = performance.now();
    const from = origin;
    const sent = sentAt;
    origin = sentAt = NaN;
    sink.response(status, bytes, now - from, now - sent, now, route);
  });
  // autocannon emits 'connError' before it reconnects: what is in flight now is what failed.
  client.on('connError', () => drop('errors'));
  // ...but 'timeout' after it has reconnected and sent again: the reconnect kept what was lost.
  client.on('timeout', () => {
    if (lostOnReconnect > 0) sink.failed('timeouts', lostOnReconnect, lostBusyMs, performance.now());
    lostOnReconnect = 0;
    lostBusyMs = 0;
  });
}
