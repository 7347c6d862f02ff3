// Where cells run: one interface, several places (the local Docker engine, remote engines, a Swarm,
// Kubernetes). The seed's provisioner shape (provision / teardown) plus what a cell needs to be
// measured and judged: stats, logs, exit info, and a sweep of a dead session's leftovers.
// Plain types only: the engine depends on this, each provider implements it.
import type { Dependency } from '../apps/dependencies.ts';
import type { LaunchSpec } from '../docker/launch.ts';
import type { ExitInfo, LoadResult } from '../model/types.ts';
import { hostCpuSupported } from '../load/host-cpu.ts';
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
  /** Cancels the start: waiting on a dependency that is still starting stops at once. */
  signal?: AbortSignal;
  /** The caps: requests = limits (Guaranteed QoS on Kubernetes, equal reservations on Swarm). */
  cpuMillis: number;
  memoryMb: number;
  /** Labels every object carries, so cancel and the sweep find them. */
  labels: { run: string; cell: string; app: string; session: string };
  /**
   * Keep the target and its load on separate cores where the provider shares a machine between them
   * (this machine's engine): the matrix's placement 'auto'. The provider plans the cores itself.
   */
  pinCores?: boolean;
  /** Keep the target off (or on) a node: where its load agent runs is the other side of it. */
  placement?: { node?: string; avoidNode?: string };
  /**
   * What the app talks to (its database, its cache): started fresh for this target on a network of its
   * own, each reached by its name, ready before the app starts, removed with it. Absent: none.
   */
  dependencies?: readonly Dependency[];
  /**
   * Identical copies of the target (absent = 1), each under `cpuMillis` and `memoryMb`: the provider starts them all
   * and gives back one target whose `addresses` the load spreads over (providers/replica-set.ts).
   */
  replicas?: number;
  /** A bandwidth cap on what each replica sends (Mbit/s; absent: none), where the provider can set one. */
  networkMbps?: number;
  /** The app serves HTTPS (its certificate is in `env`): readiness is checked over TLS. */
  tls?: boolean;
  /** The app serves HTTP/2 (h2: over TLS, HTTP/1.1 too; h2c: in clear, HTTP/2 only): h2c's readiness speaks HTTP/2. */
  protocol?: 'h2' | 'h2c';
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

/** One dependency of a started target: its caps, its own readings and log. */
export interface DependencyTarget {
  name: string;
  image: string;
  cpuMillis: number;
  memoryMb: number;
  /** The most connections it takes, where its definition says. */
  maxConnections?: number;
  /** Whether it runs on the cores the target and its load are watched on (its CPU is then not someone else's). */
  sharesCores: boolean;
  stats(onReading: (r: StatsReading) => void): Promise<() => void>;
  logTail(lines: number): Promise<string>;
}

