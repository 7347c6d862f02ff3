// The sizing answer: what a run says, how sure it is, and why. Pure functions of a stored run.
export { recommend, DEFAULT_MARGIN_PCT } from './recommend.ts';
export { parseSlo, describeSlo, sloOutcomes } from './slo.ts';
export { groupBy, failedAndAttempts, workloadKey, pairLabel, loadLabel, workloadLabel, ONE_REPETITION_NOTE } from './group.ts';
export { who, fmtUsPm, fmtPct, fmtRatio, fmtMargin, flagPhrase } from './words.ts';
export { mean, stddev, cv, tQuantile, studentTCdf, confidenceInterval, overlaps } from './stats.ts';
export type * from './types.ts';
