// A run and its cells as the history keeps them: plain data the store gives back and the
// analysis, the exports, the CLI and the UI read.
import type {
  Bottleneck,
  CellConfig,
  CellStatus,
  DependencyReading,
  ExitInfo,
  Flag,
  HostFacts,
  LaunchMode,
  LoadResult,
  RanOn,
  RunStatus,
  StatsSummary,
} from './types.ts';
import type { SearchTrace } from './search.ts';
import type { CellProbe } from './probe.ts';

/** What a cell's probe heard, as stored: its seconds are kept apart. */
export type StoredCellProbe = Omit<CellProbe, 'seconds'>;

/** A cell as stored: the config and the full results parsed back, plus the flat metrics used for tables and CSV. */
export interface StoredCell {
  id: number;
  runId: number;
  config: CellConfig;
  status: CellStatus;
  failure: string | null;
  // Flat metrics: null when the cell has no load result (or no stats / exit info).
  rpsMean: number | null;
  rpsStddev: number | null;
  bytesPerSec: number | null;
  p50Us: number | null;
  p75Us: number | null;
  p90Us: number | null;
  p97_5Us: number | null;
  p99Us: number | null;
  p99_9Us: number | null;
  maxUs: number | null;
  meanUs: number | null;
  stddevUs: number | null;
  requests: number | null;
  errors: number | null;
  timeouts: number | null;
  non2xx: number | null;
  clientBound: boolean | null;
  cpuPctMean: number | null;
  cpuPctMax: number | null;
  memMaxBytes: number | null;
  memLimitBytes: number | null;
  throttledMs: number | null;
  load: LoadResult | null;
  stats: StatsSummary | null;
  exit: ExitInfo | null;
  flags: Flag[];
  /**
   * What set its pace, as decided when it was measured (common/bottleneck.ts; cells stored before it was recorded got
   * it from their stored flags and load, by the same function): null without a load result. Read, never re-derived.
   */
  bottleneck: Bottleneck | null;
  imageTag: string | null;
  /** Its dependencies' readings (absent: none). */
  dependencies?: DependencyReading[];
  /** Where the target ran (null: this machine's engine, before it was recorded). */
  ranOn: RanOn | null;
  /** The exact Node.js version the cell's processes ran (absent: not recorded — an image app, an older run). */
  nodeVersion?: string;
  /**
   * What its runtime probe heard: the processes, their roles and what each believed about its box at start (absent:
   * the probe was off, or the cell never reached its load).
   */
  probe?: StoredCellProbe;
  /** Per replica, when the cell ran several (config.replicas ≥ 2); the columns above are their totals. */
  replicas?: import('./replicas.ts').ReplicaReading[];
  startedAt: string;
  finishedAt: string | null;
}

export interface NewRun {
  name: string;
  preset?: string | null;
  /** The matrix as the user asked for it; stored as JSON and given back as is. */
  matrix: unknown;
  host: HostFacts;
  ownerSession: string;
  cellsTotal: number;
  /** Copies of the app definitions the run used (stored as JSON). */
  apps?: unknown[];
}

/** One line of the run list. */
export interface RunSummary {
  id: number;
  name: string;
  preset: string | null;
  status: RunStatus;
  cellsTotal: number;
  /** Cells with any final status (ok, failed, oom, cancelled, interrupted). */
  cellsDone: number;
  /** Cells that failed or were OOM-killed. */
  cellsFailed: number;
  startedAt: string;
  finishedAt: string | null;
  /** null while the run is unfinished. */
  durationSec: number | null;
  /** Highest mean req/s among the run's ok cells. */
  bestRps: number | null;
  /** Lowest p99 latency (µs) among the run's ok cells. */
  bestP99Us: number | null;
  /** The answer's pick (or, undecided, its leading contender); null while running or when nothing can be deployed. */
  pick: RunPick | null;
}

/** The configuration a finished run's answer names, as the run list shows it. */
export interface RunPick {
  /** As the headline says it: an undecided answer names a leading contender, never a pick. */
  state: 'confident' | 'equivalent' | 'undecided';
  /** "cluster×1 on 1 CPU / 256 MB" (the app first when the run measured more than one). */
  configuration: string;
  app: string;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  /** Mean goodput (req/s with the expected status); only a lower bound when `lowerBound`. */
  goodputRps: number | null;
  /** The load generator or the host set the pace: the server was at least this fast. */
  lowerBound: boolean;
  /** Mean p99 latency over the repetitions, µs. */
  p99Us: number | null;
}

export interface RunDetail {
  id: number;
  name: string;
  preset: string | null;
  matrix: unknown;
  host: HostFacts;
  ownerSession: string;
  status: RunStatus;
  cellsTotal: number;
  startedAt: string;
  finishedAt: string | null;
  durationSec: number | null;
  error: string | null;
  /** The app definitions the run used, as they were when it started ([] for runs older than schema 3). */
  apps: unknown[];
  /** Ordered by execution index. */
  cells: StoredCell[];
  /** An auto-size run: the path its search took (null for a matrix run). */
  search: SearchTrace | null;
}

export const RUN_SORTS = ['started_at', 'name', 'status', 'cells', 'duration'] as const;
export type RunSort = (typeof RUN_SORTS)[number];

export interface ListRunsQuery {
  /** Default 100, at most 1000. */
  limit?: number;
  offset?: number;
  status?: RunStatus;
  /** Case-insensitive substring of the name or the preset (ASCII case folding, as SQLite's LIKE). */
  search?: string;
  /** 'cells' sorts by the number of cells planned. Ties break on id. Default 'started_at'. */
  sort?: RunSort;
  /** Default 'desc' for started_at, cells and duration; 'asc' for name and status. */
  order?: 'asc' | 'desc';
}

export interface RunList {
  /** Runs matching the filters, ignoring limit and offset. */
  total: number;
  runs: RunSummary[];
}
