// Where cells run: one interface, several places (the local Docker engine, remote engines, a Swarm,
// Kubernetes). The seed's provisioner shape (provision / teardown) plus what a cell needs to be
// measured and judged: stats, logs, exit info, and a sweep of a dead session's leftovers.
// Plain types only: the engine depends on this, each provider implements it.
import type { LaunchSpec } from '../docker/launch.ts';
import type { ExitInfo, LoadResult } from '../model/types.ts';
import type { LoadPlan } from '../load/protocol.ts';
import type { LoadCallbacks } from '../load/runner.ts';

export type TargetKind = 'local' | 'docker' | 'swarm' | 'kubernetes';

/** One cell's target, as any provider must start it. */
export interface TargetSpec {
  /** Image reference as the provider's nodes know it (built or loaded there by prepareImage). */
  image: string;
  launch: LaunchSpec;
  /** The port the app listens on inside its container / pod. */
  port: number;
  /** The app's health path, for providers whose own readiness check asks it (a pod's readinessProbe). */
  health?: string;
  env: Record<string, string>;
  /** The caps: requests = limits (Guaranteed QoS on Kubernetes, equal reservations on Swarm). */
  cpuMillis: number;
  memoryMb: number;
  /** Labels every object carries, so cancel and the sweep find them. */
  labels: { run: string; cell: string; app: string; session: string };
  /** Pin the target to these cores (cpuset syntax), where the provider can (this machine's engine). */
  cpuset?: string;
  /** Keep the target off (or on) a node: where its load agent runs is the other side of it. */
  placement?: { node?: string; avoidNode?: string };
}

/** One cumulative reading of the target's cgroup, as the provider's stats source gives it. */
export interface StatsReading {
  atMs: number;
  /** Cumulative CPU time (ns). */
  cpuNs: number;
  /** Working set (without reclaimable page cache). */
  memBytes: number;
  memLimitBytes: number;
  /** Cumulative CFS throttling. */
  throttledPeriods: number;
  throttledNs: number;
  /** The cgroup's own peak, where the provider exposes it. */
  memPeakBytes?: number;
  /** Usage as the cgroup counts it, page cache included (what a peak is comparable with). */
  memUsageBytes?: number;
  /** Cumulative CFS enforcement periods, throttled or not. */
  cfsPeriods?: number;
}

/**
 * One process of a target as this machine's kernel sees it (/proc/PID/status, smaps_rollup).
 * Bytes. Current values except `hwmBytes`, the kernel's own high-water mark of the process's RSS.
 */
export interface ProcessReading {
  pid: number;
  /** The parent's pid (0 when it is outside the target: the target's first process). */
  ppid: number;
  /** The command line, arguments joined by spaces (cut to a few hundred characters). */
  command: string;
  /** VmRSS: resident now. */
  rssBytes: number;
  /** VmHWM: the highest VmRSS over the process's life. */
  hwmBytes: number;
  /** RssAnon / RssFile / RssShmem: the resident set by kind (absent on kernels before 4.5). */
  anonBytes?: number;
  fileBytes?: number;
  shmemBytes?: number;
  /**
   * Pss from smaps_rollup (kernel 4.14+): shared pages divided among every process mapping them, this target's or not.
   */
  pssBytes?: number;
}

/** Every process of a target at one instant, or why they cannot be read from here. */
export type ProcessSnapshot = { ok: true; atMs: number; processes: ProcessReading[] } | { ok: false; why: string };

