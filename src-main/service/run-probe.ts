// A run's runtime probe as the UI reads it: per cell, what the probe heard and its seconds. The
// seconds of a whole run come in one query; one cell's (the one that just finished) in one more.
import type { CellProbeSeconds, RunDetail, RunProbeInput } from '../contract/api.ts';
import type { Store } from '../store/index.ts';
import { notFound } from './errors.ts';

export function runProbe(store: Store, run: RunDetail, { cellId }: RunProbeInput): CellProbeSeconds[] {
  if (cellId !== undefined) {
    if (!run.cells.some((c) => c.id === cellId)) throw notFound(`Run ${run.id} has no cell with id ${cellId}.`);
    return [{ cellId, probe: store.getProbe(cellId) ?? null, seconds: store.getProbeSeconds(cellId) }];
  }
  const seconds = store.getRunProbeSeconds(run.id);
  return run.cells.map((c) => ({
    cellId: c.id,
    probe: store.getProbe(c.id) ?? null,
    seconds: seconds.get(c.id) ?? [],
  }));
}
