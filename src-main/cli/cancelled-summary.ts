// What Ctrl-C leaves the user with: how far the run got, that nothing runs on, and where to look.
// Not the whole answer again: a cancelled run's answer covers only part of the matrix.
import type { RunDetail } from '../model/stored.ts';
import { rightsizeCommand } from './invocation.ts';

/** Three short lines: cells done / cancelled / not started, nothing left running, the commands to see it. */
export function cancelledSummary(run: Pick<RunDetail, 'id' | 'cellsTotal' | 'cells'>): string {
  const grid = run.cells.filter((c) => c.config.phase !== 'verify');
  const done = grid.filter((c) => c.status === 'ok').length;
  const stopped = grid.filter((c) => c.status === 'cancelled' || c.status === 'interrupted').length;
  const failed = grid.filter((c) => c.status === 'failed' || c.status === 'oom').length;
  const notStarted = Math.max(0, run.cellsTotal - grid.length);
  const rs = rightsizeCommand();
  const parts = [`${done} of ${run.cellsTotal} cells done`];
  if (failed) parts.push(`${failed} failed`);
  if (stopped) parts.push(`${stopped} cancelled`);
  if (notStarted) parts.push(`${notStarted} not started`);
  return [
    `Cancelled: ${parts.join(', ')}. No container of it is left running.`,
    `Kept as run ${run.id}: ${rs} show ${run.id}` + (done ? `   The answer so far: ${rs} report ${run.id}` : ''),
  ].join('\n');
}
