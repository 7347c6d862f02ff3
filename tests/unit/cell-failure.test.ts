// A store error inside a cell (in store.addSamples, called from the load's per-second handler), or a
// listener that throws, fails that cell alone (or is ignored) and the run goes on or ends as failed:
// the process never dies of it, and nothing is left where the cells ran.
//
// Moved from tests/integration/cell-failure.test.ts: these four are pure store and run-loop logic
// (runStoredCell's failCell, runPool, runSession's end), and Docker added ~25 s to them without
// testing anything of its own. Here the real run loop runs (runMatrix → runSession → runGrid →
// runStoredCell → runCell → measureLoad) on a real SQLite file in a temporary folder (real
// better-sqlite3, a second real connection for the busy and foreign-key errors) with a stub Provider
// whose targets are real HTTP servers in this process, loaded by the real load threads
// (tests/helpers/stub-provider.ts). What the stub cannot give is replaced below, and only that: the
// engine check, entering the lab (reaper, lock container, base image) and building the app's image.
// The engine losing a target mid-cell stays in integration: it needs the real engine.
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, it, vi, type TestContext } from 'vitest';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { twoCellMatrix } from '../helpers/docker.ts';
import { StubProvider } from '../helpers/stub-provider.ts';

// No Docker here (tests/helpers/no-docker-run.ts): the engine's facts, the lab's lock and the image
// build are replaced; the store, the run loop and the load are the real ones.
vi.mock('../../src-main/docker/client.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).engineClient(importOriginal as never),
);
vi.mock('../../src-main/lab-lock/enter-lab.ts', async () => (await import('../helpers/no-docker-run.ts')).enterLab());
vi.mock('../../src-main/engine/run/images.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).namedImages(importOriginal as never),
);

const twoCells = twoCellMatrix({ name: 'cell failure', warmupSec: 0 });

/**
 * A history in a fresh temporary folder and a stub provider of its own: the tests run side by side
 * (each its own SQLite file, its own targets), so the file takes as long as its longest test.
 */
function fresh(onTestFinished: TestContext['onTestFinished']): { db: string; store: Store; provider: StubProvider } {
  const db = path.join(tempDir(), 'h.db');
  const store = Store.open(db);
  const provider = new StubProvider();
  onTestFinished(async () => {
    await provider.close();
    store.close();
  });
  return { db, store, provider };
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

describe.concurrent('a failing store or listener mid-cell fails the cell (or nothing), not the process', () => {
  // Moved from integration (pure store/run-loop logic; a stub provider with a real HTTP target
  // in-process). Disk-full is injected at addSamples, as in integration: a full disk cannot be made here.
  it('disk full on a sample: that cell fails with the reason and loses its partial numbers, the next cell runs, nothing is left', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished);
    const injected = failingStore(store, (n) => (n === 1 ? sqliteError('database or disk is full', 'SQLITE_FULL') : undefined));
    const outcome = await runMatrix(twoCells, { store: injected, provider });
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(outcome.cells[0]!.failure).toBe('storing a sample failed: database or disk is full');
    const run = store.getRun(outcome.runId)!;
    expect(run.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(run.cells[0]!.failure).toMatch(/disk is full/);
    expect(run.cells[0]!.rpsMean).toBeNull(); // a cut-short measurement is not a result
    expect(store.getSamples(run.cells[0]!.id)).toHaveLength(1); // what was stored before the failure is kept
    expect(store.getSamples(run.cells[1]!.id)).toHaveLength(3);
    expect(run.cells[1]!.rpsMean).toBeGreaterThan(0); // the next cell measured its target for real
    expect(provider.started(outcome.runId)).toHaveLength(2);
    expect(provider.left(outcome.runId)).toEqual([]);
    expect(provider.started(outcome.runId).map((t) => t.removedBy)).toEqual(['cell', 'cell']); // each by its own cell
  });

  // Moved from integration (pure store/run-loop logic; a stub provider with a real HTTP target
  // in-process). The lock is real: a second better-sqlite3 connection holds BEGIN IMMEDIATE past the
  // store's 5 s busy_timeout, so SQLite itself answers SQLITE_BUSY.
  it('SQLITE_BUSY (another connection holds the write lock past the busy timeout): the cell fails, the run goes on once the lock is free', async ({ expect, onTestFinished }) => {
    const { db, store, provider } = fresh(onTestFinished);
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
    const outcome = await runMatrix(twoCells, { store, onEvent, provider });
    other.close();
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(outcome.cells[0]!.failure).toMatch(/^storing a sample failed: database is locked/);
    expect(store.getRun(outcome.runId)!.cells.map((c) => c.status)).toEqual(['failed', 'ok']);
    expect(provider.started(outcome.runId)).toHaveLength(2);
    expect(provider.left(outcome.runId)).toEqual([]);
    expect(store.integrityCheck()).toBe('ok');
  });

  // Moved from integration (pure store/run-loop logic; a stub provider with a real HTTP target
  // in-process). The foreign-key error is real: a second connection deletes the run, cascading to its cells.
  it('the run deleted by another process mid-cell (foreign-key error): the cell stops, the run ends as failed, nothing is left', async ({ expect, onTestFinished }) => {
    const { db, store, provider } = fresh(onTestFinished);
    const other = new Database(db);
    other.pragma('foreign_keys = ON');
    let deleted = false;
    const onEvent = (e: RunEvent): void => {
      if (e.type === 'sample' && !deleted) {
        other.prepare('DELETE FROM runs WHERE id = ?').run(e.runId); // cascades to its cells
        deleted = true;
      }
    };
    const outcome = await runMatrix({ ...twoCells, durationSec: 5 }, { store, onEvent, provider });
    other.close();
    expect(deleted).toBe(true);
    expect(outcome.status).toBe('failed');
    expect(outcome.error).toMatch(/was deleted from the history by another process/);
    expect(outcome.cells).toHaveLength(0); // the first cell could not be stored; the second never started
    expect(store.getRun(outcome.runId)).toBeUndefined();
    expect(provider.started(outcome.runId)).toHaveLength(1); // the second cell's target was never started
    expect(provider.left(outcome.runId)).toEqual([]);
    expect(store.integrityCheck()).toBe('ok');
  });

  // Moved from integration (pure run-loop logic: runSession's emit; a stub provider with a real HTTP
  // target in-process).
  it('a listener that throws (a broken UI socket) does not stop the run', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished);
    const outcome = await runMatrix({ ...twoCells, workers: [1] }, {
      store,
      provider,
      onEvent: (e) => {
        if (e.type === 'sample') throw new Error('listener bug');
      },
    });
    expect(outcome.status).toBe('completed');
    expect(outcome.cells.map((c) => c.status)).toEqual(['ok']);
    expect(store.getSamples(store.getRun(outcome.runId)!.cells[0]!.id)).toHaveLength(3);
    expect(provider.left(outcome.runId)).toEqual([]);
  });
});
