import type { AppDefinition } from '../apps/catalog.ts';
import { appLibrary, appNames, imageAppsOf, resolveApps } from '../apps/library.ts';
import { ensureAppImage, type AppImage } from '../docker/app-image.ts';
import { ensureBaseImage, type BaseImage, type BaseStrategy } from '../docker/base-image.ts';
import { findImage } from '../docker/image-lookup.ts';
import { checkEngine } from '../docker/client.ts';
import type { Store } from '../store/index.ts';
import { runCell } from './cell-runner.ts';
import type { RunListener } from './events.ts';
import { hostFacts, hostLimits } from './host.ts';
import { expandMatrix, MatrixInvalidError, validateMatrix, type Matrix } from './matrix.ts';
import type { CellResult, RunStatus } from './types.ts';
import { currentSession } from '../session/session.ts';
import { CELL_OVERHEAD_SEC } from '../common/thresholds.ts';

export interface RunOptions {
  store: Store;
  name?: string;
  preset?: string;
  signal?: AbortSignal;
  onEvent?: RunListener;
  base?: BaseStrategy;
  /** Called once the run row exists, before images are built (lets a UI show the run at once). */
  onRunId?: (runId: number) => void;
}

export interface RunOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
  cells: CellResult[];
}


/**
 * Validates, then runs every cell of the matrix in order and stores everything as it happens.
 * Throws only before anything started (Docker unreachable, invalid matrix); after that, problems
 * become cell or run statuses and the returned outcome says what happened.
 */
export async function runMatrix(input: unknown, o: RunOptions): Promise<RunOutcome> {
  const engine = await checkEngine();
  const lib = appLibrary(o.store);
  const limits = hostLimits(engine, appNames(lib), imageAppsOf(lib));
  const v = validateMatrix(input, limits);
  if (!v.ok) throw new MatrixInvalidError(v.problems);
  // User apps are checked again: their folder, entry file or image may have changed since they were added.
  const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
  if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
  const apps = resolved.apps;
  const matrix: Matrix = v.matrix.order === 'shuffle' && v.matrix.seed === undefined ? { ...v.matrix, seed: Math.floor(Math.random() * 2 ** 31) } : v.matrix;
  const cells = expandMatrix(matrix, limits.imageApps);
  const name = o.name ?? matrix.name ?? o.preset ?? 'matrix';
  const runId = o.store.createRun({
    name,
    preset: o.preset ?? null,
    matrix,
    host: hostFacts(engine, apps),
    ownerSession: currentSession(),
    cellsTotal: cells.length,
    apps, // a copy: the run stays explicable after its apps are edited or removed
  });
  o.onRunId?.(runId);
  const emit: RunListener = (e) => o.onEvent?.(e);
  const log = (level: 'info' | 'warn', message: string): void => emit({ type: 'log', runId, level, message });

  const perCell = (c: (typeof cells)[number]): number => c.warmupSec + c.durationSec;
  let overhead = CELL_OVERHEAD_SEC; // until this run's own cells have been timed
  const eta = (from: number): number => cells.slice(from).reduce((s, c) => s + perCell(c) + overhead, 0);
  emit({ type: 'run-started', runId, name, total: cells.length, cells, etaSec: eta(0) });

  const results: CellResult[] = [];
  let status: RunStatus = 'completed';
  let error: string | undefined;
  const warned = new Set<string>();
  try {
    const images = await buildImages(apps, o.base, (line) => log('info', line));
    const overheads: number[] = [];
    for (const cell of cells) {
      if (o.signal?.aborted) break;
      const app = apps.find((a) => a.name === cell.app)!;
      const cellId = o.store.startCell(runId, cell);
      emit({ type: 'cell-started', runId, cellId, index: cell.index, total: cells.length, cell, etaSec: eta(cell.index) });
      const t0 = performance.now();
      const result = await runCell(cell, {
        app,
        image: images.get(cell.app)!,
        engine,
        hostCores: limits.cores,
        placement: matrix.placement === 'auto',
        timeoutSec: matrix.timeoutSec,
        runId,
        cellId,
        ...(o.signal ? { signal: o.signal } : {}),
        onSample: (sample) => {
          o.store.addSamples(cellId, [sample]);
          emit({ type: 'sample', runId, cellId, index: cell.index, sample });
        },
        onWarning: (w) => {
          if (!warned.has(w)) log('warn', w); // placement warnings would repeat for every cell
          warned.add(w);
        },
        onPhase: (phase) => emit({ type: 'cell-phase', runId, cellId, index: cell.index, phase }),
      });
      o.store.finishCell(cellId, result);
      results.push(result);
      overheads.push((performance.now() - t0) / 1000 - perCell(cell));
      overhead = overheads.reduce((a, b) => a + b, 0) / overheads.length;
      emit({ type: 'cell-finished', runId, cellId, index: cell.index, total: cells.length, result, etaSec: eta(cell.index + 1) });
    }
    if (o.signal?.aborted) status = 'cancelled';
  } catch (e) {
    status = o.signal?.aborted ? 'cancelled' : 'failed';
    error = (e as Error).message;
  } finally {
    o.store.finishRun(runId, status, error ?? null);
    emit({ type: 'run-finished', runId, status, ...(error ? { error } : {}) });
  }
  return { runId, status, cells: results, ...(error ? { error } : {}) };
}

async function buildImages(apps: AppDefinition[], strategy: BaseStrategy | undefined, onLog: (line: string) => void) {
  let base: Promise<BaseImage> | undefined; // only when an app needs one: an image app brings its own
  const baseImage = (): Promise<BaseImage> => (base ??= ensureBaseImage({ ...(strategy ? { strategy } : {}), onLog }));
  const images = new Map<string, AppImage>();
  for (const app of apps) images.set(app.name, await ensureAppImage(app, baseImage, onLog)); // resolved: one per name, in matrix order
  return images;
}
