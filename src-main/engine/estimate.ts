// How long a matrix run takes here: the one rule behind the dry run, the Builder and the run's own
// ETA. A cell costs its warm-up as this host spends it for that app and launch mode, its measured
// seconds, and the time around them (start, readiness, teardown), from the latest finished cells in
// the history; without any, the configured warm-up and a default overhead. Settling and verification
// are ranges, expected from earlier runs of the same name (else a middle guess), so the count of
// cells never grows unannounced.
import type { CellConfig } from '../model/types.ts';
import type { CellTiming, RunPhaseCounts, TimingQueries } from '../store/timings.ts';
import type { CostSource, PhaseRange, RunEstimate } from '../model/estimate.ts';

export type { PhaseRange, RunEstimate };
import { etaSec } from './cell-pool.ts';
import type { Matrix } from './matrix.ts';
import { settleBudgetSec } from './settle.ts';
import { VERIFY_MIN_SEC } from './verify-plan.ts';
import { cellWarmup, plannedWarmup, type WarmupCell } from './cell-warmup.ts';
import { median } from '../common/median.ts';

/** How many recent cells of an app and mode, and recent runs of a name, the estimate learns from. */
export const TIMING_CELLS = 30;
export const TIMING_RUNS = 5;
/**
 * A cell's time outside warm-up and measurement before this host has timed any: the next target starts while the
 * previous one is torn down, so little is left (BENCHMARKS.md, Time to answer). An upper bound (auto-size's longest
 * run) keeps CELL_OVERHEAD_SEC.
 */
export const OVERHEAD_DEFAULT_SEC = 1;
/**
 * The adaptive warm-up's extension past a cell's least warm-up before this host has timed any: the flatness test's
 * seconds after a ramp. Every preset's first run here took 1–5 s a cell past its floor (BENCHMARKS.md, Time to
 * answer, "Without history"); without it first estimates read 0.59–0.79 of the wall.
 */
export const WARMUP_EXTRA_DEFAULT_SEC = 2;
/**
 * What an app's dependencies add around each of its cells (started fresh, ready, torn down) where the estimate has no
 * cell of that app to learn from: 1.7 s for PostgreSQL and Redis here (BENCHMARKS.md, Dependencies).
 */
export const DEPENDENCY_WORLD_DEFAULT_SEC = 1.7;
/** Verification cells without history: one per kind of deploy snippet that differs (PM2; Kubernetes and Compose). */
const VERIFY_CELLS_DEFAULT = 2;

