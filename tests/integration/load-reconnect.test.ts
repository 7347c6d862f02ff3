// Every response is timed from its own request, even when connections are closed under the load,
// responses are slow and requests time out. A real server (a child process on 127.0.0.1) says in
// headers how long it took; real autocannon clients, instrumented exactly as the load threads do
// (client-timing.ts), must measure at least that and not much more, for every single response.
import { type ChildProcess, spawn } from 'node:child_process';
import { get } from 'node:http';
import autocannon from 'autocannon';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcClient, instrumentClient } from '../../src-main/load/client-timing.ts';
import { ConnectionSchedule } from '../../src-main/load/pacing.ts';
import { runLoad } from '../../src-main/load/runner.ts';

/** Delay of a slow response; an answer timed from an earlier request would be off by at least this much. */
const SLOW_MS = 300;
/**
 * Measured − server time allowed: an answer timed from the request before a slow one is off by SLOW_MS or more,
 * so anything under that proves the attribution; 50 ms short of it leaves room for the host's stalls.
 */
const SLACK_MS = SLOW_MS - 50;

// Request n: every 6th waits SLOW_MS, every 37th is never answered (the client times out).
// Connection c: c % 4 == 0 is destroyed right after its 2nd response (no "Connection: close": a quiet
// close), c % 4 == 1 answers its 3rd request with "Connection: close", c % 4 == 2 is destroyed while
// its 2nd request waits (a request lost in flight). Each response says how long the server took.
const SERVER = `
const http = require('http');
let seq = 0, conns = 0;
const stats = { delayed: 0, held: 0, quietCloses: 0, closeHeaders: 0, lostInFlight: 0, answered: 0 };
const server = http.createServer((req, res) => {
  if (req.url === '/stats') return res.end(JSON.stringify({ ...stats, connections: conns }));
  const t0 = process.hrtime.bigint();
  const n = ++seq;
  const s = req.socket;
  const k = ++s.reqs;
  if (n % 37 === 0) { stats.held++; return; }
  if (s.no % 4 === 2 && k === 2) { stats.lostInFlight++; return setTimeout(() => s.destroy(), 20); }
  const send = () => {
    res.setHeader('x-seq', String(n));
    res.setHeader('x-server-us', String(Number(process.hrtime.bigint() - t0) / 1000));
    stats.answered++;
    if (s.no % 4 === 0 && k === 2) { stats.quietCloses++; res.end('ok', () => s.destroy()); }
    else if (s.no % 4 === 1 && k === 3) { stats.closeHeaders++; res.setHeader('connection', 'close'); res.end('ok'); }
    else res.end('ok');
  };
  if (n % 6 === 0) { stats.delayed++; setTimeout(send, ${SLOW_MS}); } else send();
});
server.on('connection', (s) => { s.no = ++conns; s.reqs = 0; });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let server: ChildProcess | undefined;
afterEach(() => {
  server?.kill();
  server = undefined;
});

async function startServer(): Promise<number> {
  server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  return Number(await new Promise<string>((resolve, reject) => {
    server!.stdout!.once('data', (d) => resolve(String(d)));
    server!.once('exit', (code) => reject(new Error(`test server exited with ${code}`)));
  }));
}

interface ServerStats {
  delayed: number;
  held: number;
  quietCloses: number;
  closeHeaders: number;
  lostInFlight: number;
  answered: number;
  connections: number;
}

function serverStats(port: number): Promise<ServerStats> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/stats', agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(JSON.parse(body)));
    }).on('error', reject);
  });
}

interface Timed {
  seq: number;
  serverMs: number;
  latencyMs: number;
  serviceMs: number;
}

/** autocannon with our instrumentation, recording every response with the server's own timing. */
async function drive(port: number, model: 'closed' | 'rate', seconds: number) {
  const connections = 4;
  const rate = 40; // constant rate: each connection has a slot every 100 ms
  const timed: Timed[] = [];
  const failures = { errors: 0, timeouts: 0 };
  let headerless = 0;
  let stopped = false;
  let index = 0;
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    autocannon(
      {
        url: `http://127.0.0.1:${port}`,
        connections,
        pipelining: 1,
        duration: seconds,
        timeout: 1,
        requests: [{ method: 'GET', path: '/' }],
        setupClient: (raw: unknown) => {
          const client = raw as AcClient;
          let headers: string[] = [];
          client.on('headers', (info) => void (headers = (info as { headers?: string[] }).headers ?? []));
          const header = (name: string): number => {
            const i = headers.findIndex((h, j) => j % 2 === 0 && h.toLowerCase() === name);
            return i < 0 ? NaN : Number(headers[i + 1]);
          };
          instrumentClient(
            client,
            {
              opened: () => {},
              response: (_status, _bytes, latencyMs, serviceMs) => {
                const seq = header('x-seq');
                if (Number.isNaN(seq)) headerless++;
                else timed.push({ seq, serverMs: header('x-server-us') / 1000, latencyMs, serviceMs });
                headers = [];
              },
              failed: (kind, count) => void (failures[kind] += count),
              sent: () => {},
            },
            { stopped: () => stopped, ...(model === 'rate' ? { schedule: new ConnectionSchedule(t0, index++, connections, rate) } : {}) },
          );
        },
      },
      (err: Error | null) => (err ? reject(err) : resolve()),
    );
  });
  stopped = true;
  return { timed, failures, headerless, stats: await serverStats(port) };
}

