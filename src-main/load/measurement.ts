// The engine's side of a load phase: merges the threads' seconds into one (counts added,
// histograms added losslessly), decides where warmup ends and keeps the measured window's totals.
// Pure bookkeeping, no threads: the runner feeds it what the threads send.
// An adaptive warm-up ends where the steady state began, not where it was noticed: the flat seconds
// that showed it are measured too (sent again, as measured), so a cell pays only for its ramp.
import type { LoadSecond } from '../model/types.ts';
import { addEncoded, newHistogram, summarize, type LatencyHistogram } from './histogram.ts';
import type { ThreadSecond } from './protocol.ts';
import { addReason } from '../common/failure-reason.ts';
import { WARM_WINDOW_SEC } from './warmup.ts';

export interface WindowPlan {
  /** Minimum warmup (s). */
  warmupSec: number;
  /** Longest warmup (s); default and floor: `warmupSec`. */
  maxWarmupSec?: number;
  /** The host's per-second noise, passed to the judge (LoadPlan.warmNoise). */
  warmNoise?: number;
  durationSec: number;
}

/**
 * Called after each warmup second once `warmupSec` + `WARM_WINDOW_SEC` have passed, with req/s of every warmup second
 * so far: true when the last WARM_WINDOW_SEC of them are steady (measurement then starts where they began).
 */
export type IsWarm = (warmupRps: number[], noise?: number) => boolean;

/**
 * The first warm-up second that may be measured, once the engine knows it (undefined: not yet). Measurement never
 * starts before it, adaptive or at the cap, and the cap moves as far past the minimum as it does; unknown until
 * WARM_WINDOW_SEC seconds past the cap, measurement starts regardless, and the engine judges what it got (a raised cap
 * that came back late fails its cell).
 */
export type WarmFrom = () => number | undefined;

/** One second of every thread merged: counts, latency, and each route's latency. */
interface Merged {
  counts: Counts;
  histogram: LatencyHistogram;
  routes: RouteLatency;
}

/** A warm-up second kept until it is known whether it was warm-up or the start of the measurement. */
interface HeldSecond extends Merged {
  index: number;
  second: LoadSecond;
}

type Counts = Omit<ThreadSecond, 'index' | 'histogram'>;

const zero = (): Counts => ({
  requests: 0,
  good: 0,
  bytes: 0,
  errors: 0,
  timeouts: 0,
  non2xx: 0,
  sent: 0,
  busyMs: 0,
  opened: 0,
  resumed: 0,
  cpuMs: 0,
  statusCounts: {},
});

function addCounts(into: Counts, s: Counts): void {
  into.requests += s.requests;
  into.good += s.good;
  into.bytes += s.bytes;
  into.errors += s.errors;
  into.timeouts += s.timeouts;
  into.non2xx += s.non2xx;
  into.sent += s.sent;
  into.busyMs += s.busyMs;
  into.opened += s.opened ?? 0; // a remote agent of an older build sends none
  into.resumed = (into.resumed ?? 0) + (s.resumed ?? 0);
  into.cpuMs += s.cpuMs;
  for (const [k, v] of Object.entries(s.statusCounts)) into.statusCounts[k] = (into.statusCounts[k] ?? 0) + v;
  for (const [k, v] of Object.entries(s.failureReasons ?? {})) addReason((into.failureReasons ??= {}), k, v);
  if (s.byReplica) {
    const by = (into.byReplica ??= s.byReplica.map(() => 0));
    s.byReplica.forEach((n, r) => (by[r] = (by[r] ?? 0) + n));
  }
  if (s.byRoute) {
    // Counts only: the routes' histograms are merged beside (RouteLatency).
    const by = (into.byRoute ??= s.byRoute.map(() => ({ sent: 0, requests: 0, good: 0, histogram: '' })));
    s.byRoute.forEach((r, i) => {
      const t = by[i]!;
      t.sent += r.sent;
      t.requests += r.requests;
      t.good += r.good;
    });
  }
}

