// The run's noise reading on the real run loop (runMatrix → runGrid → the session → runStoredCell → the
// cell runner → the load plan → the real load threads), against a stub provider whose targets are real HTTP
// servers in this process, on a real SQLite file. Only the engine check, the lab's lock and the image build
// are replaced (as in sequential-run.test.ts). The provider records the plan each cell's load was given.
import path from 'node:path';
import { describe, it, vi } from 'vitest';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { RunNoise } from '../../src-main/load/second-noise.ts';
import type { LoadCallbacks } from '../../src-main/load/runner.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import type { LoadOutcome, ProvisionedTarget } from '../../src-main/providers/provider.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { StubProvider } from '../helpers/stub-provider.ts';

vi.mock('../../src-main/docker/client.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).engineClient(importOriginal as never),
);
vi.mock('../../src-main/lab-lock/enter-lab.ts', async () => (await import('../helpers/no-docker-run.ts')).enterLab());
vi.mock('../../src-main/engine/run/images.ts', async (importOriginal) =>
  (await import('../helpers/no-docker-run.ts')).namedImages(importOriginal as never),
);

/** A stub provider that keeps the plan of every load it runs, in order. */
class PlanRecorder extends StubProvider {
  readonly plans: LoadPlan[] = [];
  override async runLoad(target: ProvisionedTarget, plan: LoadPlan, cb: LoadCallbacks): Promise<LoadOutcome> {
    this.plans.push(plan);
    return super.runLoad(target, plan, cb);
  }
}

// Six cells, not three: on a busy host a timer-paced cell is now and then flagged unstable (a trend over its
// 3 s), and the reading needs two steady cells before the cell it reaches.
const CELLS = 6;

describe("the run's noise reading reaches each cell's load plan", () => {
  it('none before two steady cells; then the reading of the steady cells before it, stored with the cell', async ({ expect, onTestFinished }) => {
    const store = Store.open(path.join(tempDir(), 'h.db'));
    const provider = new PlanRecorder({ answerDelayMs: 5 });
    onTestFinished(async () => {
      await provider.close();
      store.close();
    });
    const matrix = {
      name: 'noise', apps: ['hello'], modes: ['single'], workers: [1], cpuMillicores: [1000], memoryMb: [128],
      load: { model: 'closed', connections: [4] }, durationSec: 3, warmupSec: 1, repetitions: CELLS, order: 'fixed',
      settleBudgetPct: 0, verify: false,
    };
    const outcome = await runMatrix(matrix, { store, provider });
    const cells = [...store.getRun(outcome.runId)!.cells].sort((a, b) => a.config.index - b.config.index);
    expect(cells.map((c) => c.status)).toEqual(Array(CELLS).fill('ok'));
    expect(provider.plans).toHaveLength(CELLS);
    const replay = new RunNoise();
    cells.forEach((c, i) => {
      const expected = replay.get();
      const seen = JSON.stringify({ cell: i, expected, plan: provider.plans[i]!.warmNoise, flags: c.flags });
      expect(provider.plans[i]!.warmNoise, seen).toBe(expected);
      expect(c.load?.warmupNoise, seen).toBe(expected);
      replay.add(c);
    });
    expect(provider.plans[0]!.warmNoise).toBeUndefined();
    expect(provider.plans[1]!.warmNoise).toBeUndefined();
    // Some cell had a reading, so the checks above compared numbers, not two undefineds.
    const read = provider.plans.filter((p) => typeof p.warmNoise === 'number');
    expect(read.length, JSON.stringify(cells.map((c) => c.flags))).toBeGreaterThan(0);
  }, 60_000);
});
