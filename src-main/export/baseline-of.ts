// A baseline as the user names it (a run id, or a name saved per app) resolved against the history,
// and a run's comparison worked out again from what was stored with it. Shared by the CLI, the
// service and the HTML report, so all three say the same verdicts.
import { compareToBaseline, type BaselineComparison } from '../analysis/compare/baseline.ts';
import type { RunBaselineSpec } from '../store/baselines.ts';
import type { Store } from '../store/index.ts';
import type { ReportBaseline } from './html-baseline.ts';

export type { RunBaselineSpec };

/** A bare number is a run id; a saved name must not look like one. */
const RUN_ID = /^#?\d+$/;

export function baselineNameProblem(name: string): string | null {
  if (name.trim() === '') return 'a baseline name cannot be empty';
  if (RUN_ID.test(name.trim())) return `"${name}" looks like a run id: give a baseline name with a letter in it`;
  return name.length > 100 ? 'a baseline name has at most 100 characters' : null;
}

/**
 * The runs `ref` stands for: a run id (every app of it), or the runs saved as `ref` (each for its
 * own app). A message naming the problem when there are none or the run is still measuring.
 */
export function resolveBaseline(
  store: Store,
  ref: string,
  thresholdPct: number,
): { ok: true; spec: RunBaselineSpec } | { ok: false; message: string } {
  const text = ref.trim();
  if (RUN_ID.test(text)) {
    const id = Number(text.replace('#', ''));
    const run = store.getRun(id);
    if (!run) return { ok: false, message: `there is no run ${id} to use as the baseline` };
    if (run.status === 'running') return { ok: false, message: `run ${id} is still running: it cannot be a baseline` };
    return { ok: true, spec: { sides: [{ runId: id, apps: null }], thresholdPct, name: null } };
  }
  const saved = store.baselines.named(text);
  if (saved.length === 0) {
    const names = [...new Set(store.baselines.list().map((b) => b.name))];
    return {
      ok: false,
      message:
        `no baseline is saved as "${text}" (${names.length ? `saved: ${names.join(', ')}` : 'none saved yet'}; ` +
        'save one with run --save-baseline NAME, or give a run id)',
    };
  }
  const byRun = new Map<number, string[]>();
  for (const s of saved) byRun.set(s.runId, [...(byRun.get(s.runId) ?? []), s.app]);
  return {
    ok: true,
    spec: { sides: [...byRun].map(([runId, apps]) => ({ runId, apps })), thresholdPct, name: text },
  };
}

/** The comparison of a run with its baseline(s); a message instead when a baseline run is gone. */
export function comparisonOf(
  store: Store,
  candidateRunId: number,
  spec: RunBaselineSpec,
): { ok: true; comparison: BaselineComparison } | { ok: false; message: string } {
  const candidate = store.getRun(candidateRunId);
  if (!candidate) return { ok: false, message: `there is no run ${candidateRunId}` };
  const sides = [];
  for (const s of spec.sides) {
    const run = store.getRun(s.runId);
    if (!run) return { ok: false, message: `the baseline run ${s.runId} was deleted` };
    sides.push({ run, samples: store.getRunSamples(run.id), apps: s.apps });
  }
  const comparison = compareToBaseline(
    sides,
    { run: candidate, samples: store.getRunSamples(candidate.id) },
    { thresholdPct: spec.thresholdPct },
  );
  return { ok: true, comparison };
}

/** The stored comparison of a run (`run --baseline`), worked out again; null when it was not compared. */
export function storedComparison(
  store: Store,
  runId: number,
): { spec: RunBaselineSpec; result: ReturnType<typeof comparisonOf> } | null {
  const spec = store.baselines.specOf(runId);
  return spec ? { spec, result: comparisonOf(store, runId, spec) } : null;
}

/** The report's baseline section: undefined when the run was not compared. */
export function reportBaseline(store: Store, runId: number): ReportBaseline {
  const stored = storedComparison(store, runId);
  if (!stored) return undefined;
  return stored.result.ok
    ? { comparison: stored.result.comparison }
    : { problem: `This run was compared with a baseline, but ${stored.result.message}: no verdicts to show.` };
}
