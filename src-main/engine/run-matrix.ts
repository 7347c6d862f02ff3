// A matrix as a source of cells: its grid (K at once where the target has the nodes), then the
// phases after it (settling, verification). And the phases alone on a stored run that has
// finished (`rightsize verify`). The lifecycle around them is the session's (run/run-session.ts).
import { appsWithDependencies, resolveApps } from '../apps/library.ts';
import { findImage } from '../docker/image-lookup.ts';
import type { CellResult, RunStatus } from '../model/types.ts';
import { etaSec, poolSize, runPool, slotPlacement } from './cell-pool.ts';
import { estimateWithHistory } from './estimate.ts';
import { plannedWarmup } from './cell-warmup.ts';
import { expandMatrix, MatrixInvalidError, validateMatrix, type Matrix } from './matrix.ts';
import { anyHttp2, anyTls, linksOf } from './matrix-dimensions.ts';
import { linkProblems } from '../apps/served-links.ts';
import { afterGrid, runPhases, type RunPhaseStep } from './phase-run.ts';
import { runSession, type CellSource, type Session, type SessionOptions } from './run/run-session.ts';
import { imageNeeds } from './run/images.ts';
import { sameFailureReason, skippedFailure } from './run/same-failure.ts';
import { SequentialLook } from './sequential-look.ts';

export { limitsWhereCellsRun, readyTarget, TargetNotReadyError } from './run/limits.ts';
export { runStoredCell } from './run/stored-cell.ts';
export { afterGrid, type RunPhaseStep } from './phase-run.ts';

export interface RunOptions extends SessionOptions {
  name?: string;
  preset?: string;
}

export interface RunOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
  cells: CellResult[];
}

/**
 * Validates against the limits where the cells run, then runs every cell of the matrix in order (K
 * at once where the provider has the nodes) and the phases after the grid, storing everything as it
 * happens. Throws only before anything started; after that the outcome says what happened.
 */
export async function runMatrix(input: unknown, o: RunOptions): Promise<RunOutcome> {
  const results: CellResult[] = [];
  const source: CellSource = {
    plan: async (limits, lib) => {
      const v = validateMatrix(input, limits);
      if (!v.ok) throw new MatrixInvalidError(v.problems);
      // User apps are checked again: their folder, entry file or image may have changed since they were added.
      const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
      if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
      // HTTPS and HTTP/2 cells of a user's app only over the links it says it serves (the built-in apps serve all).
      const unserved = linkProblems(linksOf(v.matrix), resolved.apps);
      if (unserved.length) throw new MatrixInvalidError(unserved);
      const matrix: Matrix =
        v.matrix.order === 'shuffle' && v.matrix.seed === undefined
          ? { ...v.matrix, seed: Math.floor(Math.random() * 2 ** 31) }
          : v.matrix;
      const name = o.name ?? matrix.name ?? o.preset ?? 'matrix';
      const cells = expandMatrix(matrix, limits.imageApps);
      const cellsTotal = cells.length;
      return {
        what: `run "${name}"`,
        apps: resolved.apps,
        // A copy of the apps: the run stays explicable after they are edited or removed.
        record: { create: { name, preset: o.preset ?? null, matrix, cellsTotal, apps: resolved.apps } },
        cellDefaults: { placement: matrix.placement === 'auto', timeoutSec: matrix.timeoutSec },
        images: imageNeeds(cells), // each (app, Node.js version) built before any cell runs
        ...(matrix.networkMbps ? { networkMbps: matrix.networkMbps } : {}),
        ...(anyTls(matrix) ? { tls: true } : {}),
        ...(anyHttp2(matrix) ? { http2: true } : {}),
        run: (s) => runGrid(s, matrix, name, results, appsWithDependencies(resolved.apps)),
      };
    },
  };
  const outcome = await runSession(source, o);
  return { ...outcome, cells: results };
}