/** A started target. Always `remove()` it (the cell runner does so in a finally). */
export interface ProvisionedTarget {
  /** Container id, service id, or namespace/deployment. */
  readonly id: string;
  /** Where the load connects. */
  readonly address: { host: string; port: number };
  /**
   * A replicated target: each replica's address, in replica order (the load spreads over them per connection).
   * Absent: `address` alone.
   */
  readonly addresses?: readonly { host: string; port: number }[];
  /**
   * A replicated target: each replica as a target of its own, for its own readings (stats, processes, log, exit).
   * This target's own readings are their totals.
   */
  readonly replicas?: readonly ProvisionedTarget[];
  /** Its dependencies, ready, in the order declared (absent: the app has none). */
  readonly dependencies?: readonly DependencyTarget[];
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
   * Sets its CPU cap in place (millicores), where the provider can without restarting it: a warm-up under one CPU
   * runs at one (load/warmup.ts WARM_CPUS), then measures at its own cap. Absent: the cap stays as started.
   */
  setCpuMillis?(millis: number): Promise<void>;
  /**
   * Each of the target's processes' resident memory, read from this machine's /proc (the local
   * engine only: a remote engine's, a Swarm node's or a pod's processes are not visible from here).
   * Absent: the provider cannot; the cell records its process memory as not measured.
   */
  processMemory?(): Promise<ProcessSnapshot>;
  /**
   * Resolves once every worker is up: the health path polled at `address` from here (containers),
   * or, where this machine cannot reach the address (a pod IP), the provider's own signs (pod
   * Ready, and the launcher's "all N workers listening"). Rejects with the reason otherwise.
   */
  waitReady(o: { workers: number; deadlineMs: number; signal?: AbortSignal }): Promise<{ ms: number }>;
  /**
   * The cores the provider gave the target and its load, where it pinned them on this machine: the
   * ones whose contention by other processes matters. Absent: not pinned, or not this machine.
   */
  readonly cores?: number[];
  /**
   * Why the runtime probe is not in the target's processes although the cell asked for it (an image's container
   * this provider cannot give the probe's file). Absent: it is there.
   */
  readonly probeNote?: string;
  /** Why the target could not be placed as asked (core placement off…), said once per run. */
  readonly placementWarning?: string;
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
   * Runs a cell's load against its target: in this process's load threads (this machine's engine,
   * on the cores the provider left the load), or the same load code as an agent next to the target
   * — on another node (Swarm, Kubernetes) or on cores of the target's machine it does not use.
   * `plan.host`/`plan.port` are already the address to use. The callbacks behave the same wherever
   * the load runs, so the cell runner cannot tell the difference.
   */
  runLoad(target: ProvisionedTarget, plan: LoadPlan, cb: LoadCallbacks, opts: RemoteLoadRequest): Promise<LoadOutcome>;
  /**
   * A load elsewhere streams its seconds over a network: silence longer than these means the far
   * side is gone (`startSec` before the first second: an agent scheduled, its image pulled).
   * Absent: the load runs in this process and cannot go silent that way.
   */
  readonly loadSilence?: { startSec: number; betweenSec: number };
  /**
   * Whether this machine's CPU readings say something about a cell's contention (the target and its
   * load share this kernel), or why not: without them no cell can be flagged host-busy.
   */
  readonly hostCpu: { ok: true } | { ok: false; why: string };
  /**
   * Words for a target whose wait failed while it ran (its engine stopped answering, its pod went
   * away): the cell fails as unreachable with them. Absent: the provider reports no such loss.
   */
  lostTarget?(): string;
  /**
   * Whether the next cell's target may be started while the cell before it is inspected and torn
   * down (no measurement runs then): where the machine has a core to spare for it. Absent: no.
   */
  readonly prepareAhead?: boolean;
  /**
   * Its lone targets change their CPU cap in place (ProvisionedTarget.setCpuMillis): a cell under one CPU warms up at
   * one there, and its estimate counts that. Absent: no.
   */
  readonly raisesCap?: boolean;
  /** Whether it starts an app's dependencies beside it (TargetSpec.dependencies); absent: it cannot, and says so. */
  readonly hostsDependencies?: boolean;
  /**
   * Why this target cannot cap a cell's bandwidth (TargetSpec.networkMbps), in words; undefined when it can. Absent:
   * it cannot (a Swarm service or a pod has no per-container egress cap Rightsize can set).
   */
  bandwidthCapProblem?(): string | undefined;
  /** Its targets can serve HTTPS cells (TargetSpec.tls: readiness over TLS). Absent: not yet. */
  readonly servesTls?: boolean;
  /** What it needs of a dependency that a definition may leave out (Kubernetes: its port), in words. */
  dependencyProblems?(deps: readonly { name: string; port?: number | undefined }[]): string[];
  /** How many cells may run at once here: nodes free for a target, each with another node for its load. Absent: 1. */
  concurrency?(): Promise<number>;
  /**
   * Where the pool's slot `slot` (of `k` at once) places its targets, so that each target is alone
   * on its node (as `concurrency()` counted the nodes). Absent or undefined: wherever the provider puts it.
   */
  placement?(slot: number, k: number): TargetSpec['placement'] | undefined;
}

/**
 * A load streamed from elsewhere: a second comes about every second; longer silence means the far
 * side stopped answering (a link cut, a node gone). Before the first second the agent may still be
 * starting, so that wait is longer.
 */
export const REMOTE_LOAD_SILENCE = { startSec: 60, betweenSec: 10 } as const;

/** A provider whose cells run on another machine: this machine's CPU says nothing about them. */
export const HOST_CPU_ELSEWHERE: Provider['hostCpu'] = hostCpuSupported(false);

/** What a provider's `runLoad` is given beyond the plan. */
export interface RemoteLoadRequest {
  /** The same run/cell/app/session labels as the target, so cancel and the sweep find the agent too. */
  labels: TargetSpec['labels'];
  /** The node the target was placed on (the load goes elsewhere where there is an elsewhere). */
  targetNode?: string;
}

export interface LoadOutcome {
  result: LoadResult;
  /** Where the load ran when not in this process, for "where each cell ran". */
  node?: string;
}

/** @deprecated the old name of LoadOutcome (a load elsewhere always names its node). */
export type RemoteLoadOutcome = LoadOutcome & { node: string };
