// Plain data shared by the engine, the store, the CLI and (later) the UI contract.
// Latency is always integer microseconds: sub-millisecond loopback latency stays exact.
import type { CellLoad, LoadModel } from './cell-load.ts';
import type { CellProbe } from './probe.ts';
import type { MixEntry, RouteResult, RouteSecondFigures } from './requests.ts';

/** The launch modes a matrix chooses from. */
export const LAUNCH_MODES = ['single', 'cluster', 'pm2'] as const;
/**
 * 'image': an existing image started with its own command (its workers, if any, set through an environment variable).
 */
export type LaunchMode = (typeof LAUNCH_MODES)[number] | 'image';

export type { CellLoad, LoadModel, Protocol } from './cell-load.ts';
export { PROTOCOLS } from './cell-load.ts';

/** One point of the matrix: everything needed to run it, nothing derived. */
export interface CellConfig {
  index: number; // position in execution order (0-based)
  repetition: number; // 0-based
  app: string;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  load: CellLoad;
  durationSec: number;
  warmupSec: number;
  env: Record<string, string>;
  /** Recycle a worker when its RSS passes this many MB (cluster: our launcher; pm2: --max-memory-restart). */
  recycleRssMb?: number;
  /** Requests to send instead of the app's own (a named set from the matrix). */
  requests?: { name: string; requests: MixEntry[] };
  /**
   * Why the cell ran: absent or 'matrix' — a cell of the grid; 'settle' — an extra repetition of a
   * contender while the answer was undecided (engine/settle.ts); 'verify' — the picked configuration
   * run exactly as a deploy snippet deploys it (engine/verify.ts). Verify cells are never aggregated
   * with the grid's configurations.
   */
  phase?: RunPhase;
  /**
   * A verification cell (phase 'verify'): the snippets it ran exactly as emitted and what it is judged against
   * (deploy/verification.ts).
   */
  verify?: import('./verify.ts').VerifyDescriptor;
  /**
   * true: the runtime probe in the cell's processes (the default; matrix `"probe": false` or `--no-probe` turn it
   * off); absent: not probed (so runs stored before the probe read as unprobed).
   */
  probe?: true;
  /**
   * Identical containers of the app in this cell (absent = 1). cpuMillis, memoryMb and workers are per replica; the
   * load is spread over the replicas per connection, evenly, as a Kubernetes Service spreads it.
   */
  replicas?: number;
  /**
   * The Node.js the cell runs (absent: the default base image's): a major ("22") or an exact version ("22.11.0") as
   * the matrix named it. The exact version it ran is CellResult.nodeVersion.
   */
  node?: string;
  /** Node.js flags for every process of the cell in every mode (absent: none), e.g. ["--max-semi-space-size=32"]. */
  nodeFlags?: string[];
  /** The environment dimension's values this cell ran (envMatrix; also in `env`); absent: the matrix had none. */
  envSet?: Record<string, string>;
}

export type RunPhase = 'matrix' | 'settle' | 'verify';

export interface LatencySummary {
  p50: number;
  p75: number;
  p90: number;
  p97_5: number;
  p99: number;
  p99_9: number;
  max: number;
  mean: number;
  stddev: number;
}

/**
 * One second of load, measured by our own histogram. `t` counts seconds from the start of measurement (warmup
 * excluded).
 */
export interface LoadSecond {
  t: number;
  requests: number;
  bytes: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  maxUs: number;
  /** A mix of several routes: each route's second (index = route, as in LoadResult.routes). */
  routes?: RouteSecondFigures[];
  /** A measured second first reported as warm-up second N (0-based): warm-up ended where the steady state began. */
  wasWarmup?: number;
  opened?: number; // connections the load opened this second (over TLS, a handshake each); absent: none
  resumed?: number; // of those, TLS handshakes that resumed a session (load.tlsResume); absent: none
}

