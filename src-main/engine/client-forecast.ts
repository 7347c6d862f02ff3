// Before a run: which cells will the load generator, not the server, set the pace of on this host?
//
// One load thread tops out at some rate (BENCHMARKS.md, Fidelity), whatever the server could do.
// That ceiling is calibrated from this host's own history — the highest goodput per load thread of
// any cell flagged client-bound here — and stored in the settings table, so it outlives the runs it
// came from. A cell is then predicted from past cells of the same app (and request set, and launch
// mode) here: what cells of exactly its configuration reached, else their goodput per CPU the server
// could use times the planned cap, against the ceiling × the load threads the cell will get (the
// placement and threads rules of a run); a configuration that was mostly client-bound here before is
// likely to be again. No ceiling or no past cells of an app: no forecast for them.
//
// The forecast itself (`forecastCells`, `forecastMessage`, `ceilingOf`, …) is pure; `hostForecast`
// reads the store and keeps the stored ceiling up to date.
import { CLIENT_BOUND_ELU } from '../common/thresholds.ts';
import { fmtNum } from '../common/format.ts';
import { planReplicaPlacement } from '../docker/replica-placement.ts';
import { threadCount } from '../load/threads.ts';
import type { Store } from '../store/store.ts';
import { expandMatrix, type ImageApps, type Matrix } from './matrix.ts';
import type { CellLoad, LaunchMode } from '../model/types.ts';
import {
  ceilingOf,
  mergeCeiling,
  pastCell,
  sameHost,
  storedCeiling,
  thisHost,
  type HostKey,
  type LoadCeiling,
  type PastCell,
} from './client-ceiling.ts';
import { median } from '../common/median.ts';

/** The settings key of the stored ceiling (a LoadCeiling as JSON). */
export const CEILING_SETTING = 'loadThreadCeiling';
/** How many of the latest runs the forecast reads (newest first). */
export const HISTORY_RUNS = 200;

/** A cell of the matrix about to run, with the load threads it will get. */
export interface PlannedCell {
  app: string;
  requestSet?: string;
  mode: LaunchMode;
  workers: number;
  /** Per replica, as CellConfig's. */
  cpuMillis: number;
  /** Containers of the app (absent = 1): the load is spread over them, each with the cap and workers above. */
  replicas?: number;
  load: CellLoad;
  threads: number;
}

/** Cells predicted client-bound, grouped by what sets their rate. */
export interface ForecastGroup {
  app: string;
  requestSet?: string;
  cpuMillis: number;
  /** Containers per cell (absent = 1). */
  replicas?: number;
  threads: number;
  /** The highest predicted rate among the group's cells (req/s). */
  predictedRps: number;
  /** What the group's load threads can send together (req/s). */
  ceilingRps: number;
  cells: number;
  /**
   * Every cell of the group is likely only because cells of its configuration were client-bound here before (its
   * predicted rate is below the ceiling).
   */
  boundBefore: boolean;
}

/** The forecast the CLI prints and the Builder shows before Start (MatrixCheck.forecast). */
export interface ClientForecast {
  /** Cells in the matrix (repetitions included). */
  cells: number;
  /** Cells likely client-bound on this host. */
  likely: number;
  /** Cells with no past cells of their app on this host: nothing to predict them from. */
  unknown: number;
  /** One load thread's ceiling on this host (req/s). */
  ceilingPerThread: number;
  groups: ForecastGroup[];
  /** The warning with its remedy, in words; null when no cell is likely client-bound. */
  message: string | null;
}

/**
 * The CPUs a cell's server can use: the cap, but no more than one core per process (Node runs JavaScript on one
 * thread).
 */
export function usableCpus(mode: LaunchMode, workers: number, cpuMillis: number, replicas = 1): number {
  const cap = cpuMillis / 1000;
  // Each replica is a server of its own: its usable CPUs, times the replicas.
  const r = Math.max(1, replicas);
  if (mode === 'image') return r * cap; // its own command: how many processes it runs is not known
  return r * Math.min(cap, mode === 'single' ? 1 : Math.max(1, workers));
}

