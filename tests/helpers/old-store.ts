// A history file as an older Rightsize left it: the migrations up to `version` applied, one run with one cell per
// stored bottleneck; then opened by today's Store (which migrates it). Returns the raw database, for the columns.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MIGRATIONS } from '../../src-main/store/migrations.ts';
import { Store } from '../../src-main/store/index.ts';

export function migratedFrom(version: number, bottlenecks: (string | null)[]): { raw: Database.Database; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rightsize-m${version}-`));
  const file = path.join(dir, 'old.db');
  const db = new Database(file);
  MIGRATIONS.slice(0, version).forEach((m, v) => {
    if (typeof m === 'string') db.exec(m);
    else m(db);
    db.pragma(`user_version = ${v + 1}`);
  });
  const runId = Number(db.prepare(`INSERT INTO runs (name, matrix_json, host_json, owner_session, status, cells_total, started_at)
    VALUES ('old', '{}', '{}', 'lab:1:1', 'completed', ?, '2026-01-01T00:00:00.000Z')`).run(bottlenecks.length).lastInsertRowid);
  const insert = db.prepare(`INSERT INTO cells (run_id, idx, repetition, app, mode, workers, cpu_millis, memory_mb, load_model,
    connections, config_json, status, flags_json, started_at, bottleneck)
    VALUES (?, ?, 0, 'hello', 'single', 1, 1000, 256, 'closed', 4, '{}', 'ok', '[]', '2026-01-01T00:00:00.000Z', ?)`);
  bottlenecks.forEach((b, i) => insert.run(runId, i, b));
  db.close();
  Store.open(file).close();
  const raw = new Database(file);
  return { raw, done: () => (raw.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}

/** The stored bottlenecks, in cell order. */
export const storedBottlenecks = (raw: Database.Database): (string | null)[] =>
  raw.prepare('SELECT bottleneck FROM cells ORDER BY idx').all().map((r) => (r as { bottleneck: string | null }).bottleneck);
