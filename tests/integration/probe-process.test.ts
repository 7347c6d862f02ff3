// The runtime probe in real Node.js processes on this machine (no Docker): a single server, the
// cluster launcher with 2 workers, a CPU-bound loop and an allocation-heavy script, each started with
// NODE_OPTIONS=--require probe.js as a cell starts them, its stdout read as the engine reads a log.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProbeReport } from '../../src-main/model/probe.ts';
import { parseProbeLog } from '../../src-main/probe/parse.ts';

const ROOT = path.resolve(__dirname, '../..');
const PROBE = path.join(ROOT, 'resources/base-image/launchers/probe.js');
const CLUSTER = path.join(ROOT, 'resources/base-image/launchers/cluster.js');
const HELLO = path.join(ROOT, 'apps/hello/server.js');
const FIXTURES = path.join(ROOT, 'tests/fixtures/probe');

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Starts `args` under the probe; `out()` is everything it printed so far. */
function start(args: string[], env: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  let out = '';
  const child = spawn(process.execPath, args, {
    env: { ...process.env, NODE_OPTIONS: `--require ${PROBE}`, RIGHTSIZE_PROBE_PID: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return { child, out: () => out };
}

const exited = (c: ChildProcess): Promise<number | null> =>
  c.exitCode !== null ? Promise.resolve(c.exitCode) : new Promise((r) => c.once('exit', (code) => r(code)));

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `n` GET requests, 4 at a time. */
async function load(port: number, n: number): Promise<void> {
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/' }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  for (let i = 0; i < n; i += 4) await Promise.all([one(), one(), one(), one()]);
}

const byPid = (reports: ProbeReport[]): Map<number, ProbeReport[]> => {
  const m = new Map<number, ProbeReport[]>();
  for (const r of reports) m.set(r.pid, [...(m.get(r.pid) ?? []), r]);
  return m;
};

/** One record per process per wall-clock second, and numbers a live Node.js process can have. */
function expectPlausible(list: ProbeReport[]): void {
  const seconds = list.map((r) => Math.floor(r.at / 1000));
  expect(new Set(seconds).size).toBe(seconds.length);
  for (const r of list) {
    expect(r.elu).toBeGreaterThanOrEqual(0);
    expect(r.elu).toBeLessThanOrEqual(1);
    expect(r.heapUsedBytes).toBeGreaterThan(1e6);
    expect(r.heapTotalBytes).toBeGreaterThanOrEqual(r.heapUsedBytes);
    expect(r.heapLimitBytes).toBeGreaterThan(r.heapTotalBytes);
    expect(r.rssBytes).toBeGreaterThan(r.heapUsedBytes);
    expect(r.delayMaxMs).toBeGreaterThanOrEqual(r.delayP99Ms);
    expect(r.delayP99Ms).toBeGreaterThanOrEqual(r.delayP50Ms);
    expect(r.activeResources).toBeGreaterThanOrEqual(1); // the server's listening socket at least
    if (process.platform === 'linux') expect(r.voluntaryCtxSwitches).toBeGreaterThanOrEqual(0);
  }
}

describe('the runtime probe in real processes', () => {
  it('reports a single server once a second, with its role and pid', async () => {
    const port = await freePort();
    const { child, out } = start([HELLO], { PORT: String(port), HOST: '127.0.0.1' });
    await until(() => out().includes('rightsize:probe '), 5000);
    await load(port, 400);
    await until(() => parseProbeLog(out()).reports.length >= 3, 5000);
    child.kill('SIGTERM');
    await exited(child);
    const { reports, off } = parseProbeLog(out());
    expect(off.size).toBe(0);
    expect([...byPid(reports).keys()]).toEqual([child.pid]);
    expect(reports.every((r) => r.role === 'single' && r.ppid === process.pid)).toBe(true);
    expectPlausible(reports);
  }, 20_000);

  it('reports the cluster primary and each of its 2 workers, each with its own pid', async () => {
    const port = await freePort();
    const { child, out } = start([CLUSTER], {
      RS_ENTRY: HELLO,
      RS_WORKERS: '2',
      PORT: String(port),
      HOST: '127.0.0.1',
    });
    await until(() => out().includes('rightsize:workers-listening'), 10_000);
    await load(port, 400);
    await until(() => byPid(parseProbeLog(out()).reports).size === 3, 5000);
    await until(() => [...byPid(parseProbeLog(out()).reports).values()].every((l) => l.length >= 3), 6000);
    child.kill('SIGTERM');
    await exited(child);
    const processes = byPid(parseProbeLog(out()).reports);
    expect(processes.size).toBe(3);
    const primary = [...processes.values()].find((l) => l[0]!.role === 'primary')!;
    const workers = [...processes.values()].filter((l) => l[0]!.role === 'worker');
    expect(primary[0]!.pid).toBe(child.pid);
    expect(workers).toHaveLength(2);
    for (const w of workers) {
      expect(w.every((r) => r.ppid === child.pid && r.role === 'worker')).toBe(true);
      expectPlausible(w);
    }
    // The workers served the requests: their event loops did some work.
    expect(workers.some((w) => w.some((r) => r.elu > 0.01))).toBe(true);
  }, 30_000);

  it('shows a CPU-bound loop as a busy event loop (ELU above 0.8) and lets it exit', async () => {
    const { child, out } = start([path.join(FIXTURES, 'cpu-bound.js')], { RS_SECONDS: '3.5' });
    expect(await exited(child)).toBe(0);
    const { reports } = parseProbeLog(out());
    // Every whole second inside the loop's time (the first one is short and starts before it).
    const whole = reports.filter((r) => (r.ms ?? 0) >= 900);
    expect(whole.length).toBeGreaterThanOrEqual(2);
    for (const r of whole) expect(r.elu).toBeGreaterThan(0.8);
  }, 20_000);

  it('shows an allocation-heavy script spending time in garbage collection', async () => {
    const { child, out } = start([path.join(FIXTURES, 'alloc-heavy.js')], { RS_SECONDS: '2.5' });
    expect(await exited(child)).toBe(0);
    const { reports } = parseProbeLog(out());
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports.reduce((a, r) => a + r.gcMs, 0)).toBeGreaterThan(0);
    expect(reports.reduce((a, r) => a + r.gcCounts.scavenge, 0)).toBeGreaterThan(0);
    for (const r of reports) expect(r.gcMaxPauseMs).toBeLessThanOrEqual(r.gcMs + 1e-9);
  }, 20_000);

  it('listens for GC pauses in a short window at the start of each second, sized to hear about one', async () => {
    const { child, out } = start([path.join(FIXTURES, 'alloc-heavy.js')], { RS_SECONDS: '3.5' });
    expect(await exited(child)).toBe(0);
    const whole = parseProbeLog(out()).reports.filter((r) => (r.ms ?? 0) >= 900);
    expect(whole.length).toBeGreaterThanOrEqual(2);
    for (const r of whole) {
      const heard = Object.values(r.gcCounts).reduce((a, b) => a + b, 0);
      expect(heard).toBeLessThanOrEqual(3);
      // A timer closes the window: 20–200 ms as the pause rate heard so far sizes it, or later by what
      // the loop was busy with then (one allocation slice here); 3 pauses close it early. Never the whole second.
      if (heard < 3) expect(r.gcWindowMs).toBeGreaterThanOrEqual(20);
      expect(r.gcWindowMs).toBeLessThan(800);
      expect(r.gcMs).toBeLessThanOrEqual(r.gcWindowMs! + r.gcMaxPauseMs);
    }
    // This script collects dozens of times a second: once that rate is heard, the window shrinks
    // below the first second's 200 ms (measured here: 36–75 ms), so each pause it hears costs less.
    expect(Math.max(...whole.map((r) => r.gcWindowMs!))).toBeLessThan(200);
  }, 20_000);

  // A server under load runs Node's timer code on every request, optimized for its own timers: a
  // probe timer firing there deoptimized it (BENCHMARKS.md, probe). The count shows that the probe's
  // timers stay out of it, and, on a runtime without Atomics.waitAsync, that the count sees them.
  it("keeps its timers out of Node's timers module, where the app's own run", async () => {
    const run = async (env: Record<string, string>): Promise<{ calls: number; reports: number }> => {
      const { child, out } = start([path.join(FIXTURES, 'cpu-bound.js')], {
        RS_SECONDS: '2.5',
        NODE_OPTIONS: `--require ${path.join(FIXTURES, 'count-timers.js')} --require ${PROBE}`,
        ...env,
      });
      expect(await exited(child)).toBe(0);
      expect(out()).not.toContain('probe-off');
      const calls = /timer-calls (\d+)/.exec(out());
      expect(calls).not.toBeNull();
      return { calls: Number(calls![1]), reports: parseProbeLog(out()).reports.length };
    };
    const native = await run({});
    expect(native.reports).toBeGreaterThanOrEqual(2);
    expect(native.calls).toBe(0);
    // Without it, each second's report and each GC window take a setTimeout: the fallback still reports.
    const fallback = await run({ RS_NO_WAIT_ASYNC: '1' });
    expect(fallback.reports).toBeGreaterThanOrEqual(2);
    expect(fallback.calls).toBeGreaterThanOrEqual(2 * fallback.reports);
  }, 30_000);

  // A gc observer delivers through setImmediate. The fixture optimizes Node's initAsyncResource on
  // Timeouts alone (a server's socket timeouts), then makes one Immediate: without the probe that
  // deoptimizes it (the premise, checked), with the probe it stays optimized.
  it("makes the server's timer code expect its GC deliveries' Immediates from the start", async () => {
    const run = async (nodeOptions: string): Promise<string> => {
      const { child, out } = start(['--expose-internals', '--allow-natives-syntax', path.join(FIXTURES, 'immediate-deopt.cjs')], {
        NODE_OPTIONS: nodeOptions,
      });
      expect(await exited(child)).toBe(0);
      return /optimized-before \w+ optimized-after \w+/.exec(out())?.[0] ?? out();
    };
    expect(await run('')).toBe('optimized-before true optimized-after false');
    expect(await run(`--require ${PROBE}`)).toBe('optimized-before true optimized-after true');
  }, 30_000);

  it("keeps the app's own NODE_OPTIONS and its stdout untouched", async () => {
    const script =
      "console.log('app says', process.execArgv.length, require('v8').getHeapStatistics().heap_size_limit)";
    const { child, out } = start(['-e', script], {
      NODE_OPTIONS: `--max-old-space-size=64 --require ${PROBE}`,
    });
    expect(await exited(child)).toBe(0);
    const line = out()
      .split('\n')
      .find((l) => l.startsWith('app says'))!;
    const limitMb = Number(line.split(' ')[3]) / 2 ** 20;
    expect(limitMb).toBeGreaterThan(60);
    expect(limitMb).toBeLessThan(200);
    expect(out()).not.toContain('probe-off');
  }, 20_000);
});