export interface LoadResult {
  model: LoadModel;
  connections: number;
  targetRate?: number;
  /** Seconds actually measured (warmup excluded). */
  measuredSec: number;
  requests: number;
  bytes: number;
  rpsMean: number;
  rpsStddev: number;
  bytesPerSec: number;
  latencyUs: LatencySummary;
  /** Which clock latency was measured from: the actual send (closed loop) or the intended send (constant rate). */
  latencyFrom: 'send' | 'intended-send';
  statusCounts: Record<string, number>;
  /** Unexpected responses by the server's reason ("503 sorry, too many clients already"), a few distinct ones. */
  failureReasons?: Record<string, number>;
  errors: number;
  timeouts: number;
  non2xx: number;
  /** Event-loop utilisation of the load worker over the measurement, 0..1. */
  clientElu: number;
  clientBound: boolean;
  clientBoundReason?: string;
  /**
   * Why a load thread at its ceiling was NOT read as client-bound: the runtime probe saw the server's event loops at
   * their ceiling too (engine/client-check.ts), so the goodput is the server's, not a lower bound.
   */
  clientBoundOverruled?: string;
  // Optional: results stored before these existed lack them; readers fall back (rpsMean, the config's warmupSec…).
  /** Completed responses per measured second, in order. */
  perSecondRps?: number[];
  /** Goodput per measured second: responses with their expected status (no errors, timeouts or unexpected statuses). */
  perSecondGood?: number[];
  /** Response bytes per measured second, in order (counted when a response completes). */
  perSecondBytes?: number[];
  /** Mean goodput over the measured seconds (req/s that counted). */
  goodputMean?: number;
  /** Warmup seconds actually used: the configured warmup, extended until throughput was steady (capped). */
  warmupUsedSec?: number;
  /** A cap below one CPU warmed up at one (load/warmup.ts): that cap, its seconds. Measured ones ran at the cell's. */
  warmupRaise?: { cpuMillis: number; untilSec: number };
  /** Completed responses per warmup second, in order (a chart draws them before t = 0, where measurement began). */
  warmupPerSecondRps?: number[];
  warmupNoise?: number; // the host's per-second noise the warm-up was judged by (load/second-noise.ts); absent: quiet
  /** Load threads that generated this load (their histograms merged losslessly). */
  threads?: number;
  /** An HTTP/2 cell's client: h2load where it could send the load (load/h2load-client.ts), else Node's http2. */
  h2Client?: 'h2load' | 'node';
  /** Constant rate that fell short: which side set the pace ('server': every connection busy; 'client': a thread). */
  shortfallBy?: 'server' | 'client';
  /** A replicated cell: responses each replica served over the measured seconds (index = replica), per connection. */
  replicaRequests?: number[];
  /** A mix of more than one route: each route's share, goodput and latency (load/mix/, counted per request). */
  routes?: RouteResult[];
}

/** One second of container stats. cpuPct is a percentage of the cell's CPU cap (100 = the whole cap). */
export interface StatsSecond {
  t: number;
  cpuPct: number;
  memBytes: number;
  memLimitBytes: number;
  throttledPeriods: number; // in this second
  throttledMs: number; // in this second
  /** CFS enforcement periods in this second, throttled or not (absent where Docker does not send them). */
  periods?: number;
}

/** A cell's dependency beside it: caps, `stats` (measured seconds, CPU of its cap), every second, each sample. */
export interface DependencyReading {
  name: string;
  image: string;
  cpuMillis: number;
  memoryMb: number;
  /** The most connections it takes, where its definition says (apps/dependencies.ts connectionLimit). */
  maxConnections?: number;
  stats?: StatsSummary;
  seconds: Pick<StatsSecond, 't' | 'cpuPct' | 'memBytes' | 'throttledMs'>[];
  measured?: (Pick<StatsSecond, 'cpuPct' | 'memBytes'> | null)[];
}

