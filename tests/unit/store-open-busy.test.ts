import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src-main/store/index.ts';
import { retryWhileBusy } from '../../src-main/store/busy-retry.ts';

// Another process holds the write lock of a file still in rollback mode for `holdMs`, as a second CLI
// does while it creates the history. SQLite then refuses the switch to WAL at once, busy handler or not.
function holdWriteLock(file: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const code = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('held\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
  const child = spawn(process.execPath, ['-e', code], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', () => resolve({ released }));
    child.on('error', reject);
    child.on('exit', (c) => reject(new Error(`the lock holder exited (${c}) before holding the lock`)));
  });
}

describe('opening a history another process is creating', () => {
  it('SQLite itself refuses the WAL switch at once while another process holds the write lock', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rs-busy-')), 'h.db');
    const { released } = await holdWriteLock(file, 600);
    const db = new Database(file, { timeout: 5000 });
    const t0 = Date.now();
    expect(() => db.pragma('journal_mode = WAL')).toThrow(/database is locked/);
    expect(Date.now() - t0).toBeLessThan(500); // immediate: the busy timeout does not apply here
    db.close();
    await released;
  });

  it('Store.open waits for the other process instead of failing with "database is locked"', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'rs-busy-')), 'h.db');
    const { released } = await holdWriteLock(file, 300);
    const store = Store.open(file);
    try {
      expect(store.listRuns().total).toBe(0);
    } finally {
      store.close();
    }
    await released;
  });

  it('gives up after its time with the busy error itself, and does not retry other errors', () => {
    let calls = 0;
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    expect(() =>
      retryWhileBusy(() => {
        calls++;
        throw busy;
      }, 100),
    ).toThrow('database is locked');
    expect(calls).toBeGreaterThan(2);
    calls = 0;
    expect(() =>
      retryWhileBusy(() => {
        calls++;
        throw new Error('file is not a database');
      }),
    ).toThrow('not a database');
    expect(calls).toBe(1);
  });
});
