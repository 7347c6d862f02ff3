// The grid's sequential look on the real run loop (runMatrix → runGrid → runStoredCell → the real
// load threads) against a stub provider whose targets are real HTTP servers in this process, on a
// real SQLite file. Only the engine check, the lab's lock and the image build are replaced (as in
// cell-failure.test.ts): the look reads the real store through the real answer.
import path from 'node:path';
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

/** Four repetitions of 1 and 2 workers in rounds; each target answers after `delayMs(workers)`. */
async function runSequential(delayMs: (workers: number) => number, onTestFinished: TestContext['onTestFinished']) {
  const store = Store.open(path.join(tempDir(), 'h.db'));
  const provider = new StubProvider({ answerDelayMs: (spec) => delayMs(spec.launch.workers) });
  onTestFinished(async () => {
    await provider.close();
    store.close();
  });
  const events: RunEvent[] = [];
  const matrix = twoCellMatrix({ name: 'sequential', repetitions: 4, durationSec: 1, order: 'shuffle', seed: 3 });
  const outcome = await runMatrix(matrix, { store, provider, onEvent: (e) => events.push(e) });
  return { store, outcome, events, provider };
}

// That nobody is out within the noise is checked on constructed measurements (time-to-answer.test.ts):
// two identical targets here would differ by chance, and a test at the look's alpha would drop one now
// and then.
describe('the sequential look between rounds of repetitions', () => {
  it('a configuration shown far below its pair’s best after three rounds gets no fourth repetition; the run says so in one line', async ({ expect, onTestFinished }) => {
    // 2 workers answer 15× slower: after three repetitions each, Welch's test puts it below 1 worker far beyond the look's alpha.
    // Both paces are set by timers (about 400 and 27 req/s), not by this host's CPU: at 2 ms the fast one
    // was CPU-bound, and on a busy host its spread once kept it within the look's alpha.
    const { store, outcome, events, provider } = await runSequential((w) => (w === 2 ? 150 : 10), onTestFinished);
    expect(outcome.status).toBe('completed');
    const run = store.getRun(outcome.runId)!;
    const byWorkers = (w: number) => run.cells.filter((c) => c.config.workers === w).map((c) => c.config.repetition);
    expect(byWorkers(1)).toEqual([0, 1, 2, 3]);
    expect(byWorkers(2)).toEqual([0, 1, 2]); // its fourth repetition was never started
    expect(run.cellsTotal).toBe(7);
    expect(provider.started(outcome.runId)).toHaveLength(7);
    expect(provider.left(outcome.runId)).toEqual([]);
    const said = events.filter((e) => e.type === 'run-phase' && e.phase === 'grid');
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ total: 7 });
    expect((said[0] as { message: string }).message).toMatch(
      /^after 3 of 4 repetitions, 2 cluster workers on 0\.5 CPU \/ 128 MB is out of the contest \(goodput shown below the best of its CPU \/ memory pair, p ≤ 0\.041 at this look\): 1 cell skipped$/,
    );
    // Every later progress event counts the cells now planned.
    const last = events.filter((e) => e.type === 'cell-finished').at(-1) as { total: number };
    expect(last.total).toBe(7);
  });
});
