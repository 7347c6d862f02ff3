import type { AppDefinition } from '../apps/catalog.ts';
import { appLibrary, appNames, imageAppsOf, resolveApps, type AppLibrary } from '../apps/library.ts';
import { ensureAppImage, type AppImage } from '../docker/app-image.ts';
import type { BaseImage, BaseStrategy } from '../docker/base-image.ts';
import { findImage } from '../docker/image-lookup.ts';
import { checkEngine, withTimeout, type EngineInfo } from '../docker/client.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { enterLab } from '../lab-lock/enter-lab.ts';
import type { LabHolder } from '../lab-lock/lab-lock.ts';
import type { Store } from '../store/index.ts';
import { runCell } from './cell-runner.ts';
import { etaSec, poolSize, runPool, slotPlacement } from './cell-pool.ts';
import type { RunListener } from './events.ts';
import { hostFacts, hostLimits } from './host.ts';
import { expandMatrix, MatrixInvalidError, validateMatrix, type HostLimits, type Matrix } from './matrix.ts';
import type { CellConfig, CellResult, RunStatus } from './types.ts';
import { currentSession, isSessionAlive } from '../session/session.ts';
import type { Provider, ProviderNode, TargetSpec } from '../providers/provider.ts';
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
  /** When another process holds the lab: queue until it is free (true) or throw LabBusyError (default). */
  waitForLab?: boolean;
  /** Called when the run starts waiting for the lab, and whenever its holder changes. */
  onLabWait?: (holder: LabHolder) => void;
  /** Where cells run: a saved target's provider (default: this machine's engine). */
  provider?: Provider;
}

export interface RunOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
  cells: CellResult[];
}


/** The end-of-run cleanup on a target must not hold the run's end when the target stopped answering. */
const REMOVE_RUN_TIMEOUT_MS = 15_000;

/**
 * Validates, then runs every cell of the matrix in order (K at once where the provider has the nodes) and stores everything as it happens.
 * Throws only before anything started (Docker unreachable, invalid matrix); after that, problems
 * become cell or run statuses and the returned outcome says what happened.
 */
