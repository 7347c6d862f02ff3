// What cells and runs took on this host, for estimates (engine/estimate.ts): the most recent finished
// cells of an app under a launch mode, and the phases earlier runs of the same name added to their grid.
import type Database from 'better-sqlite3';
import type { LaunchMode } from '../model/types.ts';

/**
 * One finished cell's time: warm-up asked and used, seconds measured, and its wall time from start to end; what it ran
 * (its warm-up's floor depends on it: engine/cell-warmup.ts), where known.
 */
export interface CellTiming {
  warmupSec: number;
  mode?: LaunchMode | null;
  workers?: number | null;
  cpuMillis?: number | null;
  warmupUsedSec: number;
  /** 1 where its warm-up ran its first seconds above its cap (LoadResult.warmupRaise), which shortens its floor. */
  warmupRaised?: number | null;
  measuredSec: number;
  wallSec: number;
}

/** The cells an earlier run of a name ran in each phase (grid, settling, verification). */
export interface RunPhaseCounts {
  grid: number;
  settle: number;
  verify: number;
}

export class TimingQueries {
  private readonly cellsStmt: Database.Statement<
    [{ app: string | null; mode: string | null; limit: number }],
    CellTiming
  >;
  private readonly runsStmt: Database.Statement<[string, number], RunPhaseCounts>;

  constructor(db: Database.Database) {
    // An app and mode, else the mode's cells of any app, else any cell here (null: that filter is off).
    this.cellsStmt = db.prepare(
      `SELECT coalesce(json_extract(config_json, '$.warmupSec'), 0) AS warmupSec, mode,
              json_extract(config_json, '$.workers') AS workers, json_extract(config_json, '$.cpuMillis') AS cpuMillis,
              json_extract(load_json, '$.warmupUsedSec') AS warmupUsedSec,
              json_extract(load_json, '$.warmupRaise') IS NOT NULL AS warmupRaised,
              json_extract(load_json, '$.measuredSec') AS measuredSec,
              (julianday(finished_at) - julianday(started_at)) * 86400 AS wallSec
         FROM cells
        WHERE (@app IS NULL OR app = @app) AND (@mode IS NULL OR mode = @mode)
          AND status = 'ok' AND finished_at IS NOT NULL AND json_extract(load_json, '$.warmupUsedSec') IS NOT NULL
        ORDER BY id DESC LIMIT @limit`,
    );
    this.runsStmt = db.prepare(
      `SELECT sum(coalesce(json_extract(c.config_json, '$.phase'), 'matrix') = 'matrix') AS grid,
              sum(json_extract(c.config_json, '$.phase') = 'settle') AS settle,
              sum(json_extract(c.config_json, '$.phase') = 'verify') AS verify
         FROM runs r JOIN cells c ON c.run_id = r.id
        WHERE r.name = ? AND r.status = 'completed' AND r.search_json IS NULL
        GROUP BY r.id ORDER BY r.id DESC LIMIT ?`,
    );
  }

  /** The latest `limit` finished cells of `app` under `mode`, newest first; null leaves that filter off. */
  cells(app: string | null, mode: string | null, limit: number): CellTiming[] {
    return this.cellsStmt.all({ app, mode, limit });
  }

  /** The phases of the latest `limit` completed runs named `name` (matrix runs), newest first. */
  runs(name: string, limit: number): RunPhaseCounts[] {
    return this.runsStmt.all(name, limit);
  }
}
