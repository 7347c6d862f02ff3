import type { CellLoad, CellStatus, FlagKind, LaunchMode, RunStatus, Sample } from '../model/types.ts';
import type { IntervalSource, MetricStats, TTest } from './stats.ts';
import type { SearchStatus } from '../model/search.ts';
import type { Headline } from './headline.ts';
import type { FreshNeed } from './memory.ts';

export type { Estimate, Interval, IntervalSource, MetricStats, TTest } from './stats.ts';

/** A service-level objective: every limit must hold (use minRps 0 / maxErrorPct 100 for "no limit"). */
import type { Slo } from '../model/search.ts';
export type { Slo };

export interface RecommendOptions {
  /**
   * The knee: the fewest workers whose goodput is not significantly below the best minus this many percent. Default 5.
   */
  marginPct?: number;
  slo?: Slo;
  /**
   * Stored per-second samples by cell id (Store.getRunSamples). Only needed for cells stored before
   * LoadResult carried `perSecondGood`: their one-repetition interval comes from these seconds.
   */
  samples?: ReadonlyMap<number, readonly Sample[]>;
}

/** A cell left out of every aggregate, and why. */
export interface Exclusion {
  cellIndex: number;
  repetition: number;
  /** Key of the configuration it belonged to. */
  key: string;
  status: CellStatus;
  /** "OOM-killed", "failed: image build …", "cancelled"… */
  reason: string;
  /** The sentence: "hello pm2×16 500m/512MB c20: OOM-killed, excluded". */
  text: string;
}

/** One flag kind over the repetitions of a configuration. */
export interface FlagSummary {
  kind: FlagKind;
  /** Repetitions carrying it, of `of` included repetitions. */
  cells: number;
  of: number;
  /** Distinct reasons, as the cells gave them. */
  reasons: string[];
}

/**
 * A configuration: app (+ request set) × mode × workers × CPU × memory × load. Its repetitions
 * are aggregated; only cells with status 'ok' count.
 */
export interface ConfigurationSummary {
  key: string;
  /** Configurations sharing a scope are compared with each other (same workload, load, CPU and memory). */
  scopeKey: string;
  /** "hello cluster×2 1000m/256MB c20". */
  label: string;
  app: string;
  requestSet: string | null;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  load: CellLoad;
  /** Repetitions included (status ok). */
  n: number;
  /** Execution indexes of the included cells. */
  cellIndexes: number[];
  /**
   * Throughput as goodput: responses with their expected status per second (failed statuses, errors
   * and timeouts do not count). One value per included repetition; the interval from the repetitions,
   * or with one repetition from batch means of its seconds (`rps.intervalFrom`). null when no
   * repetition was included.
   */
  rps: MetricStats | null;
  /**
   * Every completed response per second, failed statuses included (mean over repetitions); null when none was included.
   */
  rpsAll: number | null;
  /** Same as rps.intervalFrom (null without an interval or without repetitions): what the interval rests on. */
  intervalFrom: IntervalSource;
  p99Us: MetricStats | null;
  /**
   * Failed requests (errors + timeouts + unexpected statuses) over all attempts, pooled over repetitions, in percent.
   */
  errorPct: number | null;
  /** workers ÷ CPUs of the cap: 1.0 is the "cluster size = CPU count" rule. */
  workersPerCpu: number;
  flags: FlagSummary[];
  excluded: Exclusion[];
  /** Coefficient of variation of req/s above NOISY_CV. */
  noisy: boolean;
  /**
   * Why it can never be best or knee: error rate above MAX_ERROR_PCT, an OOM kill. Empty when it can. (Unstable
   * repetitions are excluded instead.)
   */
  disqualified: string[];
  /**
   * 'client': a repetition was client-bound; 'host': one was host-busy. Such a configuration is picked only when no
   * clean one qualifies.
   */
  bottleneck: 'client' | 'host' | null;
  /**
   * Constant rate that fell short: which side was the bottleneck (from load.shortfallBy, else latency × rate vs
   * connections); null when it did not fall short or no one can tell.
   */
  shortfallBy: 'server' | 'client' | null;
  notes: string[];
}

/**
 * How sure a pick is, by Welch's t-test of it against every other candidate, Holm-corrected:
 * 'clear' — every other is significantly worse; 'not-distinguishable' — the test cannot separate
 * it from at least one other; 'single-sample' — it or a competitor has no interval (one repetition
 * without a per-second series), so against those only means were compared; 'only-one' — nothing
 * to compare with; 'bottlenecked' — the load generator or the host set the pace of every candidate,
 * or of a configuration set aside for it (its number is only a lower bound and may be the faster
 * one), so the ranking is not the server's and the pick is not a confident one.
 */