export async function runMatrix(input: unknown, o: RunOptions): Promise<RunOutcome> {
  const engine = await checkEngine();
  const lib = appLibrary(o.store);
  const { limits, swept } = await limitsWhereCellsRun(engine, lib, o.provider);
  const v = validateMatrix(input, limits);
  if (!v.ok) throw new MatrixInvalidError(v.problems);
  // User apps are checked again: their folder, entry file or image may have changed since they were added.
  const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
  if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
  const apps = resolved.apps;
  const matrix: Matrix = v.matrix.order === 'shuffle' && v.matrix.seed === undefined ? { ...v.matrix, seed: Math.floor(Math.random() * 2 ** 31) } : v.matrix;
  const cells = expandMatrix(matrix, limits.imageApps);
  const name = o.name ?? matrix.name ?? o.preset ?? 'matrix';
  // Before the run exists: the reaper (so nothing of ours can outlive this process) and the lab.
  const { base, lease, noReaper } = await enterLab(engine, {
    what: `run "${name}" (history: ${o.store.path})`,
    ...(o.base ? { strategy: o.base } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    wait: Boolean(o.waitForLab),
    ...(o.onLabWait ? { onWait: o.onLabWait } : {}),
  });
  const { runId, emit, log } = await beginRun(o, lease, {
    name,
    preset: o.preset ?? null,
    matrix,
    host: hostFacts(engine, apps),
    ownerSession: currentSession(),
    cellsTotal: cells.length,
    apps, // a copy: the run stays explicable after its apps are edited or removed
  });

  const perCell = (c: (typeof cells)[number]): number => c.warmupSec + c.durationSec;
  let overhead = CELL_OVERHEAD_SEC; // until this run's own cells have been timed
  // K cells at once where the target has the nodes (each target alone on its node, its load on another).
  const k = await poolSize(o.provider, cells.length);
  const finishedCells = new Set<number>();
  const eta = (): number => etaSec(cells.filter((c) => !finishedCells.has(c.index)).map(perCell), overhead, k);
  emit({ type: 'run-started', runId, name, total: cells.length, cells, etaSec: eta() });
  if (k > 1) log('info', `${k} cells at once on ${o.provider!.name}: each target alone on its node, its load on another node`);
  if (swept.length) log('info', `removed what stopped Rightsize processes left on ${o.provider!.name}: ${swept.join(', ')}`);
  if (noReaper) log('warn', `${noReaper}. If this process dies, the next Rightsize start removes its containers.`);

  let results: CellResult[] = [];
  let status: RunStatus = 'completed';
  let error: string | undefined;
  const warned = new Set<string>();
  try {
    const images = await withBuildSignal(o.signal, () => buildImages(apps, base, (line) => log('info', line)));
    if (o.provider) for (const image of images.values()) await o.provider.prepareImage(image.tag); // built here, shipped there
    const overheads: number[] = [];
    const byIndex = await runPool(cells, k, async (cell, slot) => {
      const hint = slotPlacement(o.provider, slot, k);
      const { result } = await runStoredCell(cell, {
        store: o.store, runId, engine, app: apps.find((a) => a.name === cell.app)!, image: images.get(cell.app)!,
        hostCores: limits.cores, placement: matrix.placement === 'auto', timeoutSec: matrix.timeoutSec,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.provider ? { provider: o.provider } : {}),
        ...(hint ? { placementHint: hint } : {}),
        emit, warned, total: cells.length,
        etaSec: (after) => {
          if (after !== undefined) {
            overheads.push(after - perCell(cell));
            overhead = overheads.reduce((a, b) => a + b, 0) / overheads.length;
            finishedCells.add(cell.index);
          }
          return eta();
        },
      });
      return result;
    }, o.signal);
    results = byIndex.filter((r): r is CellResult => r !== undefined);
    if (o.signal?.aborted) status = 'cancelled';
  } catch (e) {
    status = o.signal?.aborted ? 'cancelled' : 'failed';
    error = (e as Error).message;
  } finally {
    // A target elsewhere: whatever a cell could not remove (its engine stopped answering mid-cell) goes now.
    if (o.provider && o.provider.kind !== 'local') {
      const p = o.provider;
      await withTimeout(p.removeRun(String(runId)), REMOVE_RUN_TIMEOUT_MS, 'no answer').then(
        (gone) => gone.length && log('info', `removed what the run left on ${p.name}: ${gone.join(', ')}`),
        (e: Error) => log('warn', `could not remove what the run left on ${p.name} (${e.message}); the next run's sweep there removes it`),
      );
    }
    await lease.release().catch(() => {}); // the reaper removes it if this fails
    try {
      o.store.finishRun(runId, status, error ?? null);
    } catch (e) {
      // The store itself is failing: say so in the outcome; the next start marks the run interrupted.
      status = 'failed';
      error = `${error ? `${error}; ` : ''}the run's end could not be stored: ${(e as Error).message}`;
    }
    emit({ type: 'run-finished', runId, status, ...(error ? { error } : {}) });
  }
  return { runId, status, cells: results, ...(error ? { error } : {}) };
}

/**
 * The run row (the lab given back if it cannot be written), its id announced, and the run's event
 * emitter: a listener's bug (a UI socket, the progress line) must not end the run, so events are
 * best effort — the store has everything they carry.
 */
export async function beginRun(
  o: Pick<RunOptions, 'store' | 'onRunId' | 'onEvent'>,
  lease: { release(): Promise<void> },
  row: Parameters<Store['createRun']>[0],
): Promise<{ runId: number; emit: RunListener; log: (level: 'info' | 'warn', message: string) => void }> {
  let runId: number;
  try {
    runId = o.store.createRun(row);
  } catch (e) {
    await lease.release();
    throw e;
  }
  o.onRunId?.(runId);
  const emit: RunListener = (e) => {
    try {
      o.onEvent?.(e);
    } catch {
      /* ignored */
    }
  };
  return { runId, emit, log: (level, message) => emit({ type: 'log', runId, level, message }) };
}

