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
import { limitsWhereCellsRun } from './session/limits.ts';
export { limitsWhereCellsRun, readyTarget, TargetNotReadyError } from './session/limits.ts';
import type { RunListener } from '../model/events.ts';
import { hostFacts, hostLimits } from './host.ts';
import { expandMatrix, MatrixInvalidError, validateMatrix, type HostLimits, type Matrix } from './matrix.ts';
import type { CellConfig, CellResult, RunStatus } from '../model/types.ts';
import { currentSession, isSessionAlive } from '../session/session.ts';
import type { Provider, ProviderNode, TargetSpec } from '../providers/provider.ts';
import { CELL_OVERHEAD_SEC } from '../common/thresholds.ts';
import type { PhaseContext } from './phases.ts';
import { settleAnswer } from './settle.ts';
import { verifyAnswer } from './verify.ts';

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
 * Validates, then runs every cell of the matrix in order (K at once where the provider has the nodes) and stores
 * everything as it happens.
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
  const matrix: Matrix =
    v.matrix.order === 'shuffle' && v.matrix.seed === undefined
      ? { ...v.matrix, seed: Math.floor(Math.random() * 2 ** 31) }
      : v.matrix;
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
  if (k > 1)
    log('info', `${k} cells at once on ${o.provider!.name}: each target alone on its node, its load on another node`);
  if (swept.length)
    log('info', `removed what stopped Rightsize processes left on ${o.provider!.name}: ${swept.join(', ')}`);
  if (noReaper) log('warn', `${noReaper}. If this process dies, the next Rightsize start removes its containers.`);

  let results: CellResult[] = [];
  let extra = 0; // cells the phases after the grid added
  let status: RunStatus = 'completed';
  let error: string | undefined;
  const warned = new Set<string>();
  try {
    const images = await withBuildSignal(o.signal, () => buildImages(apps, base, (line) => log('info', line)));
    // built here, shipped there
    if (o.provider) for (const image of images.values()) await o.provider.prepareImage(image.tag);
    const overheads: number[] = [];
    const cellContext = (cell: CellConfig) => ({
      store: o.store,
      runId,
      engine,
      app: apps.find((a) => a.name === cell.app)!,
      image: images.get(cell.app)!,
      hostCores: limits.cores,
      placement: matrix.placement === 'auto',
      timeoutSec: matrix.timeoutSec,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.provider ? { provider: o.provider } : {}),
      emit,
      warned,
    });
    const byIndex = await runPool(
      cells,
      k,
      async (cell, slot) => {
        const hint = slotPlacement(o.provider, slot, k);
        const { result } = await runStoredCell(cell, {
          ...cellContext(cell),
          ...(hint ? { placementHint: hint } : {}),
          total: cells.length,
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
      },
      o.signal,
    );
    results = byIndex.filter((r): r is CellResult => r !== undefined);
    if (!o.signal?.aborted) {
      const ctx = phaseContext({
        o,
        runId,
        matrix,
        emit,
        log,
        nextIndex: cells.length,
        total: () => cells.length + extra,
        grow: (n) => void (extra += n),
        runOne: (cell, total, etaSec) =>
          runStoredCell(cell, { ...cellContext(cell), total, etaSec }).then((r) => r.result),
      });
      results.push(...(await runPhases(ctx, afterGrid(matrix))));
      // Planned but not run (a round cut short): the total is what ran.
      o.store.setCellsTotal(runId, cells.length + ctx.results.length);
    }
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
        (e: Error) =>
          log(
            'warn',
            `could not remove what the run left on ${p.name} (${e.message}); the next run's sweep there removes it`,
          ),
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

/** A phase after the grid: settling, verification. */
export type RunPhaseStep = (ctx: PhaseContext) => Promise<unknown>;

/** The phases a matrix run has after its grid: settling, then (when asked) verification of the deployable. */
export function afterGrid(matrix: Matrix): RunPhaseStep[] {
  return [settleAnswer, ...(matrix.verify ? [verifyAnswer] : [])];
}

/**
 * Runs the phases in order, each after the one before; a phase's own failure is said and ends the phases, never the
 * run.
 */
async function runPhases(ctx: PhaseRun, phases: readonly RunPhaseStep[]): Promise<CellResult[]> {
  for (const phase of phases) {
    if (ctx.signal?.aborted) break;
    ctx.current.phase = phase === settleAnswer ? 'settle' : 'verify';
    try {
      await phase(ctx);
    } catch (e) {
      if (ctx.signal?.aborted) break;
      // Said, kept in the outcome, and the next phase still runs: verification does not need settling to have finished.
      const what = `${ctx.current.phase === 'settle' ? 'settling' : 'verification'} stopped: ${(e as Error).message}`;
      ctx.failure = ctx.failure ? `${ctx.failure}; ${what}` : what;
      ctx.log('warn', what);
    }
  }
  return ctx.results;
}

type PhaseRun = PhaseContext & { results: CellResult[]; current: { phase: 'settle' | 'verify' }; failure?: string };

interface PhaseParts {
  o: Pick<RunOptions, 'store' | 'signal'>;
  runId: number;
  matrix: Matrix;
  emit: RunListener;
  log: (level: 'info' | 'warn', message: string) => void;
  /** The next free cell index of the run. */
  nextIndex: number;
  total: () => number;
  grow: (n: number) => void;
  runOne: (cell: CellConfig, total: number, etaSec: (wallSec?: number) => number) => Promise<CellResult>;
}

/**
 * The PhaseContext of a run: more cells with the run's next indexes, the planned total grown as phases announce them.
 */
function phaseContext(p: PhaseParts): PhaseRun {
  const current: { phase: 'settle' | 'verify' } = { phase: 'settle' };
  const log = (level: 'info' | 'warn', message: string): void =>
    p.emit({ type: 'log', runId: p.runId, level, message, phase: current.phase });
  let next = p.nextIndex;
  let planned = 0; // cells announced and not yet finished, for the ETA
  let perCell = CELL_OVERHEAD_SEC + p.matrix.warmupSec + p.matrix.durationSec;
  const eta = (): number => Math.max(1, planned * perCell);
  const results: CellResult[] = [];
  return {
    store: p.o.store,
    runId: p.runId,
    matrix: p.matrix,
    emit: p.emit,
    log,
    results,
    current,
    ...(p.o.signal ? { signal: p.o.signal } : {}),
    announce: (phase, message, moreCells) => {
      p.grow(moreCells);
      planned += moreCells;
      p.o.store.growRun(p.runId, moreCells);
      current.phase = phase;
      p.emit({ type: 'run-phase', runId: p.runId, phase, message, total: p.total(), etaSec: eta() });
    },
    runCell: async (cell) => {
      perCell = CELL_OVERHEAD_SEC + cell.warmupSec + cell.durationSec;
      const result = await p.runOne({ ...cell, index: next++ } as CellConfig, p.total(), (after) => {
        if (after !== undefined) planned = Math.max(0, planned - 1);
        return eta();
      });
      results.push(result);
      return result;
    },
  };
}

/**
 * Phases on a stored run that has finished (verification of an older run, `rightsize verify`): the
 * engine checked, the run's matrix validated against where its cells run now, the lab entered, its
 * images made; the run runs again under this process, its new cells appended, then it gets its
 * former status back (its grid's outcome does not change by being verified).
 */
export async function runPhasesOnRun(
  runId: number,
  phases: readonly RunPhaseStep[],
  o: RunOptions,
): Promise<RunOutcome> {
  const stored = o.store.getRun(runId);
  if (!stored) throw new Error(`There is no run ${runId} in ${o.store.path}.`);
  if (stored.status === 'running') throw new Error(`Run ${runId} is still running; wait for it to finish.`);
  if (stored.search)
    throw new Error(`Run ${runId} is an auto-size run: its search decided its answer; verify runs on matrix runs.`);
  const engine = await checkEngine();
  const lib = appLibrary(o.store);
  const { limits } = await limitsWhereCellsRun(engine, lib, o.provider);
  const v = validateMatrix(stored.matrix, limits);
  if (!v.ok) throw new MatrixInvalidError(v.problems);
  const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
  if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
  const apps = resolved.apps;
  const matrix = v.matrix;
  const { base, lease, noReaper } = await enterLab(engine, {
    what: `run ${runId} again (history: ${o.store.path})`,
    ...(o.base ? { strategy: o.base } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    wait: Boolean(o.waitForLab),
    ...(o.onLabWait ? { onWait: o.onLabWait } : {}),
  });
  let claimed = false;
  try {
    claimed = o.store.claimRun(runId, currentSession());
  } catch (e) {
    await lease.release().catch(() => {});
    throw e;
  }
  if (!claimed) {
    await lease.release().catch(() => {});
    throw new Error(`Run ${runId} could not be taken: another process is running it, or it was deleted.`);
  }
  o.onRunId?.(runId);
  const emit: RunListener = (e) => {
    try {
      o.onEvent?.(e);
    } catch {
      /* ignored */
    }
  };
  const log = (level: 'info' | 'warn', message: string): void => emit({ type: 'log', runId, level, message });
  if (noReaper) log('warn', `${noReaper}. If this process dies, the next Rightsize start removes its containers.`);
  // The outcome of the phases, not the run's: the run keeps its own status, times and error.
  let status: RunStatus = 'completed';
  let error: string | undefined;
  let results: CellResult[] = [];
  let total = stored.cellsTotal;
  const warned = new Set<string>();
  try {
    const images = await withBuildSignal(o.signal, () => buildImages(apps, base, (line) => log('info', line)));
    if (o.provider) for (const image of images.values()) await o.provider.prepareImage(image.tag);
    const ctx = phaseContext({
      o,
      runId,
      matrix,
      emit,
      log,
      nextIndex: stored.cells.reduce((a, c) => Math.max(a, c.config.index + 1), 0),
      total: () => total,
      grow: (n) => void (total += n),
      runOne: (cell, all, etaSec) =>
        runStoredCell(cell, {
          store: o.store,
          runId,
          engine,
          app: apps.find((a) => a.name === cell.app)!,
          image: images.get(cell.app)!,
          hostCores: limits.cores,
          placement: matrix.placement === 'auto',
          timeoutSec: matrix.timeoutSec,
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.provider ? { provider: o.provider } : {}),
          emit,
          warned,
          total: all,
          etaSec,
        }).then((r) => r.result),
    });
    results = await runPhases(ctx, phases);
    if (ctx.failure) [status, error] = ['failed', ctx.failure];
  } catch (e) {
    if (!o.signal?.aborted) [status, error] = ['failed', (e as Error).message];
  } finally {
    if (o.signal?.aborted) status = 'cancelled';
    if (o.provider && o.provider.kind !== 'local')
      await withTimeout(o.provider.removeRun(String(runId)), REMOVE_RUN_TIMEOUT_MS, 'no answer').catch(() => {});
    await lease.release().catch(() => {});
    try {
      // what the phases planned and did not run is not planned
      o.store.setCellsTotal(runId, stored.cellsTotal + results.length);
    } catch {
      /* the count is cosmetic; the cells are stored */
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
  if (!store.finishCell(cellId, result))
    throw new Error(`run ${runId} was deleted from the history by another process while it ran`);
  const etaSec = c.etaSec((performance.now() - t0) / 1000);
  emit({ type: 'cell-finished', runId, cellId, index: cell.index, total: c.total, result, etaSec });
  return { cellId, result };
}

export async function buildImages(apps: AppDefinition[], base: BaseImage, onLog: (line: string) => void) {
  const images = new Map<string, AppImage>();
  // resolved: one per name, in matrix order
  for (const app of apps) images.set(app.name, await ensureAppImage(app, () => Promise.resolve(base), onLog));
  return images;
}
