// A cell's warm-up bounds: the rule (load/warmup.ts warmupBounds) applied to what the cell runs. Its serving
// processes share its CPU cap (each replica its own processes and its own cap, so the ratio is one replica's).
import { servingProcesses } from '../docker/launch.ts';
import { warmupBounds } from '../load/warmup.ts';
import type { CellConfig } from '../model/types.ts';

export type WarmupCell = Pick<CellConfig, 'warmupSec' | 'mode' | 'workers' | 'cpuMillis'>;

/**
 * `canRaise`: its target's cap can be raised for the warm-up (ProvisionedTarget.setCpuMillis). Plans and estimates
 * take this machine's engine, which can; a cell asks its own target.
 */
export const cellWarmup = (c: WarmupCell, canRaise = true): ReturnType<typeof warmupBounds> =>
  warmupBounds(c.warmupSec, servingProcesses(c.mode, c.workers), c.cpuMillis / 1000, canRaise);