/** A started target. Always `remove()` it (the cell runner does so in a finally). */
export interface ProvisionedTarget {
  /** Container id, service id, or namespace/deployment. */
  readonly id: string;
  /** Where the load connects. */
  readonly address: { host: string; port: number };
  /** The node it was placed on (Swarm, Kubernetes), for "where each cell ran". */
  readonly node?: string;
  /** Resolves with the exit code when the target stops by itself (crash, OOM kill). */
  readonly exited: Promise<number>;
  /** Streams readings about once a second until the returned function is called. */
  stats(onReading: (r: StatsReading) => void): Promise<() => void>;
  /**
   * The cgroup's peak read outside the stats stream (cgroup v2's memory.peak on a local engine), where there is one.
   */
  memoryPeak?(): number | undefined;
  /**
   * Each of the target's processes' resident memory, read from this machine's /proc (the local
   * engine only: a remote engine's, a Swarm node's or a pod's processes are not visible from here).
   * Absent: the provider cannot; the cell records its process memory as not measured.
   */
  processMemory?(): Promise<ProcessSnapshot>;
  /**
   * Readiness where this machine cannot reach `address` (a pod IP inside a cluster): the provider
   * says when every worker is up (pod Ready, and the launcher's "all N workers listening").
   * Absent: the cell runner polls the health path at `address` from here.
   */
  waitReady?(o: { workers: number; deadlineMs: number; signal?: AbortSignal }): Promise<{ ms: number }>;
  logTail(lines: number): Promise<string>;
  exitInfo(): Promise<ExitInfo>;
  remove(): Promise<void>;
}

export interface ProviderNode {
  name: string;
  cpus: number;
  memoryBytes: number;
  /** Free for a cell now (nothing of ours or of others' measuring on it). */
  free: boolean;
}

/** What a connection check found: ok, or what is wrong in words (unreachable, TLS, permissions, no nodes free). */
export interface ProviderCheck {
  ok: boolean;
  problems: string[];
  nodes: ProviderNode[];
  /** Engine / server version, for the run's host facts. */
  version?: string;
}

export interface Provider {
  readonly kind: TargetKind;
  /** The target's name as the user saved it ('local' for this machine's engine). */
  readonly name: string;
  check(): Promise<ProviderCheck>;
  /**
   * Makes the image available where cells run (build there, `docker save | load`, or a registry); returns the reference
   * to use.
   */
  prepareImage(localTag: string): Promise<string>;
  provision(spec: TargetSpec): Promise<ProvisionedTarget>;
  /** Removes everything one run left (cancel, end of run). Returns what was removed, in words. */
  removeRun(runId: string): Promise<string[]>;
  /** Removes what sessions that are no longer alive left behind. Returns what was removed, in words. */
  sweep(isAlive: (session: string) => boolean): Promise<string[]>;
  /**
   * Where a cell's load runs when it is not this machine: the same load code (the load agent image)
   * next to the target — on another node (Swarm, Kubernetes) or on cores of the target's machine
   * the target does not use. `plan.host`/`plan.port` are already the address the agent must use.
   * Absent: the cell's load runs here, in this process's load threads (the local engine).
   * The callbacks behave exactly as for a local `runLoad`, so the cell runner cannot tell the difference.
   */
  runLoad?(
    target: ProvisionedTarget,
    plan: LoadPlan,
    cb: LoadCallbacks,
    opts: RemoteLoadRequest,
  ): Promise<RemoteLoadOutcome>;
  /**
   * How long a load agent may take to send its first second here (scheduling a pod and pulling the
   * agent image onto a cold node take minutes). Absent: the cell runner's default.
   */
  readonly loadStartSec?: number;
  /** How many cells may run at once here: nodes free for a target, each with another node for its load. Absent: 1. */
  concurrency?(): Promise<number>;
  /**
   * Where the pool's slot `slot` (of `k` at once) places its targets, so that each target is alone
   * on its node (as `concurrency()` counted the nodes). Absent or undefined: wherever the provider puts it.
   */
  placement?(slot: number, k: number): TargetSpec['placement'] | undefined;
}

/** What a provider's `runLoad` is given beyond the plan. */
export interface RemoteLoadRequest {
  /** The same run/cell/app/session labels as the target, so cancel and the sweep find the agent too. */
  labels: TargetSpec['labels'];
  /** The node the target was placed on (the load goes elsewhere where there is an elsewhere). */
  targetNode?: string;
}

export interface RemoteLoadOutcome {
  result: LoadResult;
  /** Where the load ran, for "where each cell ran". */
  node: string;
}
