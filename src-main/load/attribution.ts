// The load side's evidence of who set the pace of a cell: the load generator (a load thread near a full
// core, or a load side that did not send) or the server (every connection busy, or answers that did not
// come back). One cause per cell, never both (issue 21), so the cell's one bottleneck, decided from it in
// the flags step (common/bottleneck.ts), reads one answer; where both sides look saturated, the full
// connections name the server unless a load thread was busy in an earlier second (docs/method.md, "A
// missed constant rate", says why).
import { CLIENT_BOUND_ELU, RATE_SHORTFALL } from '../common/thresholds.ts';

export interface AttributionInput {
  /** Constant-rate target (req/s); undefined in closed loop. */
  targetRate?: number;
  connections: number;
  /** Completed responses per second over the measurement. */
  rpsMean: number;
  /** Requests written per second over the measurement. */
  sentPerSec: number;
  /** Mean time a request kept its connection busy (actual send → answer), ms; undefined with no answers. */
  meanServiceMs?: number;
  /** Event-loop utilisation of each load thread over the measurement, 0..1. */
  threadElu: number[];
  /**
   * The measured seconds in order, for which came first when a thread was busy and the connections
   * were full: the busiest thread's CPU time in that second (ms; undefined where the platform does not
   * tell) and the mean time a request kept its connection busy in it (ms; undefined without answers).
   */
  perSecond?: { maxThreadCpuMs?: number; meanServiceMs?: number }[];
}

/**
 * The load side's verdict: client-bound (with its reason, and 'client' when a constant rate was
 * missed) or not (with 'server' when a constant rate was missed); never client-bound and 'server'.
 */
export type Attribution =
  | { clientBound: false; clientBoundReason?: undefined; shortfallBy?: 'server' }
  | { clientBound: true; clientBoundReason: string; shortfallBy?: 'client' };

const pct = (x: number): string => `${Math.round(x * 100)} %`;

function busyThreads(elu: number[]): string | undefined {
  const busy = elu.map((u, i) => ({ u, i })).filter((x) => x.u >= CLIENT_BOUND_ELU);
  if (busy.length === 0) return undefined;
  if (elu.length === 1) return `the load thread was busy ${pct(busy[0]!.u)} of the time (near one full core)`;
  const which = busy.map((x) => `${x.i + 1}`).join(', ');
  const how = busy.map((x) => pct(x.u)).join(', ');
  const [threads, were] = busy.length > 1 ? ['threads', 'were'] : ['thread', 'was'];
  return `load ${threads} ${which} of ${elu.length} ${were} busy ${how} of the time (near one full core)`;
}

export function attribute(x: AttributionInput): Attribution {
  const threads = busyThreads(x.threadElu);
  const target = x.targetRate;
  if (!target || x.rpsMean >= target * RATE_SHORTFALL) {
    return threads ? { clientBound: true, clientBoundReason: threads } : { clientBound: false };
  }
  const reached = `reached ${Math.round(x.rpsMean)} of ${target} req/s requested`;
  // Little's law: carrying `target` req/s at this latency needs target × latency connections in flight.
  const needed = x.meanServiceMs === undefined ? Infinity : (target * x.meanServiceMs) / 1000;
  const connectionsFull = needed >= x.connections;
  if (connectionsFull) {
    const first = firstSeconds(x, target);
    if (threads && first.busy !== undefined && (first.full === undefined || first.busy < first.full)) {
      // The thread was saturated before the connections filled: its lateness filled them.
      const then =
        first.full === undefined
          ? ''
          : `; the connections filled only from second ${first.full + 1}, after it fell behind`;
      return {
        clientBound: true,
        clientBoundReason: `${reached}: ${threads}, from measured second ${first.busy + 1}${then}`,
        shortfallBy: 'client',
      };
    }
    // Every connection waiting on the server, and no load thread saturated before that: the server
    // set the pace. A thread busy too is the consequence (it queues for connections that are all
    // waiting), so the cell is not client-bound: one cause.
    return { clientBound: false, shortfallBy: 'server' };
  }
  if (threads) return { clientBound: true, clientBoundReason: `${reached}: ${threads}`, shortfallBy: 'client' };
  // Requests sent at the rate that were not answered: the server.
  if (x.sentPerSec >= target * RATE_SHORTFALL) return { clientBound: false, shortfallBy: 'server' };
  // Connections free, threads not saturated, and still the requests did not go out: the load side
  // was held back (typically by other work on the host).
  return {
    clientBound: true,
    clientBoundReason:
      `${reached}: the load side sent only ${Math.round(x.sentPerSec)} req/s although its connections had room ` +
      `(${needed.toFixed(1)} of ${x.connections} needed) and no load thread was saturated; ` +
      'the host may have been busy',
    shortfallBy: 'client',
  };
}

/** The first measured second (0-based) with a load thread near a full core, and with every connection busy. */
function firstSeconds(x: AttributionInput, target: number): { busy?: number; full?: number } {
  const out: { busy?: number; full?: number } = {};
  (x.perSecond ?? []).forEach((s, i) => {
    if (out.busy === undefined && s.maxThreadCpuMs !== undefined && s.maxThreadCpuMs >= CLIENT_BOUND_ELU * 1000)
      out.busy = i;
    if (out.full === undefined && s.meanServiceMs !== undefined && (target * s.meanServiceMs) / 1000 >= x.connections)
      out.full = i;
  });
  return out;
}
