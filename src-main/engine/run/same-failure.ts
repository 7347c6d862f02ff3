// When an app's first cell fails at start in a way no cap, mode or worker count changes (the health
// path answers a non-2xx status; the app exits at once with an error), its other cells would each
// wait for readiness and fail the same way: they are skipped at once, and the run goes on with the
// other apps. A failure that may depend on the cell (no answer in time under a small CPU cap, an
// OOM kill or a crash signal under a small memory cap, an unreachable engine) skips nothing.
import type { CellResult } from '../../model/types.ts';

export { skippedAfter, skippedFailure } from '../../common/skipped-cells.ts';

/** Exit codes of a process killed by a signal (abort, kill, segfault): they can follow from a memory cap. */
const SIGNAL_EXITS = new Set([134, 137, 139]);

/** A cell's failure that every cell of its app would repeat, in a few words; undefined when it is not one. */
export function sameFailureReason(r: Pick<CellResult, 'status' | 'failure' | 'exit'>): string | undefined {
  if (r.status !== 'failed' || r.exit?.oomKilled) return undefined;
  const first = r.failure?.split('\n')[0] ?? '';
  if (!first.startsWith('not ready:')) return undefined;
  const status = /\(health answered (\d{3})\)/.exec(first);
  if (status) return `health answered ${status[1]}`;
  const exit = /the container exited with code (\d+) before it was ready/.exec(first);
  if (exit && !SIGNAL_EXITS.has(Number(exit[1]))) return `the app exited with code ${exit[1]} at start`;
  return undefined;
}
