// A cell's warm-up bounds: the rule (load/warmup.ts warmupBounds) applied to what the cell runs. Its serving
// processes share its CPU cap (each replica its own processes and its own cap, so the ratio is one replica's).
import { servingProcesses } from '../docker/launch.ts';
import { warmupBounds } from '../load/warmup.ts';
import type { CellConfig } from '../model/types.ts';

export type WarmupCell = Pick<CellConfig, 'warmupSec' | 'mode' | 'workers' | 'cpuMillis'> &
  Partial<Pick<CellConfig, 'replicas'>>;

/**
 * Whether a cell's warm-up cap can be raised where it runs: a provider whose targets change their cap in place
 * (Provider.raisesCap), and one target, not replicas (a replica set changes no cap).
 */
export const raisable = (raisesCap: boolean | undefined, c: Pick<WarmupCell, 'replicas'>): boolean =>
  raisesCap === true && (c.replicas ?? 1) < 2;

/** `canRaise`: its target's cap can be raised for the warm-up (`raisable`, or the cell's own target can). */
export const cellWarmup = (c: WarmupCell, canRaise = false): ReturnType<typeof warmupBounds> =>
  warmupBounds(c.warmupSec, servingProcesses(c.mode, c.workers), c.cpuMillis / 1000, canRaise);

/** The warm-up a cell is planned with where `raisesCap` says whether its provider's lone targets can be raised. */
export const plannedWarmup = (c: WarmupCell, raisesCap: boolean | undefined): ReturnType<typeof warmupBounds> =>
  cellWarmup(c, raisable(raisesCap, c));
