// runLoad's load threads against a real server (a child process on 127.0.0.1): adaptive warmup
// through the thread boundary, constant rate shared by two threads, and a missed rate blamed on
// the side that caused it.
import { type ChildProcess, spawn } from 'node:child_process';
import dc from 'node:diagnostics_channel';
import type { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadSecond } from '../../src-main/model/types.ts';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';

/** `/` answers at once, `/slow` after SLOW_MS. */
const SLOW_MS = 20;
const SERVER = `
const http = require('http');
const server = http.createServer((req, res) => req.url === '/slow' ? setTimeout(() => res.end('slow'), ${SLOW_MS}) : res.end('ok'));
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let server: ChildProcess;
let port = 0;
beforeAll(async () => {
  server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  port = Number(await new Promise<string>((resolve) => server.stdout!.once('data', (d) => resolve(String(d)))));
});
afterAll(() => void server?.kill());

const plan = (over: Partial<LoadPlan> & Pick<LoadPlan, 'load'>): LoadPlan => ({
  host: '127.0.0.1', port, requests: [{ method: 'GET', path: '/' }], durationSec: 2, warmupSec: 1, timeoutSec: 10, ...over,
});

describe('load threads', () => {
  it('adaptive warmup: isWarm decides after the minimum and a window; the steady seconds are measured, on every thread alike', async () => {
    const asked: number[][] = [];
    const seen: [number, boolean, number | undefined][] = [];
    const measured: LoadSecond[] = [];
    const r = await runLoad(plan({ threads: 2, warmupSec: 1, maxWarmupSec: 5, load: { model: 'closed', connections: 4 } }), {
      isWarm: (rps) => (asked.push(rps), rps.length === 4), // steady as the fourth warm-up second ends
      onSecond: (s, warm) => (seen.push([s.t, warm, s.wasWarmup]), !warm && measured.push(s)),
    });
    expect(asked.map((a) => a.length)).toEqual([4]); // first asked after the minimum (1 s) and a 3 s window
    expect(asked[0]!.every((x) => x > 0)).toBe(true);
    // Seconds 1–3 were the steady window: measurement starts at 1, and its 2 s are seconds 1 and 2, reported again.
    expect(seen).toEqual([[-1, true, undefined], [0, true, undefined], [1, true, undefined], [2, true, undefined], [0, false, 1], [1, false, 2]]);
    expect(r.warmupUsedSec).toBe(1);
    expect(r.threads).toBe(2);
    expect(r.measuredSec).toBe(2);
    expect(r.perSecondRps).toEqual(measured.map((s) => s.requests));
    expect(r.perSecondGood).toEqual(r.perSecondRps); // all 200
    expect(r.goodputMean).toBe(r.rpsMean);
    expect(r.requests).toBe(measured.reduce((a, s) => a + s.requests, 0));
    expect(r.statusCounts['200']).toBe(r.requests);
  });

  it('each load thread ends itself when the load is over (exit code 0), never terminated mid-work', async () => {
    // A thread terminated from outside while hdr-histogram-js deflates its histogram (node:zlib) aborts the whole
    // process ("close before init"); terminate() exits a thread with code 1, a thread that leaves by itself with 0.
    const exits: Promise<number>[] = [];
    const onWorker = ({ worker }: { worker: Worker }): void => void exits.push(new Promise((r) => worker.once('exit', r)));
    dc.subscribe('worker_threads', onWorker as (m: unknown) => void);
    try {
      for (const durationSec of [1, 2]) await runLoad(plan({ threads: 2, warmupSec: 0, durationSec, load: { model: 'closed', connections: 4 } }));
      const codes = await Promise.all(exits.slice(0, 4)); // the two loads' threads (spares are spawned only when asked)
      expect(codes).toEqual([0, 0, 0, 0]);
    } finally {
      dc.unsubscribe('worker_threads', onWorker as (m: unknown) => void);
    }
  });

  it('the warmup cap ends a warmup that never settles', async () => {
    const r = await runLoad(plan({ threads: 2, warmupSec: 1, maxWarmupSec: 2, durationSec: 1, load: { model: 'closed', connections: 2 } }), { isWarm: () => false });
    expect(r.warmupUsedSec).toBe(2);
    expect(r.perSecondRps).toHaveLength(1);
  });

  it('constant rate shared by two threads delivers the whole rate', async () => {
    const r = await runLoad(plan({ threads: 2, durationSec: 3, load: { model: 'rate', rate: 1000, connections: 10 } }));
    console.log(`2 threads at 1000 req/s: ${r.rpsMean} req/s, p50 ${r.latencyUs.p50} µs, ELU ${r.clientElu.toFixed(2)}`);
    expect(r.threads).toBe(2);
    // The schedule is exact (3,000 slots in 3 s); only the responses of the last few ms can straddle a boundary.
    expect(Math.abs(r.requests - 3000)).toBeLessThan(3000 * 0.05);
    expect(r.shortfallBy).toBeUndefined();
    expect(r.clientBound).toBe(false);
  });

  it('a rate the connections cannot carry at the server\'s latency is the server\'s shortfall, not the client\'s', async () => {
    // 2 connections × (1000 / 20 ms) = at most 100 req/s; 1,000 asked.
    const r = await runLoad(plan({ requests: [{ method: 'GET', path: '/slow' }], load: { model: 'rate', rate: 1000, connections: 2 } }));
    expect(r.rpsMean).toBeLessThan(120);
    expect(r.shortfallBy).toBe('server');
    expect(r.clientBound).toBe(false);
    expect(r.clientBoundReason).toBeUndefined();
  });

  it('bad thread counts are refused before anything starts', async () => {
    await expect(runLoad(plan({ threads: 0, load: { model: 'closed', connections: 2 } }))).rejects.toThrow(/at least 1/);
  });
});