const replicasOf = (c: { replicas?: number }): number => Math.max(1, c.replicas ?? 1);

/**
 * The server's rate from past cells, each scaled by `scale`: the median of clean, not client-bound,
 * closed-loop cells (what the server did when nothing else set the pace), and at least the highest
 * client-bound cell's or constant-rate cell's (lower bounds: the load, or the rate, set their pace).
 * `preferred`, when it holds some of the clean cells, narrows the median to them. Undefined: nothing to go on.
 */
function rateFrom(
  pool: readonly PastCell[],
  scale: (p: PastCell) => number,
  preferred: (p: PastCell) => boolean = () => false,
): number | undefined {
  const free = pool.filter((p) => !p.clientBound && p.clean && p.closedLoop);
  const narrowed = free.filter(preferred);
  const measured = free.length ? median((narrowed.length ? narrowed : free).map(scale)) : 0;
  const lowerBound = Math.max(0, ...pool.filter((p) => p.clientBound || (p.clean && !p.closedLoop)).map(scale));
  const rate = Math.max(measured, lowerBound);
  return rate > 0 ? rate : undefined;
}

const sameWorkload = (p: PastCell, cell: Pick<PlannedCell, 'app' | 'requestSet'>): boolean =>
  p.app === cell.app && p.requestSet === cell.requestSet;

/**
 * Goodput per usable CPU the server showed for this workload (rateFrom; the median at the same cap
 * when there are clean cells there: small caps cost more per request in throttling). Past cells of
 * the same mode first; of any mode when the app never ran in this one. Undefined: no past cell.
 */
export function serverRatePerCpu(
  past: readonly PastCell[],
  cell: Pick<PlannedCell, 'app' | 'requestSet' | 'mode' | 'cpuMillis' | 'replicas'>,
): number | undefined {
  const workload = past.filter((p) => sameWorkload(p, cell));
  const sameMode = workload.filter((p) => p.mode === cell.mode);
  const pool = sameMode.length ? sameMode : workload;
  return rateFrom(
    pool,
    (p) => p.goodput / usableCpus(p.mode, p.workers, p.cpuMillis, replicasOf(p)),
    (p) => p.cpuMillis === cell.cpuMillis && replicasOf(p) === replicasOf(cell),
  );
}

/**
 * What a planned cell is predicted to do: its rate, and whether cells of exactly its configuration were mostly
 * client-bound here.
 */
export interface Prediction {
  rate: number;
  /**
   * At least half of the past closed-loop cells of exactly this configuration and load-thread count were client-bound.
   */
  boundBefore: boolean;
}

/**
 * The rate a planned cell will likely reach: what past cells of exactly its configuration (app,
 * request set, mode, workers, cap) reached, else goodput per CPU × the CPUs it can use; a constant
 * rate below that is the rate. Undefined: no past cell of its app (and request set) here.
 */
export function predict(past: readonly PastCell[], cell: PlannedCell): Prediction | undefined {
  const same = past.filter(
    (p) =>
      sameWorkload(p, cell) &&
      p.mode === cell.mode &&
      p.workers === cell.workers &&
      p.cpuMillis === cell.cpuMillis &&
      replicasOf(p) === replicasOf(cell),
  );
  // Only constant-rate cells of this configuration say no more than "at least the rate": scale from the others too.
  const telling = same.some((p) => p.closedLoop && (p.clientBound || p.clean));
  let server = telling ? rateFrom(same, (p) => p.goodput) : undefined;
  if (server === undefined) {
    const perCpu = serverRatePerCpu(past, cell);
    if (perCpu === undefined) return undefined;
    server = Math.max(
      perCpu * usableCpus(cell.mode, cell.workers, cell.cpuMillis, replicasOf(cell)),
      rateFrom(same, (p) => p.goodput) ?? 0,
    );
  }
  if (cell.load.model === 'rate') return { rate: Math.min(server, cell.load.rate), boundBefore: false };
  const seen = same.filter((p) => p.closedLoop && p.threads === cell.threads);
  const bound = seen.filter((p) => p.clientBound).length;
  return { rate: server, boundBefore: seen.length > 0 && 2 * bound >= seen.length };
}