export type Verdict = 'clear' | 'not-distinguishable' | 'single-sample' | 'only-one' | 'bottlenecked';

/**
 * How an answer stands: 'confident' — a test separates the pick from every rival; 'equivalent' — the
 * contenders are shown within the margin of the best (or, cheaper ones, not below it), and the
 * cheapest is picked; 'undecided' — neither: the contenders are named, never a pick.
 */
export type AnswerState = 'confident' | 'equivalent' | 'undecided';

/** The best against one rival on goodput (analysis/contest.ts). */
export type RivalRelation = 'worse' | 'good-enough' | 'equivalent' | 'undecided';

export interface RivalTest {
  key: string;
  relation: RivalRelation;
  /**
   * Holm-adjusted p of the test that decided it (for 'undecided', the smallest of those tried); null without an
   * interval.
   */
  p: number | null;
  /** Its goodput is a lower bound (client-bound or host-busy). */
  censored: boolean;
  /** For an undecided rival: 'noise' (more repetitions can decide) or 'bound' (a lower bound prevents it). */
  blockedBy: 'noise' | 'bound' | null;
}

/** The decisions for one CPU / memory pair of one workload under one load. */
export interface ScopeDecision {
  key: string;
  /** "1 CPU / 256 MB". */
  label: string;
  /** "hello, 20 connections". */
  context: string;
  app: string;
  requestSet: string | null;
  load: CellLoad;
  cpuMillis: number;
  memoryMb: number;
  /** Keys of every configuration of the scope with at least one included repetition. */
  configurations: string[];
  /**
   * Keys of those the picks were made among: qualified, and clean (not client-bound or host-busy) when any clean one
   * qualifies.
   */
  candidates: string[];
  /** The others, each with why it was not a candidate (disqualified: errors, OOM kills). */
  setAside: { key: string; reason: string }[];
  /**
   * The goodput contest: its state, the contenders still in the running (pick first) and each rival's relation to the
   * best.
   */
  state: AnswerState;
  contenders: string[];
  rivals: RivalTest[];
  /** Keys of candidates whose goodput is a lower bound (client-bound or host-busy): used as bounds, never set aside. */
  lowerBounds: string[];
  /** When undecided: what would decide it, in words (more repetitions; a heavier load…); empty otherwise. */
  decideBy: string[];
  /** More repetitions could decide it (no lower bound stands in the way). */
  settleable: boolean;
  /**
   * Every candidate was client-bound ('client') or bottlenecked by the load generator or a busy host ('host'): that,
   * not the server, set the ceiling.
   */
  ceiling: 'client' | 'host' | null;
  /** The highest goodput mean among the candidates. */
  bestRps: ConfigurationSummary;
  /**
   * The pick of the contest: the best, or the cheapest shown within marginPct of it (the knee); when
   * the state is 'undecided', the leading contender, never to be presented as a pick.
   */
  knee: ConfigurationSummary;
  /**
   * How the knee stands: 'shown-within' — the test also shows it above best − margin; 'not-below' —
   * not significantly below, but not shown above either (weak); 'means' — no interval, means compared.
   */
  kneeEvidence: 'shown-within' | 'not-below' | 'means';
  /**
   * The best against each other candidate on goodput: Welch's t-test, Holm-adjusted p (null where a side has no
   * interval).
   */
  rpsTests: PairTest[];
  p99Tests: PairTest[];
  lowestP99: ConfigurationSummary;
  rpsVerdict: Verdict;
  p99Verdict: Verdict;
  /** Keys of the other candidates the test cannot separate from the best on goodput (Holm-adjusted p > ALPHA). */
  notDistinguishableRps: string[];
  /** Keys of the other candidates the test cannot separate from the lowest p99. */
  notDistinguishableP99: string[];
  /** Keys of the other candidates significantly below the best on goodput. */
  clearlyBelowRps: string[];
}

/** One comparison of a pick with another candidate. */
export interface PairTest {
  key: string;
  /** null when either side has no interval: only means could be compared. */
  test: TTest | null;
  /** Holm-adjusted over the comparisons of this pick; null with test. */
  pHolm: number | null;
  significant: boolean;
}

/** A CPU / memory pair where no configuration qualified to be picked. */
export interface UndecidedScope {
  key: string;
  label: string;
  context: string;
  setAside: { key: string; reason: string }[];
}

export type SloCriterion = 'p99' | 'rps' | 'errors';

