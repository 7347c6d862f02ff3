import type { CellLoad, CellStatus, FlagKind, LaunchMode, RunStatus } from '../engine/types.ts';
import type { MetricStats } from './stats.ts';

export type { Interval, MetricStats } from './stats.ts';

/** A service-level objective: every limit must hold (use minRps 0 / maxErrorPct 100 for "no limit"). */
export interface Slo {
  p99Ms: number;
  minRps: number;
  maxErrorPct: number;
}

export interface RecommendOptions {
  /** The knee: the fewest workers whose mean req/s is within this many percent of the best. Default 5. */
  marginPct?: number;
  slo?: Slo;
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
  /** null when no repetition was included. */
  rps: MetricStats | null;
  p99Us: MetricStats | null;
  /** Failed requests (errors + timeouts + unexpected statuses) over all attempts, pooled over repetitions, in percent. */
  errorPct: number | null;
  /** workers ÷ CPUs of the cap: 1.0 is the "cluster size = CPU count" rule. */
  workersPerCpu: number;
  flags: FlagSummary[];
  excluded: Exclusion[];
  /** Coefficient of variation of req/s above NOISY_CV. */
  noisy: boolean;
  notes: string[];
}

/**
 * How sure a pick is: 'clear' — its 95 % interval overlaps no other's; 'not-distinguishable' — at
 * least one other configuration's interval overlaps it; 'single-sample' — it or a competitor was
 * measured once, so only means were compared; 'only-one' — nothing to compare with.
 */
export type Verdict = 'clear' | 'not-distinguishable' | 'single-sample' | 'only-one';

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
  /** Keys of the configurations compared (those with at least one included repetition). */
  configurations: string[];
  bestRps: ConfigurationSummary;
  /** The fewest workers whose mean req/s is within marginPct of the best (may be the best itself). */
  knee: ConfigurationSummary;
  lowestP99: ConfigurationSummary;
  rpsVerdict: Verdict;
  p99Verdict: Verdict;
  /** Keys of the others whose req/s interval overlaps the best's. */
  notDistinguishableRps: string[];
  /** Keys of the others whose p99 interval overlaps the lowest's. */
  notDistinguishableP99: string[];
  /** Keys of the others whose req/s interval lies wholly below the best's. */
  clearlyBelowRps: string[];
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
  /** One per workload when an SLO was given; empty otherwise. */
  sloOutcomes: SloOutcome[];
  exclusions: Exclusion[];
  noise: NoiseNote[];
  /** The answer in plain words, most important first. */
  words: string[];
}
