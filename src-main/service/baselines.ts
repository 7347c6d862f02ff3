// The Compare view's calls: a run's verdicts against a baseline (a run id or a saved name), what a run
// was compared with when it ran, and the saved baselines for the picker.
import type { CallInput, CallOutput } from '../contract/api.ts';
import { comparisonOf, resolveBaseline } from '../export/baseline-of.ts';
import { DEFAULT_THRESHOLD_PCT } from '../analysis/compare/baseline.ts';
import type { Store } from '../store/index.ts';
import { invalid, notFound } from './errors.ts';
import { shownComparison } from './views.ts';

type StartInput = CallInput<'runs.start'>;

/**
 * `runs.start` with `baseline`: the baseline checked before anything starts (INVALID_INPUT naming the
 * field), then stored with the run as it starts, so its page and report show the verdicts once it is done.
 */
export async function startWithBaseline(
  store: Store,
  input: StartInput,
  start: (input: StartInput) => Promise<{ runId: number }>,
): Promise<{ runId: number }> {
  const { baseline, thresholdPct, ...rest } = input;
  if (baseline === undefined) return start(rest);
  const r = resolveBaseline(store, baseline, thresholdPct ?? DEFAULT_THRESHOLD_PCT);
  if (!r.ok) throw invalid('INVALID_INPUT', 'The baseline cannot be used', [{ path: 'baseline', message: r.message }]);
  const started = await start(rest);
  store.baselines.setSpec(started.runId, r.spec);
  return started;
}

type Handler<K extends 'runs.compare' | 'baselines.list'> = (input: CallInput<K>) => CallOutput<K>;

export function baselineHandlers(store: Store): {
  'runs.compare': Handler<'runs.compare'>;
  'baselines.list': Handler<'baselines.list'>;
} {
  return {
    'runs.compare': ({ runId, baseline, thresholdPct }) => {
      if (!store.getRun(runId)) throw notFound(`There is no run ${runId}.`);
      const stored = store.baselines.specOf(runId);
      // No baseline given: the one the run was compared with when it ran (run --baseline), if any.
      const spec =
        baseline === undefined
          ? stored && { ...stored, thresholdPct: thresholdPct ?? stored.thresholdPct }
          : (() => {
              const r = resolveBaseline(store, baseline, thresholdPct ?? DEFAULT_THRESHOLD_PCT);
              if (!r.ok) throw notFound(`Baseline: ${r.message}.`);
              return r.spec;
            })();
      if (!spec) return { comparison: null, storedBaseline: null };
      const r = comparisonOf(store, runId, spec);
      if (!r.ok) throw notFound(`Baseline: ${r.message}.`);
      return { comparison: shownComparison(r.comparison), storedBaseline: stored };
    },
    'baselines.list': () => store.baselines.list(),
  };
}