export interface StoredCellContext {
  store: Store;
  runId: number;
  engine: EngineInfo;
  app: AppDefinition;
  image: AppImage;
  hostCores: number;
  placement: boolean;
  timeoutSec: number;
  signal?: AbortSignal;
  /** Where the cell runs (default: this machine's engine). */
  provider?: Provider;
  /** The node the pool's slot gave this cell (or avoids), where the provider places by node. */
  placementHint?: TargetSpec['placement'];
  emit: RunListener;
  /** Warnings already logged in this run (placement warnings would repeat for every cell). */
  warned: Set<string>;
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
export async function runStoredCell(cell: CellConfig, c: StoredCellContext): Promise<{ cellId: number; result: CellResult }> {
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
      engine: c.engine,
      hostCores: c.hostCores,
      placement: c.placement,
      timeoutSec: c.timeoutSec,
      runId,
      cellId,
      ...(c.provider ? { provider: c.provider } : {}),
      ...(c.placementHint ? { placementHint: c.placementHint } : {}),
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
      onWarning: (w) => {
        if (!c.warned.has(w)) log('warn', w);
        c.warned.add(w);
      },
      onPhase: (phase) => emit({ type: 'cell-phase', runId, cellId, index: cell.index, phase }),
    });
  } catch (e) {
    // The cell runner never throws for a cell's own problems; anything else is still this cell's failure.
    result = { config: cell, status: 'failed', failure: `engine error: ${(e as Error).message}`, flags: [], startedAt, finishedAt: new Date().toISOString() };
  }
  if (cellError && !c.signal?.aborted) {
    const { load: _partial, ...rest } = result; // a cut-short measurement is not a result
    result = { ...rest, status: 'failed', failure: cellError };
  }
  if (!store.finishCell(cellId, result)) throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
  const etaSec = c.etaSec((performance.now() - t0) / 1000);
  emit({ type: 'cell-finished', runId, cellId, index: cell.index, total: c.total, result, etaSec });
  return { cellId, result };
}

/** A target not ready to run cells (unreachable, no node free…): nothing was started. */
export class TargetNotReadyError extends Error {
  readonly code = 'TARGET_NOT_READY';
}

/**
 * Before a run on a saved target: what a dead session of ours left there is swept (as the local
 * engine is at start-up), then its connection check must pass, else every problem in words.
 * Returns what was swept and the largest free node (null for this machine's engine).
 */
export async function readyTarget(p: Provider): Promise<{ swept: string[]; node: ProviderNode | null }> {
  if (p.kind === 'local') return { swept: [], node: null };
  // Swept first: a dead session's leftover cell would make a node look busy. A sweep that cannot
  // reach the target is not the answer the user needs: the check says what is wrong, in words.
  const swept = await p.sweep(isSessionAlive).catch(() => [] as string[]);
  const check = await p.check();
  if (!check.ok) throw new TargetNotReadyError(`The target "${p.name}" is not ready: ${check.problems.join('; ')}. Nothing was started.`);
  const node = check.nodes.filter((n) => n.free).sort((a, b) => b.cpus - a.cpus)[0] ?? null;
  return { swept, node };
}

/**
 * The limits a matrix or a search is checked against: this machine's engine, or a saved target's
 * largest free node (after readyTarget: swept and checked).
 */
export async function limitsWhereCellsRun(engine: EngineInfo, lib: AppLibrary, provider: Provider | undefined): Promise<{ limits: HostLimits; swept: string[] }> {
  const local = hostLimits(engine, appNames(lib), imageAppsOf(lib));
  if (!provider) return { limits: local, swept: [] };
  const { swept, node } = await readyTarget(provider);
  return { limits: node ? { ...local, cores: node.cpus, memoryMb: Math.floor(node.memoryBytes / 2 ** 20) } : local, swept };
}

export async function buildImages(apps: AppDefinition[], base: BaseImage, onLog: (line: string) => void) {
  const images = new Map<string, AppImage>();
  for (const app of apps) images.set(app.name, await ensureAppImage(app, () => Promise.resolve(base), onLog)); // resolved: one per name, in matrix order
  return images;
}
