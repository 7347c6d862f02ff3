// A cell under one CPU warms up at one, where its target can change its cap in place, and measures at its own
// (load/warmup.ts, engine/cell-load.ts): the cap is raised before the load, lowered once each process has had its
// CPU-second by the target's own CPU readings (or at the latest where no raise would have ended), and a cap that cannot come back fails the cell instead of measuring at the raised one. The real run loop
// and load threads against a stub provider's in-process targets (tests/helpers/stub-provider.ts, as in
// cell-failure.test.ts), which record every cap change; that the measured seconds really run at the cell's own cap is
// the integration test's (tests/integration/jit-floor.test.ts), on a real engine.
import path from 'node:path';
import { describe, it, vi, type TestContext } from 'vitest';
import { cellWarmup } from '../../src-main/engine/cell-warmup.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { twoCellMatrix } from '../helpers/docker.ts';
import { StubProvider } from '../helpers/stub-provider.ts';

vi.mock('../../src-main/docker/client.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).engineClient(importOriginal as never),
);
vi.mock('../../src-main/lab-lock/enter-lab.ts', async () => (await import('../helpers/no-docker-run.ts')).enterLab());
vi.mock('../../src-main/engine/run/images.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).namedImages(importOriginal as never),
);

// 3 workers on half a CPU: 6 s at their own cap, 3 s at one CPU and 2 s back at theirs (5 s).
const oneCell = twoCellMatrix({ name: 'warm raise', workers: [3], cpuMillicores: [500], warmupSec: 1, durationSec: 2, settleBudgetPct: 0, verify: false });
const cell = { warmupSec: 1, mode: 'cluster' as const, workers: 3, cpuMillis: 500 };

// What the target's readings say it used while raised: a whole CPU and more (its floor's 3 CPU-seconds by 3 s), or a
// fifth of one, as on a host too busy to give it its cap.
const SERVED = 1.5;
const STARVED = 0.2;

function fresh(
  onTestFinished: TestContext['onTestFinished'],
  setCpu: (millis: number, nth: number) => Promise<void>,
  busyCores = SERVED,
) {
  const store = Store.open(path.join(tempDir(), 'h.db'));
  const provider = new StubProvider({ setCpu, busyCores });
  onTestFinished(async () => {
    await provider.close();
    store.close();
  });
  return { store, provider };
}

describe.concurrent('a warm-up under one CPU, raised to one', () => {
  it('is raised before the load and lowered after the raised seconds, and the cell says so', async ({ expect, onTestFinished }) => {
    expect(cellWarmup(cell, true)).toEqual({ minSec: 5, capSec: 15, raise: { cpus: 1, untilSec: 3, latestSec: 4, cpuSec: 3 } });
    const { store, provider } = fresh(onTestFinished, async () => {});
    const outcome = await runMatrix(oneCell, { store, provider });
    const [c] = outcome.cells;
    expect(c!.status, c!.failure).toBe('ok');
    expect(provider.cpuChanges.map((x) => x.millis)).toEqual([1000, 500]);
    // Lowered no sooner than 3 whole seconds of load after the raise (the load starts after it).
    expect(provider.cpuChanges[1]!.atMs - provider.cpuChanges[0]!.atMs).toBeGreaterThanOrEqual(3000);
    expect(c!.load!.warmupRaise).toEqual({ cpuMillis: 1000, untilSec: 3 });
    expect(c!.load!.warmupUsedSec).toBeGreaterThanOrEqual(5);
    expect(store.getRun(outcome.runId)!.cells[0]!.load!.warmupRaise).toEqual({ cpuMillis: 1000, untilSec: 3 });
  });

  it('on a host that starves it, the raise lasts until its processes had their CPU-seconds, at most until the floor at its own cap, and nothing is measured sooner', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished, async () => {}, STARVED);
    const outcome = await runMatrix(oneCell, { store, provider });
    const [c] = outcome.cells;
    expect(c!.status, c!.failure).toBe('ok');
    expect(provider.cpuChanges.map((x) => x.millis)).toEqual([1000, 500]);
    // 0.2 CPU never makes 3 CPU-seconds: lowered at the latest, 4 s (6 s at its own cap, less the 2 of the drop)…
    expect(provider.cpuChanges[1]!.atMs - provider.cpuChanges[0]!.atMs).toBeGreaterThanOrEqual(4000);
    expect(c!.load!.warmupRaise).toEqual({ cpuMillis: 1000, untilSec: 4 });
    // …and measured no sooner than 2 s after, though steady since its planned 5 s.
    expect(c!.load!.warmupUsedSec).toBeGreaterThanOrEqual(6);
  });

  it('a cap that cannot come back fails the cell, saying why: nothing is measured at the raised one', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished, async (_m, nth) => {
      if (nth === 1) throw new Error('the engine refused the update');
    });
    const outcome = await runMatrix(oneCell, { store, provider });
    const [c] = outcome.cells;
    expect(c!.status).toBe('failed');
    expect(c!.failure).toBe("the warm-up's raised CPU cap: lowering it failed (the engine refused the update), so the cell was not measured at its own 500m");
  });

  it('a raise that fails: the cap is set back to its own (the raise may have landed unanswered), and the cell warms its whole floor at it', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished, async (_m, nth) => {
      if (nth === 0) throw new Error('socket hang up');
    });
    const outcome = await runMatrix(oneCell, { store, provider });
    const [c] = outcome.cells;
    expect(c!.status, c!.failure).toBe('ok');
    expect(provider.cpuChanges.map((x) => x.millis)).toEqual([500]);
    expect(c!.load!.warmupRaise).toBeUndefined();
    expect(c!.load!.warmupUsedSec).toBeGreaterThanOrEqual(cellWarmup(cell).minSec);
  });

  it('a cap that can be neither raised nor set back fails the cell before its load, saying so', async ({ expect, onTestFinished }) => {
    const { store, provider } = fresh(onTestFinished, async () => {
      throw new Error('no update here');
    });
    const outcome = await runMatrix(oneCell, { store, provider });
    const [c] = outcome.cells;
    expect(c!.status).toBe('failed');
    expect(c!.failure).toBe('its CPU cap was neither raised for the warm-up nor set back to 500m: Error: no update here');
    expect(c!.load).toBeUndefined();
  });
});
