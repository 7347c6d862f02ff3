// The sizing answer: what a run says, how sure it is, and why. Pure functions of a stored run.
export { recommend, DEFAULT_MARGIN_PCT } from './recommend.ts';
export { MAX_SUMMARY, methodsOf, reasoningOf, summaryOf } from './explain/summary.ts';
export { parseSlo, describeSlo, sloOutcomes } from './decide/slo.ts';
export {
  groupBy,
  failedAndAttempts,
  workloadKey,
  loadLabel,
  workloadLabel,
  cellGoodput,
  cellGoodSeries,
  cellShortfall,
  ONE_REPETITION_NOTE,
  NO_INTERVAL_NOTE,
} from './decide/group.ts';
export { MAX_ERROR_PCT } from '../common/thresholds.ts';
export { cpuLabel, exactCpu, memLabel, pairLabel } from '../common/resource-labels.ts';
export { candidatesOf, comparePick, decideCpuCaps } from './decide/decide.ts';
export {
  who,
  fmtUsPm,
  fmtPct,
  fmtRatio,
  fmtMargin,
  flagPhrase,
  methodText,
  rpsText,
  p99Text,
  p99Short,
  rpsShort,
} from './explain/words.ts';
export {
  ALPHA,
  mean,
  stddev,
  cv,
  tQuantile,
  studentTCdf,
  confidenceInterval,
  batchMeans,
  summarize,
  summarizeOne,
  welch,
  holm,
  estimateOf,
} from './decide/stats.ts';
export {
  MEMORY_HEADROOM,
  MEMORY_ROUND_MB,
  MEMORY_LIMIT_RULE,
  limitFromPeak,
  cellPeak,
  leastSquares,
  fmtMb,
} from './size/memory.ts';
export {
  recommendedMemoryLimitMb,
  recommendedCpuMillis,
  recommendedKeys,
  sizeConfigurations,
  answerPick,
  answerKey,
  type AnswerPick,
} from './size/sizing.ts';
export {
  searchAnswer,
  searchHeadline,
  searchNothingToDeploy,
  searchObjective,
} from './search-answer.ts';
export { searchConfigLabel } from './names.ts';
export { sizingSentences, sizingMethodText, perWorkerText, limitText, PEAK_SOURCE_WORDS } from './explain/words.ts';
export type * from './types.ts';
