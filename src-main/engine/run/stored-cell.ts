// One cell of a run, stored as it happens: shared by every source of cells (the grid, settling,
// verification, an auto-size search), so a cell is recorded and announced the same way everywhere.
import type { AppDefinition } from '../../apps/catalog.ts';
import type { AppImage } from '../../docker/app-image.ts';
import type { RunListener } from '../../model/events.ts';
import type { CellConfig, CellResult } from '../../model/types.ts';
import type { Provider, ProvisionedTarget, TargetSpec } from '../../providers/provider.ts';
import type { Store } from '../../store/index.ts';
import { runCell } from '../cell-runner.ts';
import type { Pem } from '../../tls/certificate.ts';

export interface StoredCellContext {
  store: Store;
  runId: number;
  app: AppDefinition;
  image: AppImage;
  placement: boolean;
  timeoutSec: number;
  signal?: AbortSignal;
  /** Where the cell runs. */
  provider: Provider;
  /** The run's certificate, for an HTTPS or h2 cell (tls/certificate.ts). */
  tls?: Pem;
  /** This cell's target, already being started (prepared while the cell before it was torn down). */
  prepared?: Promise<ProvisionedTarget>;
  /** Called once the cell's load is over, before its target is inspected and removed. */
  onLoadEnd?: () => void;
  deferRemoval?: (removal: Promise<void>) => void;
  beforeLoad?: () => Promise<void>;
  /** The node the pool's slot gave this cell (or avoids), where the provider places by node. */
  placementHint?: TargetSpec['placement'];
  emit: RunListener;
  /** Warnings already logged in this run (placement warnings would repeat for every cell). */
  warned: Set<string>;
  /** The host's per-second noise this run, for the warm-up's flat window (LoadPlan.warmNoise). */
  warmNoise?: number;
  /** Cells planned, for the progress events. */
  total: number;
  /** The ETA for the events: before the cell (no argument), and after it given its wall time in seconds. */
  etaSec: (wallSec?: number) => number;
}

/**
 * One cell of a run, stored as it happens: the cell row, every sample, the result, and the events
 * (cell-started, phases, samples, cell-finished). Shared by the matrix run and the auto-size search.
 * Any error inside the cell (the store refusing a sample: disk full, a lock held past the busy
 * timeout) stops this cell alone: its own signal aborts it, the cell runner tears its container
 * down, and the cancel becomes a failure with the reason. Throws only when the run itself is gone.
 */
export async function runStoredCell(
  cell: CellConfig,
  c: StoredCellContext,
): Promise<{ cellId: number; result: CellResult }> {
  const { store, runId, emit } = c;
  const log = (level: 'info' | 'warn', message: string): void => emit({ type: 'log', runId, level, message });
  const cellId = store.startCell(runId, cell);
  emit({ type: 'cell-started', runId, cellId, index: cell.index, total: c.total, cell, etaSec: c.etaSec() });
  const t0 = performance.now();
  const cellAbort = new AbortController();
  let cellError: string | undefined;
  const failCell = (what: string, e: unknown): void => {
    if (cellError) return;
    cellError = `${what}: ${(e as Error)?.message ?? String(e)}`;
    cellAbort.abort();
  };
  const startedAt = new Date().toISOString();
  let result: CellResult;
  try {
    result = await runCell(cell, {
      app: c.app,
      image: c.image,
      placement: c.placement,
      timeoutSec: c.timeoutSec,
      runId,
      cellId,
      provider: c.provider,
      ...(c.prepared ? { prepared: c.prepared } : {}),
      ...(c.onLoadEnd ? { onLoadEnd: c.onLoadEnd } : {}),
      ...(c.deferRemoval ? { deferRemoval: c.deferRemoval } : {}),
      ...(c.beforeLoad ? { beforeLoad: c.beforeLoad } : {}),
      ...(c.placementHint ? { placementHint: c.placementHint } : {}),
      ...(c.warmNoise !== undefined ? { warmNoise: c.warmNoise } : {}),
      // The run's certificate: a cell not prepared ahead starts its own target with it.
      ...(c.tls ? { tls: c.tls } : {}),
      signal: c.signal ? AbortSignal.any([c.signal, cellAbort.signal]) : cellAbort.signal,
      onSample: (sample) => {
        if (cellError) return;
        try {
          store.addSamples(cellId, [sample]);
        } catch (e) {
          failCell('storing a sample failed', e);
          return;
        }
        emit({ type: 'sample', runId, cellId, index: cell.index, sample });
      },
      // Warm-up seconds go to live views only: not stored, not a result.
      onWarmupSample: (sample) => {
        if (!cellError) emit({ type: 'sample', runId, cellId, index: cell.index, sample });
      },
      onWarning: (w) => {
        if (!c.warned.has(w)) log('warn', w);
        c.warned.add(w);
      },
      onPhase: (phase) => emit({ type: 'cell-phase', runId, cellId, index: cell.index, phase }),
    });
  } catch (e) {
    // The cell runner never throws for a cell's own problems; anything else is still this cell's failure.
    result = {
      config: cell,
      status: 'failed',
      failure: `engine error: ${(e as Error).message}`,
      flags: [],
      startedAt,
      finishedAt: new Date().toISOString(),
    };
  }
  if (cellError && !c.signal?.aborted) {
    const { load: _partial, ...rest } = result; // a cut-short measurement is not a result
    result = { ...rest, status: 'failed', failure: cellError };
  }
  // The probe's seconds go to their own table with the result, in one transaction; the result and
  // its event keep only what the probe heard (a stream message must stay small).
  const probe = result.probe;
  if (probe) result = { ...result, probe: withoutSeconds(probe) };
  let finished = false;
  try {
    finished = store.transaction(() => {
      if (!store.finishCell(cellId, result)) return false;
      if (probe) store.addProbe(cellId, probe);
      return true;
    });
  } catch (e) {
    if (!probe) throw e;
    // The probe is an explanation, not the measurement: a cell whose probe rows fail keeps its result.
    if (!store.finishCell(cellId, result))
      throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
    log('warn', `cell ${cell.index}: its probe data was not stored (${(e as Error).message})`);
    finished = true;
  }
  if (!finished) throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
  const etaSec = c.etaSec((performance.now() - t0) / 1000);
  emit({ type: 'cell-finished', runId, cellId, index: cell.index, total: c.total, result, etaSec });
  return { cellId, result };
}

function withoutSeconds(probe: NonNullable<CellResult['probe']>): NonNullable<CellResult['probe']> {
  const { seconds: _seconds, ...rest } = probe;
  return rest;
}

/**
 * A cell recorded as skipped without starting anything (its app failed at start in a way no cap
 * changes): a failed cell whose failure says so, with the same events as a cell that ran, so every
 * reader (progress, Live page, answer) shows it where the cell would be.
 */
export function storeSkippedCell(
  cell: CellConfig,
  failure: string,
  c: Pick<StoredCellContext, 'store' | 'runId' | 'emit' | 'total' | 'etaSec'>,
): { cellId: number; result: CellResult } {
  const { store, runId, emit } = c;
  const cellId = store.startCell(runId, cell);
  emit({ type: 'cell-started', runId, cellId, index: cell.index, total: c.total, cell, etaSec: c.etaSec() });
  const now = new Date().toISOString();
  const result: CellResult = { config: cell, status: 'failed', failure, flags: [], startedAt: now, finishedAt: now };
  if (!store.finishCell(cellId, result))
    throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
  emit({ type: 'cell-finished', runId, cellId, index: cell.index, total: c.total, result, etaSec: c.etaSec(0) });
  return { cellId, result };
}
