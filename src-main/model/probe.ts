// What the runtime probe (resources/base-image/launchers/probe.js, preloaded into every Node.js
// process of a cell) reports, one record per process and second, and what a cell keeps of it.
// Plain data: the probe writes it, the engine reads and stores it, the analysis explains with it.
import type { RuntimeReading } from './runtime.ts';

/** Which process of the server: the cluster primary, a worker, a single process, PM2's daemon, or anything else. */
export type ProcessRole = 'primary' | 'worker' | 'single' | 'pm2-daemon' | 'other';

/** Pauses by kind of garbage collection, in one second. */
export interface GcCounts {
  scavenge: number;
  markSweepCompact: number;
  incremental: number;
  weakCallbacks: number;
}

/** One second of one process, as the probe writes it (`at` is its wall clock, ms since the epoch). */
export interface ProbeReport {
  at: number;
  pid: number;
  /** The parent's pid: a cluster worker's primary, a PM2 instance's daemon. */
  ppid: number;
  role: ProcessRole;
  /** Event-loop utilization over the second, 0–1 (performance.eventLoopUtilization). */
  elu: number;
  /**
   * Event-loop delay over the second (monitorEventLoopDelay), ms. In a process that serves no request (the cluster
   * primary, PM2's daemon) the monitor is off after its first second (its wake-ups were most of the probe's cost), and
   * all three are the report timer's own lateness: one sample a second.
   */
  delayP50Ms: number;
  delayP99Ms: number;
  delayMaxMs: number;
  /** Time spent in GC pauses during the second, ms, and the pauses by kind. */
  gcMs: number;
  gcCounts: GcCounts;
  gcMaxPauseMs: number;
  /**
   * How long of the second the probe listened for GC pauses, ms: a window at the start of each second, fixed when
   * it opens and closed by a timer (while it listens, each pause costs the process 1–2 ms of CPU).
   * Since 2026-11-27 sized from the pause rate heard so far to hold about one pause (20–200 ms; shorter after 3
   * pauses); 2026-11-25: 200 ms, shorter after 8; before: until it had heard 8. GC share = gcMs ÷ gcWindowMs.
   * Absent: the whole second. 0 in a process that serves no request (the cluster primary, PM2's daemon): it does
   * not listen there.
   */
  gcWindowMs?: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
  /** V8's heap limit (what --max-old-space-size sets). */
  heapLimitBytes: number;
  rssBytes: number;
  externalBytes: number;
  arrayBuffersBytes: number;
  /** Handles and requests keeping the loop alive; null where the runtime cannot say cheaply. */
  activeResources: number | null;
  /**
   * Context switches of the process during the second, all its threads (getrusage; probes before 2026-11-25 counted
   * the main thread from /proc/self/status); null where the runtime cannot say.
   */
  voluntaryCtxSwitches: number | null;
  involuntaryCtxSwitches: number | null;
  /** How long the second actually was, ms (a late timer makes it longer; the first one is shorter). */
  ms?: number;
}

/** A report placed in its cell's time: `t` counts seconds from the start of measurement, like Sample.t. */
export interface ProbeSecond extends Omit<ProbeReport, 'at'> {
  t: number;
  /** A warm-up second (before measurement began): shown, never part of a result. */
  warmup?: true;
}

/** A process's highest readings over the cell's seconds, warm-up included: what the heap trap weighs. */
export interface ProcessPeak {
  rssBytes: number;
  heapTotalBytes: number;
  heapLimitBytes: number;
}

/** What a cell's probe heard: which processes reported, against how many were expected, and their seconds. */
export interface CellProbe {
  /** Distinct processes (pids) that reported at least once while the load ran. */
  attached: number;
  /** Processes the launch mode starts: 1, or the primary / PM2 daemon plus N workers; null where unknown (an image). */
  expected: number | null;
  /**
   * The processes heard, with their roles (a replaced worker is a new pid) and what each believed about its box
   * at start (absent: its first lines were not in the log read, or a probe from before 2026-12-01).
   */
  processes: { pid: number; role: ProcessRole; runtime?: RuntimeReading; peak?: ProcessPeak }[];
  /** The most serving processes (workers, or the single process) heard in any one second; absent before 2026-12-01. */
  servingAtOnce?: number;
  /** Why some or all processes are missing ("the probe could not attach to …"), or why there is no probe. */
  note?: string;
  /** Per process and second, warm-up included (t < 0); stored apart from the result, absent once stored. */
  seconds?: ProbeSecond[];
}
