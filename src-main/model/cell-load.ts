// How one cell drives load, and over what kind of link: plain data, part of every cell's conditions.

export type LoadModel = 'closed' | 'rate';

/** The HTTP versions a cell's load speaks: HTTP/1.1, HTTP/2 over TLS (h2) or HTTP/2 in clear (h2c). */
export const PROTOCOLS = ['http1', 'h2', 'h2c'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** How one cell drives load: closed loop (as fast as the server answers) or a constant target rate. */
export type CellLoad = (
  | { model: 'closed'; connections: number; threads?: number }
  | { model: 'rate'; rate: number; connections: number; threads?: number }
) & {
  /** A bandwidth cap on the server's side (absent: none). */
  networkMbps?: number;
  /** HTTPS: TLS on every connection (absent: plain). HTTP/2's h2 always has it. */
  tls?: true;
  /** With TLS: a re-opened connection offers the session it last got, so its handshake is resumed (absent: full). */
  tlsResume?: true;
  /** HTTP/2 (absent: HTTP/1.1), with up to `streams` requests in flight on each connection (absent: 1). */
  protocol?: 'h2' | 'h2c';
  streams?: number;
};
// `threads`: load threads the matrix asked for (`load.threads`, CLI --load-threads); absent = chosen
// from the cores the target's cpuset leaves free. A measurement setting, not part of a configuration.
