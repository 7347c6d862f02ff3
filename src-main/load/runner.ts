import type { EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadSecond, RouteResult } from '../model/types.ts';
import { mixRoutes } from '../mix/routes.ts';
import { attribute, type AttributionInput } from './attribution.ts';
import { newHistogram, summarize } from './histogram.ts';
import { type IsWarm, Measurement, type WarmFrom } from './measurement.ts';
import type { LoadPlan, ParentMessage, ThreadPlan, ThreadSecond, WorkerMessage } from './protocol.ts';
import { splitPlan } from './threads.ts';

export type { LoadPlan } from './protocol.ts';

export interface LoadCallbacks {
  /** Every second of all threads together: warmup ones with `warmup = true`, then the measured ones (`t` from 0). */
  onSecond?: (s: LoadSecond, warmup: boolean) => void;
  /**
   * Adaptive warmup: called after each warmup second once `warmupSec` have passed, with the req/s of
   * every warmup second so far. True (or reaching `maxWarmupSec`) starts the measurement at the
   * boundary that ended that second, on every thread at once. Without it the warmup is `warmupSec`.
   */
  isWarm?: IsWarm;
  /** Holds the measurement back until the engine says which warm-up second may be the first measured (WarmFrom). */
  warmFrom?: WarmFrom;
  signal?: AbortSignal;
  /**
   * Once this load is over, spawn as many threads again, idle until the next load takes them: a
   * thread's start (~150 ms) then happens while nothing is measured, not in the next cell's time.
   */
  spareAfter?: boolean;
}

/** Threads spawned ahead, waiting for a plan; unref'd, so they never keep the process alive. */
const spare: Worker[] = [];

/** Keeps `n` threads spare (the last load's count: the next cell usually needs as many). */
function spawnSpare(n: number): void {
  while (spare.length < n) {
    const w = spawnWorker(undefined);
    w.unref();
    const drop = (): void => {
      const i = spare.indexOf(w);
      if (i >= 0) spare.splice(i, 1);
    };
    w.once('exit', drop);
    w.once('error', drop);
    spare.push(w);
  }
}

/** A thread for this share: a spare one given its plan, else a new one. */
function threadFor(share: ThreadPlan): Worker {
  const w = spare.shift();
  if (!w) return spawnWorker(share);
  w.removeAllListeners('exit');
  w.removeAllListeners('error');
  w.ref();
  w.postMessage({ type: 'plan', plan: share } satisfies ParentMessage);
  return w;
}

/**
 * Where the worker's code is: next to this module when bundled (dist/), or the TypeScript source
 * run through tsx when the engine itself runs from source (tests, `tsx`).
 */
