import type Database from 'better-sqlite3';

/** A stored user app: its definition exactly as entered (validated by the engine before it gets here). */
export interface StoredUserApp {
  name: string;
  definition: unknown;
  createdAt: string;
  updatedAt: string;
}

interface Row {
  name: string;
  definition: string;
  created_at: string;
  updated_at: string;
}

const fromRow = (r: Row): StoredUserApp => ({
  name: r.name,
  definition: JSON.parse(r.definition) as unknown,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export class UserAppQueries {
  private readonly all: Database.Statement<[], Row>;
  private readonly one: Database.Statement<[string], Row>;
  private readonly insert: Database.Statement<[string, string, string, string]>;
  private readonly update: Database.Statement<[string, string, string, string]>;
  private readonly remove: Database.Statement<[string]>;

  constructor(db: Database.Database) {
    this.all = db.prepare<[], Row>('SELECT * FROM user_apps ORDER BY name');
    this.one = db.prepare<[string], Row>('SELECT * FROM user_apps WHERE name = ?');
    this.insert = db.prepare('INSERT INTO user_apps (name, definition, created_at, updated_at) VALUES (?, ?, ?, ?)');
    // name = new name, definition, updated_at, old name: an edit may rename.
    this.update = db.prepare('UPDATE user_apps SET name = ?, definition = ?, updated_at = ? WHERE name = ?');
    this.remove = db.prepare('DELETE FROM user_apps WHERE name = ?');
  }

  list(): StoredUserApp[] {
    return this.all.all().map(fromRow);
  }

  get(name: string): StoredUserApp | undefined {
    const r = this.one.get(name);
    return r ? fromRow(r) : undefined;
  }

  /** Throws on a duplicate name (the primary key): the engine checks first, this is the last guard. */
  add(name: string, definition: unknown, now: string): void {
    this.insert.run(name, JSON.stringify(definition), now, now);
  }

  replace(oldName: string, name: string, definition: unknown, now: string): boolean {
    return this.update.run(name, JSON.stringify(definition), now, oldName).changes > 0;
  }

  delete(name: string): boolean {
    return this.remove.run(name).changes > 0;
  }
}
