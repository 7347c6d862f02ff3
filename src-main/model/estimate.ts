// A matrix run's estimate (engine/estimate.ts makes it): the grid, then settling and verification as ranges.

/** A phase after the grid: how many cells, and how long, at least, expected and at most. */
export interface PhaseRange {
  cells: { low: number; expected: number; high: number };
  sec: { low: number; expected: number; high: number };
}

/** Whose cells a cell's timing comes from: the app's own under its mode, other apps', any cell here, or none. */
export type CostSource = 'app' | 'mode' | 'host' | 'defaults';

export interface RunEstimate {
  gridCells: number;
  gridSec: number;
  /** Mean time of a grid cell past its least warm-up (engine/cell-warmup.ts) and measurement: the ETA's start. */
  extraSecPerCell: number;
  settle: PhaseRange;
  verify: PhaseRange;
  /** Grid plus the expected settling and verification; and the range from the lows to the highs. */
  totalSec: number;
  lowSec: number;
  highSec: number;
  /**
   * Per app and mode: how many earlier cells the timing comes from (0: defaults), and whose: the app's own under the
   * mode, other apps' under the mode, any cell here.
   */
  basis: {
    app: string;
    mode: string;
    cells: number;
    from: CostSource;
    /** Seconds added around each cell for the app's dependencies, where its cost is not from its own cells. */
    worldSec?: number;
  }[];
  /** Earlier completed runs of the same name the expected phases come from. */
  runs: number;
}
