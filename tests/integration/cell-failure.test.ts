import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { docker } from '../../src-main/docker/client.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireDocker, twoCellMatrix } from '../helpers/docker.ts';

// A store or engine error inside a cell (in store.addSamples, called from the load worker's message
// handler; or the engine losing the target container) fails that cell with the reason, removes its
// container, and the run goes on or ends as failed: the process never dies of it. Each failure is
// real where it can be (SQLite's own busy and foreign-key errors from a second connection, the
// target removed through the engine's API as `docker rm -f` would); disk-full is injected, as a
// full disk cannot be made here.

beforeAll(async () => {
  await requireDocker();
});

const twoCells = twoCellMatrix({ name: 'cell failure', warmupSec: 0 });

function fresh(): { db: string; store: Store } {
  const db = path.join(tempDir(), 'h.db');
  return { db, store: Store.open(db) };
}

/** The store with addSamples replaced: `fail(n)` returns the error to throw for the n-th sample (0-based), or undefined. */
function failingStore(store: Store, fail: (n: number) => Error | undefined): Store {
  let n = 0;
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'addSamples') {
        return (...args: Parameters<Store['addSamples']>) => {
          const e = fail(n++);
          if (e) throw e;
          return target.addSamples(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

const sqliteError = (message: string, code: string): Error => Object.assign(new Error(message), { code, name: 'SqliteError' });

describe('a failing store or engine mid-cell fails the cell, not the process', () => {
  it('disk full on a sample: that cell fails with the reason and loses its partial numbers, the next cell runs, nothing is left', async () => {
    const { store } = fresh();
    const injected = failingStore(store, (n) => (n === 1 ? sqliteError('database or disk is full', 'SQLITE_FULL') : undefined));
    const outcome = await runMatrix(twoCells, { store: injected });
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(outcome.cells[0]!.failure).toBe('storing a sample failed: database or disk is full');
    const run = store.getRun(outcome.runId)!;
    expect(run.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(run.cells[0]!.failure).toMatch(/disk is full/);
    expect(run.cells[0]!.rpsMean).toBeNull(); // a cut-short measurement is not a result
    expect(store.getSamples(run.cells[0]!.id)).toHaveLength(1); // what was stored before the failure is kept
    expect(store.getSamples(run.cells[1]!.id)).toHaveLength(3);
    expect(await listOwnContainers({ run: outcome.runId })).toEqual([]);
    store.close();
  });

  it('SQLITE_BUSY (another connection holds the write lock past the busy timeout): the cell fails, the run goes on once the lock is free', async () => {
    const { db, store } = fresh();
    const other = new Database(db);
    let holding = false;
    const onEvent = (e: RunEvent): void => {
      // Take the write lock as the first cell starts measuring; give it back as that cell tears down.
      if (e.type === 'cell-phase' && e.index === 0 && e.phase === 'measuring' && !holding) {
        other.exec('BEGIN IMMEDIATE');
        holding = true;
      }
      if (e.type === 'cell-phase' && e.index === 0 && e.phase === 'teardown' && holding) {
        other.exec('ROLLBACK');
        holding = false;
      }
    };
    const outcome = await runMatrix(twoCells, { store, onEvent });
    other.close();
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(outcome.cells[0]!.failure).toMatch(/^storing a sample failed: database is locked/);
    expect(store.getRun(outcome.runId)!.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(await listOwnContainers({ run: outcome.runId })).toEqual([]);
    expect(store.integrityCheck()).toBe('ok');
    store.close();
  });

  it('the run deleted by another process mid-cell (foreign-key error): the cell stops, the run ends as failed, nothing is left', async () => {
    const { db, store } = fresh();
    const other = new Database(db);
    other.pragma('foreign_keys = ON');
    let deleted = false;
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'sample' && !deleted) {
        other.prepare('DELETE FROM runs WHERE id = ?').run(e.runId); // cascades to its cells
        deleted = true;
      }
    };
    const outcome = await runMatrix({ ...twoCells, durationSec: 5 }, { store, onEvent });
    other.close();
    expect(deleted).toBe(true);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/was deleted from the history by another process/);
    expect(outcome.cells).toHaveLength(0); // the first cell could not be stored; the second never started
    expect(store.getRun(outcome.runId)).toBeUndefined();
    expect(await listOwnContainers({ run: outcome.runId })).toEqual([]);
    expect(store.integrityCheck()).toBe('ok');
    store.close();
  });

  it('the engine fails mid-cell (its target container removed from outside while it measures): that cell fails with the reason, the run goes on and finishes, nothing is left', async () => {
    const { store } = fresh();
    const removed: string[] = [];
    let removing: Promise<void> | undefined;
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'cell-phase' && e.index === 0 && e.phase === 'measuring' && !removing) {
        // What `docker rm -f` from another terminal (or a Docker Desktop restart) does to a cell.
        removing = (async () => {
          for (const id of await listOwnContainers({ run: e.runId })) {
            await docker().getContainer(id).remove({ force: true });
            removed.push(id);
          }
        })();
      }
    };
    const outcome = await runMatrix({ ...twoCells, durationSec: 4 }, { store, onEvent, waitForLab: true });
    await removing;
    expect(removed.length, 'the target was removed while it measured').toBeGreaterThan(0);
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(outcome.cells[0]!.failure, 'the failed cell says why').toMatch(/container/); // "the container exited with code 137 during the load"
    console.log(`target removed mid-cell: "${outcome.cells[0]!.failure}"`);
    const run = store.getRun(outcome.runId)!;
    expect(run.status).toBe('completed');
    expect(run.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(run.cells[0]!.failure).toBe(outcome.cells[0]!.failure);
    expect(store.getSamples(run.cells[1]!.id)).toHaveLength(4);
    expect(await listOwnContainers({ run: outcome.runId })).toEqual([]);
    expect(store.integrityCheck()).toBe('ok');
    store.close();
  });

  it('a listener that throws (a broken UI socket) does not stop the run', async () => {
    const { store } = fresh();
    const outcome = await runMatrix({ ...twoCells, workers: [1] }, {
      store,
      onEvent: (e) => {
        if (e.type === 'sample') throw new Error('listener bug');
      },
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['ok']);
    expect(store.getSamples(store.getRun(outcome.runId)!.cells[0]!.id)).toHaveLength(3);
    store.close();
  });
});
