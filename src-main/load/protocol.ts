import type { CellLoad, LatencySummary, LoadSecond } from '../engine/types.ts';
import type { RequestSpec } from '../apps/manifest.ts';

/** What the engine hands the load worker (structured-cloned into the thread). */
export interface WorkerPlan {
  host: string;
  port: number;
  requests: RequestSpec[];
  load: CellLoad;
  durationSec: number;
  warmupSec: number;
  timeoutSec: number;
  /** Pin the load thread to these cores (taskset syntax), away from the target's cores. */
  cpus?: string;
}

/** The worker's totals over the measured seconds; the engine adds its own view (ELU) to make a LoadResult. */
export interface WorkerTotals {
  measuredSec: number;
  requests: number;
  bytes: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCounts: Record<string, number>;
  perSecondRps: number[];
  latencyUs: LatencySummary;
  pinned: string | null;
}

export type WorkerMessage =
  | { type: 'second'; second: LoadSecond; warmup: boolean }
  | { type: 'measuring' }
  | { type: 'done'; totals: WorkerTotals }
  | { type: 'error'; message: string };

export type ParentMessage = { type: 'stop' };