function spawnWorker(plan: ThreadPlan | undefined): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    // In a packaged app the worker file is unpacked beside the asar archive: threads cannot load from inside it.
    const file = fileURLToPath(new URL('./load-worker.js', import.meta.url)).replace(
      /app\.asar([\\/])/,
      'app.asar.unpacked$1',
    );
    return new Worker(file, { workerData: plan });
  }
  // Node 20 ignores --import in a worker's execArgv, so register tsx from a tiny bootstrap instead.
  const src = JSON.stringify(new URL('./worker.ts', import.meta.url).href);
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${src}); });`;
  return new Worker(boot, { eval: true, workerData: plan });
}

/** How long a load thread told to exit may take before it is terminated from outside. */
const THREAD_EXIT_GRACE_MS = 2_000;

const epochNow = (): number => performance.timeOrigin + performance.now();

/**
 * Runs one load phase (warmup + measurement) in N load threads (see threads.ts) and returns the
 * measured result. The threads share one start, so their seconds line up; the engine merges each
 * second once every thread has sent it and decides here where warmup ends.
 */
export function runLoad(plan: LoadPlan, cb: LoadCallbacks = {}): Promise<LoadResult> {
  return runLoadDetailed(plan, cb).then((r) => r.result);
}

/**
 * What a LoadResult does not keep, for benchmarks: each thread's event-loop utilisation and the load threads' CPU time
 * over the measurement.
 */
export interface LoadDetail {
  result: LoadResult;
  threadElu: number[];
  /** CPU seconds all load threads used over the measured seconds (Linux; 0 where not readable). */
  loadCpuSec: number;
}

/** runLoad, with the detail (see LoadDetail). */
export function runLoadDetailed(plan: LoadPlan, cb: LoadCallbacks = {}): Promise<LoadDetail> {
  let shares: ThreadPlan[];
  let measurement: Measurement;
  try {
    shares = splitPlan(plan);
    measurement = new Measurement(shares.length, plan, cb.isWarm, cb.warmFrom);
  } catch (e) {
    return Promise.reject(e);
  }
  const workers = shares.map(threadFor);
  const n = workers.length;

  return new Promise((resolve, reject) => {
    let settled = false;
    let ready = 0;
    let t0: number | undefined; // the common start (epoch ms), once every thread is ready
    let stopAt: number | undefined;
    let eluStart: EventLoopUtilization[] | undefined;
    const finals: ThreadSecond[] = [];
    const seconds = new PerSecond();
    // h2load's CPU per second, by thread: its thread's event loop only reads its log, h2load is the one that works.
    const external = workers.map(() => new Map<number, number>());
    let h2Client: 'h2load' | 'node' | undefined;

    const post = (m: ParentMessage): void => workers.forEach((w) => w.postMessage(m));
    const eluNow = (): EventLoopUtilization[] => workers.map((w) => w.performance.eventLoopUtilization());
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      cb.signal?.removeEventListener('abort', stop);
      fn();
      // Each thread ends itself between two pieces of work; terminate() is only for one that does not within the grace.
      post({ type: 'exit' });
      for (const w of workers) {
        const force = setTimeout(() => void w.terminate(), THREAD_EXIT_GRACE_MS);
        force.unref();
        w.once('exit', () => clearTimeout(force));
      }
      if (cb.spareAfter) spawnSpare(n);
    };
    const fail = (e: unknown): void => settle(() => reject(e instanceof Error ? e : new Error(String(e))));
    const finish = (measuredSec: number): void => {
      const eluEnd = eluNow();
      const elu = eluStart
        ? workers.map((w, i) => w.performance.eventLoopUtilization(eluEnd[i], eluStart![i]).utilization)
        : workers.map(() => 0);
      external.forEach((byIndex, i) => (elu[i] = Math.max(elu[i]!, clientShare(byIndex, measurement, measuredSec))));
      settle(() =>
        resolve({
          result: { ...toResult(plan, measurement, measuredSec, elu, seconds), ...(h2Client ? { h2Client } : {}) },
          threadElu: elu,
          loadCpuSec: measurement.totals.cpuMs / 1000,
        }),
      );
    };
    function stop(): void {
      if (stopAt !== undefined || settled) return;
      stopAt = epochNow();
      post({ type: 'stop' }); // each thread answers with its unfinished second
    }

    const begin = (): void => {
      t0 = epochNow();
      eluStart = measurement.measureFrom === 0 ? eluNow() : undefined;
      post({ type: 'start', t0 });
      if (measurement.done) finish(0);
    };

    const onSecond = (s: ThreadSecond): void => {
      if (settled) return;
      seconds.add(s);
      try {
        for (const c of measurement.add(s)) {
          if (stopAt === undefined) cb.onSecond?.(c.second, c.warmup);
          if (!eluStart && measurement.measureFrom !== undefined) eluStart = eluNow();
          if (c.last) return finish(plan.durationSec);
        }
      } catch (e) {
        fail(e); // a callback (isWarm, onSecond) threw
      }
    };

    workers.forEach((w, i) => {
      w.on('message', (m: WorkerMessage) => {
        switch (m.type) {
          case 'ready':
            if (m.h2Client) h2Client = m.h2Client;
            // else cancelled before the load began: the finals end it
            if (++ready === n && stopAt === undefined) begin();
            break;
          case 'second':
            if (m.second.clientCpuMs !== undefined) external[i]!.set(m.second.index, m.second.clientCpuMs);
            onSecond(m.second);
            break;
          case 'final':
            finals.push(m.partial);
            if (finals.length === n && stopAt !== undefined)
              finish(t0 === undefined ? 0 : measurement.finishEarly(finals, (stopAt - t0) / 1000));
            break;
          case 'error':
            fail(new Error(`load generator: ${m.message}`));
            break;
        }
      });
      w.on('error', fail);
      w.on('exit', (code) =>
        fail(new Error(`load generator thread ${i + 1} of ${n} exited with code ${code} before it finished`)),
      );
    });
    if (cb.signal?.aborted) stop();
    cb.signal?.addEventListener('abort', stop, { once: true });
  });
}

/** The share of a core h2load used over the measured seconds (0 without it): a load thread's ceiling, as its ELU. */
function clientShare(byIndex: Map<number, number>, m: Measurement, measuredSec: number): number {
  if (!byIndex.size || m.measureFrom === undefined || measuredSec <= 0) return 0;
  let ms = 0;
  for (let k = 0; k < Math.ceil(measuredSec); k++) ms += byIndex.get(m.measureFrom + k) ?? 0;
  return Math.min(1, ms / (measuredSec * 1000));
}

/**
 * What attribution needs of each second, by its index since the common start: the busiest thread's
 * CPU time (unknown where a thread reports none: not Linux) and the connections' busy time per answer.
 */
class PerSecond {
  private readonly byIndex = new Map<
    number,
    { maxCpuMs: number; cpuKnown: boolean; busyMs: number; requests: number }
  >();
  add(s: ThreadSecond): void {
    const at = this.byIndex.get(s.index) ?? { maxCpuMs: 0, cpuKnown: true, busyMs: 0, requests: 0 };
    at.maxCpuMs = Math.max(at.maxCpuMs, s.cpuMs);
    at.cpuKnown &&= s.cpuMs > 0;
    at.busyMs += s.busyMs;
    at.requests += s.requests;
    this.byIndex.set(s.index, at);
  }
  /** The measured seconds, in order. */
  measured(from: number | undefined, count: number): NonNullable<AttributionInput['perSecond']> {
    if (from === undefined) return [];
    return Array.from({ length: count }, (_, i) => {
      const at = this.byIndex.get(from + i);
      return {
        ...(at?.cpuKnown ? { maxThreadCpuMs: at.maxCpuMs } : {}),
        ...(at && at.requests > 0 ? { meanServiceMs: at.busyMs / at.requests } : {}),
      };
    });
  }
}

function toResult(
  plan: LoadPlan,
  m: Measurement,
  measuredSec: number,
  threadElu: number[],
  seconds = new PerSecond(),
): LoadResult {
  const t = m.totals;
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const secs = m.perSecondRps;
  const rate = (x: number): number => (measuredSec > 0 ? x / measuredSec : 0);
  const rpsMean = secs.length ? mean(secs) : rate(t.requests);
  const rpsStddev =
    secs.length > 1 ? Math.sqrt(secs.reduce((a, b) => a + (b - rpsMean) ** 2, 0) / (secs.length - 1)) : 0;
  const targetRate = plan.load.model === 'rate' ? plan.load.rate : undefined;
  const verdict = attribute({
    ...(targetRate ? { targetRate } : {}),
    connections: plan.load.connections,
    rpsMean,
    sentPerSec: rate(t.sent),
    ...(t.requests > 0 ? { meanServiceMs: t.busyMs / t.requests } : {}),
    threadElu,
    perSecond: seconds.measured(m.measureFrom, secs.length),
  });
  return {
    model: plan.load.model,
    connections: plan.load.connections,
    ...(targetRate ? { targetRate } : {}),
    measuredSec,
    requests: t.requests,
    bytes: t.bytes,
    rpsMean,
    rpsStddev,
    bytesPerSec: rate(t.bytes),
    latencyUs: summarize(m.latency),
    latencyFrom: plan.load.model === 'rate' ? 'intended-send' : 'send',
    statusCounts: t.statusCounts,
    ...(t.failureReasons && Object.keys(t.failureReasons).length ? { failureReasons: t.failureReasons } : {}),
    errors: t.errors,
    timeouts: t.timeouts,
    non2xx: t.non2xx,
    // The busiest thread: the one that would have set the pace.
    clientElu: threadElu.length ? Math.max(...threadElu) : 0,
    clientBound: verdict.clientBound,
    ...(verdict.clientBoundReason ? { clientBoundReason: verdict.clientBoundReason } : {}),
    perSecondRps: [...secs],
    perSecondGood: [...m.perSecondGood],
    perSecondBytes: [...m.perSecondBytes],
    goodputMean: m.perSecondGood.length ? mean(m.perSecondGood) : rate(t.good),
    warmupUsedSec: m.measureFrom ?? 0,
    threads: threadElu.length,
    ...(verdict.shortfallBy ? { shortfallBy: verdict.shortfallBy } : {}),
    ...(t.byReplica ? { replicaRequests: [...t.byReplica] } : {}),
    ...(t.byRoute ? { routes: routeResults(plan, m, measuredSec) } : {}),
  };
}

/** Each route of a mix over the measured seconds: its share of what was written, goodput and latency. */
function routeResults(plan: LoadPlan, m: Measurement, measuredSec: number): RouteResult[] {
  const { names, expected } = mixRoutes(plan.requests);
  const by = m.totals.byRoute ?? [];
  const sent = by.reduce((a, r) => a + r.sent, 0);
  return names.map((route, i) => {
    const r = by[i] ?? { sent: 0, requests: 0, good: 0 };
    const lat = summarize(m.routeLatency.byRoute[i] ?? newHistogram());
    return {
      route,
      sent: r.sent,
      share: sent > 0 ? r.sent / sent : 0,
      expectedShare: expected[i] ?? 0,
      requests: r.requests,
      good: r.good,
      goodputMean: measuredSec > 0 ? r.good / measuredSec : 0,
      p50Us: lat.p50,
      p99Us: lat.p99,
    };
  });
}
