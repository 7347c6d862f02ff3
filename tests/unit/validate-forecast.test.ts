// matrix.validate carries the client-bound forecast the Builder shows before Start: from this host's
// history in the store (a real SQLite file) and the load thread's ceiling it stores in the settings
// table. Nothing when there is no history, for a saved target, or for an invalid matrix.
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CEILING_SETTING } from '../../src-main/engine/client-forecast.ts';
import { hostFacts } from '../../src-main/engine/host.ts';
import type { CellConfig, CellResult, LoadResult } from '../../src-main/model/types.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';

const quickBefore = { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], load: { model: 'closed', connections: [20] }, durationSec: 5, warmupSec: 1, repetitions: 3, order: 'shuffle' };

/** A finished hello cell measured here: client-bound at 160,000 req/s with 2 load threads (80,000 each). */
function clientBoundCell(): { config: CellConfig; result: CellResult } {
  const config: CellConfig = { index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20, threads: 2 }, durationSec: 5, warmupSec: 1, env: {} };
  const goodput = 160_000;
  const load: LoadResult = {
    model: 'closed', connections: 20, measuredSec: 5, requests: goodput * 5, bytes: 0, rpsMean: goodput, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 700, p99: 900, p99_9: 1200, max: 5000, mean: 350, stddev: 100 }, latencyFrom: 'send',
    statusCounts: { 200: goodput * 5 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.95, clientBound: true, goodputMean: goodput, threads: 2,
  };
  const result: CellResult = { config, status: 'ok', load, flags: [{ kind: 'client-bound', reason: 'load threads 1, 2 of 2 were busy 95 %, 94 % of the time' }], ranOn: { target: 'local', kind: 'local' }, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:08.000Z' };
  return { config, result };
}

let store: Store;
let lab: Lab;
beforeEach(async () => {
  store = Store.open(path.join(tempDir('rightsize-validate-forecast-'), 'v.db'));
  store.targets.add({ name: 'lab-swarm', kind: 'swarm', settings: { managerUrl: 'tcp://10.255.255.1:2375', nodeEngines: { n1: 'tcp://10.255.255.1:2376' } } });
  lab = await Lab.open({ store, startup: { interruptedRuns: [], sweptContainers: [], dockerError: 'not needed here' }, recheckMs: { down: 60_000, up: 60_000 } });
});
afterEach(async () => {
  await lab.close();
});

const validate = (input: { matrix: unknown; target?: string }) => Promise.resolve(lab.handlers['matrix.validate'](input));
const addHistory = (): void => {
  const { config, result } = clientBoundCell();
  const runId = store.createRun({ name: 'earlier', matrix: {}, host: hostFacts(null, []), ownerSession: 'lab:1:1', cellsTotal: 1 });
  store.finishCell(store.startCell(runId, config), result);
  store.finishRun(runId, 'completed');
};

describe('matrix.validate: the client-bound forecast', () => {
  it('says nothing with no history on this host (the answer is as before)', async () => {
    const r = await validate({ matrix: quickBefore });
    expect(r).toMatchObject({ ok: true, cells: 6, problems: [] });
    expect(r).not.toHaveProperty('forecast');
    expect(store.getSettings()).not.toHaveProperty(CEILING_SETTING);
  });

  it('with a client-bound hello cell measured here: every cell of the old quick preset likely client-bound, with the remedy, and the ceiling stored', async () => {
    addHistory();
    const r = await validate({ matrix: quickBefore });
    expect(r.ok).toBe(true);
    expect(r.forecast).toMatchObject({ cells: 6, likely: 6, unknown: 0, ceilingPerThread: 80_000 });
    expect(r.forecast!.message).toMatch(/^6 of 6 cells are likely client-bound on this host \(hello at 1000m: ~160,000 req\/s, .*load threads? tops? out at .*\): their goodput will be a lower bound\. To measure the server: a smaller CPU cap, a heavier app, more load threads, or a target with more cores\.$/);
    expect(store.getSettings()[CEILING_SETTING]).toMatchObject({ perThreadRps: 80_000, from: { goodput: 160_000, threads: 2 } });
    // An app never measured here: known to be unknown, nothing said.
    const json = await validate({ matrix: { ...quickBefore, apps: ['json'] } });
    expect(json.forecast).toMatchObject({ cells: 6, likely: 0, unknown: 6, message: null });
  });

  it('not for a saved target (other cores, other load), and not for an invalid matrix', async () => {
    addHistory();
    const far = await validate({ matrix: quickBefore, target: 'lab-swarm' });
    expect(far).not.toHaveProperty('forecast');
    const bad = await validate({ matrix: { ...quickBefore, workers: [0] } });
    expect(bad.ok).toBe(false);
    expect(bad).not.toHaveProperty('forecast');
  });
});
