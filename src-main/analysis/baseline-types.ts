// The types of a comparison against a baseline run (analysis/compare/baseline.ts): one verdict per
// configuration present in both runs and metric, and whether the two runs were fair to compare.

/** What a metric did between the baseline and this run. */
export type BaselineVerdict = 'regressed' | 'improved' | 'unchanged' | 'inconclusive';

/** goodput: higher is better; p99 and peak memory: lower is better. */
export type BaselineMetric = 'goodput' | 'p99' | 'memory';

export const BASELINE_METRICS: readonly BaselineMetric[] = ['goodput', 'p99', 'memory'];

/** Default noise threshold, in percent: a change smaller than this is never a regression. */
export const DEFAULT_THRESHOLD_PCT = 5;

export interface MetricVerdict {
  metric: BaselineMetric;
  verdict: BaselineVerdict;
  /** Means (goodput req/s, p99 µs, peak bytes); null where the side has nothing counted. */
  baseline: number | null;
  candidate: number | null;
  /** candidate ÷ baseline, and its 95 % interval (Welch on the logs); null where a side has no interval. */
  ratio: number | null;
  low: number | null;
  high: number | null;
  /** Holm-adjusted p of the test that decided it (for 'inconclusive', the smallest tried; null when none ran). */
  p: number | null;
  /** The threshold this metric was judged with, percent (raised when a side has one repetition). */
  thresholdPct: number;
  /** Why it is inconclusive, or what qualifies the verdict; null when nothing needs saying. */
  reason: string | null;
}

export interface ConfigurationVerdict {
  /** configurationKey (analysis/decide/group.ts). */
  key: string;
  label: string;
  app: string;
  /** Repetitions counted on each side. */
  baselineN: number;
  candidateN: number;
  metrics: MetricVerdict[];
}

/** What makes a baseline fair, as both runs recorded it. */
export interface Comparability {
  /** false: the verdicts are shown but do not gate (no regression exit code). */
  comparable: boolean;
  /** Why not, one sentence each ("the baseline ran on 8 cores, this run on 2"). */
  problems: string[];
  /** What changed that the comparison is meant to measure (the app's image, its env, Node.js). */
  changes: string[];
  /** What differs but does not matter to the numbers (the hostname of an ephemeral CI runner). */
  notes: string[];
}

export interface BaselineComparison {
  /** The baseline run(s): one, or one per app for a named baseline saved by a run of other apps. */
  baselineRunIds: number[];
  candidateRunId: number;
  thresholdPct: number;
  alpha: number;
  configurations: ConfigurationVerdict[];
  /** Labels of configurations measured in only one of the runs (not compared). */
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  comparability: Comparability;
  counts: Record<BaselineVerdict, number>;
  /** Something regressed and the runs are comparable: the CLI exits with EXIT.regressed. */
  gateFailed: boolean;
  /** How the verdicts were reached, in words (the method, Holm, bounds, one repetition). */
  method: string[];
  /** The headline sentence: "2 of 6 comparisons regressed: …". */
  summary: string;
}
