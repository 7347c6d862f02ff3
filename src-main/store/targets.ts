import type Database from 'better-sqlite3';

/** The kinds a saved target may be ('local', this machine's engine, is implicit and never stored). */
export type SavedTargetKind = 'docker' | 'swarm' | 'kubernetes';

/**
 * A saved target: its settings as validated by the engine (src-main/targets/settings.ts). They hold
 * URLs and file paths only; key material stays in the user's files.
 */
export interface StoredTarget {
  name: string;
  kind: SavedTargetKind;
  settings: unknown;
  createdAt: string;
}

interface Row {
  name: string;
  kind: SavedTargetKind;
  settings: string;
  created_at: string;
}

const fromRow = (r: Row): StoredTarget => ({
  name: r.name,
  kind: r.kind,
  settings: JSON.parse(r.settings) as unknown,
  createdAt: r.created_at,
});

export class TargetQueries {
  private readonly all: Database.Statement<[], Row>;
  private readonly one: Database.Statement<[string], Row>;
  private readonly insert: Database.Statement<[string, string, string, string]>;
  private readonly remove: Database.Statement<[string]>;

  constructor(db: Database.Database) {
    this.all = db.prepare<[], Row>('SELECT * FROM targets ORDER BY name');
    this.one = db.prepare<[string], Row>('SELECT * FROM targets WHERE name = ?');
    this.insert = db.prepare('INSERT INTO targets (name, kind, settings, created_at) VALUES (?, ?, ?, ?)');
    this.remove = db.prepare('DELETE FROM targets WHERE name = ?');
  }

  list(): StoredTarget[] {
    return this.all.all().map(fromRow);
  }

  get(name: string): StoredTarget | undefined {
    const r = this.one.get(name);
    return r ? fromRow(r) : undefined;
  }

  /** Throws on a duplicate name (the primary key): the engine checks first, this is the last guard. */
  add(t: { name: string; kind: SavedTargetKind; settings: unknown }, now = new Date().toISOString()): void {
    this.insert.run(t.name, t.kind, JSON.stringify(t.settings), now);
  }

  delete(name: string): boolean {
    return this.remove.run(name).changes > 0;
  }
}