export interface StatsSummary {
  cpuPctMean: number;
  cpuPctMax: number;
  memMeanBytes: number;
  memMaxBytes: number;
  memLimitBytes: number;
  throttledPeriods: number;
  throttledMs: number;
  samples: number;
  /**
   * The container's peak memory over its whole life (start-up and warmup included), as the cgroup
   * counts it: page cache included, since the cap is charged with it (the kernel reclaims cache before
   * it OOM-kills, so this errs high). Absent in cells stored before it existed: readers fall back to
   * memMaxBytes, the highest 1 Hz reading after warmup without inactive page cache.
   */
  memPeakBytes?: number;
  /** 'cgroup': the cgroup's own high-water mark (v1 max_usage, v2 memory.peak); 'samples': the highest 1 Hz usage. */
  memPeakSource?: 'cgroup' | 'samples';
  /** CFS periods over the measured seconds, for the share throttled (throttledPeriods ÷ cpuPeriods); older: absent. */
  cpuPeriods?: number;
  /** CPU others took on the cores the target and the load ran on (absent where it cannot be measured). */
  host?: HostContention;
  /**
   * Each of the target's processes' resident memory, read from this machine's /proc a few times
   * while the cell ran (after ready, as measurement began, every 10 s, at its end); per pid the
   * highest of each value. The cgroup's peak misses pages charged to other cgroups (the image's
   * files already cached by earlier containers), which a fresh deployment is charged for: see
   * analysis/size/memory.ts `freshNeed`. Absent where not measured (older cells; remote engines, Swarm,
   * Kubernetes: `processesNotMeasured` says why).
   */
  processes?: {
    pid: number;
    /**
     * 'primary': the target's first process (single mode's server, the cluster launcher, an image's command); 'worker':
     * a node process it (or PM2) started; 'pm2-daemon': PM2's God (pm2-runtime runs it in the first process); 'other':
     * anything else.
     */
    role: 'primary' | 'worker' | 'pm2-daemon' | 'other';
    /** Its command line, cut to 300 characters. */
    command: string;
    /**
     * VmHWM: the kernel's high-water mark of the process's RSS, at its last reading (what PM2's max_memory_restart
     * compares, per process).
     */
    rssPeakBytes: number;
    /** The highest anonymous / file-backed resident memory read (RssAnon / RssFile; absent on kernels before 4.5). */
    anonPeakBytes?: number;
    filePeakBytes?: number;
    /**
     * The highest PSS read (smaps_rollup, kernel 4.14+): shared pages divided among all processes mapping them, in this
     * container or not.
     */
    pssPeakBytes?: number;
    /** Readings taken of it. */
    readings: number;
  }[];
  /**
   * The highest, over readings, of the summed VmHWM of the processes alive at that reading (a replaced worker is not
   * counted twice).
   */
  rssTotalPeakBytes?: number;
  /**
   * The highest, over readings, of the processes' resident memory with file-backed pages counted
   * once: Σ per process max(RssAnon, VmHWM − RssFile), each at its highest, + the largest RssFile.
   * Processes of one image map the same node binary and libraries; a fresh pod holds those pages
   * once, but each process's anonymous memory apart.
   */
  rssSharedOncePeakBytes?: number;
  /** The highest, over readings, of the summed PSS (absent where smaps_rollup is not readable). */
  pssTotalBytes?: number;
  /** Why there are no process readings ('the target's processes are not visible from this process…'). */
  processesNotMeasured?: string;
}

/**
 * CPU time on the watched cores (the target's and the load's) that was neither the target
 * container nor this Rightsize process: other processes (a browser drawing the UI included), the
 * kernel's unattributed work, hypervisor steal. Percent of those cores' capacity.
 */
export interface HostContention {
  /** The watched cores, cpuset syntax ("0-1"). */
  cores: string;
  /** Over the measured seconds. */
  otherPct: number;
  /** Per measured second, in order. */
  perSecondOtherPct: number[];
}

export interface ExitInfo {
  oomKilled: boolean;
  /** null while the container was still running at teardown (the normal case). */
  exitCode: number | null;
  /** Container restarts plus worker processes replaced inside it. */
  restarts: number;
}

/**
 * 'unstable': the measured seconds drift or step (not a steady state). 'host-busy': other processes took a significant
 * share of the cores the target or the load ran on.
 */
export type FlagKind =
  | 'client-bound'
  | 'oom-killed'
  | 'errors'
  | 'throttled'
  | 'restarts'
  | 'unstable'
  | 'host-busy'
  | 'dependency-bound' /** a dependency (its database, its cache) at its own CPU cap while the app had room */
  | 'network-bound' /** the bytes the server sent per second at its bandwidth cap (engine/network-bound.ts) */
  /** A replicated cell whose replicas did not get an even share of the responses (> 10 % off). */
  | 'uneven-share'
  /** A mix whose realised shares of requests strayed from its weights (mix/routes.ts SHARE_TOLERANCE_PP). */
  | 'mix-off';