export const predictedRate = (past: readonly PastCell[], cell: PlannedCell): number | undefined =>
  predict(past, cell)?.rate;

/** Which planned cells are likely client-bound, from this host's past cells and its load thread's ceiling. Pure. */
export function forecastCells(
  planned: readonly PlannedCell[],
  past: readonly PastCell[],
  ceiling: LoadCeiling,
): ClientForecast {
  const groups = new Map<string, ForecastGroup>();
  let likely = 0;
  let unknown = 0;
  for (const cell of planned) {
    const p = predict(past, cell);
    if (p === undefined) {
      unknown++;
      continue;
    }
    const ceilingRps = ceiling.perThreadRps * cell.threads;
    // A thread is flagged client-bound from CLIENT_BOUND_ELU busy, which it reaches at that share of its ceiling.
    const byRate = p.rate >= CLIENT_BOUND_ELU * ceilingRps;
    if (!byRate && !p.boundBefore) continue;
    likely++;
    const key = JSON.stringify([cell.app, cell.requestSet ?? null, cell.cpuMillis, replicasOf(cell), cell.threads]);
    const g = groups.get(key);
    if (g) {
      g.cells++;
      g.predictedRps = Math.max(g.predictedRps, p.rate);
      g.boundBefore &&= !byRate;
    } else {
      groups.set(key, {
        app: cell.app,
        ...(cell.requestSet ? { requestSet: cell.requestSet } : {}),
        cpuMillis: cell.cpuMillis,
        ...(replicasOf(cell) >= 2 ? { replicas: replicasOf(cell) } : {}),
        threads: cell.threads,
        predictedRps: p.rate,
        ceilingRps,
        cells: 1,
        boundBefore: !byRate,
      });
    }
  }
  const f: ClientForecast = {
    cells: planned.length,
    likely,
    unknown,
    ceilingPerThread: ceiling.perThreadRps,
    groups: [...groups.values()],
    message: null,
  };
  return { ...f, message: forecastMessage(f) };
}

/** 80,000 / 7,500 / 950: two significant figures, as a forecast deserves. */
export function approxRate(n: number): string {
  if (!(n > 0)) return '0';
  const step = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return fmtNum(Math.round(n / step) * step);
}

const threadsTopOut = (threads: number, rps: number): string =>
  threads === 1
    ? `one load thread tops out at ~${approxRate(rps)}`
    : `${threads} load threads top out at ~${approxRate(rps)} together`;

/**
 * "2 of 6 cells are likely client-bound on this host (hello at 1000m: ~80,000 req/s, one load
 * thread tops out at ~75,000): their goodput will be a lower bound. To measure the server: …".
 * Null when no cell is likely client-bound.
 */
export function forecastMessage(f: Pick<ClientForecast, 'cells' | 'likely' | 'groups'>): string | null {
  if (f.likely === 0 || f.groups.length === 0) return null;
  const sameThreads = f.groups.every((g) => g.threads === f.groups[0]!.threads);
  const what = (g: ForecastGroup): string =>
    `${g.app}${g.requestSet ? ` [${g.requestSet}]` : ''} at ${g.replicas ? `${g.replicas} × ` : ''}${g.cpuMillis}m: ` +
    `~${approxRate(g.predictedRps)} req/s${g.boundBefore ? ', client-bound there before' : ''}`;
  const parts = sameThreads
    ? `${f.groups.map(what).join('; ')}, ${threadsTopOut(f.groups[0]!.threads, f.groups[0]!.ceilingRps)}`
    : f.groups.map((g) => `${what(g)}, ${threadsTopOut(g.threads, g.ceilingRps)}`).join('; ');
  const cells = `${f.cells} cell${f.cells === 1 ? '' : 's'} ${f.likely === 1 ? 'is' : 'are'}`;
  return (
    `${f.likely} of ${cells} likely client-bound on this host (${parts}): ` +
    `${f.likely === 1 ? 'its' : 'their'} goodput will be a lower bound. ` +
    'To measure the server: a smaller CPU cap, a heavier app, more load threads, or a target with more cores.'
  );
}

