import type Database from 'better-sqlite3';
import { cellBottleneck } from '../common/bottleneck.ts';
import { RATE_SHORTFALL } from '../common/thresholds.ts';
import type { Flag, LoadResult } from '../model/types.ts';

/** Marks the file as Rightsize's ('RSZ1'), so we never add our tables to some other program's database. */
export const APPLICATION_ID = 0x52535a31;

/** SQL, or a step that also fills new columns of existing rows (in the same transaction). */
export type Migration = string | ((db: Database.Database) => void);

/**
 * Schema migrations, oldest first. Migration i (0-based) takes `PRAGMA user_version` from i to i + 1.
 * Append only: never edit a migration that has shipped, add a new one instead.
 */
export const MIGRATIONS: readonly Migration[] = [
  /* 1: initial schema */ `
  CREATE TABLE runs (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    preset        TEXT,
    matrix_json   TEXT NOT NULL,
    host_json     TEXT NOT NULL,
    owner_session TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('running','completed','failed','cancelled','interrupted')),
    cells_total   INTEGER NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    error         TEXT
  );
  -- The run list's default order; (started_at, id) also serves ascending order and the id tie-break.
  CREATE INDEX runs_started ON runs(started_at, id);
  -- markInterrupted looks only at live runs, a handful among thousands.
  CREATE INDEX runs_running ON runs(owner_session) WHERE status = 'running';

  CREATE TABLE cells (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    idx             INTEGER NOT NULL,
    repetition      INTEGER NOT NULL,
    app             TEXT NOT NULL,
    mode            TEXT NOT NULL,
    workers         INTEGER NOT NULL,
    cpu_millis      INTEGER NOT NULL,
    memory_mb       INTEGER NOT NULL,
    load_model      TEXT NOT NULL,
    connections     INTEGER NOT NULL,
    target_rate     REAL,
    config_json     TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('running','ok','failed','oom','cancelled','interrupted')),
    failure         TEXT,
    -- load (NULL when the cell produced no load result)
    rps_mean        REAL,
    rps_stddev      REAL,
    bytes_per_sec   REAL,
    p50_us          INTEGER,
    p75_us          INTEGER,
    p90_us          INTEGER,
    p97_5_us        INTEGER,
    p99_us          INTEGER,
    p99_9_us        INTEGER,
    max_us          INTEGER,
    mean_us         REAL,
    stddev_us       REAL,
    requests        INTEGER,
    errors          INTEGER,
    timeouts        INTEGER,
    non2xx          INTEGER,
    client_bound    INTEGER,
    -- container stats
    cpu_pct_mean    REAL,
    cpu_pct_max     REAL,
    mem_max_bytes   INTEGER,
    mem_limit_bytes INTEGER,
    throttled_ms    REAL,
    -- exit (oom_killed IS NULL means no exit info at all)
    oom_killed      INTEGER,
    exit_code       INTEGER,
    restarts        INTEGER,
    load_json       TEXT,
    stats_json      TEXT,
    flags_json      TEXT NOT NULL DEFAULT '[]',
    image_tag       TEXT,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    UNIQUE (run_id, idx)
  );
  -- Covering index for the run list's per-run aggregates: they never touch the wide cell rows.
  CREATE INDEX cells_run_status ON cells(run_id, status, rps_mean, p99_us);

  CREATE TABLE samples (
    cell_id           INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    t                 INTEGER NOT NULL,
    rps               REAL NOT NULL,
    bytes             INTEGER NOT NULL,
    errors            INTEGER NOT NULL,
    timeouts          INTEGER NOT NULL,
    non2xx            INTEGER NOT NULL,
    p50_us            INTEGER NOT NULL,
    p90_us            INTEGER NOT NULL,
    p99_us            INTEGER NOT NULL,
    max_us            INTEGER NOT NULL,
    cpu_pct           REAL,
    mem_bytes         INTEGER,
    throttled_periods INTEGER,
    PRIMARY KEY (cell_id, t)
  ) WITHOUT ROWID;

  PRAGMA application_id = ${APPLICATION_ID};
  `,
  // 2: user settings (key → JSON value), shared by every host of the engine.
  `
  CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 3: the user's own apps (definition as JSON, as they entered it), and per run a copy of the
  // definitions of the apps it used, so a run stays explicable after its app is edited or removed.
  `
  CREATE TABLE user_apps (
    name        TEXT PRIMARY KEY,
    definition  TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
  ) WITHOUT ROWID;
  ALTER TABLE runs ADD COLUMN apps_json TEXT NOT NULL DEFAULT '[]';
  `,
  // 4: an auto-size run's search trace (SearchTrace as JSON, rewritten after every step); NULL for a matrix run.
  `
  ALTER TABLE runs ADD COLUMN search_json TEXT;
  `,
  // 5: saved targets (where cells run). Settings hold URLs and file paths only: keys, certificates
  // and tokens stay in the user's files, never in this database ('local' is implicit, not a row).
  `
  CREATE TABLE targets (
    name        TEXT PRIMARY KEY,
    kind        TEXT NOT NULL CHECK (kind IN ('docker','swarm','kubernetes')),
    settings    TEXT NOT NULL,
    created_at  TEXT NOT NULL
  ) WITHOUT ROWID;
  `,
  // 6: where each cell ran (target and node, as JSON); NULL for cells of this machine's engine before it was recorded.
  `
  ALTER TABLE cells ADD COLUMN ran_on TEXT;
  `,
  // 7: the run list's cache of each finished run's pick (RunPick as JSON, 'null' when it has none) and
  // what it was worked out from (store/run-picks.ts PICK_BASIS_SQL); recomputed when that changes.
  `
  CREATE TABLE run_picks (
    run_id    INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    basis     TEXT NOT NULL,
    pick_json TEXT NOT NULL
  );
  `,
  // 8: the runtime probe (store/probe.ts): what it heard per cell (processes heard against expected,
  // a note for the missing), and per cell, second (t < 0: warm-up) and process what it measured.
  `
  CREATE TABLE probe_cells (
    cell_id         INTEGER PRIMARY KEY REFERENCES cells(id) ON DELETE CASCADE,
    attached        INTEGER NOT NULL,
    expected        INTEGER,
    processes_json  TEXT NOT NULL,
    note            TEXT
  );
  CREATE TABLE probe_seconds (
    cell_id           INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    t                 INTEGER NOT NULL,
    pid               INTEGER NOT NULL,
    ppid              INTEGER NOT NULL,
    role              TEXT NOT NULL,
    elu               REAL NOT NULL,
    delay_p50_ms      REAL NOT NULL,
    delay_p99_ms      REAL NOT NULL,
    delay_max_ms      REAL NOT NULL,
    gc_ms             REAL NOT NULL,
    gc_scavenge       INTEGER NOT NULL,
    gc_mark_sweep     INTEGER NOT NULL,
    gc_incremental    INTEGER NOT NULL,
    gc_weak           INTEGER NOT NULL,
    gc_max_ms         REAL NOT NULL,
    heap_used         INTEGER NOT NULL,
    heap_total        INTEGER NOT NULL,
    heap_limit        INTEGER NOT NULL,
    rss               INTEGER NOT NULL,
    external          INTEGER NOT NULL,
    array_buffers     INTEGER NOT NULL,
    active_resources  INTEGER,
    vol_switches      INTEGER,
    invol_switches    INTEGER,
    ms                INTEGER,
    PRIMARY KEY (cell_id, t, pid)
  ) WITHOUT ROWID;
  `,
  // 9: the probe samples GC pauses (launchers/probe.js): how long it listened in the second (NULL: all of it).
  `ALTER TABLE probe_seconds ADD COLUMN gc_window_ms REAL;`,
  // baseline (store/baselines.ts): saved baselines by app and name, and the baseline a run was compared
  // with (its runs and threshold, so the report can recompute the verdicts). Both go with their runs.
  `
  CREATE TABLE baselines (
    app         TEXT NOT NULL,
    name        TEXT NOT NULL,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    created_at  TEXT NOT NULL,
    PRIMARY KEY (app, name)
  );
  CREATE TABLE run_baselines (
    run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    spec_json   TEXT NOT NULL
  );
  `,
  // 11: what set each cell's pace ('server', 'client', 'host'; NULL without a load result), decided when the cell is
  // measured (common/bottleneck.ts); the cells stored before get it from their stored flags and load, by the same
  // function, so no reader re-derives it.
  (db) => {
    db.exec(`ALTER TABLE cells ADD COLUMN bottleneck TEXT CHECK (bottleneck IN ('server','client','host'));`);
    backfillServerShortfall(db);
    backfillBottleneck(db);
  },
  // 12: a fourth pace, 'dependency' (an app's database or cache at its own cap). SQLite cannot widen a CHECK in
  // place: a new column with the wider one takes the values, and the old one goes.
  `
  ALTER TABLE cells ADD COLUMN pace TEXT CHECK (pace IN ('server','client','host','dependency'));
  UPDATE cells SET pace = bottleneck;
  ALTER TABLE cells DROP COLUMN bottleneck;
  ALTER TABLE cells RENAME COLUMN pace TO bottleneck;
  `,
  // 13: a mix's routes per second (LoadSecond.routes, JSON; NULL: one route, or stored before mixes).
  `ALTER TABLE samples ADD COLUMN routes_json TEXT;`,
  // 14: a fifth pace, 'network' (the responses filled the cell's bandwidth cap), widened as in 12.
  `
  ALTER TABLE cells ADD COLUMN pace TEXT CHECK (pace IN ('server','client','host','dependency','network'));
  UPDATE cells SET pace = bottleneck;
  ALTER TABLE cells DROP COLUMN bottleneck;
  ALTER TABLE cells RENAME COLUMN pace TO bottleneck;
  `,
  // 15: connections the load opened each second (over TLS, full handshakes; LoadSecond.opened; NULL: none).
  `ALTER TABLE samples ADD COLUMN opened INTEGER;`,
  // 16: the most serving processes heard in one second (CellProbe.servingAtOnce; NULL: stored before, or none).
  `ALTER TABLE probe_cells ADD COLUMN serving_at_once INTEGER;`,
  // 17: of the connections opened, TLS handshakes that resumed a session (load.tlsResume; LoadSecond.resumed).
  `ALTER TABLE samples ADD COLUMN resumed INTEGER;`,
];

/**
 * Cells stored before the load side recorded which side a missed constant rate was on (load.shortfallBy), once: not
 * client-bound, and by Little's law (mean latency × rate at or above the connections) every connection was waiting on
 * the server — the server's. The rule the answer applied to them at every reading until migration 11.
 */
function backfillServerShortfall(db: Database.Database): void {
  db.prepare(
    `UPDATE cells SET load_json = json_set(load_json, '$.shortfallBy', 'server')
     WHERE load_json IS NOT NULL AND load_model = 'rate' AND json_extract(load_json, '$.shortfallBy') IS NULL
       AND ifnull(client_bound, 0) = 0
       AND coalesce(json_extract(load_json, '$.goodputMean'),
                    CASE WHEN requests > 0 THEN rps_mean * max(0, requests - ifnull(non2xx, 0)) / requests
                         ELSE rps_mean END) < target_rate * ?
       AND coalesce(json_extract(load_json, '$.latencyUs.mean'), mean_us) / 1e6 * target_rate >= connections`,
  ).run(RATE_SHORTFALL);
}

/** Every stored cell's bottleneck from its stored flags and load result (migration 11). */
function backfillBottleneck(db: Database.Database): void {
  // The load's shortfall side only: its per-second arrays are not read.
  type Row = { id: number; flags_json: string; has_load: number; shortfall_by: LoadResult['shortfallBy'] | null };
  const rows = db
    .prepare<[], Row>(
      `SELECT id, flags_json, load_json IS NOT NULL AS has_load,
              json_extract(load_json, '$.shortfallBy') AS shortfall_by
       FROM cells`,
    )
    .all();
  const set = db.prepare<[string | null, number]>('UPDATE cells SET bottleneck = ? WHERE id = ?');
  for (const r of rows) {
    const load = r.has_load ? (r.shortfall_by ? { shortfallBy: r.shortfall_by } : {}) : null;
    set.run(cellBottleneck({ flags: JSON.parse(r.flags_json) as Flag[], load }), r.id);
  }
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database up to SCHEMA_VERSION. All pending migrations run in one IMMEDIATE transaction,
 * so a crash leaves the old schema intact and two processes opening a fresh file at once cannot both
 * migrate (the second waits on busy_timeout, then sees the new version and does nothing).
 */
export function migrate(db: Database.Database): void {
  const check = (): number => {
    // Ownership first: another program's file must not be reported as "from a newer Rightsize".
    const appId = db.pragma('application_id', { simple: true }) as number;
    const hasTables = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' LIMIT 1`).get() !== undefined;
    if (appId !== APPLICATION_ID && (appId !== 0 || hasTables)) {
      throw new Error('it is a SQLite database of another program, not a Rightsize database; refusing to change it.');
    }
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(
        `its schema version is ${version}, but this Rightsize only knows versions up to ${SCHEMA_VERSION}. ` +
          'It was written by a newer Rightsize: upgrade Rightsize, ' +
          'or use another database file (--db or RIGHTSIZE_DB).',
      );
    }
    return version;
  };
  if (check() === SCHEMA_VERSION) return; // the common case: no write lock taken
  db.transaction(() => {
    const from = check(); // again, under the lock: another process may have migrated meanwhile
    for (let v = from; v < SCHEMA_VERSION; v++) {
      const m = MIGRATIONS[v]!;
      if (typeof m === 'string') db.exec(m);
      else m(db);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}
