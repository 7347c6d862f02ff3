// One load thread: autocannon's HTTP clients for this thread's share of the connections, our own
// timing (client-timing.ts), pacing and histograms. It runs in a worker thread so the process
// hosting the engine stays responsive, and it sends every whole second (counted from the start
// shared by all threads) to the engine, which merges the threads' seconds and decides where warmup
// ends. This thread knows nothing of warmup: it measures until told to stop.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';
import { type AcClient, instrumentClient, type TimingSink } from './client-timing.ts';
import { h2Connection } from './h2-client.ts';
import { h2loadLostWords, H2loadProcess } from './h2load-client.ts';
import { encodeHistogram, type LatencyHistogram, newHistogram, recordUs } from './histogram.ts';
import { ConnectionSchedule } from './pacing.ts';
import { addReason, failureReason } from '../common/failure-reason.ts';
import { compileMix, ConnectionMix, type Outgoing } from '../mix/connection.ts';
import { mixRoutes } from '../mix/routes.ts';
import type { RequestSpec } from '../model/requests.ts';
import type { ParentMessage, RouteSecond, ThreadPlan, ThreadSecond, ThreadTarget, WorkerMessage } from './protocol.ts';

// A thread spawned ahead has no plan yet: it waits for one (a 'plan' message), then says it is ready.
let plan = workerData as ThreadPlan;
const post = (m: WorkerMessage): void => parentPort!.postMessage(m);

/** Pins this thread (not the whole process) to its cores: Linux threads have their own affinity. */
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

/**
 * This thread's CPU time so far (ms): utime + stime of /proc/thread-self/stat, in USER_HZ ticks
 * (100 a second on Linux whatever the kernel's HZ). Elsewhere 0: nothing per thread to read on Node 20.
 */