/**
 * The matrix's cells as a run on this machine would take them, each with its load threads: the
 * target's cores pinned first — a replicated cell's replicas each on cores of their own where the
 * host has them, by the replica placement rule (docker/replica-placement.ts) — and one thread per
 * remaining core, or the matrix's `load.threads` (threads.ts).
 */
export function plannedCells(matrix: Matrix, hostCores: number, imageApps?: ImageApps): PlannedCell[] {
  return expandMatrix(matrix, imageApps).map((c) => {
    const replicas = replicasOf(c);
    const place = planReplicaPlacement(c.cpuMillis, replicas, hostCores, matrix.placement === 'auto');
    return {
      app: c.app,
      ...(c.requests ? { requestSet: c.requests.name } : {}),
      mode: c.mode,
      workers: c.workers,
      cpuMillis: c.cpuMillis,
      ...(replicas >= 2 ? { replicas } : {}),
      load: c.load,
      threads: threadCount({ load: c.load, ...(place.loadCpus ? { cpus: place.loadCpus } : {}) }),
    };
  });
}

/** This host's history: its past cells (the latest HISTORY_RUNS runs) and the ceiling, stored as it rises. */
export interface HostHistory {
  past: PastCell[];
  ceiling?: LoadCeiling;
}

type HistoryStore = Pick<Store, 'listRuns' | 'getRun' | 'getSettings' | 'setSettings'>;
const cache = new WeakMap<object, { key: string; history: HostHistory }>();

/**
 * Reads this host's history from the store and stores the ceiling when the history shows a higher
 * one than the stored (or the stored one belongs to another host). Cached per store until a run is
 * added, finishes a cell or is deleted, or the setting changes, so the Builder may ask on every edit.
 */
export function hostHistory(store: HistoryStore, host: HostKey = thisHost()): HostHistory {
  const latest = store.listRuns({ limit: 1 });
  const settings = store.getSettings();
  const head = latest.runs[0];
  const key = JSON.stringify([
    host,
    latest.total,
    head?.id,
    head?.cellsDone,
    head?.status,
    settings[CEILING_SETTING] ?? null,
  ]);
  const hit = cache.get(store);
  if (hit?.key === key) return hit.history;
  const past: PastCell[] = [];
  for (const summary of store.listRuns({ limit: HISTORY_RUNS }).runs) {
    const run = store.getRun(summary.id);
    if (!run || !sameHost(host, run.host)) continue;
    for (const c of run.cells) {
      const p = pastCell(run, c, host);
      if (p) past.push(p);
    }
  }
  const stored = storedCeiling(settings[CEILING_SETTING], host);
  const ceiling = mergeCeiling(stored, ceilingOf(past, host));
  let storedNow = settings[CEILING_SETTING] ?? null;
  if (ceiling && ceiling !== stored) {
    store.setSettings({ [CEILING_SETTING]: ceiling });
    storedNow = ceiling;
  }
  const history: HostHistory = { past, ...(ceiling ? { ceiling } : {}) };
  cache.set(store, {
    key: JSON.stringify([host, latest.total, head?.id, head?.cellsDone, head?.status, storedNow]),
    history,
  });
  return history;
}

/**
 * The forecast for a valid matrix run on this machine: undefined while this host has no ceiling
 * (nothing client-bound measured here yet — the first such cell calibrates it).
 */
export function forecastMatrix(
  store: HistoryStore,
  matrix: Matrix,
  hostCores: number,
  imageApps?: ImageApps,
  host: HostKey = thisHost(),
): ClientForecast | undefined {
  const { past, ceiling } = hostHistory(store, host);
  if (!ceiling) return undefined;
  return forecastCells(plannedCells(matrix, hostCores, imageApps), past, ceiling);
}
