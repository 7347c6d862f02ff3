// A replicated cell's load against two real servers (child processes on 127.0.0.1, no Docker): the
// load threads spread the connections over both, per connection, and count each one's responses;
// each server's own count says the counting is right. Closed loop and constant rate.
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';

/** Answers `/` after DELAY ms (argv) and counts it; `/count` says how many it answered (and is not counted). */
const SERVER = `
const http = require('http');
const delay = Number(process.argv[1]);
let n = 0;
const answer = (res) => (n++, res.end('ok'));
const server = http.createServer((req, res) =>
  req.url === '/count' ? res.end(String(n)) : delay ? setTimeout(() => answer(res), delay) : answer(res));
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;
/** Replica 1 answers at once, replica 2 after 4 ms: their shares differ, so a count given to the wrong one shows. */
const DELAYS = [0, 4];

const servers: ChildProcess[] = [];
const ports: number[] = [];
beforeAll(async () => {
  for (const delay of DELAYS) {
    const s = spawn(process.execPath, ['-e', SERVER, String(delay)], { stdio: ['ignore', 'pipe', 'inherit'] });
    servers.push(s);
    ports.push(Number(await new Promise<string>((resolve) => s.stdout!.once('data', (d) => resolve(String(d))))));
  }
});
afterAll(() => servers.forEach((s) => s.kill()));

const served = async (port: number): Promise<number> => Number(await (await fetch(`http://127.0.0.1:${port}/count`)).text());

const plan = (over: Partial<LoadPlan> & Pick<LoadPlan, 'load'>): LoadPlan => ({
  host: '127.0.0.1',
  port: ports[0]!,
  targets: ports.map((port) => ({ host: '127.0.0.1', port })),
  requests: [{ method: 'GET', path: '/' }],
  durationSec: 2,
  warmupSec: 0,
  timeoutSec: 10,
  ...over,
});

describe('load spread over replicas', () => {
  it('closed loop, 2 threads × 2 replicas: each replica’s responses counted as that server counts them', async () => {
    const before = await Promise.all(ports.map(served));
    const r = await runLoad(plan({ threads: 2, load: { model: 'closed', connections: 6 } }));
    const after = await Promise.all(ports.map(served));
    const byServer = after.map((n, i) => n - before[i]!);
    console.log(`replica responses measured ${r.replicaRequests?.join(' / ')}, served in all ${byServer.join(' / ')}`);
    expect(r.replicaRequests).toHaveLength(2);
    expect(r.replicaRequests!.reduce((a, b) => a + b, 0)).toBe(r.requests);
    // Each server also answered what came after the last measured second (until the threads stopped):
    // its count is an upper bound, and the measured shares are its shares.
    const servedAll = byServer[0]! + byServer[1]!;
    r.replicaRequests!.forEach((n, i) => {
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(byServer[i]!);
      expect(Math.abs(n / r.requests - byServer[i]! / servedAll)).toBeLessThan(0.03);
    });
    // The slow replica served far less with the same 3 connections: measured, not assumed even.
    expect(r.replicaRequests![1]! / r.requests).toBeLessThan(0.35);
  });

  it('constant rate over 2 replicas: each gets half of the rate', async () => {
    const r = await runLoad(plan({ threads: 1, load: { model: 'rate', rate: 400, connections: 4 } }));
    expect(r.rpsMean).toBeGreaterThan(360);
    const [a, b] = r.replicaRequests!;
    // The schedule gives connection c its slots whatever thread or replica it is on: 2 of 4 each.
    expect(Math.abs(a! - b!)).toBeLessThanOrEqual(4);
  });

  it('refuses fewer connections than replicas before any thread starts', async () => {
    await expect(runLoad(plan({ load: { model: 'closed', connections: 1 } }))).rejects.toThrow(
      '1 connection(s) cannot reach 2 replicas',
    );
  });
});
