// The types of the memory and CPU sizing of a configuration (analysis/size/sizing.ts, memory.ts,
// cpu-sizing.ts): the peak, memory per worker, the limit, how each memory and CPU cap went, and
// what a fresh deployment needs (fresh-need.ts). Types only: imports model/, never a module with behaviour.
import type { StepOutcome } from '../model/search.ts';

/**
 * Where a peak came from: the cgroup's own high-water mark, the highest 1 Hz reading, older cells' highest reading
 * after warmup without page cache, or a mix of these over repetitions.
 */
export type PeakSource = 'cgroup' | 'samples' | 'legacy' | 'mixed';

/** Memory per worker: least-squares slope of peak memory against the worker count. */
export interface WorkerSlope {
  bytesPerWorker: number;
  /**
   * Half-width of the slope's 95 % interval (Student's t, n − 2 degrees of freedom); null with two points, where a line
   * fits exactly.
   */
  halfWidth: number | null;
  /** The intercept: memory that does not grow with workers (the primary, the runtime, page cache). */
  baseBytes: number;
  /** Points fitted (one per repetition with a peak) and the distinct worker counts among them. */
  points: number;
  workerCounts: number[];
  /** The caps shared by the points: same mode, CPU and memory cap, workload and load. */
  memoryMb: number;
  cpuMillis: number;
}

/**
 * How one memory cap went for a configuration (same workload, load, mode, workers and CPU):
 * 'ok' ran clean; 'oom' a process was OOM-killed; 'restarts' workers were replaced; 'errors' failed
 * requests above the limit; 'gc-pressure' goodput significantly more than the margin below the
 * largest clean cap with no OOM kill or restart; 'latency' p99 significantly more than the margin
 * above it; 'no-result' nothing finished (failed, cancelled). In an auto-size run the search's judge
 * has the last word on a cap it checked against the objective: 'undecided' it could not tell,
 * 'misses' it missed the objective with no OOM kill or restart.
 */
export type MemoryOutcome =
  'ok' | 'oom' | 'restarts' | 'errors' | 'gc-pressure' | 'latency' | 'no-result' | 'undecided' | 'misses';

/**
 * Why an auto-size run's found configuration has the memory limit it has: 'verified' the rule's
 * step met the objective in a cell of its own; 'check-undecided' / 'check-missed' that check could
 * not tell / missed, so the bounds' maximum was kept; 'not-below' the rule's step is not below the
 * maximum; 'not-checked' the budget ran out before the check; 'no-peak' no peak was recorded.
 */
export type SearchMemoryReason =
  'verified' | 'check-undecided' | 'check-missed' | 'not-below' | 'not-checked' | 'no-peak';

/** How an auto-size search set the memory limit of the configuration it found (analysis/size/search-memory.ts). */
export interface SearchMemory {
  reason: SearchMemoryReason;
  /** What the rule multiplied: what a fresh deployment needed at the bounds' maximum memory, bytes; null without. */
  basisBytes: number | null;
  basisMeasure: FreshMeasure | null;
  /** basis × MEMORY_HEADROOM rounded up to MEMORY_ROUND_MB, MB; null without a basis. */
  ruleMb: number | null;
  /** The search's memory step at or above the rule's value (inside the bounds): the limit it checked; null without. */
  stepMb: number | null;
  memoryStepMb: number;
  boundsMinMb: number;
  boundsMaxMb: number;
  /** The cell(s) at stepMb the search ran: the judge's final word on them; null when none ran. */
  check: { memoryMb: number; outcome: StepOutcome; detail: string; cells: number } | null;
}

export interface MemoryCap {
  memoryMb: number;
  outcome: MemoryOutcome;
  /** "OOM-killed in 2 of 2 repetitions", "goodput 18 % below 512 MB (Holm-adjusted p 0.003)". */
  detail: string;
  peakBytes: number | null;
  /** Goodput and p99 relative to the reference cap (0.82 = 18 % lower); null for the reference or without a result. */
  rpsRatio: number | null;
  p99Ratio: number | null;
  /**
   * Holm-adjusted one-sided p of the penalty tests against the reference; null without a test (no interval, or the
   * reference itself).
   */
  pRps: number | null;
  pP99: number | null;
}

