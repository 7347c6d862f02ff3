// The phases after a matrix's grid (settling, verification), run in order on a session: each adds
// cells with the run's next indexes and grows the planned total as it announces them.
import { CELL_OVERHEAD_SEC } from '../common/thresholds.ts';
import type { CellConfig, CellResult } from '../model/types.ts';
import type { Matrix } from './matrix.ts';
import type { PhaseContext } from './phases.ts';
import type { Session } from './run/run-session.ts';
import { settleAnswer } from './settle.ts';
import { verifyAnswer } from './verify.ts';
import { plannedWarmup } from './cell-warmup.ts';

type PhaseName = 'settle' | 'verify';

/** A phase after the grid: settling, verification. */
export interface RunPhaseStep {
  name: PhaseName;
  run: (ctx: PhaseContext) => Promise<unknown>;
}

export const SETTLE: RunPhaseStep = { name: 'settle', run: settleAnswer };
export const VERIFY: RunPhaseStep = { name: 'verify', run: verifyAnswer };

/** The phases a matrix run has after its grid: settling, then (when asked) verification of the deployable. */
export function afterGrid(matrix: Matrix): RunPhaseStep[] {
  return [SETTLE, ...(matrix.verify ? [VERIFY] : [])];
}

export interface PhaseRunInput {
  session: Session;
  matrix: Matrix;
  /** The next free cell index of the run. */
  nextIndex: number;
  /** Cells planned before the phases (the run's total grows from it). */
  plannedBefore: number;
  /** Seconds a cell takes here beyond its warm-up and measurement (the grid's, as timed); default CELL_OVERHEAD_SEC. */
  overheadSec?: number;
  /** The estimate's expected seconds of each phase, counted in the ETA until the phase announces its cells. */
  later?: { settle: number; verify: number };
}

export interface PhaseRunOutcome {
  results: CellResult[];
  /** What stopped a phase, in words (the run goes on: it is said and kept in the outcome). */
  failure?: string;
}

/** Runs the phases in order; a phase's own failure is said and ends that phase, never the run. */
export async function runPhases(input: PhaseRunInput, phases: readonly RunPhaseStep[]): Promise<PhaseRunOutcome> {
  const { ctx, current, results } = phaseContext(input);
  let failure: string | undefined;
  for (const phase of phases) {
    if (ctx.signal?.aborted) break;
    current.phase = phase.name;
    try {
      await phase.run(ctx);
    } catch (e) {
      if (ctx.signal?.aborted) break;
      // Said, kept in the outcome, and the next phase still runs: verification does not need settling to have finished.
      const what = `${phase.name === 'settle' ? 'settling' : 'verification'} stopped: ${(e as Error).message}`;
      failure = failure ? `${failure}; ${what}` : what;
      ctx.log('warn', what);
    }
  }
  return { results, ...(failure ? { failure } : {}) };
}

function phaseContext(p: PhaseRunInput): { ctx: PhaseContext; current: { phase: PhaseName }; results: CellResult[] } {
  const s = p.session;
  const current: { phase: PhaseName } = { phase: 'settle' };
  const log = (level: 'info' | 'warn', message: string): void =>
    s.emit({ type: 'log', runId: s.runId, level, message, phase: current.phase });
  let next = p.nextIndex;
  let total = p.plannedBefore;
  let planned = 0; // cells announced and not yet finished, for the ETA
  const overhead = p.overheadSec ?? CELL_OVERHEAD_SEC;
  let perCell = overhead + p.matrix.warmupSec + p.matrix.durationSec;
  // Verification's expected time still counts while settling runs; a phase's own cells replace its expectation.
  const verifyLater = (): number => (current.phase === 'settle' ? (p.later?.verify ?? 0) : 0);
  const eta = (): number => Math.max(1, planned * perCell + verifyLater());
  const results: CellResult[] = [];
  const ctx: PhaseContext = {
    store: s.store,
    runId: s.runId,
    matrix: p.matrix,
    emit: s.emit,
    log,
    ...(s.signal ? { signal: s.signal } : {}),
    announce: (phase, message, moreCells) => {
      total += moreCells;
      planned += moreCells;
      s.store.growRun(s.runId, moreCells);
      current.phase = phase;
      s.emit({ type: 'run-phase', runId: s.runId, phase, message, total, etaSec: eta() });
    },
    runCell: async (cell) => {
      perCell = overhead + plannedWarmup(cell, s.provider.raisesCap).minSec + cell.durationSec;
      const { result } = await s.runCell({ ...cell, index: next++ } as CellConfig, {
        total,
        etaSec: (after) => {
          if (after !== undefined) planned = Math.max(0, planned - 1);
          return eta();
        },
      });
      results.push(result);
      return result;
    },
  };
  return { ctx, current, results };
}
