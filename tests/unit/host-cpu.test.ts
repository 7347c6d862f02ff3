import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { formatCpuList, parseCpuList } from '../../src-main/common/cpu-list.ts';
import { contention, HostCpuRecorder, hostCpuSupported, otherShare, parseProcStat, parseTaskStat, readOwnThreads } from '../../src-main/load/host-cpu.ts';
import { cumulativeAt } from '../../src-main/engine/stats-sampler.ts';

const STAT = `cpu  17714 0 4481 58169 429 0 103 12 0 0
cpu0 6925 0 1803 31658 47 0 16 5 0 0
cpu1 10788 0 2678 26511 382 5 86 6 0 0
intr 466861 0 0
ctxt 123
`;

describe('/proc/stat', () => {
  it('reads busy (user, nice, system, irq, softirq, steal) and total ticks per core', () => {
    const m = parseProcStat(STAT);
    expect([...m.keys()]).toEqual([0, 1]);
    expect(m.get(0)).toEqual({ busy: 6925 + 1803 + 16 + 5, total: 6925 + 1803 + 16 + 5 + 31658 + 47 });
    expect(m.get(1)).toEqual({ busy: 10788 + 2678 + 5 + 86 + 6, total: 10788 + 2678 + 5 + 86 + 6 + 26511 + 382 });
  });

  it('cpu lists both ways', () => {
    expect(parseCpuList('0-2,5')).toEqual([0, 1, 2, 5]);
    expect(parseCpuList('3')).toEqual([3]);
    expect(formatCpuList([5, 0, 1, 2])).toBe('0-2,5');
    expect(formatCpuList([1])).toBe('1');
    expect(() => parseCpuList('a-b')).toThrow(/not a CPU list/);
  });
});

describe('the share others took', () => {
  /** Our load thread (tid 2) on core 1 using `ownSec` so far, our main thread (tid 1) on core 3, outside the watched cores. */
  const snap = (atMs: number, busyTicks: number, ownSec: number) => ({
    atMs, busyTicks, totalTicks: 0,
    own: new Map([[1, { ticks: 1000 + atMs / 10, cpu: 3 }], [2, { ticks: ownSec * 100, cpu: 1 }]]),
  });

  it('is busy time minus the target and this process, over the cores’ capacity', () => {
    // 2 cores for 2 s: 4 core-seconds. Busy 3.2 s (320 ticks): target 1.8 s, ours 0.6 s → others 0.8 s = 20 %.
    expect(otherShare(snap(0, 1000, 10), snap(2000, 1320, 10.6), 2, 1.8, 0.6)).toBeCloseTo(0.2, 6);
    // Accounting that disagrees by a tick never yields a negative share.
    expect(otherShare(snap(0, 1000, 10), snap(1000, 1100, 10.5), 1, 0.52, 0.5)).toBe(0);
  });

  it('reads a thread’s CPU ticks and the core it last ran on', () => {
    const line = '1509 (a (b) c) R 1464 1464 7318 0 -1 4194304 148 0 0 0 70 30 0 0 20 0 1 0 96881 2998272 419 18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 5 0 0 0 0 0';
    expect(parseTaskStat(line)).toEqual({ ticks: 100, cpu: 5 });
  });

  it('per second and over the measurement, from the reading where measurement began; our threads elsewhere do not count', () => {
    const snaps = [snap(0, 0, 0), snap(1000, 150, 0.5), snap(2000, 300, 1), snap(3000, 480, 1.5), snap(4000, 650, 2)];
    const h = contention(snaps, 1, [0, 1], (a, b) => (b - a) / 1000); // the target uses one core throughout
    expect(h).toBeDefined();
    expect(h!.cores).toBe('0-1');
    expect(h!.perSecondOtherPct.map((p) => Math.round(p))).toEqual([0, 15, 10]);
    expect(h!.otherPct).toBeCloseTo(100 / 12, 6); // 0.5 core-seconds of 6
    expect(contention(snaps, 4, [0, 1], () => 0)).toBeUndefined(); // fewer than two readings measured
  });

  it('interpolates the container’s cumulative CPU between Docker’s readings', () => {
    const pts = [{ atMs: 1000, ns: 0 }, { atMs: 2000, ns: 1e9 }, { atMs: 3000, ns: 1.5e9 }];
    expect(cumulativeAt(pts, 1500)).toBe(0.5e9);
    expect(cumulativeAt(pts, 2500)).toBe(1.25e9);
    expect(cumulativeAt(pts, 3400)).toBe(1.7e9); // past the last reading: at the last rate
    expect(cumulativeAt([pts[0]!], 1500)).toBeUndefined();
  });
});

