// The sizing answer: what a run says, how sure it is, and why. Pure functions of a stored run.
export { recommend, decideScopes, noiseNotes, DEFAULT_MARGIN_PCT } from './recommend.ts';
export { parseSlo, describeSlo, checkSlo, sloOutcomes, SLO_EXAMPLE } from './slo.ts';
export { groupCells, failedAndAttempts, configurationKey, scopeKey, workloadKey, cpuLabel, memLabel, pairLabel, loadLabel, workloadLabel, NOISY_CV, ONE_REPETITION_NOTE } from './group.ts';
export { explain, who, whoList, fmtUsPm, fmtPct, fmtRatio, rpsText, p99Text, flagPhrase } from './words.ts';
export { mean, stddev, cv, tQuantile, studentTCdf, confidenceInterval, overlaps, summarize, CONFIDENCE } from './stats.ts';
export type * from './types.ts';