function threadCpuMs(): number {
  try {
    const stat = readFileSync('/proc/thread-self/stat', 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

const histogram = newHistogram();
/** A mix of several routes: a histogram per route besides the thread's (created with the plan). */
let routeHistograms: LatencyHistogram[] = [];
let cpuAt = threadCpuMs();
/** h2load's CPU so far (ms), where it sends this thread's load: counted with the thread's own. */
let clientCpuMs = (): number => 0;
let clientCpuAt = 0;
/** Reads h2load's answers so far into the sink (before a second is closed); nothing with the other clients. */
let drainClient = (): void => {};
let t0 = 0; // the common start, on this thread's performance.now() clock
let index = 0; // the second being filled
let nextBoundary = Infinity;
let cur = fresh();
let stopped = false;
let started = false;
let flushTimer: ReturnType<typeof setTimeout> | undefined;
const clients: { destroy(): void }[] = [];

function fresh(): Omit<ThreadSecond, 'index' | 'histogram' | 'cpuMs'> {
  const counts = { requests: 0, good: 0, bytes: 0, errors: 0, timeouts: 0, non2xx: 0, sent: 0, busyMs: 0, opened: 0 };
  const failureReasons: Record<string, number> = {};
  // A replicated cell counts each replica's responses (0 until its plan arrives: a spare thread has none yet).
  const replicas = plan?.replicas ?? 0;
  const byRoute = routeHistograms.map((): RouteSecond => ({ sent: 0, requests: 0, good: 0, histogram: '' }));
  return {
    ...counts,
    resumed: 0,
    statusCounts: {},
    failureReasons,
    ...(replicas ? { byReplica: new Array<number>(replicas).fill(0) } : {}),
    ...(byRoute.length ? { byRoute } : {}),
  };
}

function take(): ThreadSecond {
  const client = clientCpuMs();
  const cpu = threadCpuMs() + client;
  const s: ThreadSecond = { index, ...cur, cpuMs: cpu - cpuAt, histogram: encodeHistogram(histogram) };
  if (plan?.h2load) s.clientCpuMs = client - clientCpuAt;
  cpuAt = cpu;
  clientCpuAt = client;
  histogram.reset();
  cur.byRoute?.forEach((r, i) => {
    const h = routeHistograms[i]!;
    if (r.requests) r.histogram = encodeHistogram(h);
    h.reset();
  });
  cur = fresh();
  return s;
}

/** Sends every whole second that ended by `now`, empty ones included (a stalled server shows as zeros). */
function flushUntil(now: number): void {
  while (now >= nextBoundary) {
    post({ type: 'second', second: take() });
    index++;
    nextBoundary = t0 + (index + 1) * 1000;
  }
}

/** A second also ends when nothing arrives: wake at each boundary (a millisecond after it). */
function armFlush(): void {
  flushTimer = setTimeout(
    () => {
      drainClient();
      flushUntil(performance.now());
      if (!stopped) armFlush();
    },
    Math.max(0, nextBoundary - performance.now()) + 1,
  );
}

/**
 * Set by the mix's judgement of each answer, which autocannon asks (recordBody) synchronously just before the same
 * client's 'response' event: why that one response does not count as good (undefined: it does).
 */
let verdict: string | undefined;

/** Where a response, a failure or a send is counted; `replica`: the replica whose client it was, if replicated. */
const sinkFor = (replica: number | undefined): TimingSink => ({
  response(status: number, bytes: number, latencyMs: number, serviceMs: number, now: number, route: number): void {
    if (now >= nextBoundary) flushUntil(now);
    if (replica !== undefined && cur.byReplica) cur.byReplica[replica] = (cur.byReplica[replica] ?? 0) + 1;
    const ok = verdict === undefined;
    if (!ok) addReason(cur.failureReasons!, verdict!);
    verdict = undefined;
    recordUs(histogram, latencyMs * 1000);
    const r = cur.byRoute?.[route];
    if (r) {
      r.requests++;
      if (ok) r.good++;
      recordUs(routeHistograms[route]!, latencyMs * 1000);
    }
    cur.requests++;
    cur.bytes += bytes;
    cur.busyMs += serviceMs;
    if (ok) cur.good++;
    else cur.non2xx++;
    cur.statusCounts[status] = (cur.statusCounts[status] ?? 0) + 1;
  },
  failed(kind: 'errors' | 'timeouts', count: number, busyMs: number, now: number): void {
    if (now >= nextBoundary) flushUntil(now);
    cur[kind] += count;
    cur.busyMs += busyMs;
  },
  sent(route: number): void {
    cur.sent++; // into the second being filled: a send right after a boundary may count a second early
    const r = cur.byRoute?.[route];
    if (r) r.sent++;
  },
  opened(now: number, resumed = false): void {
    if (now >= nextBoundary) flushUntil(now);
    cur.opened++;
    if (resumed) cur.resumed = (cur.resumed ?? 0) + 1;
  },
});

function start(t0Epoch: number): void {
  started = true;
  t0 = t0Epoch - performance.timeOrigin;
  cpuAt = threadCpuMs();
  nextBoundary = t0 + 1000;
  cur = fresh(); // with this plan's replicas
  // One client set per replica this thread reaches (autocannon takes one URL); a single target: one set.
  const first = plan.firstConnection;
  const sets: ThreadTarget[] = plan.targets ?? [
    {
      host: plan.host,
      port: plan.port,
      replica: -1,
      connections: [...Array(plan.connections).keys()].map((i) => first + i),
    },
  ];
  for (const set of sets) clientsFor(set);
  armFlush();
}

/** autocannon for one replica's connections (or the one target's): each client keeps its connection's global index. */
function clientsFor(set: ThreadTarget): void {
  const sink = sinkFor(set.replica >= 0 ? set.replica : undefined);
  const host = `${set.host}:${set.port}`; // the Host header, as autocannon writes it
  const mix = compileMix(
    {
      entries: plan.requests,
      ...(plan.csv ? { csv: plan.csv } : {}),
      ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
    },
    host,
  );
  if (plan.protocol && plan.h2load) return h2loadFor(plan.h2load, set, sink);
  if (plan.protocol) return h2ClientsFor(set, sink, mix);
  let next = 0;
  autocannon(
    {
      // autocannon's TLS client never verifies the certificate and offers no session (a full handshake each)
      // unless tlsResume: instrumentClient then offers the client's last one.
      url: `${plan.tls ? 'https' : 'http'}://${set.host}:${set.port}`,
      connections: set.connections.length,
      pipelining: 1,
      duration: plan.maxSec,
      timeout: plan.timeoutSec,
      requests: [{ method: 'GET', path: '/' }], // never sent: setupClient puts the mix in place of autocannon's list
      setupClient: (raw: unknown) => {
        const client = raw as AcClient;
        clients.push(client);
        const index = set.connections[next++]!;
        useMix(client, new ConnectionMix(mix, index, plan.totalConnections));
        const schedule =
          plan.model === 'rate' ? new ConnectionSchedule(t0, index, plan.totalConnections, plan.rate!) : undefined;
        const resume = plan.tlsResume ? { resume: true } : {};
        instrumentClient(client, sink, { stopped: () => stopped, ...resume, ...(schedule ? { schedule } : {}) });
      },
    },
    (err: Error | null) => {
      if (err) post({ type: 'error', message: err.message });
      else if (!stopped) finish(); // its safety duration ran out before the engine said stop
    },
  );
}

/** HTTP/2: one session per connection (h2-client.ts), fed by the connection's mix and counted in the same sink. */
function h2ClientsFor(set: ThreadTarget, sink: TimingSink, mix: ReturnType<typeof compileMix>): void {
  setTimeout(() => stopped || finish(), plan.maxSec * 1000).unref(); // as autocannon's own duration does
  for (const index of set.connections) {
    const m = new ConnectionMix(mix, index, plan.totalConnections);
    const schedule =
      plan.model === 'rate' ? new ConnectionSchedule(t0, index, plan.totalConnections, plan.rate!) : undefined;
    clients.push(
      h2Connection(sink, {
        origin: `${plan.protocol === 'h2' ? 'https' : 'http'}://${set.host}:${set.port}`,
        streams: plan.streams ?? 1,
        ...(plan.tlsResume ? { resume: true } : {}),
        timeoutMs: plan.timeoutSec * 1000,
        next: () => m.next(),
        judge: (o, status, body, raw) => (verdict = m.answered(o, status, body, raw)),
        ...(schedule ? { schedule } : {}),
        stopped: () => stopped,
      }),
    );
  }
}

/**
 * HTTP/2 from h2load: its log's answers, each second, into the same sink; its sends counted as it answers them (it
 * logs only answers), its bytes as it read them from its sockets, shared among the second's answers. It has no
 * timeout per request (its -N aborts here), so only a whole thread's silence counts as timeouts.
 */
/** Its log is read once a second, at the boundary: a silence that ends just short of the timeout is one. */
const SILENCE_SLACK_MS = 100;

function h2loadFor(binary: string, set: ThreadTarget, sink: TimingSink): void {
  const request = plan.requests[0] as RequestSpec;
  const p = new H2loadProcess(binary, {
    origin: `${plan.protocol === 'h2' ? 'https' : 'http'}://${set.host}:${set.port}`,
    request,
    connections: set.connections.length,
    streams: plan.streams ?? 1,
    maxSec: plan.maxSec,
    ...(plan.cpus ? { cpus: plan.cpus } : {}),
  });
  clients.push(p);
  clientCpuMs = () => p.usage().cpuMs;
  clientCpuAt = 0;
  cpuAt = threadCpuMs();
  let bytesAt = 0;
  let opened = false;
  const inFlight = set.connections.length * (plan.streams ?? 1);
  let heardAt = performance.now();
  drainClient = () => {
    const answers = p.drain();
    // h2load never gives a request up: with no answer for the timeout, its streams count as timed out, each period.
    const now = performance.now();
    if (answers.length) heardAt = now;
    else if (now - heardAt >= plan.timeoutSec * 1000 - SILENCE_SLACK_MS) {
      sink.failed('timeouts', inFlight, inFlight * (now - heardAt), now);
      heardAt = now;
    }
    const { bytes } = p.usage();
    // Whole bytes each, the remainder with the first: the second's total is what the sockets gave.
    const each = answers.length ? Math.floor((bytes - bytesAt) / answers.length) : 0;
    let extra = answers.length ? bytes - bytesAt - each * answers.length : 0;
    if (answers.length) bytesAt = bytes;
    for (const a of answers) {
      const now = a.endMs - performance.timeOrigin;
      // h2load opens every connection at its start and keeps it: one handshake each, before its first answers.
      if (!opened) for (const _ of set.connections) sink.opened(now);
      opened = true;
      sink.sent(0);
      if (a.status < 0) {
        sink.failed('errors', 1, a.durationMs, now);
        continue;
      }
      const ok = request.status !== undefined ? a.status === request.status : a.status >= 200 && a.status < 300;
      verdict = ok ? undefined : failureReason(a.status, '');
      sink.response(a.status, each + extra, a.durationMs, a.durationMs, now, 0);
      extra = 0;
    }
    // A connection the server closed is not opened again by h2load: the load asked for is no longer sent.
    const open = opened ? p.openConnections() : undefined;
    if (open !== undefined && open < set.connections.length && !stopped) {
      const lost = set.connections.length - open;
      post({ type: 'error', message: h2loadLostWords(lost, set.connections.length) });
      return;
    }
    const ended = p.ended();
    if (ended && !stopped) {
      if (ended.code === 0)
        finish(); // its safety duration ran out before the engine said stop
      else post({ type: 'error', message: ended.words });
    }
  };
}

/** The client sends what the connection's mix says, and the mix judges each answer (autocannon's iterator replaced). */
function useMix(client: AcClient, m: ConnectionMix): void {
  const iterator = {
    currentRequest: m.next(),
    resetted: false,
    nextRequest(): Outgoing {
      return (iterator.currentRequest = m.next());
    },
    recordBody(req: Outgoing | undefined, status: number, body: string, rawHeaders: string[] | undefined): void {
      verdict = req ? m.answered(req, status, body, rawHeaders ?? []) : undefined;
    },
  };
  client.requestIterator = iterator;
}

function finish(): void {
  if (stopped) return;
  stopped = true;
  if (flushTimer) clearTimeout(flushTimer);
  if (started) drainClient();
  if (started) flushUntil(performance.now());
  post({ type: 'final', partial: take() });
  for (const c of clients) c.destroy(); // autocannon notices at its next tick; the engine does not wait for it
}

const planned = (p: ThreadPlan): void => {
  plan = p;
  const routes = mixRoutes(p.requests).names;
  routeHistograms = routes.length > 1 ? routes.map(() => newHistogram()) : [];
  post({ type: 'ready', pinned: pin(p.cpus), ...(p.protocol ? { h2Client: p.h2load ? 'h2load' : 'node' } : {}) });
};
if (plan) planned(plan);
parentPort!.on('message', (m: ParentMessage) => {
  if (m.type === 'plan' && !started) planned(m.plan);
  else if (m.type === 'start' && !started && !stopped) start(m.t0);
  else if (m.type === 'stop') finish();
  else if (m.type === 'exit') leave();
});

/** The engine has what it needs: no last second to send; the connections go and so does the thread, at a safe point. */
function leave(): void {
  stopped = true;
  if (flushTimer) clearTimeout(flushTimer);
  for (const c of clients) c.destroy();
  // h2load, killed just now, is waited for (a few ms) so that it does not stay a zombie of the engine's process.
  const children = clients.flatMap((c) => (c instanceof H2loadProcess ? [c.gone] : []));
  const exit = (): never => process.exit(0);
  if (!children.length) exit();
  void Promise.race([Promise.all(children), new Promise((r) => setTimeout(r, 1000))]).then(exit);
}