/** The grid, then the phases after it; returns what stopped a phase, if anything did. */
async function runGrid(
  s: Session,
  matrix: Matrix,
  name: string,
  results: CellResult[],
  withDependencies: ReadonlySet<string>,
): Promise<string | void> {
  const cells = expandMatrix(matrix, s.limits.imageApps);
  const raisesCap = s.provider.raisesCap;
  const perCell = (c: (typeof cells)[number]): number => plannedWarmup(c, raisesCap).minSec + c.durationSec;
  // K cells at once where the target has the nodes (each target alone on its node, its load on another).
  const k = await poolSize(s.provider, cells.length);
  // The estimate's rule (engine/estimate.ts): until this run's own cells are timed, what this host's
  // history says a cell takes beyond its configured seconds; settling and verification as expected.
  const estimate = estimateWithHistory(s.store, { cells, matrix, k, name, withDependencies, raisesCap });
  let overhead = estimate.extraSecPerCell;
  const overheads: number[] = [];
  const later = { settle: estimate.settle.sec.expected, verify: estimate.verify.sec.expected };
  const finished = new Set<number>();
  const position = new Map(cells.map((c, i) => [c.index, i]));
  const eta = (): number =>
    etaSec(cells.filter((c) => !finished.has(c.index)).map(perCell), overhead, k) + later.settle + later.verify;
  // Each app's first cell in run order; once it fails at start in a way every cell of the app would
  // repeat, the app's cells not yet started are skipped (run/same-failure.ts).
  const firstOf = new Map<string, number>();
  const skipping = new Map<string, string>();
  // Between rounds of repetitions, configurations already out of the contest get no more (sequential-look.ts).
  const look = new SequentialLook(s, matrix, cells, (message, total) =>
    s.emit({ type: 'run-phase', runId: s.runId, phase: 'grid', message, total, etaSec: eta() }),
  );
  s.started({ name, total: cells.length, cells, etaSec: eta(), estimate });
  if (k > 1)
    s.log('info', `${k} cells at once on ${s.provider.name}: each target alone on its node, its load on another node`);
  const byIndex = await runPool(
    cells,
    k,
    async (cell, slot) => {
      if (look.skips(cell)) {
        finished.add(cell.index); // not run, not stored, no longer planned
        return undefined;
      }
      const skip = skipping.get(cell.app);
      if (skip !== undefined && s.skipCell) {
        finished.add(cell.index); // took no time: the overhead estimate is not touched
        return (await s.skipCell(cell, skip, { total: look.planned, etaSec: () => eta() })).result;
      }
      if (!firstOf.has(cell.app)) firstOf.set(cell.app, cell.index);
      const hint = slotPlacement(s.provider, slot, k);
      // One cell at a time: the next one is known, and its target can be started as this one ends.
      const next = k === 1 ? cells.slice(position.get(cell.index)! + 1).find((c) => !look.isOut(c)) : undefined;
      const { result } = await s.runCell(cell, {
        ...(hint ? { placementHint: hint } : {}),
        ...(next ? { next } : {}),
        total: look.planned,
        etaSec: (after) => {
          if (after !== undefined) {
            overheads.push(after - perCell(cell));
            overhead = overheads.reduce((a, b) => a + b, 0) / overheads.length;
            finished.add(cell.index);
          }
          return eta();
        },
      });
      const reason = firstOf.get(cell.app) === cell.index ? sameFailureReason(result) : undefined;
      if (reason !== undefined) {
        skipping.set(cell.app, skippedFailure(cell.index + 1, reason));
        // In run order (a shuffled matrix too): the app's cells not finished yet, this one aside.
        const rest = cells.filter((c) => c.app === cell.app && c.index !== cell.index && !finished.has(c.index)).length;
        if (rest)
          s.log(
            'warn',
            `${cell.app}: cell ${cell.index + 1} failed at start (${reason}), as every cell of it would: ` +
              `its ${rest} other cell${rest === 1 ? '' : 's'} ${rest === 1 ? 'is' : 'are'} skipped; ` +
              'the run goes on with the other apps. Try the app (Apps page, or `rightsize apps try ' +
              `${cell.app}\`) to see what answered.`,
          );
      }
      return result;
    },
    s.signal,
  );
  results.push(...byIndex.filter((r): r is CellResult => r !== undefined));
  if (s.signal?.aborted) return;
  const phases = await runPhases(
    { session: s, matrix, nextIndex: cells.length, plannedBefore: look.planned, overheadSec: overhead, later },
    afterGrid(matrix),
  );
  results.push(...phases.results);
  // Planned but not run (a round cut short): the total is what ran. A phase's failure is the phase's, not the run's.
  s.store.setCellsTotal(s.runId, look.planned + phases.results.length);
}

/**
 * Phases on a stored run that has finished (verification of an older run, `rightsize verify`): the
 * run's matrix validated against where its cells run now, the run taken by this process, its new
 * cells appended; it keeps its own status, times and error (its grid's outcome does not change by
 * being verified). The outcome is the phases'.
 */
export async function runPhasesOnRun(
  runId: number,
  phases: readonly RunPhaseStep[],
  o: SessionOptions,
): Promise<RunOutcome> {
  const stored = o.store.getRun(runId);
  if (!stored) throw new Error(`There is no run ${runId} in ${o.store.path}.`);
  if (stored.status === 'running') throw new Error(`Run ${runId} is still running; wait for it to finish.`);
  if (stored.search)
    throw new Error(`Run ${runId} is an auto-size run: its search decided its answer; verify runs on matrix runs.`);
  const results: CellResult[] = [];
  const source: CellSource = {
    plan: async (limits, lib) => {
      const v = validateMatrix(stored.matrix, limits);
      if (!v.ok) throw new MatrixInvalidError(v.problems);
      const resolved = await resolveApps(lib, v.matrix.apps, (image) => findImage(image));
      if (!resolved.ok) throw new MatrixInvalidError(resolved.problems);
      const matrix = v.matrix;
      const nextIndex = stored.cells.reduce((a, c) => Math.max(a, c.config.index + 1), 0);
      return {
        what: `run ${runId} again`,
        apps: resolved.apps,
        record: { claim: runId },
        cellDefaults: { placement: matrix.placement === 'auto', timeoutSec: matrix.timeoutSec },
        images: imageNeeds(expandMatrix(matrix, limits.imageApps)), // the phases run the grid's configurations
        ...(matrix.networkMbps ? { networkMbps: matrix.networkMbps } : {}),
        ...(anyTls(matrix) ? { tls: true } : {}),
        ...(anyHttp2(matrix) ? { http2: true } : {}),
        run: async (s) => {
          const out = await runPhases({ session: s, matrix, nextIndex, plannedBefore: stored.cellsTotal }, phases);
          results.push(...out.results);
          return out.failure;
        },
        end: (s) => {
          try {
            // What the phases planned and did not run is not planned.
            s.store.setCellsTotal(runId, stored.cellsTotal + results.length);
          } catch {
            /* the count is cosmetic; the cells are stored */
          }
        },
      };
    },
  };
  const outcome = await runSession(source, o);
  return { ...outcome, cells: results };
}
