// Who else used the cores a cell ran on? Linux's /proc/stat gives every core's busy time; the
// target's own CPU comes from its container's accounting and ours from /proc/self/task (the main
// thread, the load threads and the processes they started, such as h2load, each counted where it
// last ran: the load threads are pinned to the watched cores, the main thread may be elsewhere).
// What is left is someone else's: another process, the UI drawn by a browser or Electron's
// renderer, or hypervisor steal.
import { readdirSync, readFileSync } from 'node:fs';
import { formatCpuList } from '../common/cpu-list.ts';
import type { HostContention } from '../model/types.ts';

/**
 * /proc/stat counts in USER_HZ, which the kernel's ABI fixes at 100 on every architecture Node.js
 * ships for (x86, arm64, ppc64, s390x); it is not the kernel's internal tick rate.
 */
const USER_HZ = 100;

/** Busy and total ticks of each core (cpu0, cpu1, …; the aggregate line is skipped), by core number. */
export function parseProcStat(text: string): Map<number, { busy: number; total: number }> {
  const out = new Map<number, { busy: number; total: number }>();
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(line);
    if (!m) continue;
    // user nice system idle iowait irq softirq steal [guest guest_nice]; guest time is already inside user.
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = m[2]!
      .trim()
      .split(/\s+/)
      .map(Number);
    // irq and softirq count as busy: tick accounting also charges them to whichever task was running
    // (measured here: the target's and our own CPU time include the network softirq of the load).
    const busy = user + nice + system + irq + softirq + steal;
    out.set(Number(m[1]), { busy, total: busy + idle + iowait });
  }
  return out;
}

/** This process's threads: CPU ticks so far and the core each last ran on, by thread id. */
export type OwnThreads = Map<number, { ticks: number; cpu: number }>;

/** One reading: when, the watched cores' busy ticks, and this process's threads. */
export interface HostSnapshot {
  atMs: number;
  busyTicks: number;
  totalTicks: number;
  own: OwnThreads;
}

/**
 * utime + stime and the last processor of one /proc/…/stat line (fields 14, 15 and 39, after the parenthesised name).
 */
export function parseTaskStat(text: string): { ticks: number; cpu: number } | undefined {
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(f[11]) + Number(f[12]);
  const cpu = Number(f[36]);
  return Number.isFinite(ticks) && Number.isInteger(cpu) ? { ticks, cpu } : undefined;
}

export function readOwnThreads(): OwnThreads {
  const out: OwnThreads = new Map();
  readThreads('/proc/self', out);
  // The processes our load threads started too (h2load, on the thread's core): their work is the load's. Not the
  // main thread's children: what the engine's host process starts there is no part of a cell's load.
  for (const tid of listDir('/proc/self/task').filter((t) => Number(t) !== process.pid))
    for (const child of readText(`/proc/self/task/${tid}/children`).split(' ').filter(Boolean))
      readThreads(`/proc/${child}`, out);
  return out;
}

/** Every thread of the process at `proc` into `out`, by thread id (unique across processes). */
function readThreads(proc: string, out: OwnThreads): void {
  for (const tid of listDir(`${proc}/task`)) {
    const t = parseTaskStat(readText(`${proc}/task/${tid}/stat`));
    if (t) out.set(Number(tid), t);
  }
}

// A thread or process may end between the listing and the read: it reads as nothing.
const listDir = (d: string): string[] => {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
};
const readText = (f: string): string => {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
};

/**
 * Our CPU seconds on the watched cores between two readings: each thread's time counted if it last
 * ran on one of them (a thread that moved mid-interval is counted where it ended; at one-second
 * intervals that is a few ms either way).
 */
export function ownOnCores(a: HostSnapshot, b: HostSnapshot, cores: ReadonlySet<number>): number {
  let ticks = 0;
  for (const [tid, t] of b.own) {
    if (cores.has(t.cpu)) ticks += t.ticks - (a.own.get(tid)?.ticks ?? 0);
  }
  return Math.max(0, ticks) / USER_HZ;
}

