// The code the UI shares with the engine: how numbers, bytes, durations, prices and labels are
// written, and a few pure rules the forms check as the user types (start arguments, the cores a
// cell needs). The renderer imports src-main's code only from contract/, and this file is where
// that code is named, so the UI writes a figure exactly as the CLI and the reports do. Everything
// here comes from common/ — pure functions of their arguments, no state, no node: module, no
// package — and tests/unit/architecture.test.ts fails if anything the renderer runs reaches further.
// What the answer says (its words, its chart, its sizing) is not here: the engine sends it, worded,
// in the calls' outputs (contract/views.ts).
export { fmtBytes, fmtDuration, fmtLocalTime, fmtMb, fmtNum, fmtUs, fmtWarmup } from '../common/format.ts';
export { atRateText, costText, DEFAULT_PRICES, fmtMoney, pricesSourceText, pricesText } from '../common/cost.ts';
export { cpuLabel } from '../common/resource-labels.ts';
export { cellLabel, PHASE_WORDS, phasePlanText } from '../common/labels.ts';
export { pickGoodput, pickP99, pickText } from '../common/pick-words.ts';
export { GC_POOL_SECONDS, gcSharePooled, othersNote, probeProcesses } from '../common/probe-series.ts';
export { joinArgs, splitArgs } from '../common/args.ts';
export { coresNeeded } from '../common/cores.ts';
export { envWords } from '../common/env-name.ts';
export { reasonsText } from '../common/failure-reason.ts';
export { runtimeFields } from '../common/runtime-words.ts';
