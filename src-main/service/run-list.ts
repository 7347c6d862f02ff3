// The run list with each finished run's pick: the answer worked out once per run and its cells as
// they are, then read from the store's cache (store/run-picks.ts).
import { recommend } from '../analysis/index.ts';
import { runPickOf } from '../analysis/decide/run-pick.ts';
import type { RunPick } from '../model/stored.ts';
import type { ListRunsQuery, RunList, Store } from '../store/index.ts';

/** The pick of a stored run's answer (the same answer the run page shows); null when it has none. */
export function pickOfRun(store: Store, runId: number): RunPick | null {
  const run = store.getRun(runId);
  if (!run) return null;
  try {
    return runPickOf(recommend(run, { samples: store.getRunSamples(runId) }));
  } catch {
    return null; // a run whose answer cannot be worked out shows no pick rather than failing the list
  }
}

export function listRunsWithPicks(store: Store, q: ListRunsQuery = {}): RunList {
  return store.listRuns(q, (id) => pickOfRun(store, id));
}