/**
 * CPU seconds on the watched cores taken by neither the target nor this process between two
 * readings, as a share of those cores' capacity (0..1). `targetCpuSec` is the container's CPU over
 * the same interval, `ownCpuSec` ours on those cores. Clamped at 0: tick sampling and the
 * container's ns accounting differ by a tick or two, and a cell must not be credited with CPU it
 * did not lend.
 */
export function otherShare(
  a: Pick<HostSnapshot, 'atMs' | 'busyTicks'>,
  b: Pick<HostSnapshot, 'atMs' | 'busyTicks'>,
  cores: number,
  targetCpuSec: number,
  ownCpuSec: number,
): number {
  const seconds = (b.atMs - a.atMs) / 1000;
  if (!(seconds > 0) || cores <= 0) return 0;
  const busySec = (b.busyTicks - a.busyTicks) / USER_HZ;
  return Math.max(0, busySec - targetCpuSec - ownCpuSec) / (cores * seconds);
}

/** Whether this platform lets us see per-core time and the containers run on this kernel. */
export function hostCpuSupported(containersLocal: boolean): { ok: true } | { ok: false; why: string } {
  if (process.platform !== 'linux')
    return { ok: false, why: `host contention is measured on Linux only (this is ${process.platform})` };
  if (!containersLocal)
    return { ok: false, why: 'host contention is not measured when containers run in a VM or on a remote engine' };
  try {
    readFileSync('/proc/stat', 'utf8');
    return { ok: true };
  } catch (e) {
    return { ok: false, why: `/proc/stat is not readable: ${(e as Error).message}` };
  }
}

/**
 * Reads /proc/stat (a ~1 KB pseudo-file) and this process's threads (a dozen small files) at each
 * call: well under a millisecond. The cell runner marks at the start of the load and at every
 * second the load reports.
 */
export class HostCpuRecorder {
  readonly snapshots: HostSnapshot[] = [];
  cores: number[];

  /** `cores` undefined: every core (an unpinned target may run anywhere). */
  constructor(
    cores?: readonly number[],
    private readonly procStat = (): string => readFileSync('/proc/stat', 'utf8'),
    private readonly ownThreads = readOwnThreads,
  ) {
    this.cores = cores ? [...cores] : [];
    this.all = !cores;
  }

  private readonly all: boolean;

  mark(atMs = Date.now()): HostSnapshot {
    const per = parseProcStat(this.procStat());
    if (this.all) this.cores = [...per.keys()].sort((a, b) => a - b);
    let busyTicks = 0;
    let totalTicks = 0;
    for (const c of this.cores) {
      const t = per.get(c);
      if (t) {
        busyTicks += t.busy;
        totalTicks += t.total;
      }
    }
    const s = { atMs, busyTicks, totalTicks, own: this.ownThreads() };
    this.snapshots.push(s);
    return s;
  }
}

/**
 * The contention over consecutive readings `from..to` (indexes into the snapshots): the whole
 * stretch and each interval between readings (one per measured second).
 */
export function contention(
  snaps: readonly HostSnapshot[],
  from: number,
  cores: readonly number[],
  targetCpuSec: (fromMs: number, toMs: number) => number,
): HostContention | undefined {
  if (from < 0 || snaps.length - from < 2) return undefined;
  const watched = new Set(cores);
  const perSecondOtherPct: number[] = [];
  let ownSec = 0;
  for (let i = from + 1; i < snaps.length; i++) {
    const [a, b] = [snaps[i - 1]!, snaps[i]!];
    const own = ownOnCores(a, b, watched);
    ownSec += own;
    perSecondOtherPct.push(100 * otherShare(a, b, cores.length, targetCpuSec(a.atMs, b.atMs), own));
  }
  const [first, last] = [snaps[from]!, snaps.at(-1)!];
  return {
    cores: formatCpuList(cores),
    otherPct: 100 * otherShare(first, last, cores.length, targetCpuSec(first.atMs, last.atMs), ownSec),
    perSecondOtherPct,
  };
}
