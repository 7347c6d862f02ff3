// A run's runtime probe as the UI reads it: per cell, what the probe heard and its seconds. The
// seconds of a whole run come in one query; one cell's (the one that just finished) in one more.
import type { CellProbeSeconds, RunDetail, RunProbeInput } from '../contract/api.ts';
import type { Store } from '../store/index.ts';
import { notFound } from './errors.ts';

export function runProbe(store: Store, run: RunDetail, { cellId }: RunProbeInput): CellProbeSeconds[] {
  if (cellId !== undefined) {
    const cell = run.cells.find((c) => c.id === cellId);
    if (!cell) throw notFound(`Run ${run.id} has no cell with id ${cellId}.`);
    return [{ cellId, probe: cell.probe ?? null, seconds: store.getProbeSeconds(cellId) }];
  }
  const seconds = store.getRunProbeSeconds(run.id);
  return run.cells.map((c) => ({
    cellId: c.id,
    probe: c.probe ?? null, // read with the run (Store.getRun)
    seconds: seconds.get(c.id) ?? [],
  }));
}
