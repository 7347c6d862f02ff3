// Each process of a container on this machine's engine, read from the host's /proc: its resident set
// (VmRSS, the kernel's high-water mark VmHWM, and by kind: anonymous, file-backed, shared memory) and,
// where the kernel has smaps_rollup, its PSS. The container's pids come from its cgroup's
// cgroup.procs in the host's cgroup tree (the kernel lists them in this process's pid namespace, so
// /proc/PID is the same process); where that tree is not visible, from Docker's `top`, each pid kept
// only if its /proc/PID/cgroup names the container (Docker's pids are the daemon's: on Docker Desktop
// they are another machine's, and none is kept). A remote engine's processes are never visible here.
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import type { ProcessReading, ProcessSnapshot } from '../provider.ts';

/** Long command lines (a user app's arguments) are cut: the role needs only the start. */
const MAX_COMMAND = 300;
/** Docker's `top` is a fallback over the API: bounded, a reading must never hold a cell. */
const TOP_TIMEOUT_MS = 5000;

export interface ProcRoots {
  /** Where /proc is (tests: a folder of fake process files). */
  proc: string;
  /** Where the cgroup tree is mounted. */
  cgroup: string;
}
const HOST: ProcRoots = { proc: '/proc', cgroup: '/sys/fs/cgroup' };

/** Where a container's cgroup.procs lives: cgroup v1's memory controller, then v2; cgroupfs driver, then systemd's. */
export const cgroupProcsPaths = (containerId: string, root = HOST.cgroup): string[] => [
  `${root}/memory/docker/${containerId}/cgroup.procs`,
  `${root}/memory/system.slice/docker-${containerId}.scope/cgroup.procs`,
  `${root}/docker/${containerId}/cgroup.procs`,
  `${root}/system.slice/docker-${containerId}.scope/cgroup.procs`,
];

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // gone (the process exited), not readable, or not this layout
  }
};

/** The pids of a cgroup.procs file (0: a process outside this pid namespace, left out). */
export function parseCgroupProcs(text: string): number[] {
  return text
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}

const KB = 1024;
const kbField = (text: string, name: string): number | undefined => {
  const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
  return m ? Number(m[1]) * KB : undefined;
};

/**
 * /proc/PID/status → the memory fields in bytes; undefined for a process with no memory of its own (a zombie, a kernel
 * thread).
 */
export function parseStatus(text: string): Omit<ProcessReading, 'pid' | 'command' | 'pssBytes'> | undefined {
  const rss = kbField(text, 'VmRSS');
  if (rss === undefined) return undefined;
  const ppid = /^PPid:\s+(\d+)/m.exec(text);
  const anon = kbField(text, 'RssAnon');
  const file = kbField(text, 'RssFile');
  const shmem = kbField(text, 'RssShmem');
  return {
    ppid: ppid ? Number(ppid[1]) : 0,
    rssBytes: rss,
    hwmBytes: Math.max(rss, kbField(text, 'VmHWM') ?? 0),
    ...(anon !== undefined ? { anonBytes: anon } : {}),
    ...(file !== undefined ? { fileBytes: file } : {}),
    ...(shmem !== undefined ? { shmemBytes: shmem } : {}),
  };
}

/** /proc/PID/smaps_rollup → Pss in bytes. */
export function parseSmapsRollup(text: string): number | undefined {
  return kbField(text, 'Pss');
}

/** /proc/PID/cmdline (NUL-separated) → one line. */
export function parseCmdline(raw: string): string {
  return raw.split('\0').filter(Boolean).join(' ').slice(0, MAX_COMMAND);
}

/** One process, or undefined when it is gone or has no memory of its own. */
export function readProcess(pid: number, roots: ProcRoots = HOST): ProcessReading | undefined {
  const status = readText(`${roots.proc}/${pid}/status`);
  const mem = status === undefined ? undefined : parseStatus(status);
  if (!mem) return undefined;
  const rollup = readText(`${roots.proc}/${pid}/smaps_rollup`);
  const pss = rollup === undefined ? undefined : parseSmapsRollup(rollup);
  return {
    pid,
    command: parseCmdline(readText(`${roots.proc}/${pid}/cmdline`) ?? ''),
    ...mem,
    ...(pss !== undefined ? { pssBytes: pss } : {}),
  };
}

/**
 * A parent outside the set is the target's first process: its ppid becomes 0, so roles need not know the host's pids.
 */
function withinTarget(readings: ProcessReading[]): ProcessReading[] {
  const pids = new Set(readings.map((r) => r.pid));
  return readings.map((r) => (pids.has(r.ppid) ? r : { ...r, ppid: 0 }));
}

/** Docker's pids of a container (the daemon's pid namespace), bounded in time. */
async function topPids(container: Pick<Docker.Container, 'top'>): Promise<number[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), TOP_TIMEOUT_MS)),
  );
  try {
    const top = (await Promise.race([container.top(), timeout])) as { Titles?: string[]; Processes?: string[][] };
    const col = top.Titles?.indexOf('PID') ?? -1;
    if (col < 0) return [];
    return (top.Processes ?? []).map((p) => Number(p[col])).filter((n) => Number.isInteger(n) && n > 0);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Every process of container `containerId` now. `container` (Docker's handle) is the fallback when
 * the host's cgroup tree is not visible from here.
 */
export async function readContainerProcesses(
  containerId: string,
  container?: Pick<Docker.Container, 'top'>,
  roots: ProcRoots = HOST,
): Promise<ProcessSnapshot> {
  const atMs = Date.now();
  let pids: number[] | undefined;
  for (const p of cgroupProcsPaths(containerId, roots.cgroup)) {
    const text = readText(p);
    if (text !== undefined) {
      pids = parseCgroupProcs(text);
      break;
    }
  }
  if (pids === undefined && container) {
    // Docker's pids: kept only where this machine's /proc shows them in this container's cgroup.
    const fromTop = await topPids(container).catch(() => [] as number[]);
    const mine = fromTop.filter((pid) => readText(`${roots.proc}/${pid}/cgroup`)?.includes(containerId));
    if (mine.length > 0) pids = mine;
  }
  if (pids === undefined) {
    return {
      ok: false,
      why:
        "the target's processes are not visible from this process " +
        "(its cgroup is not in this machine's cgroup tree, or its pids are in another pid namespace)",
    };
  }
  // An empty cgroup is a target that has stopped: nothing to read now, which is not a failure to read.
  const readings = pids.map((pid) => readProcess(pid, roots)).filter((r) => r !== undefined);
  if (pids.length > 0 && readings.length === 0)
    return { ok: false, why: "none of the target's processes could be read from /proc" };
  return { ok: true, atMs, processes: withinTarget(readings) };
}
