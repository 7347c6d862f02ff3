/**
 * Constant-rate pacing, wrk2-style: connection c of C sends its k-th request at
 * t0 + (c + k·C) / rate, so the C connections together send `rate` requests a second, evenly spread.
 *
 * Latency is measured from the intended send time when the request is late because the connection
 * was still busy with the previous response (the server's delay: coordinated omission corrected),
 * and from the actual send when the connection was idle and merely waited for its slot (a timer's
 * millisecond of lateness is the client's, not the server's).
 */
export class ConnectionSchedule {
  private k = 0;
  private readonly intervalMs: number;
  private readonly offsetMs: number;

  constructor(
    private readonly t0: number,
    index: number,
    connections: number,
    rate: number,
  ) {
    this.intervalMs = (connections * 1000) / rate;
    this.offsetMs = (index * 1000) / rate;
  }

  /** The next slot: when to send (ms from now, 0 = at once) and the start to measure latency from when sent at once. */
  next(now: number): { delayMs: number; due: number } {
    const due = this.t0 + this.offsetMs + this.k++ * this.intervalMs;
    return { delayMs: Math.max(0, due - now), due };
  }
}