/** What a cell of an app and mode costs beyond its configured seconds, and from how many cells that is known. */
export interface CellCost {
  /** Warm-up beyond the configured minimum (the adaptive warm-up's extension), median. */
  warmupExtraSec: number;
  /** Wall time outside warm-up and measurement (start, readiness, teardown), median. */
  overheadSec: number;
  /** Cells of the history it comes from (0: defaults). */
  cells: number;
  /** Whose cells: this app's under this mode, the mode's of other apps, any app's here, or none (defaults). */
  from: CostSource;
  /** Of overheadSec, what the app's dependencies add where the cells it comes from never started them. */
  worldSec?: number;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The warm-up a recorded cell was held to at least: its floor where what it ran is known, else the configured. */
function askedWarmupSec({ warmupSec, mode, workers, cpuMillis, warmupRaised }: CellTiming): number {
  if (mode == null || workers == null || cpuMillis == null) return warmupSec;
  return cellWarmup({ warmupSec, mode, workers, cpuMillis }, Boolean(warmupRaised)).minSec;
}

/** A cell's cost from the history's timings of its app and mode (newest first), or the defaults. */
export function cellCostFrom(timings: readonly CellTiming[], from: Exclude<CostSource, 'defaults'> = 'app'): CellCost {
  const ok = timings.filter((t) => [t.warmupSec, t.warmupUsedSec, t.measuredSec, t.wallSec].every(Number.isFinite));
  if (ok.length === 0)
    return { warmupExtraSec: WARMUP_EXTRA_DEFAULT_SEC, overheadSec: OVERHEAD_DEFAULT_SEC, cells: 0, from: 'defaults' };
  return {
    warmupExtraSec: median(ok.map((t) => Math.max(0, t.warmupUsedSec - askedWarmupSec(t)))),
    overheadSec: median(ok.map((t) => Math.max(0, t.wallSec - t.warmupUsedSec - t.measuredSec))),
    cells: ok.length,
    from,
  };
}

/**
 * The cost of an app's cell from the nearest history that has one: its own cells under the mode, else the mode's
 * cells of other apps, else any cell on this host (the host's start-up and a typical ramp), else the defaults.
 */
export function nearestCost(
  cellsOf: (app: string | null, mode: string | null) => readonly CellTiming[],
  app: string,
  mode: string,
): CellCost {
  const tries: [string | null, string | null, Exclude<CostSource, 'defaults'>][] = [
    [app, mode, 'app'],
    [null, mode, 'mode'],
    [null, null, 'host'],
  ];
  for (const [a, m, from] of tries) {
    const cost = cellCostFrom(cellsOf(a, m), from);
    if (cost.cells > 0) return cost;
  }
  return cellCostFrom([]);
}

export interface EstimateInput {
  cells: readonly (Pick<CellConfig, 'app' | 'durationSec'> & WarmupCell)[];
  matrix: Pick<Matrix, 'settleBudgetPct' | 'verify' | 'durationSec'>;
  /** The cost of a cell of this app and mode (cellCostFrom over the store's timings). */
  costOf: (app: string, mode: string) => CellCost;
  /** Earlier completed runs of the same name, newest first. */
  pastRuns: readonly RunPhaseCounts[];
  /** Cells at once. */
  k: number;
  /** Where they run, lone targets change their cap in place (Provider.raisesCap): a warm-up under one CPU is raised. */
  raisesCap?: boolean;
}

/** The estimate of a matrix run: the grid, then settling and verification as ranges. */
export function estimateRun(o: EstimateInput): RunEstimate {
  const warmupOf = (c: WarmupCell): ReturnType<typeof cellWarmup> => plannedWarmup(c, o.raisesCap);
  const basis = new Map<string, { app: string; mode: string; cost: CellCost }>();
  const costOf = (c: Pick<CellConfig, 'app' | 'mode'>): CellCost => {
    const key = `${c.app}\u0000${c.mode}`;
    let b = basis.get(key);
    if (!b) basis.set(key, (b = { app: c.app, mode: c.mode, cost: o.costOf(c.app, c.mode) }));
    return b.cost;
  };
  // The cell's least warm-up (its JIT floor where longer than the configured) and the typical extension past it, as
  // the history's is counted; a configured 0 stays 0.
  const wallOf = (c: EstimateInput['cells'][number], extraSec = costOf(c).warmupExtraSec): number => {
    const { minSec } = warmupOf(c);
    return (minSec > 0 ? minSec + extraSec : 0) + c.durationSec + costOf(c).overheadSec;
  };
  const walls = o.cells.map((c) => wallOf(c));
  const gridSec = etaSec(walls, 0, o.k);
  // Where nothing has run here, a cell may warm up to the adaptive warm-up's cap: the range's top says so.
  const highOf = (c: (typeof o.cells)[number]): number =>
    costOf(c).from === 'defaults' ? warmupOf(c).capSec + c.durationSec + costOf(c).overheadSec : wallOf(c);
  const gridHighSec = etaSec(o.cells.map(highOf), 0, o.k);
  // …and at its bottom, with no extension past the least warm-up.
  const lowOf = (c: (typeof o.cells)[number]): number => (costOf(c).from === 'defaults' ? wallOf(c, 0) : wallOf(c));
  const gridLowSec = etaSec(o.cells.map(lowOf), 0, o.k);
  const meanWall = walls.length ? mean(walls) : 0;
  // Settling adds cells until its budget (planned warm-up + measured seconds) would be exceeded.
  const budget = settleBudgetSec(o.cells, o.matrix.settleBudgetPct);
  const planned = o.cells.length ? o.cells.reduce((a, c) => a + c.warmupSec + c.durationSec, 0) / o.cells.length : 0;
  const settleHigh = planned > 0 ? Math.floor(budget / planned + 1e-9) : 0;
  const past = o.pastRuns;
  const settleExpected = past.length ? median(past.map((r) => r.settle)) : settleHigh / 2;
  const settle = range({ low: 0, expected: Math.min(settleHigh, settleExpected), high: settleHigh }, meanWall);
  // Verification: its cells measure at least VERIFY_MIN_SEC.
  const first = o.cells[0];
  const verifyWall = first
    ? wallOf({ ...first, durationSec: Math.max(first.durationSec, o.matrix.durationSec, VERIFY_MIN_SEC) })
    : 0;
  const verifyExpected = past.length ? median(past.map((r) => r.verify)) : VERIFY_CELLS_DEFAULT;
  const verify = o.matrix.verify
    ? range({ low: 1, expected: verifyExpected, high: Math.max(verifyExpected, VERIFY_CELLS_DEFAULT + 1) }, verifyWall)
    : range({ low: 0, expected: 0, high: 0 }, 0);
  return {
    gridCells: o.cells.length,
    gridSec,
    extraSecPerCell: o.cells.length ? meanWall - mean(o.cells.map((c) => warmupOf(c).minSec + c.durationSec)) : 0,
    settle,
    verify,
    // To a tenth of a second: the sums of fractional seconds are not more precise than that.
    totalSec: tenth(gridSec + settle.sec.expected + verify.sec.expected),
    lowSec: tenth(gridLowSec + settle.sec.low + verify.sec.low),
    highSec: tenth(gridHighSec + settle.sec.high + verify.sec.high),
    basis: [...basis.values()].map((b) => ({
      app: b.app,
      mode: b.mode,
      cells: b.cost.cells,
      from: b.cost.from,
      ...(b.cost.worldSec ? { worldSec: b.cost.worldSec } : {}),
    })),
    runs: past.length,
  };
}

const tenth = (x: number): number => Math.round(x * 10) / 10;

const range = (cells: PhaseRange['cells'], perCell: number): PhaseRange => ({
  cells,
  sec: { low: cells.low * perCell, expected: cells.expected * perCell, high: cells.high * perCell },
});

/**
 * An app's cost from the nearest history, with its dependencies' start and teardown added where that history is not
 * its own cells (other apps' cells, or none, never started its world).
 */
export function costWithWorld(cost: CellCost, hasDependencies: boolean): CellCost {
  if (!hasDependencies || cost.from === 'app') return cost;
  return {
    ...cost,
    overheadSec: cost.overheadSec + DEPENDENCY_WORLD_DEFAULT_SEC,
    worldSec: DEPENDENCY_WORLD_DEFAULT_SEC,
  };
}

/**
 * The estimate with what this store knows: its latest cells per app and mode, its latest runs of `name`.
 * `withDependencies`: the apps of the matrix that start dependencies beside each cell.
 */
export function estimateWithHistory(
  store: { timings: Pick<TimingQueries, 'cells' | 'runs'> },
  o: Omit<EstimateInput, 'costOf' | 'pastRuns'> & { name?: string; withDependencies?: ReadonlySet<string> },
): RunEstimate {
  const { withDependencies, ...rest } = o;
  return estimateRun({
    ...rest,
    costOf: (app, mode) =>
      costWithWorld(
        nearestCost((a, m) => store.timings.cells(a, m, TIMING_CELLS), app, mode),
        withDependencies?.has(app) ?? false,
      ),
    pastRuns: o.name ? store.timings.runs(o.name, TIMING_RUNS) : [],
  });
}
