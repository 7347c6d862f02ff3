// What the UI shows that the engine words or shapes, carried in the calls' outputs beside the data:
// service/views.ts makes it with analysis/'s own functions (the ones the CLI and the HTML report
// use), so the renderer computes nothing of the answer itself and cannot say it differently. Types
// only, as the rest of the contract.
import type { AnswerChartPanel } from '../analysis/explain/answer-chart.ts';
import type { BaselineComparison, ConfigurationVerdict, MetricVerdict } from '../analysis/baseline-types.ts';
import type { Recommendation } from '../analysis/types.ts';
import type { RunDetail } from '../model/stored.ts';

export type {
  AnswerChartPanel,
  AnswerChartPoint,
  AnswerChartSeries,
  ChartEstimate,
  ChartRepetition,
} from '../analysis/explain/answer-chart.ts';

/** A configuration of the answer as the answer's sentences name it (analysis/explain/phrases.ts). */
export interface ConfigurationWords {
  /** "2 cluster workers on 1 CPU / 256 MB" (who). */
  who: string;
  /** Goodput with its interval (rpsText); null without a result. */
  rps: string | null;
  /** p99 with its interval (p99Text); null without a result. */
  p99: string | null;
  /** Goodput for a table cell: "25,309 ± 812", "25,309 (n = 2, too few to bound)" (rpsShort); null without one. */
  rpsShort: string | null;
  /** The same for a table cell: "2.1 ms ± 0.3", "2.1 ms (1.9–2.4)" (p99Short); null without a result. */
  p99Short: string | null;
}

/** One sizing statement, short, and how its number was derived (analysis/explain/sizing-words.ts sizingParts). */
export interface SizingPartWords {
  statement: string;
  method: string;
}

/** A sized configuration's figures in words (analysis/explain/sizing-words.ts). */
export interface SizingWords {
  /** Where its peak came from (PEAK_SOURCE_WORDS); null without a peak. */
  peakSource: string | null;
  /** Memory per worker and how it was found (perWorkerText). */
  perWorker: string;
  /** The recommended limit and the rule or check that set it (limitText). */
  limit: string;
  /** Each memory cap's outcome in a word or two (MEMORY_OUTCOME_WORDS), by the cap in MB. */
  caps: Record<number, string>;
}

/** What the UI shows of an answer beyond the Recommendation's own fields. */
export interface AnswerView {
  /** The configuration the answer deploys (analysis/size/sizing.ts answerKey); null when there is none. */
  deployedKey: string | null;
  /** The answer's sentences without its methods, one by one (analysis/explain/summary.ts reasoningOf). */
  reasoning: string[];
  /** Every configuration of the answer in words, by key. */
  configurations: Record<string, ConfigurationWords>;
  /** The answer's chart (analysis/explain/answer-chart.ts): the same data the HTML report draws. */
  chart: AnswerChartPanel[];
  /** The recommended configurations' memory and CPU as statements with their methods. */
  sizingParts: SizingPartWords[];
  /** Each sized configuration's figures in words, by key. */
  sizing: Record<string, SizingWords>;
}

/** The answer as `runs.recommend` gives it: the Recommendation, with what the UI shows of it. */
export type ShownAnswer = Recommendation & { view: AnswerView };

/** A baseline verdict's figures in words (analysis/explain/baseline-words.ts), as the CLI's table says them. */
export interface MetricWords {
  /** "goodput", "p99", "peak memory". */
  metric: string;
  baseline: string;
  candidate: string;
  /** The ratio as a change ("+12.0 %"); "—" without one. */
  change: string;
  /** Its 95 % interval as changes ("+3.1 % to +20.9 %"), or "no interval". */
  interval: string;
}

export type ShownMetricVerdict = MetricVerdict & { words: MetricWords };
export type ShownConfigurationVerdict = Omit<ConfigurationVerdict, 'metrics'> & { metrics: ShownMetricVerdict[] };

/** A comparison with a baseline as `runs.compare` gives it: every verdict with its figures in words. */
export type ShownComparison = Omit<BaselineComparison, 'configurations'> & {
  configurations: ShownConfigurationVerdict[];
};

/** A mix a run's cells sent, in words (mix/describe.ts mixLines), as the HTML report's routes section says it. */
export interface RunMixWords {
  /** The app ("shop"), or the app and a matrix request set ("shop [checkout]"). */
  who: string;
  /** One line per entry: "60 % GET /products/{{zipf 1 5000 1.1}}", or the requests in turn. */
  lines: string[];
  /** The stored cells (ids) that sent it. */
  cellIds: number[];
}

/** What the run page shows of a run beyond its stored fields. */
export interface RunView {
  /** The mixes of the cells that counted routes (load.routes), each as the run kept it; [] when none did. */
  mixes: RunMixWords[];
  /** How far a route's share of requests may stray from its weight's, in percentage points (mix/routes.ts). */
  shareTolerancePp: number;
}

/** A run as `runs.get` gives it: the stored run, with what the run page shows of it. */
export type ShownRun = RunDetail & { view: RunView };
