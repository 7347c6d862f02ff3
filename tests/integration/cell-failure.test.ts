import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { docker } from '../../src-main/docker/client.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker, twoCellMatrix } from '../helpers/docker.ts';

// The engine losing a cell's target (removed through its API as `docker rm -f` would) fails that
// cell with the reason, and the run goes on: the process never dies of it. The store's failures
// mid-cell (disk full, SQLITE_BUSY, the run deleted by another process) and a throwing listener moved
// to tests/unit/cell-failure.test.ts: they are the store's and the run loop's logic, run there on the
// real loop, a real SQLite file and a stub provider whose targets are HTTP servers in-process.

beforeAll(async () => {
  await requireDocker();
});

const twoCells = twoCellMatrix({ name: 'cell failure', warmupSec: 0, load: PACED_LOAD });

const fresh = (): { store: Store } => ({ store: Store.open(path.join(tempDir(), 'h.db')) });

describe('a failing engine mid-cell fails the cell, not the process', () => {
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
});