/** Memory of a configuration's replicas together, beside its per-container MemorySizing. */
export interface ReplicaMemory {
  count: number;
  /** 'replicas': each replica's own cgroup peak (the largest taken); 'even-split': the cell's total ÷ count. */
  from: ReplicaMemoryFrom;
  /** The replicas' peak together (the cell's total), the highest over the repetitions; null when none was recorded. */
  totalPeakBytes: number | null;
  /** The limit for all of them: limitMb × count; null without a limit. */
  limitTotalMb: number | null;
}

export interface MemorySizing {
  /** Highest peak over the configuration's finished repetitions (bytes); null when none recorded one. */
  peakBytes: number | null;
  /** Mean of the repetitions' peaks and its 95 % interval half-width (null below two repetitions). */
  peakMeanBytes: number | null;
  peakHalfWidthBytes: number | null;
  peakSource: PeakSource | null;
  /** Repetitions the peak is over. */
  repetitions: number;
  /** Share of the configuration's own cap the peak reached (0.71 = 71 %). */
  peakShareOfCap: number | null;
  perWorker: WorkerSlope | null;
  /** Why there is no slope ("a single process", "only 2 workers were tried at this mode, CPU and memory"). */
  perWorkerNote: string | null;
  /** The recommended memory limit in MB (MiB, as Docker and Kubernetes count them); null without a peak. */
  limitMb: number | null;
  /**
   * 'peak': by MEMORY_LIMIT_RULE; 'matrix': raised to the smallest clean cap because a cap at or above the rule's value
   * failed in the matrix; 'search': set by an auto-size search (`search` says how).
   */
  limitFrom: 'peak' | 'matrix' | 'search' | null;
  /** For an auto-size run's found configuration: how the search set the limit. */
  search?: SearchMemory | null;
  /** Every memory cap the matrix tried for this configuration, smallest first. */
  caps: MemoryCap[];
  /**
   * What a fresh deployment needs (the larger of the cgroup peak and the processes' resident memory,
   * file-backed pages counted once) and which measure it was; the limit is based on it. Absent in
   * answers made before it existed; null without a peak or process readings.
   */
  fresh?: FreshNeed | null;
  /**
   * A configuration of R ≥ 2 containers: peakBytes, fresh and limitMb are per container (every replica
   * gets the same limit, so it rests on the largest replica's peak); here the totals and how a
   * replica's memory was read (memory-replicas.ts). Absent for one container.
   */
  replicas?: ReplicaMemory;
  /** The cap the penalty tests compare with: the largest that ran clean; null when none did. */
  referenceMb: number | null;
  /** Smallest cap that ran clean with every larger cap clean too; null when none did. */
  smallestCleanMb: number | null;
  /**
   * The largest cap below that which did not (or the largest cap, when none ran clean); null when every cap tried was
   * clean.
   */
  failedAtMb: number | null;
  failedOutcome: MemoryOutcome | null;
}

/** How one CPU cap went for a configuration (same workload, load, mode, workers and memory). */
export interface CpuCap {
  cpuMillis: number;
  /** Meets the SLO (every limit, on the means); null without an SLO or a result. */
  meetsSlo: boolean | null;
  /**
   * Within the margin of the best goodput over the CPU caps, as the contest decides it (decideCpuCaps); null without a
   * result.
   */
  holdsThroughput: boolean | null;
  rps: number | null;
  p99Us: number | null;
  /** Why it misses ("p99 31 ms, 55 % over the 20 ms limit"), or null. */
  miss: string | null;
}

export interface CpuSizing {
  /**
   * The smallest CPU cap (millicores) that meets the objective (with an SLO) or holds the throughput; null when none in
   * the matrix does.
   */
  requestMillis: number | null;
  /** 'pick': the configuration the answer deploys, at the cap it was measured under and picked at. */
  basis: 'slo' | 'throughput' | 'pick';
  /** How the throughput is judged: 'test' (one-sided Welch) or 'means' when a side had no interval. */
  evidence: 'test' | 'means' | null;
  /** Every CPU cap tried for this configuration, smallest first. */
  caps: CpuCap[];
  /** The largest cap below the request that did not do it; null when there was none below. */
  failedAtMillis: number | null;
  /** An auto-size run's found configuration: the caps and the request are the search's (size/search-memory.ts). */
  searched?: boolean;
  /**
   * At the configuration's own cap, over its finished repetitions (mean): CPU use as a share of the cap (100 = all of
   * it), throttled ms per measured second, and the share of CFS periods throttled (null for older cells that lack the
   * period count).
   */
  cpuPctOfCap: number | null;
  throttledMsPerSec: number | null;
  throttledShare: number | null;
}

