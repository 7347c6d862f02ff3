// This host's load-thread ceiling, calibrated from its own history: the highest goodput per load
// thread of any cell flagged client-bound here, stored in the settings table so it outlives the
// runs it came from (client-forecast.ts predicts cells against it).
import os from 'node:os';
import type { StoredCell } from '../model/stored.ts';
import type { HostFacts, LaunchMode } from '../model/types.ts';
import { ranOnThisMachine } from '../providers/ran-on.ts';

/** Which host a calibration belongs to: a load thread's ceiling is a property of the CPU it runs on. */
export interface HostKey {
  cpuModel: string;
  cores: number;
}

export function thisHost(): HostKey {
  const cpus = os.cpus();
  return { cpuModel: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length };
}

export const sameHost = (a: HostKey, b: Pick<HostFacts, 'cpuModel' | 'cores'>): boolean =>
  a.cpuModel === b.cpuModel && a.cores === b.cores;

/** One measured cell of this host's history, as the forecast reads it. */
export interface PastCell {
  runId: number;
  cellId: number;
  app: string;
  /** The matrix's named request set, when the cell used one (another set is another workload). */
  requestSet?: string;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  /** Containers of the app (CellConfig.replicas; absent = 1): cpuMillis and workers are per replica. */
  replicas?: number;
  /** Mean goodput over the measured seconds (req/s). */
  goodput: number;
  /** Load threads that drove it. */
  threads: number;
  /**
   * Closed loop (as fast as the server answers): its goodput is what the server could do. A constant rate's is at most
   * the rate.
   */
  closedLoop: boolean;
  clientBound: boolean;
  /** No flag that says someone else set the pace (host-busy) or that the seconds moved (unstable). */
  clean: boolean;
  finishedAt: string;
}

/**
 * The load thread's ceiling on this host: the most goodput one thread has been seen to carry while it was the
 * bottleneck.
 */
export interface LoadCeiling {
  perThreadRps: number;
  host: HostKey;
  /** The cell it was measured in. */
  from: {
    runId: number;
    cellId: number;
    app: string;
    cpuMillis: number;
    threads: number;
    goodput: number;
    clientBound: boolean;
  };
  /** When that cell finished (ISO). */
  at: string;
}

/** A stored cell as a past cell of this host, or undefined (not measured here, failed, no load result). */
export function pastCell(
  run: { id: number; host: Pick<HostFacts, 'cpuModel' | 'cores'> },
  c: StoredCell,
  host: HostKey,
): PastCell | undefined {
  if (!sameHost(host, run.host)) return undefined;
  if (!ranOnThisMachine(c.ranOn)) return undefined; // another engine's cores
  if (c.status !== 'ok' || !c.load || c.load.measuredSec <= 0) return undefined;
  const goodput = c.load.goodputMean ?? c.load.rpsMean;
  if (!(goodput > 0)) return undefined;
  const kinds = new Set(c.flags.map((f) => f.kind));
  return {
    runId: run.id,
    cellId: c.id,
    app: c.config.app,
    ...(c.config.requests ? { requestSet: c.config.requests.name } : {}),
    mode: c.config.mode,
    workers: c.config.workers,
    cpuMillis: c.config.cpuMillis,
    ...((c.config.replicas ?? 1) >= 2 ? { replicas: c.config.replicas } : {}),
    goodput,
    threads: Math.max(1, c.load.threads ?? 1),
    closedLoop: c.config.load.model === 'closed',
    clientBound: kinds.has('client-bound') || c.load.clientBound,
    clean: !kinds.has('host-busy') && !kinds.has('unstable'),
    finishedAt: c.finishedAt ?? c.startedAt,
  };
}

/**
 * The ceiling these cells show: the highest goodput per load thread of a client-bound cell, raised
 * to the highest of a clean cell that was not client-bound (a thread carried that much without
 * saturating). None without a client-bound cell: nothing has shown where the ceiling is.
 */
export function ceilingOf(cells: readonly PastCell[], host: HostKey): LoadCeiling | undefined {
  const best = (xs: PastCell[]): PastCell | undefined =>
    xs.reduce<PastCell | undefined>((b, c) => (!b || c.goodput / c.threads > b.goodput / b.threads ? c : b), undefined);
  const bound = best(cells.filter((c) => c.clientBound));
  if (!bound) return undefined;
  const free = best(cells.filter((c) => !c.clientBound && c.clean));
  const c = free && free.goodput / free.threads > bound.goodput / bound.threads ? free : bound;
  return {
    perThreadRps: c.goodput / c.threads,
    host,
    from: {
      runId: c.runId,
      cellId: c.cellId,
      app: c.app,
      cpuMillis: c.cpuMillis,
      threads: c.threads,
      goodput: c.goodput,
      clientBound: c.clientBound,
    },
    at: c.finishedAt,
  };
}

/** A stored ceiling as read back from the settings table: only a well-formed one of this host counts. */
export function storedCeiling(value: unknown, host: HostKey): LoadCeiling | undefined {
  const v = value as Partial<LoadCeiling> | null | undefined;
  if (!v || typeof v !== 'object' || typeof v.perThreadRps !== 'number' || !(v.perThreadRps > 0)) return undefined;
  if (!v.host || typeof v.host !== 'object' || !sameHost(host, v.host) || !v.from || typeof v.at !== 'string')
    return undefined;
  return v as LoadCeiling;
}

/** The ceiling to use: the higher of the stored one and what the history shows (runs may have been deleted since). */
export function mergeCeiling(stored: LoadCeiling | undefined, seen: LoadCeiling | undefined): LoadCeiling | undefined {
  if (!stored) return seen;
  if (!seen) return stored;
  return seen.perThreadRps > stored.perThreadRps ? seen : stored;
}
