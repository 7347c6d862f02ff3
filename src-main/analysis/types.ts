import type { CellLoad, CellStatus, FlagKind, LaunchMode, RunStatus, Sample } from '../engine/types.ts';
import type { IntervalSource, MetricStats, TTest } from './stats.ts';

export type { Estimate, Interval, IntervalSource, MetricStats, TTest } from './stats.ts';

/** A service-level objective: every limit must hold (use minRps 0 / maxErrorPct 100 for "no limit"). */
export interface Slo {
  p99Ms: number;
  minRps: number;
  maxErrorPct: number;
}

export interface RecommendOptions {
  /** The knee: the fewest workers whose goodput is not significantly below the best minus this many percent. Default 5. */
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
  /** Every completed response per second, failed statuses included (mean over repetitions); null when none was included. */
  rpsAll: number | null;
  /** Same as rps.intervalFrom (null without an interval or without repetitions): what the interval rests on. */
  intervalFrom: IntervalSource;
  p99Us: MetricStats | null;
  /** Failed requests (errors + timeouts + unexpected statuses) over all attempts, pooled over repetitions, in percent. */
  errorPct: number | null;
  /** workers ÷ CPUs of the cap: 1.0 is the "cluster size = CPU count" rule. */
  workersPerCpu: number;
  flags: FlagSummary[];
  excluded: Exclusion[];
  /** Coefficient of variation of req/s above NOISY_CV. */
  noisy: boolean;
  /** Why it can never be best or knee: error rate above MAX_ERROR_PCT, an OOM kill. Empty when it can. (Unstable repetitions are excluded instead.) */
  disqualified: string[];
  /** 'client': a repetition was client-bound; 'host': one was host-busy. Such a configuration is picked only when no clean one qualifies. */
  bottleneck: 'client' | 'host' | null;
  /** Constant rate that fell short: which side was the bottleneck (from load.shortfallBy, else latency × rate vs connections); null when it did not fall short or no one can tell. */
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
  /** Keys of those the picks were made among: qualified, and clean (not client-bound or host-busy) when any clean one qualifies. */
  candidates: string[];
  /** The others, each with why it was not a candidate. */
  setAside: { key: string; reason: string }[];
  /** Every candidate was client-bound ('client') or bottlenecked by the load generator or a busy host ('host'): that, not the server, set the ceiling. */
  ceiling: 'client' | 'host' | null;
  /** The highest goodput mean among the candidates. */
  bestRps: ConfigurationSummary;
  /** The fewest workers whose goodput is not significantly below the best minus marginPct (one-sided Welch test; may be the best itself). */
  knee: ConfigurationSummary;
  /**
   * How the knee stands: 'shown-within' — the test also shows it above best − margin; 'not-below' —
   * not significantly below, but not shown above either (weak); 'means' — no interval, means compared.
   */
  kneeEvidence: 'shown-within' | 'not-below' | 'means';
  /** The best against each other candidate on goodput: Welch's t-test, Holm-adjusted p (null where a side has no interval). */
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
  /** How far past the limit, relative to it (0.21 = 21 % over); ≤ 0 when met. Errors against a 0 % limit: Infinity when any failed. */
  miss: number;
  /** Whether the whole 95 % interval is on the right side of the limit; null without an interval (one repetition, or errors, which are pooled). */
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

export interface Recommendation {
  run: { id: number; name: string; status: RunStatus; cellsTotal: number; cellsIncluded: number; cellsExcluded: number };
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
  /** How the answer was decided, in one paragraph (also the last sentence of `words` when anything was decided). */
  method: string;
  /** The answer in plain words, most important first. */
  words: string[];
}