/** Memory and CPU sizing of one configuration, from its own cells and its neighbours in the matrix. */
export interface Sizing {
  /** The configuration's key. */
  key: string;
  label: string;
  app: string;
  requestSet: string | null;
  /**
   * "the recommended configuration", "knee of 1 CPU / 256 MB", "cheapest meeting the SLO"; empty for every other
   * configuration.
   */
  roles: string[];
  /**
   * The one per workload the answer recommends: the configuration meeting the SLO, else the knee of the workload's
   * first CPU / memory pair (the one the deploy snippets use).
   */
  recommended: boolean;
  memory: MemorySizing;
  cpu: CpuSizing;
}

/** How a replica's memory was read: its own cgroup reading, or the cell's total ÷ replicas (no reading per replica). */
export type ReplicaMemoryFrom = 'replicas' | 'even-split';

/** Which measure set what a fresh deployment needs: the cgroup's peak, or the processes' resident memory. */
export type FreshMeasure = 'cgroup' | 'rss';

/**
 * What a fresh deployment of a configuration needs, and the per-process figures PM2's
 * `max_memory_restart` and V8's `--max-old-space-size` are set from. Bytes; the highest over the
 * repetitions that recorded each.
 *
 * Not the cgroup's peak alone: a page is charged to the cgroup that first touched it, so on a warm
 * machine the node binary and libraries earlier containers read are charged elsewhere, while a fresh
 * pod pays for them (limits from the peak alone left fresh pods thrashing: BENCHMARKS.md, Thresholds).
 * Resident memory with file-backed pages counted once — Σ per process max(RssAnon, VmHWM − RssFile) +
 * the largest RssFile (engine/process-memory.ts) — as a pod holds those pages once: summed RSS counts
 * them in every process, and summed PSS undercounts on a warm machine.
 *
 * There is no heap figure: the V8 heap cannot be told apart from other anonymous memory from
 * outside the process; `processMaxAnonBytes` (heap, stacks, malloc) bounds it from above.
 */
export interface FreshNeed {
  /** What a fresh deployment needs: the larger of `cgroupPeakBytes` and `rssBytes`. */
  bytes: number;
  /** Which of the two it is ('cgroup' also where process memory was not measured). */
  measure: FreshMeasure;
  /** The configuration's peak as cellPeak gives it (cgroup high-water mark, or older cells' highest reading). */
  cgroupPeakBytes: number | null;
  /** The processes' resident memory, file-backed pages counted once; null where not measured. */
  rssBytes: number | null;
  /** Each process's RSS high-water mark summed, as `ps` and PM2 show them (shared pages counted in every process). */
  rssSummedBytes: number | null;
  /** The processes' PSS summed (an undercount on a warm machine; see above). */
  pssBytes: number | null;
  /**
   * The largest RSS high-water mark of one serving process (a worker; the primary where there is none): what PM2's
   * `max_memory_restart` is checked against, per process.
   */
  processMaxRssBytes: number | null;
  /**
   * The largest anonymous resident memory of one serving process: heap, stacks and allocations, file-backed pages left
   * out.
   */
  processMaxAnonBytes: number | null;
  /** The PM2 daemon's own RSS (pm2 mode): in the limit, never checked by `max_memory_restart`. */
  pm2DaemonRssBytes: number | null;
  /** Processes in the repetition with the most resident memory. */
  processes: number | null;
  /** Repetitions with process readings, of all those with a peak or readings. */
  measuredRepetitions: number;
  repetitions: number;
  /** Why process memory is missing ("not measured: …"), null when every repetition has it. */
  notMeasured: string | null;
}
