import type Database from 'better-sqlite3';

/** A run saved as an app's baseline under a name (`run --save-baseline NAME`), so CI needs no run id. */
export interface SavedBaseline {
  app: string;
  name: string;
  runId: number;
  createdAt: string;
}

/**
 * What a run was compared with (`run --baseline`): the baseline run per app and the threshold, so the
 * report can work the verdicts out again. `name` when the baseline was named.
 */
export interface RunBaselineSpec {
  sides: { runId: number; apps: string[] | null }[];
  thresholdPct: number;
  name: string | null;
}

interface Row {
  app: string;
  name: string;
  run_id: number;
  created_at: string;
}

const fromRow = (r: Row): SavedBaseline => ({ app: r.app, name: r.name, runId: r.run_id, createdAt: r.created_at });

export class BaselineQueries {
  private readonly all: Database.Statement<[], Row>;
  private readonly byName: Database.Statement<[string], Row>;
  private readonly upsert: Database.Statement<[string, string, number, string]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly removeOne: Database.Statement<[string, string]>;
  private readonly specGet: Database.Statement<[number], { spec_json: string }>;
  private readonly specPut: Database.Statement<[number, string]>;

  constructor(db: Database.Database) {
    this.all = db.prepare<[], Row>('SELECT * FROM baselines ORDER BY name, app');
    this.byName = db.prepare<[string], Row>('SELECT * FROM baselines WHERE name = ? ORDER BY app');
    this.upsert = db.prepare(
      `INSERT INTO baselines (app, name, run_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(app, name) DO UPDATE SET run_id = excluded.run_id, created_at = excluded.created_at`,
    );
    this.remove = db.prepare('DELETE FROM baselines WHERE name = ?');
    this.removeOne = db.prepare('DELETE FROM baselines WHERE name = ? AND app = ?');
    this.specGet = db.prepare<[number], { spec_json: string }>('SELECT spec_json FROM run_baselines WHERE run_id = ?');
    this.specPut = db.prepare(
      `INSERT INTO run_baselines (run_id, spec_json) VALUES (?, ?)
       ON CONFLICT(run_id) DO UPDATE SET spec_json = excluded.spec_json`,
    );
  }

  list(): SavedBaseline[] {
    return this.all.all().map(fromRow);
  }

  /** Every app's baseline saved under this name (one per app). */
  named(name: string): SavedBaseline[] {
    return this.byName.all(name).map(fromRow);
  }

  /** Saves (or moves) the name to this run for each app. */
  save(name: string, apps: readonly string[], runId: number, now = new Date().toISOString()): void {
    for (const app of apps) this.upsert.run(app, name, runId, now);
  }

  /** Removes the name (for one app, or for all); the number removed. */
  delete(name: string, app?: string): number {
    return (app === undefined ? this.remove.run(name) : this.removeOne.run(name, app)).changes;
  }

  /** What the run was compared with, or null. */
  specOf(runId: number): RunBaselineSpec | null {
    const r = this.specGet.get(runId);
    return r ? (JSON.parse(r.spec_json) as RunBaselineSpec) : null;
  }

  setSpec(runId: number, spec: RunBaselineSpec): void {
    this.specPut.run(runId, JSON.stringify(spec));
  }
}
