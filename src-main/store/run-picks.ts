import type Database from 'better-sqlite3';
import type { RunPick } from '../model/stored.ts';

/**
 * Bump when the answer's rules change what a stored run's pick would be: every cached pick is then
 * worked out again on its next listing.
 */
// 2: one answer across CPU / memory pairs, unstable repetitions counted; 3: each cell's stored bottleneck;
// 4: the pick named with its link where the run measured several
export const PICK_RULES_VERSION = 4;

/**
 * What a run's cached pick was worked out from (SQL over the run list's page and its cells): the
 * rules' version, the status and end of the run, and its cells — how many, how many finished. A cell
 * appended (settle, verify) or finished changes it; the covering index cells_run_status serves it.
 */
export const PICK_BASIS_SQL =
  `'${PICK_RULES_VERSION}|' || page.status || '|' || ifnull(page.finished_at, '') || '|' || count(c.id) || '|' ||` +
  ` count(c.status) FILTER (WHERE c.status <> 'running')`;

/** The run list's cache of each finished run's pick, so a list of hundreds of runs is not hundreds of answers. */
export class RunPickQueries {
  private readonly putStmt: Database.Statement<[number, string, string]>;

  constructor(db: Database.Database) {
    this.putStmt = db.prepare(
      `INSERT INTO run_picks (run_id, basis, pick_json) VALUES (?, ?, ?)
       ON CONFLICT(run_id) DO UPDATE SET basis = excluded.basis, pick_json = excluded.pick_json`,
    );
  }

  /** Stores a pick (null: the run has no answer) with what it was worked out from. */
  put(runId: number, basis: string, pick: RunPick | null): void {
    this.putStmt.run(runId, basis, JSON.stringify(pick));
  }
}
