import type { RunEstimate } from './estimate.ts';
import type { SearchStep } from './search.ts';
import type { CellConfig, CellResult, RunStatus, Sample } from './types.ts';

export type CellPhase = 'starting' | 'ready' | 'warmup' | 'measuring' | 'teardown';

/** Everything a run tells its listeners (CLI progress bar, UI, tests), in order. */
export type RunEvent =
  /** `estimate`: a matrix run's phases as planned (the grid's cells, settling and verification as ranges). */
  | {
      type: 'run-started';
      runId: number;
      name: string;
      total: number;
      cells: CellConfig[];
      etaSec: number;
      estimate?: RunEstimate;
    }
  /** `phase`: said by a phase after the grid (settling, verification): always shown, unlike build logs. */
  | { type: 'log'; runId: number; level: 'info' | 'warn'; message: string; phase?: 'settle' | 'verify' }
  | {
      type: 'cell-started';
      runId: number;
      cellId: number;
      index: number;
      total: number;
      cell: CellConfig;
      etaSec: number;
    }
  | { type: 'cell-phase'; runId: number; cellId: number; index: number; phase: CellPhase }
  | { type: 'sample'; runId: number; cellId: number; index: number; sample: Sample }
  | {
      type: 'cell-finished';
      runId: number;
      cellId: number;
      index: number;
      total: number;
      result: CellResult;
      etaSec: number;
    }
  /**
   * A phase after the grid: settling an undecided answer, verifying the deployable; `total` counts the cells now
   * planned.
   */
  /** What the run does now and the cells it plans: the grid (cells skipped), settling, verification. */
  | {
      type: 'run-phase';
      runId: number;
      phase: 'grid' | 'settle' | 'verify';
      message: string;
      total: number;
      etaSec: number;
    }
  /** An auto-size search's step, said once the trace holding it is stored: `number` counts from 1. */
  | { type: 'search-step'; runId: number; number: number; step: SearchStep }
  | { type: 'run-finished'; runId: number; status: RunStatus; error?: string };

export type RunListener = (e: RunEvent) => void;
