// Plain data of an auto-size search: what the user asks (a SizeSpec), and the path the search took
// (a SearchTrace, stored with the run). Shared by the engine, the store, the CLI and the UI contract.
import type { LaunchMode } from './types.ts';

/** A service-level objective: p99 latency, throughput and errors a configuration must meet. */
export interface Slo {
  p99Ms: number;
  minRps: number;
  maxErrorPct: number;
}

/**
 * What the user asks: the cheapest configuration of one app that meets an objective at a constant rate, within bounds.
 */
export interface SizeSpec {
  app: string;
  /** The objective the configuration must meet (p99 ≤ p99Ms, errors ≤ maxErrorPct; minRps is the target rate). */
  slo: Slo;
  /** Constant request rate (req/s) the load holds, measured from intended send time. */
  rate: number;
  /** Inclusive search bounds. */
  bounds: {
    cpuMillis: { min: number; max: number };
    memoryMb: { min: number; max: number };
    workers: { min: number; max: number };
    modes: LaunchMode[];
  };
  durationSec: number;
  warmupSec: number;
  /** Stop after this many cells whatever the statistics say (the search reports "undecided"). */
  maxCells: number;
  /** Step of the CPU caps the search bisects over (and of the grid it is compared with), millicores. */
  cpuStepMillis: number;
  /** Memory limits are rounded up to this step (and the grid it is compared with uses it), MB. */
  memoryStepMb: number;
  /**
   * Connections the constant-rate load spreads over (derived: enough that a configuration meeting the p99 never runs
   * out).
   */
  connections: number;
  /** false: no runtime probe in the cells (absent: probed, the default). */
  probe?: false;
  /**
   * true: search for the lowest price per hour (CPU × vCPU price + memory × GB price) instead of the
   * smallest CPU (absent: the smallest CPU, then memory, then workers).
   */
  cheapest?: true;
  /** Prices per vCPU-hour, GB-hour and replica-hour the run is costed at (absent: the example defaults). */
  prices?: { cpuHour: number; gbHour: number; replicaHour: number };
}

/** What one measured cell said about the objective. */
export type StepOutcome = 'meets' | 'misses' | 'undecided' | 'failed';

/** One cell the search ran, in order, and why. */
export interface SearchStep {
  /** The stored cell (cells.id) this step measured. */
  cellId: number;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  /** Why the search ran this cell, in words ("bisect CPU between 500m and 1000m"). */
  reason: string;
  outcome: StepOutcome;
  /** What was measured against the objective, in words ("p99 38 ms ≤ 50 ms (sure), 2,003 req/s"). */
  detail: string;
}

export type SearchStatus = 'running' | 'found' | 'none' | 'undecided' | 'cancelled' | 'failed';

export interface SearchTrace {
  spec: SizeSpec;
  steps: SearchStep[];
  status: SearchStatus;
  /** The cheapest configuration that meets the objective with confidence, when found. */
  found: { mode: LaunchMode; workers: number; cpuMillis: number; memoryMb: number } | null;
  /** The answer in plain words (what was found, or why none within the bounds meets the objective). */
  words: string;
  /** Cells the equivalent full grid over the bounds would have needed, for "N cells instead of M". */
  gridCells: number;
  /**
   * When the search stopped undecided (maxCells, cancel): the cheapest configuration that met so far, cheaper ones not
   * ruled out.
   */
  bestSoFar?: { mode: LaunchMode; workers: number; cpuMillis: number; memoryMb: number } | null;
}