export interface Flag {
  kind: FlagKind;
  reason: string;
}

/**
 * What set a measured cell's pace: the server, the load generator ('client'), others ('host'), a dependency at its cap,
 * the network at its bandwidth cap.
 * Decided once when measured (common/bottleneck.ts); all but 'server' (BoundPace) make goodput a lower bound.
 */
export type Bottleneck = 'server' | 'client' | 'host' | 'dependency' | 'network';
export type BoundPace = Exclude<Bottleneck, 'server'>;

export type CellStatus = 'running' | 'ok' | 'failed' | 'oom' | 'cancelled' | 'interrupted';
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export interface CellResult {
  config: CellConfig;
  status: Exclude<CellStatus, 'running' | 'interrupted'>;
  failure?: string;
  load?: LoadResult;
  stats?: StatsSummary;
  exit?: ExitInfo;
  flags: Flag[];
  /** What set its pace (common/bottleneck.ts), decided with the flags; absent without a load result. */
  bottleneck?: Bottleneck;
  imageTag?: string;
  /** Where the target ran: the target ('local' for this machine's engine) and, on a Swarm or cluster, its node. */
  ranOn?: RanOn;
  /** What the runtime probe heard from the cell's processes (absent: the probe was off, or the cell never measured). */
  probe?: CellProbe;
  /** The exact Node.js version the cell's processes ran (process.version without the "v"), where known. */
  nodeVersion?: string;
  /** Per replica, when the cell ran several (CellConfig.replicas ≥ 2); load, stats and exit above are their totals. */
  replicas?: ReplicaReading[];
  /** Its dependencies' readings, in the order declared (absent: the app has none, or the cell never measured). */
  dependencies?: DependencyReading[];
  startedAt: string; // ISO
  finishedAt: string; // ISO
}

export interface RanOn {
  target: string;
  kind: 'local' | 'docker' | 'swarm' | 'kubernetes';
  node?: string;
  /** Where the cell's load ran, when not in this process (a load agent on another node or engine). */
  loadNode?: string;
}

/** The per-second row stored for a cell: load and container stats of the same second together. */
export interface Sample extends Omit<LoadSecond, 'requests'> {
  /** Requests completed in this second (= req/s). */
  rps: number;
  cpuPct: number | null;
  memBytes: number | null;
  throttledPeriods: number | null;
  /**
   * A warm-up second, streamed live so a chart can draw it shaded (its `t` counts warm-up seconds from 0): never
   * stored, never part of a result.
   */
  warmup?: true;
}

export interface HostFacts {
  hostname: string;
  platform: string;
  arch: string;
  cpuModel: string;
  cores: number;
  memoryBytes: number;
  nodeVersion: string;
  dockerVersion: string | null;
  cgroupVersion: string | null;
  appVersions: Record<string, string>;
  rightsizeVersion: string;
}

export type { Capture, MixEntry, RequestSpec, RouteResult, RouteSecondFigures, SequenceSpec } from './requests.ts';

/** Apps that are images, by name: whether their worker count is fixed (no env var sets it). */
export type ImageApps = Record<string, { fixed: boolean; workersEnv?: string | null }>;

/** One replica of a cell (CellConfig.replicas ≥ 2): what it did, beside the cell's totals (model/replicas.ts). */
export interface ReplicaReading {
  /** 0-based, in the order the replicas were started. */
  index: number;
  /** Responses this replica served over the measured seconds (counted by the load side, per connection). */
  requests: number;
  /** Its share of the cell's responses, 0..1 (1 ÷ replicas when the load is spread evenly). */
  share: number;
  /** Connections the load opened to it. */
  connections: number;
  stats?: StatsSummary;
  exit?: ExitInfo;
  ranOn?: RanOn;
  /** What the runtime probe heard from this replica's processes (absent: probe off). */
  probe?: CellProbe;
}