/** utime + stime of a whole process, in USER_HZ ticks (the unit /proc/stat counts in). */
const processTicks = (pid: number): number => parseTaskStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))!.ticks;
const threadTicks = (tid: number): number => parseTaskStat(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8'))!.ticks;

/**
 * A thread of this process spinning on core 0 until told to stop: CPU the recorder must count as ours.
 * It pins itself (taskset on its own thread id), then says its tid.
 */
const SPINNER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readlinkSync } = require('node:fs');
const { execFileSync } = require('node:child_process');
const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
execFileSync('taskset', ['-p', '-c', '0', String(tid)], { stdio: 'ignore' });
parentPort.postMessage(tid);
const stop = new Int32Array(workerData);
while (Atomics.load(stop, 0) === 0);
`;

describe.runIf(process.platform === 'linux')('on this Linux host', () => {
  it('sees a busy process pinned to a watched core as someone else’s, and our own thread there as ours', async () => {
    expect(hostCpuSupported(true)).toEqual({ ok: true });
    expect(hostCpuSupported(false).ok).toBe(false);
    // Someone else: a process spinning on core 0 until killed, which no load thread of ours started (a shell's child:
    // the processes a load thread starts, as h2load, are ours); it says its pid, then when it spins.
    const shell = spawn('sh', ['-c', `taskset -c 0 '${process.execPath}' -e 'console.log("go " + process.pid); for (;;);' & wait`], { stdio: ['ignore', 'pipe', 'ignore'] });
    const child = { pid: 0, kill: (s: NodeJS.Signals) => (process.kill(child.pid, s), shell.kill(s)) };
    // Ours: a worker thread of this process spinning on core 0 too.
    const stop = new SharedArrayBuffer(4);
    const spinner = new Worker(SPINNER, { eval: true, workerData: stop });
    try {
      const [, tid] = await Promise.all([
        new Promise<void>((r) => shell.stdout!.once('data', (b: Buffer) => ((child.pid = Number(/go (\d+)/.exec(String(b))![1])), r()))),
        new Promise<number>((r, reject) => (spinner.once('message', r), spinner.once('error', reject))),
      ]);
      const rec = new HostCpuRecorder([0]);
      const [childFrom, oursFrom] = [processTicks(child.pid!), threadTicks(tid)];
      rec.mark();
      await new Promise((r) => setTimeout(r, 1000)); // this thread idles meanwhile
      rec.mark();
      const [childTo, oursTo] = [processTicks(child.pid!), threadTicks(tid)];
      const h = contention(rec.snapshots, 0, rec.cores, () => 0)!;
      expect(h.cores).toBe('0');
      // What each spinner got of core 0 over the same interval, in % (ticks are 1/100 s).
      const seconds = (rec.snapshots[1]!.atMs - rec.snapshots[0]!.atMs) / 1000;
      const childPct = (childTo - childFrom) / seconds;
      const oursPct = (oursTo - oursFrom) / seconds;
      // Both ran (else the bounds below say nothing): two spinners share the core with whatever else is runnable.
      expect(childPct, `child ${childPct} %, ours ${oursPct} %`).toBeGreaterThan(10);
      expect(oursPct, `child ${childPct} %, ours ${oursPct} %`).toBeGreaterThan(10);
      // Tick sampling: a few ticks either way over 100.
      const slack = 5;
      // The child's CPU counts as someone else's: at least what it used (other processes on core 0 add to it).
      expect(h.otherPct, `child ${childPct} %, ours ${oursPct} %`).toBeGreaterThanOrEqual(childPct - slack);
      // Our thread's does not: the core's busy time less ours can be at most what is left of 100 %.
      expect(h.otherPct, `child ${childPct} %, ours ${oursPct} %`).toBeLessThanOrEqual(100 - oursPct + slack);
    } finally {
      Atomics.store(new Int32Array(stop), 0, 1);
      child.kill('SIGKILL');
      await spinner.terminate();
    }
  });
});

describe('our own CPU', () => {
  it('counts the processes a load thread started (h2load) as ours, and others as not', async (ctx) => {
    if (process.platform !== 'linux') return ctx.skip('not Linux: no /proc to read');
    // A child started from a worker thread, as a load thread starts h2load; and a process that is not ours.
    const w = new Worker("const c = require('child_process').spawn('sleep', ['5']); require('worker_threads').parentPort.postMessage(c.pid);", { eval: true });
    const child = await new Promise<number>((resolve) => w.once('message', resolve));
    const stranger = spawn('sh', ['-c', 'sleep 5 & echo $!'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const mainsChild = spawn('sleep', ['5']); // the main thread's own child: not a load thread's
    const other = Number(await new Promise<string>((resolve) => stranger.stdout!.once('data', (b) => resolve(String(b)))));
    try {
      const own = readOwnThreads();
      expect(own.has(child)).toBe(true);
      expect(own.has(process.pid)).toBe(true);
      expect(own.has(other)).toBe(false); // started by a shell we started, which left it: not ours
      expect(own.has(mainsChild.pid!)).toBe(false);
    } finally {
      process.kill(child, 'SIGKILL');
      process.kill(other, 'SIGKILL');
      mainsChild.kill('SIGKILL');
      await w.terminate();
    }
  });
});
