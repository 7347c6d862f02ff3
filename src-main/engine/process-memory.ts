// Each server process's resident memory over a cell, beside the cgroup's peak. The cgroup is charged
// for a page by whoever touched it first: the node binary and libraries an earlier container already
// read are charged elsewhere, so a warm machine's peak is well below what a fresh pod is charged
// (BENCHMARKS.md, Thresholds: what a fresh deployment needs). Provider-neutral: the provider reads its
// target's processes (the local engine from the host's /proc), this keeps the highest per pid and per
// reading, and gives the StatsSummary fields.
import type { ProcessReading, ProcessSnapshot, ProvisionedTarget } from '../providers/provider.ts';
import type { StatsSummary } from '../model/types.ts';

export type ProcessMemory = NonNullable<StatsSummary['processes']>[number];
export type ProcessRole = ProcessMemory['role'];
export type ProcessMemorySummary = Pick<
  StatsSummary,
  'processes' | 'rssTotalPeakBytes' | 'rssSharedOncePeakBytes' | 'pssTotalBytes' | 'processesNotMeasured'
>;

/** Measured seconds between readings while the load runs (VmHWM keeps each process's peak between them). */
export const PROCESS_READ_EVERY_SEC = 10;

/**
 * PM2's God: our pm2 launcher (pm2-runtime), pm2-runtime itself, the daemon's process title, or `pm2` run by an image.
 */
const PM2_GOD = /launchers\/pm2\.js|\bpm2-runtime\b|God Daemon|(^|[\s/])pm2(\.js)?(\s|$)/;
/** A shell between a launcher and the server (an image's `sh -c`, npm's script shell). */
const SHELL = /^(\S*\/)?(sh|bash|dash|ash|zsh)(\s|$)/;

/**
 * The role of each process of one reading, by command line and parent: PM2's God wherever it is; the
 * target's first process (ppid 0: its parent is outside the target) is the primary; a non-shell child
 * of the primary or of PM2's God is a worker; anything else is 'other'.
 */
export function roles(readings: readonly Pick<ProcessReading, 'pid' | 'ppid' | 'command'>[]): Map<number, ProcessRole> {
  const byPid = new Map(readings.map((r) => [r.pid, r]));
  const out = new Map<number, ProcessRole>();
  const roleOf = (r: Pick<ProcessReading, 'pid' | 'ppid' | 'command'>, depth = 0): ProcessRole => {
    const known = out.get(r.pid);
    if (known) return known;
    let role: ProcessRole;
    if (PM2_GOD.test(r.command)) role = 'pm2-daemon';
    else if (r.ppid === 0 || !byPid.has(r.ppid)) role = 'primary';
    else {
      const parent = depth > 64 ? undefined : roleOf(byPid.get(r.ppid)!, depth + 1);
      role = (parent === 'primary' || parent === 'pm2-daemon') && !SHELL.test(r.command) ? 'worker' : 'other';
    }
    out.set(r.pid, role);
    return role;
  };
  for (const r of readings) roleOf(r);
  return out;
}

const ROLE_ORDER: Record<ProcessRole, number> = { primary: 0, 'pm2-daemon': 1, worker: 2, other: 3 };

/**
 * Keeps a cell's process readings: per pid the highest of each value, and per reading the sums the
 * analysis needs (over the processes alive at that reading, so a replaced worker is not counted twice).
 */
export class ProcessMemoryRecorder {
  private readonly byPid = new Map<number, ProcessMemory>();
  private rssTotal = 0;
  private sharedOnce = 0;
  private pssTotal: number | undefined;
  private why: string | undefined;
  private pending: Promise<void> | undefined;

  constructor(private readonly target: Pick<ProvisionedTarget, 'processMemory'>) {}

  /** Reads the target's processes now; never throws. A read asked for while one runs is that one. */
  read(): Promise<void> {
    const read = this.target.processMemory;
    if (!read) return Promise.resolve();
    this.pending ??= read()
      .then(
        (s) => this.add(s),
        (e: Error) => this.add({ ok: false, why: `reading the target's processes failed: ${e.message}` }),
      )
      .finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** One snapshot in. An empty one (the target has stopped) changes nothing. */
  add(s: ProcessSnapshot): void {
    if (!s.ok) {
      this.why ??= s.why;
      return;
    }
    if (s.processes.length === 0) return;
    const role = roles(s.processes);
    for (const r of s.processes) {
      const prev = this.byPid.get(r.pid);
      const max = (a: number | undefined, b: number | undefined): number | undefined =>
        a === undefined ? b : b === undefined ? a : Math.max(a, b);
      const anon = max(prev?.anonPeakBytes, r.anonBytes);
      const file = max(prev?.filePeakBytes, r.fileBytes);
      const pss = max(prev?.pssPeakBytes, r.pssBytes);
      this.byPid.set(r.pid, {
        pid: r.pid,
        role: role.get(r.pid) ?? 'other',
        command: r.command,
        rssPeakBytes: Math.max(prev?.rssPeakBytes ?? 0, r.hwmBytes, r.rssBytes),
        ...(anon !== undefined ? { anonPeakBytes: anon } : {}),
        ...(file !== undefined ? { filePeakBytes: file } : {}),
        ...(pss !== undefined ? { pssPeakBytes: pss } : {}),
        readings: (prev?.readings ?? 0) + 1,
      });
    }
    // Sums over the processes alive now, each at its highest so far.
    const alive = s.processes.map((r) => this.byPid.get(r.pid)!);
    const summed = alive.reduce((a, p) => a + p.rssPeakBytes, 0);
    this.rssTotal = Math.max(this.rssTotal, summed);
    // File-backed pages once: each process's own part of its high-water mark (the anonymous peak read,
    // or the high-water mark less the most file-backed memory it was seen with, whichever is more),
    // plus the largest file-backed set. Processes of one image map the same binary and libraries.
    const once = alive.every((p) => p.filePeakBytes !== undefined)
      ? alive.reduce((a, p) => a + Math.max(p.anonPeakBytes ?? 0, p.rssPeakBytes - p.filePeakBytes!), 0) +
        Math.max(...alive.map((p) => p.filePeakBytes!))
      : summed;
    // Never above the plain sum (anonymous and file-backed maxima read at different moments can add up to more).
    this.sharedOnce = Math.max(this.sharedOnce, Math.min(once, summed));
    if (s.processes.every((r) => r.pssBytes !== undefined))
      this.pssTotal = Math.max(
        this.pssTotal ?? 0,
        s.processes.reduce((a, r) => a + r.pssBytes!, 0),
      );
  }

  /** The StatsSummary fields: the readings, or why there are none. */
  summary(): ProcessMemorySummary {
    if (this.byPid.size === 0) {
      return {
        processesNotMeasured: this.target.processMemory
          ? (this.why ?? "no reading of the target's processes was taken")
          : "this target's processes cannot be read from here (remote engine, Swarm or Kubernetes)",
      };
    }
    const processes = [...this.byPid.values()].sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.pid - b.pid);
    return {
      processes,
      rssTotalPeakBytes: this.rssTotal,
      rssSharedOncePeakBytes: this.sharedOnce,
      ...(this.pssTotal !== undefined ? { pssTotalBytes: this.pssTotal } : {}),
    };
  }
}
