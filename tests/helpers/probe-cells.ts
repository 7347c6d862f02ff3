// A stored run's cells as the causes read them (analysis/explain/causes.ts), from the history alone: what the
// answer will say about each configuration's runtime is what the probe tests assert.
import { causeCell } from '../../src-main/analysis/explain/answer-causes.ts';
import { runtimeSummaries, type CauseCell, type RuntimeSummary } from '../../src-main/analysis/explain/causes.ts';
import type { Store } from '../../src-main/store/index.ts';

export function causeCells(store: Store, runId: number): CauseCell[] {
  const run = store.getRun(runId);
  if (!run) throw new Error(`no run ${runId}`);
  const [probe, samples] = [store.getRunProbeSeconds(runId), store.getRunSamples(runId)];
  return run.cells.map((c) => causeCell(c, probe, samples));
}

/** The runtime of each configuration of a run, in the run's cell order. */
export function runtimesOf(store: Store, runId: number): RuntimeSummary[] {
  return [...runtimeSummaries(causeCells(store, runId)).values()];
}

/** A summary in one line, for failure messages and for the margins a test was tuned on. */
export function describeRuntime(s: RuntimeSummary): string {
  const f = (x: number | null, d = 2): string => (x === null ? '-' : x.toFixed(d));
  return (
    `${s.app} ${s.mode}×${s.workers} ${s.cpuMillis}m ${s.memoryMb}MB pool=${s.threadpool ?? '-'}: ` +
    `elu ${s.perWorker.map((w) => f(w.elu)).join('/')} gc ${f(s.gcShare, 3)} delayP99 ${f(s.delayP99Ms, 1)}ms ` +
    `throttled ${f(s.throttledShare)} invol/s ${f(s.involuntaryPerSec, 0)} ctx/s ${f(s.ctxPerSec, 0)} ` +
    `cpu ${f(s.cpuPct, 0)}% busy/cpu ${f(s.busyPerCpu)} p99 ${f(s.p99Us === null ? null : s.p99Us / 1000, 1)}ms clientElu ${f(s.clientElu)}`
  );
}