/** Each route's latency, merged losslessly like the cell's (index = route; created as routes report). */
class RouteLatency {
  readonly byRoute: LatencyHistogram[] = [];
  addEncoded(s: ThreadSecond): void {
    s.byRoute?.forEach((r, i) => {
      if (r.histogram) addEncoded((this.byRoute[i] ??= newHistogram()), r.histogram);
    });
  }
  add(other: RouteLatency): void {
    other.byRoute.forEach((h, i) => (this.byRoute[i] ??= newHistogram()).add(h));
  }
}

/** One second of all threads together, as the engine reports it. */
export interface CompletedSecond {
  index: number;
  second: LoadSecond;
  warmup: boolean;
  /** The last measured second: the load phase is over. */
  last: boolean;
}

export class Measurement {
  /** Index of the first measured second (= warmup seconds used); undefined while warming up. */
  measureFrom: number | undefined;
  readonly perSecondRps: number[] = [];
  readonly perSecondGood: number[] = [];
  readonly perSecondBytes: number[] = [];
  /** Counts and latency over the measured seconds (plus, after a stop, the unfinished one). */
  readonly totals: Counts = zero();
  readonly latency: LatencyHistogram = newHistogram();
  /** A mix of several routes: each route's latency over the measured seconds. */
  readonly routeLatency = new RouteLatency();
  private readonly warmupRps: number[] = [];
  /** The last WARM_WINDOW_SEC warm-up seconds, whole: they become measured ones if they were already steady. */
  private held: HeldSecond[] = [];
  private readonly pending = new Map<number, Merged & { threads: number }>();
  private next = 0;
  private readonly maxWarmupSec: number;

  constructor(
    private readonly threads: number,
    private readonly plan: WindowPlan,
    private readonly isWarm?: IsWarm,
    private readonly warmFrom?: WarmFrom,
  ) {
    this.maxWarmupSec = Math.max(plan.warmupSec, plan.maxWarmupSec ?? plan.warmupSec);
    this.decide(0);
  }

  /** The measurement is complete (every measured second merged). */
  get done(): boolean {
    return this.measureFrom !== undefined && this.next >= this.measureFrom + this.plan.durationSec;
  }

  /** Adds one thread's second; returns the seconds now complete on every thread, in order. */
  add(thread: ThreadSecond): CompletedSecond[] {
    this.contribute(thread);
    const out: CompletedSecond[] = [];
    for (let p = this.pending.get(this.next); p && p.threads === this.threads; p = this.pending.get(this.next)) {
      this.pending.delete(this.next);
      out.push(...this.complete(this.next, p));
      this.next++;
    }
    return out;
  }

  /**
   * After a stop: what the threads had not yet merged (seconds some thread had not finished, and each
   * thread's unfinished second) still counts in the totals if measured, though in no per-second series.
   * Returns the seconds measured, counting the unfinished one by the time the stop came (`stopSec`
   * after the common start).
   */
  finishEarly(partials: ThreadSecond[], stopSec: number): number {
    for (const p of partials) this.contribute(p);
    for (const [index, p] of [...this.pending].sort((a, b) => a[0] - b[0])) {
      if (this.isMeasured(index)) {
        addCounts(this.totals, p.counts);
        this.latency.add(p.histogram);
        this.routeLatency.add(p.routes);
      }
    }
    this.pending.clear();
    if (this.measureFrom === undefined) return 0;
    return Math.min(this.plan.durationSec, Math.max(this.perSecondRps.length, stopSec - this.measureFrom));
  }

  private isMeasured(index: number): boolean {
    return (
      this.measureFrom !== undefined && index >= this.measureFrom && index < this.measureFrom + this.plan.durationSec
    );
  }

  private contribute(s: ThreadSecond): void {
    let p = this.pending.get(s.index);
    if (!p)
      this.pending.set(
        s.index,
        (p = { threads: 0, counts: zero(), histogram: newHistogram(), routes: new RouteLatency() }),
      );
    p.threads++;
    addCounts(p.counts, s);
    addEncoded(p.histogram, s.histogram);
    p.routes.addEncoded(s);
  }