export interface SloCheck {
  criterion: SloCriterion;
  /** p99 in ms, req/s, or error percent. */
  value: number;
  limit: number;
  ok: boolean;
  /**
   * How far past the limit, relative to it (0.21 = 21 % over); ≤ 0 when met. Errors against a 0 % limit: Infinity when
   * any failed.
   */
  miss: number;
  /**
   * Whether the whole 95 % interval is on the right side of the limit; null without an interval (one repetition, or
   * errors, which are pooled).
   */
  sure: boolean | null;
}

/** The SLO answer for one workload (app + request set). */
export interface SloOutcome {
  app: string;
  requestSet: string | null;
  /** The cheapest configuration meeting every limit (least CPU, then memory, then workers), or null. */
  met: ConfigurationSummary | null;
  /** When none meets it: the one that missed by the least on its worst criterion. */
  closest: ConfigurationSummary | null;
  /** The checks of `met`, or of `closest`. */
  checks: SloCheck[];
  /** How many configurations meet it. */
  meeting: number;
  considered: number;
}

export interface NoiseNote {
  key: string;
  label: string;
  cv: number;
  n: number;
  suggestion: string;
}

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
 * above it; 'no-result' nothing finished (failed, cancelled).
 */
export type MemoryOutcome = 'ok' | 'oom' | 'restarts' | 'errors' | 'gc-pressure' | 'latency' | 'no-result';

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
   * failed in the matrix.
   */
  limitFrom: 'peak' | 'matrix' | null;
  /** Every memory cap the matrix tried for this configuration, smallest first. */
  caps: MemoryCap[];
  /**
   * What a fresh deployment needs (the larger of the cgroup peak and the processes' resident memory,
   * file-backed pages counted once) and which measure it was; the limit is based on it. Absent in
   * answers made before it existed; null without a peak or process readings.
   */
  fresh?: FreshNeed | null;
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
   * Not significantly below (1 − margin) × the best goodput over the CPU caps (one-sided Welch); null without a result.
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
  basis: 'slo' | 'throughput';
  /** How the throughput is judged: 'test' (one-sided Welch) or 'means' when a side had no interval. */
  evidence: 'test' | 'means' | null;
  /** Every CPU cap tried for this configuration, smallest first. */
  caps: CpuCap[];
  /** The largest cap below the request that did not do it; null when there was none below. */
  failedAtMillis: number | null;
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

/** A configuration an auto-size search names. */
export interface SearchConfig {
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
}

/** The answer of an auto-size run (analysis/search-answer.ts): what its search found, not a knee over its cells. */
export interface SearchAnswer {
  status: SearchStatus;
  app: string;
  /** The search's objective; minRps is the constant rate it was measured at. */
  slo: Slo;
  rate: number;
  /** "p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %". */
  objective: string;
  /** The cheapest configuration meeting the objective with confidence; null unless the search ended "found". */
  found: SearchConfig | null;
  /** Its configuration's key among the run's configurations (null when none of its cells finished). */
  foundKey: string | null;
  /** The judge's words on the last cell of it that met. */
  evidence: string | null;
  /** Where its memory came from: the measured peak by the memory rule (verified by a cell), or the bounds' maximum. */
  memoryFrom: 'peak' | 'bounds' | null;
  /** A stopped or undecided search's cheapest meeting configuration so far (cheaper ones not ruled out). */
  bestSoFar: SearchConfig | null;
  /** The search's own words. */
  words: string;
  cells: number;
  gridCells: number;
}

export interface Recommendation {
  /**
   * An auto-size run's answer: present exactly when the run is a search; then it, not the knee, is what the answer
   * names and deploys.
   */
  search?: SearchAnswer;
  run: {
    id: number;
    name: string;
    status: RunStatus;
    cellsTotal: number;
    cellsIncluded: number;
    cellsExcluded: number;
  };
  marginPct: number;
  slo: Slo | null;
  configurations: ConfigurationSummary[];
  scopes: ScopeDecision[];
  /** Scopes with results where every configuration was disqualified (errors, OOM). */
  undecided: UndecidedScope[];
  /** One per workload when an SLO was given; empty otherwise. */
  sloOutcomes: SloOutcome[];
  exclusions: Exclusion[];
  noise: NoiseNote[];
  /**
   * Memory and CPU sizing of every configuration with a finished repetition (recommended ones first); the words speak
   * of the recommended ones. Absent in answers made before it existed.
   */
  sizing?: Sizing[];
  /** How the answer was decided, in one paragraph (also the last sentence of `words` when anything was decided). */
  method: string;
  /**
   * The pick and how it stands (confident / equivalent / undecided): the answer's first sentence; null when nothing can
   * be deployed.
   */
  headline?: Headline | null;
  /** The answer in plain words, most important first. */
  words: string[];
  /** Those of `words` that size memory and CPU (a UI may show them apart, with the sizing evidence). */
  sizingWords: string[];
}
