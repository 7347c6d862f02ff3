// The types of the answer's aggregates and decisions: a configuration's repetitions summed up, and
// the decisions of each CPU / memory pair. Types only (analysis/types.ts exports them with the rest).
import type { BoundPace, CellLoad, CellStatus, FlagKind, LaunchMode } from '../model/types.ts';
import type { IntervalSource, MetricStats, TTest } from './stats-types.ts';

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
  /** Containers of the app (CellConfig.replicas; absent = 1): cpuMillis, memoryMb and workers are per replica. */
  replicas?: number;
  /** The Node.js version the matrix named (CellConfig.node; absent: the default base image's). */
  node?: string;
  /** The Node.js flags of every process (CellConfig.nodeFlags; absent: none). */
  nodeFlags?: string[];
  /** The environment dimension's values it ran (CellConfig.envSet; absent: none), e.g. {PG_POOL_SIZE: "10"}. */
  envSet?: Record<string, string>;
  /** The exact Node.js versions its cells ran (CellResult.nodeVersion), where recorded. */
  nodeVersions?: string[];
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
   * 'client': a repetition was client-bound; 'dependency': one was held by a dependency at its cap; 'host': one was
   * host-busy. Such a configuration is picked only when no clean one qualifies.
   */
  bottleneck: BoundPace | null;
  /**
   * Constant rate that fell short: which side was the bottleneck (from load.shortfallBy, else latency × rate vs
   * connections); null when it did not fall short or no one can tell.
   */
  shortfallBy: 'server' | 'client' | null;
  notes: string[];
}

/**
 * How an answer stands: 'confident' — a test separates the pick from every rival; 'equivalent' — the
 * contenders are shown within the margin of the best (or, cheaper ones, not below it), and the
 * cheapest is picked; 'undecided' — neither: the contenders are named, never a pick.
 */
export type AnswerState = 'confident' | 'equivalent' | 'undecided';

/** The best against one rival on goodput (analysis/decide/contest.ts). */
export type RivalRelation = 'worse' | 'good-enough' | 'equivalent' | 'undecided';

/**
 * On what a configuration stands within the margin of the best: 'shown-within' — a test shows it (non-inferiority,
 * or TOST); 'not-below' — not shown below it, nor shown within (weak); 'means' — no interval on a side, its mean at
 * or above the floor.
 */
export type MarginEvidence = 'shown-within' | 'not-below' | 'means';

export interface RivalTest {
  key: string;
  relation: RivalRelation;
  /**
   * Holm-adjusted p of the test that decided it (for 'undecided', the smallest of those tried); null without an
   * interval.
   */
  p: number | null;
  /** Its goodput is a lower bound (client-bound or host-busy). */
  lowerBound: boolean;
  /** For an undecided rival: 'noise' (more repetitions can decide) or 'bound' (a lower bound prevents it). */
  blockedBy: 'noise' | 'bound' | null;
  /**
   * The margin test, made once by the contest and read by the pick, CPU sizing and the words: within the margin of
   * the best, and on what; null when not (shown worse, or a bound or a mean below the floor).
   */
  within: MarginEvidence | null;
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
  /** The pick's caps (within one pair, the pair's). */
  cpuMillis: number;
  memoryMb: number;
  /**
   * How many CPU / memory pairs the decision spans: 1 for a pair's own (goodput decides), more for the
   * answer's decision across a workload's pairs (goodput per dollar decides). Absent in answers made before it.
   */
  pairs?: number;
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
   * Every candidate was client-bound ('client'), held by a dependency ('dependency'), or bottlenecked by any of
   * these or a busy host ('host'): that, not the server, set the ceiling.
   */
  ceiling: BoundPace | null;
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
  kneeEvidence: MarginEvidence;
  /**
   * The lowest p99 against each other candidate: Welch's t-test, Holm-adjusted p (null where a side has no interval).
   * Latency only: how sure the answer is, is its state.
   */
  p99Tests: PairTest[];
  lowestP99: ConfigurationSummary;
  /** Keys of the other contenders on goodput: the contest's, every candidate not shown worse than the best. */
  notDistinguishableRps: string[];
  /** Keys of the other candidates the test cannot separate from the lowest p99. */
  notDistinguishableP99: string[];
  /** Keys of the other candidates the contest shows worse than the best on goodput. */
  clearlyBelowRps: string[];
  /**
   * The answer's decision over a workload measured over several links (TLS, HTTP version, bandwidth cap): each
   * link's own decision, by the same contest. A link is a condition the deployment meets, so the pick is for its
   * own link and each other link's pick is its alternative. Absent with one link.
   */
  links?: ScopeDecision[];
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

export interface NoiseNote {
  key: string;
  label: string;
  cv: number;
  n: number;
  suggestion: string;
}
