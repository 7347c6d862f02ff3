// The load generator thread: autocannon's HTTP clients, our own pacing and our own histograms.
// It runs in a worker thread so the process hosting the engine (later Electron's main process)
// stays responsive, and it reports every second because autocannon's `workers` mode reports nothing.
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { newHistogram, recordUs, summarize } from './histogram.ts';
import { ConnectionSchedule } from './pacing.ts';
import type { ParentMessage, WorkerMessage, WorkerPlan } from './protocol.ts';
import type { LoadSecond } from '../engine/types.ts';

/** The bits of autocannon's per-connection Client we hook into (it is an EventEmitter). */
interface AcClient {
  on(event: 'response', fn: (status: number, bytes: number, ms: number) => void): void;
  on(event: 'timeout' | 'connError' | 'mismatch', fn: () => void): void;
  _doRequest: () => void;
  destroyed?: boolean;
}

const plan = workerData as WorkerPlan;
const post = (m: WorkerMessage): void => parentPort!.postMessage(m);

/** Pins this thread (not the whole process) to the load cores: Linux threads have their own affinity. */
function pin(cpus: string | undefined): string | null {
  if (!cpus || process.platform !== 'linux') return null;
  try {
    const tid = readlinkSync('/proc/thread-self').split('/').pop()!;
    execFileSync('taskset', ['-p', '-c', cpus, tid], { stdio: 'ignore' });
    return cpus;
  } catch {
    return null; // no taskset: unpinned, the placement warning already says results may be noisier
  }
}

const pinned = pin(plan.cpus);
const t0 = performance.now();
const warmupEnd = t0 + plan.warmupSec * 1000;
const measureEnd = warmupEnd + plan.durationSec * 1000;
const total = newHistogram();
const second = newHistogram();
let window = 0; // index of the second being filled
let cur = { requests: 0, bytes: 0, errors: 0, timeouts: 0, non2xx: 0 };
const totals = { requests: 0, bytes: 0, errors: 0, timeouts: 0, non2xx: 0, statusCounts: {} as Record<string, number> };
const perSecondRps: number[] = [];
let stopped = false;

/** Closes every whole second up to `now`, including empty ones (a stalled server shows as zeros). */
function flushUntil(now: number): void {
  const idx = Math.floor((now - t0) / 1000);
  while (window < idx) {
    const warm = window < plan.warmupSec;
    const lat = summarize(second);
    const s: LoadSecond = {
      t: window - plan.warmupSec,
      ...cur,
      p50Us: lat.p50,
      p90Us: lat.p90,
      p99Us: lat.p99,
      maxUs: lat.max,
    };
    if (!warm) perSecondRps.push(cur.requests);
    post({ type: 'second', second: s, warmup: warm });
    if (window + 1 === plan.warmupSec) post({ type: 'measuring' });
    second.reset();
    cur = { requests: 0, bytes: 0, errors: 0, timeouts: 0, non2xx: 0 };
    window++;
  }
}

/**
 * Set by a request's own onResponse hook (requests with an expected status), which autocannon calls
 * synchronously just before the same client's 'response' event: the verdict for that one response.
 */
let expected: boolean | undefined;

function onResponse(status: number, bytes: number, latencyUs: number): void {
  const now = performance.now();
  flushUntil(now);
  const ok = expected ?? (status >= 200 && status < 300);
  expected = undefined;
  recordUs(second, latencyUs);
  cur.requests++;
  cur.bytes += bytes;
  if (!ok) cur.non2xx++;
  if (now < warmupEnd || now >= measureEnd) return; // autocannon stops a few ms after its timer
  recordUs(total, latencyUs);
  totals.requests++;
  totals.bytes += bytes;
  if (!ok) totals.non2xx++;
  totals.statusCounts[status] = (totals.statusCounts[status] ?? 0) + 1;
}

function onFailure(kind: 'errors' | 'timeouts'): void {
  const now = performance.now();
  flushUntil(now);
  cur[kind]++;
  if (now >= warmupEnd && now < measureEnd) totals[kind]++;
}

let clients = 0;
function setupClient(raw: unknown): void {
  const client = raw as AcClient;
  client.on('timeout', () => onFailure('timeouts'));
  client.on('connError', () => onFailure('errors'));
  client.on('mismatch', () => onFailure('errors'));
  if (plan.load.model === 'closed') {
    client.on('response', (status, bytes, ms) => onResponse(status, bytes, ms * 1000));
    return;
  }
  // Constant rate: replace the client's "send the next request now" with "send it at its slot".
  const schedule = new ConnectionSchedule(t0, clients++, plan.load.connections, plan.load.rate);
  const starts: number[] = []; // latency origin per request in flight (one with pipelining 1)
  const send = client._doRequest.bind(client);
  client._doRequest = () => {
    if (stopped) return;
    const { delayMs, due } = schedule.next(performance.now());
    if (delayMs === 0) {
      starts.push(due); // late: the connection was busy past the slot, count the wait
      send();
    } else {
      setTimeout(() => {
        if (stopped || client.destroyed) return;
        starts.push(performance.now());
        send();
      }, delayMs);
    }
  };
  client.on('response', (status, bytes) => onResponse(status, bytes, (performance.now() - (starts.shift() ?? performance.now())) * 1000));
  const lost = (): void => void starts.splice(0); // autocannon drops in-flight requests on reconnect
  client.on('timeout', lost);
  client.on('connError', lost);
}

const instance = autocannon(
  {
    url: `http://${plan.host}:${plan.port}`,
    connections: plan.load.connections,
    pipelining: 1,
    duration: plan.warmupSec + plan.durationSec,
    timeout: plan.timeoutSec,
    requests: plan.requests.map((r) => ({
      method: r.method,
      path: r.path,
      headers: r.headers,
      body: r.body,
      ...(r.status !== undefined ? { onResponse: (status: number) => void (expected = status === r.status) } : {}),
    })),
    setupClient,
  },
  (err: Error | null) => {
    stopped = true;
    if (err) return post({ type: 'error', message: err.message });
    const end = Math.min(performance.now(), measureEnd);
    flushUntil(end + 1); // emit the last whole second (duration ends on a second boundary)
    post({
      type: 'done',
      totals: {
        measuredSec: Math.max(0, (end - warmupEnd) / 1000),
        ...totals,
        perSecondRps,
        latencyUs: summarize(total),
        pinned,
      },
    });
  },
);

// autocannon's tick fires every second; use it to close seconds in which no response arrived.
instance.on('tick', () => flushUntil(performance.now()));
parentPort!.on('message', (m: ParentMessage) => {
  if (m.type === 'stop') {
    stopped = true;
    instance.stop();
  }
});