  private complete(index: number, m: Merged): CompletedSecond[] {
    const measured = this.isMeasured(index);
    if (!measured && this.measureFrom !== undefined && index >= this.measureFrom) return []; // after the window
    const second = this.secondOf(index, m, measured);
    if (!measured) {
      this.warmupRps.push(m.counts.requests);
      this.held = [...this.held, { ...m, index, second }].slice(-WARM_WINDOW_SEC);
      return [{ index, second, warmup: true, last: false }, ...this.decide(index + 1)];
    }
    return [this.measure(index, m, second)];
  }

  /** Adds a measured second to the totals and series. */
  private measure(index: number, { counts, histogram, routes }: Merged, second: LoadSecond): CompletedSecond {
    addCounts(this.totals, counts);
    this.latency.add(histogram);
    this.routeLatency.add(routes);
    this.perSecondRps.push(counts.requests);
    this.perSecondGood.push(counts.good);
    this.perSecondBytes.push(counts.bytes);
    return { index, second, warmup: false, last: index === this.measureFrom! + this.plan.durationSec - 1 };
  }

  private secondOf(index: number, { counts, histogram, routes }: Merged, measured: boolean): LoadSecond {
    const lat = summarize(histogram);
    const second: LoadSecond = {
      // Warmup seconds count up to 0 at the end of the minimum warmup (-2, -1 for 2 s), then on (0, 1, …) while it is
      // extended.
      t: measured ? index - this.measureFrom! : index - this.plan.warmupSec,
      requests: counts.requests,
      bytes: counts.bytes,
      errors: counts.errors,
      timeouts: counts.timeouts,
      non2xx: counts.non2xx,
      ...(counts.opened ? { opened: counts.opened } : {}),
      ...(counts.resumed ? { resumed: counts.resumed } : {}),
      p50Us: lat.p50,
      p90Us: lat.p90,
      p99Us: lat.p99,
      maxUs: lat.max,
      ...(counts.byRoute
        ? {
            routes: counts.byRoute.map((r, i) => {
              const h = routes.byRoute[i];
              const l = h ? summarize(h) : undefined;
              return { rps: r.requests, good: r.good, p50Us: l?.p50 ?? 0, p99Us: l?.p99 ?? 0 };
            }),
          }
        : {}),
    };
    return second;
  }

  /**
   * At the boundary after `completed` warmup seconds: does measurement start, and where? Without an isWarm judge,
   * here, after the minimum. With one: where the steady seconds it saw began (those are measured, returned again
   * with `wasWarmup`), or here at the cap if never steady. Never before the engine's `warmFrom` (WarmFrom).
   */
  private decide(completed: number): CompletedSecond[] {
    if (this.measureFrom !== undefined || completed < this.plan.warmupSec) return [];
    const known = this.warmFrom ? this.warmFrom() : 0;
    const from = known ?? (completed >= this.maxWarmupSec + WARM_WINDOW_SEC ? 0 : Infinity);
    if (completed < from) return [];
    const capSec = this.maxWarmupSec + Math.max(0, (known ?? 0) - this.plan.warmupSec);
    if (!this.isWarm) {
      this.measureFrom = completed;
      return [];
    }
    const windowFrom = Math.max(this.plan.warmupSec, from);
    if (completed >= windowFrom + WARM_WINDOW_SEC && this.isWarm([...this.warmupRps], this.plan.warmNoise)) {
      this.measureFrom = completed - WARM_WINDOW_SEC;
      const steady = this.held.filter((h) => this.isMeasured(h.index));
      this.warmupRps.splice(this.measureFrom);
      this.held = [];
      return steady.map((h) =>
        this.measure(h.index, h, { ...h.second, t: h.index - this.measureFrom!, wasWarmup: h.index }),
      );
    }
    if (completed >= capSec) this.measureFrom = completed;
    return [];
  }
}