function expectEachTimedFromItsOwnRequest(r: Awaited<ReturnType<typeof drive>>): void {
  const { timed, stats } = r;
  console.log(`${timed.length} responses, ${JSON.stringify(r.failures)}, server ${JSON.stringify(stats)}`);
  // The server did close connections every way, delay and hold requests: the hard paths ran.
  expect(stats.quietCloses).toBeGreaterThan(0);
  expect(stats.closeHeaders).toBeGreaterThan(0);
  expect(stats.lostInFlight).toBeGreaterThan(0);
  expect(stats.delayed).toBeGreaterThan(0);
  expect(stats.held).toBeGreaterThan(0);
  expect(r.headerless).toBe(0);
  // Each response timed once, and no more than the server answered.
  expect(new Set(timed.map((t) => t.seq)).size).toBe(timed.length);
  expect(timed.length).toBeLessThanOrEqual(stats.answered);
  expect(timed.length).toBeGreaterThan(stats.answered * 0.9); // the last few may still be on their way at the end
  for (const t of timed) {
    // The client's time includes the server's (it sent before the server saw the request, and read after it answered)...
    expect(t.serviceMs, `response ${t.seq}`).toBeGreaterThanOrEqual(t.serverMs);
    // ...and not another request's: an earlier start would add at least a whole response (≥ SLOW_MS after a slow one).
    expect(t.serviceMs - t.serverMs, `response ${t.seq}`).toBeLessThan(SLACK_MS);
    // Latency counts from the slot (rate) or the send (closed): never less than the service time.
    expect(t.latencyMs).toBeGreaterThanOrEqual(t.serviceMs);
  }
  // A slow answer is timed as slow (a timer may fire a millisecond early).
  expect(timed.filter((t) => t.seq % 6 === 0).every((t) => t.serviceMs > SLOW_MS - 5)).toBe(true);
  // Lost requests are failures: held ones time out, ones in flight on a destroyed connection are errors.
  expect(r.failures.timeouts).toBeGreaterThan(0);
  expect(r.failures.timeouts).toBeLessThanOrEqual(stats.held);
  expect(r.failures.errors).toBeGreaterThanOrEqual(1);
  expect(r.failures.errors).toBeLessThanOrEqual(stats.lostInFlight + stats.quietCloses);
}

describe('latency across reconnects, against a server that closes, delays and holds', () => {
  it('closed loop: every response is timed from its own send', async () => {
    const port = await startServer();
    expectEachTimedFromItsOwnRequest(await drive(port, 'closed', 4));
  });

  it('constant rate: every response is timed from its own slot, its service from its own send', async () => {
    const port = await startServer();
    const r = await drive(port, 'rate', 4);
    expectEachTimedFromItsOwnRequest(r);
    // Sent on its slot: latency = service; sent late behind a slow answer: latency counts from the slot.
    expect(r.timed.some((t) => t.latencyMs === t.serviceMs)).toBe(true);
    expect(r.timed.some((t) => t.latencyMs - t.serviceMs > 50)).toBe(true);
  });

  it('the load threads count the same failures and keep every second (2 threads, merged)', async () => {
    const port = await startServer();
    const seconds: number[] = [];
    const r = await runLoad(
      { host: '127.0.0.1', port, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 4 }, durationSec: 3, warmupSec: 1, timeoutSec: 1, threads: 2 },
      { onSecond: (s, warm) => !warm && seconds.push(s.requests) },
    );
    const stats = await serverStats(port);
    expect(r.threads).toBe(2);
    expect(r.perSecondRps).toEqual(seconds);
    expect(r.requests).toBe(seconds.reduce((a, b) => a + b, 0));
    expect(r.timeouts + r.errors).toBeGreaterThan(0);
    expect(r.requests).toBeLessThanOrEqual(stats.answered);
    // Latency never below the fast path, max bounded by the slow one plus slack: no response timed from another's start.
    expect(r.latencyUs.max).toBeLessThan((SLOW_MS + SLACK_MS) * 1000);
    expect(r.latencyUs.p99).toBeGreaterThanOrEqual(SLOW_MS * 1000);
  });
});
