// What the UI shows, worded and shaped here with analysis/'s own functions (contract/views.ts says
// why): the renderer imports no engine code, so whatever it shows of an answer, a comparison or a
// stored search comes with the call's output.
import { answerChart } from '../analysis/explain/answer-chart.ts';
import { changeText, METRIC_WORDS, metricValue } from '../analysis/explain/baseline-words.ts';
import { withoutProgress } from '../analysis/size/search-memory.ts';
import { answerKey } from '../analysis/size/sizing.ts';
import {
  limitText,
  MEMORY_OUTCOME_WORDS,
  PEAK_SOURCE_WORDS,
  perWorkerText,
  sizingParts,
} from '../analysis/explain/sizing-words.ts';
import { reasoningOf } from '../analysis/explain/summary.ts';
import type { BaselineComparison, MetricVerdict } from '../analysis/baseline-types.ts';
import type { Recommendation } from '../analysis/types.ts';
import { p99Short, p99Text, rpsShort, rpsText, who } from '../analysis/explain/words.ts';
import type {
  AnswerView,
  ConfigurationWords,
  MetricWords,
  RunMixWords,
  RunView,
  ShownAnswer,
  ShownComparison,
  SizingWords,
} from '../contract/views.ts';
import { mixLines } from '../mix/describe.ts';
import { SHARE_TOLERANCE_PP } from '../mix/routes.ts';
import { runMixes } from '../mix/run-mixes.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';

/** The UI's part of an answer: its chart from the run's cells, and its words. */
export function answerView(rec: Recommendation, cells: readonly StoredCell[]): AnswerView {
  const configurations = Object.fromEntries(
    rec.configurations.map((c): [string, ConfigurationWords] => [
      c.key,
      {
        who: who(c),
        rps: c.rps ? rpsText(c) : null,
        rpsShort: c.rps ? rpsShort(c) : null,
        p99: c.p99Us ? p99Text(c) : null,
        p99Short: c.p99Us ? p99Short(c) : null,
      },
    ]),
  );
  const sizing = Object.fromEntries(
    (rec.sizing ?? []).map((x): [string, SizingWords] => [
      x.key,
      {
        peakSource: x.memory.peakSource ? PEAK_SOURCE_WORDS[x.memory.peakSource] : null,
        perWorker: perWorkerText(x),
        limit: limitText(x),
        caps: Object.fromEntries(x.memory.caps.map((c) => [c.memoryMb, MEMORY_OUTCOME_WORDS[c.outcome]])),
      },
    ]),
  );
  return {
    deployedKey: answerKey(rec),
    reasoning: reasoningOf(rec.words, rec.methods),
    configurations,
    chart: answerChart(rec, cells),
    sizingParts: sizingParts(rec),
    sizing,
  };
}

export const shownAnswer = (rec: Recommendation, cells: readonly StoredCell[]): ShownAnswer => ({
  ...rec,
  view: answerView(rec, cells),
});

const metricWords = (m: MetricVerdict): MetricWords => ({
  metric: METRIC_WORDS[m.metric],
  baseline: metricValue(m.metric, m.baseline),
  candidate: metricValue(m.metric, m.candidate),
  change: m.ratio === null ? '—' : changeText(m.ratio),
  interval: m.low === null || m.high === null ? 'no interval' : `${changeText(m.low)} to ${changeText(m.high)}`,
});

/** A comparison with every verdict's figures in words. */
export const shownComparison = (c: BaselineComparison): ShownComparison => ({
  ...c,
  configurations: c.configurations.map((x) => ({
    ...x,
    metrics: x.metrics.map((m) => ({ ...m, words: metricWords(m) })),
  })),
});

/** The mixes the cells that counted routes sent, in words (mix/run-mixes.ts finds them, as for the report). */
const runMixWords = (run: RunDetail): RunMixWords[] =>
  runMixes(run).map((m) => ({ who: m.who, lines: mixLines(m.mix), cellIds: m.cellIds }));

/** A stored run as the UI shows it: a search's words without the progress older traces ended them with. */
export function shownRun(run: RunDetail): RunDetail {
  const s = run.search;
  if (!s) return run;
  const steps = s.steps.map((x) => ({ ...x, detail: withoutProgress(x.detail) }));
  return { ...run, search: { ...s, words: withoutProgress(s.words), steps } };
}

/** What the run page shows beside the stored run: its mixes in words, and the tolerance of their shares. */
export const runView = (run: RunDetail): RunView => ({ mixes: runMixWords(run), shareTolerancePp: SHARE_TOLERANCE_PP });
