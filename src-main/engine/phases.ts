// What a phase after the grid (settling, verification) gets from the run it belongs to: the stored
// run, a way to run one more cell of it exactly as the grid's cells run, and the run's voice.
import type { Store } from '../store/index.ts';
import type { RunListener } from '../model/events.ts';
import type { Matrix } from './matrix.ts';
import type { CellConfig, CellResult } from '../model/types.ts';

export interface PhaseContext {
  store: Store;
  runId: number;
  /** The run's matrix as stored (validated, seed fixed). */
  matrix: Matrix;
  signal?: AbortSignal;
  emit: RunListener;
  log: (level: 'info' | 'warn', message: string) => void;
  /**
   * Runs one more cell of this run on the run's target with the run's images, stored (cell row,
   * samples, result, events) like every grid cell; the index is the next free one. Set `phase`.
   */
  runCell: (cell: Omit<CellConfig, 'index'>) => Promise<CellResult>;
  /** Tells listeners (progress line, Live view) what the run is doing now and how many more cells it plans. */
  announce: (phase: 'settle' | 'verify', message: string, moreCells: number) => void;
}
