// What the run page shows of a run's mixes (runs.get's `view`, service/views.ts runView): each mix its cells with
// routes sent, in mixLines' words, from the app as the run kept it or a matrix request set, with the cells that
// sent it; and the tolerance a route's share is marked beyond.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import { mixLines } from '../../src-main/mix/describe.ts';
import { SHARE_TOLERANCE_PP } from '../../src-main/mix/routes.ts';
import type { MixEntry } from '../../src-main/model/requests.ts';
import type { HostFacts, LoadResult } from '../../src-main/model/types.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { runView } from '../../src-main/service/views.ts';
import { Store } from '../../src-main/store/index.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';
import { cell, run } from '../helpers/run-fixture.ts';

const mix: MixEntry[] = [
  { method: 'GET', path: '/products/{{int 1 50}}', weight: 3 },
  {
    sequence: [
      { method: 'POST', path: '/login' },
      { method: 'GET', path: '/me' },
    ],
    weight: 1,
  },
];
const routes = {
  routes: [
    { route: 'GET /a', sent: 1, share: 1, expectedShare: 1, requests: 1, good: 1, goodputMean: 1, p50Us: 1, p99Us: 1 },
  ],
} as LoadResult;

describe('the run page’s mixes (runView)', () => {
  it('words the mix of each cell with routes: the app as kept, or its request set', () => {
    const withRoutes = (c: ReturnType<typeof cell>) => ({ ...c, load: routes });
    const r = run([
      withRoutes(cell({ app: 'shop' })),
      cell({ app: 'shop', workers: 2 }),
      withRoutes(cell({ app: 'shop', workers: 4 })),
      withRoutes(cell({ app: 'shop', requestSet: 'reads' })),
    ]);
    const view = runView({ ...r, apps: [null, { name: 'shop', requests: mix }] });
    expect(view).toEqual({
      mixes: [
        { who: 'shop', lines: mixLines(mix), cellIds: [1, 3] },
        { who: 'shop [reads]', lines: ['GET /reads'], cellIds: [4] },
      ],
      shareTolerancePp: SHARE_TOLERANCE_PP,
    });
    expect(view.mixes[0]!.lines).toEqual(['75 % GET /products/{{int 1 50}}', '25 % sequence POST /login → GET /me']);
    // A run stored before mixes: no app kept, no routes.
    expect(runView(run([cell({})])).mixes).toEqual([]);
  });

  let lab: Lab | undefined;
  afterEach(async () => lab?.close());

  it('comes with runs.get, beside the stored run', async () => {
    const store = Store.open(path.join(tempDir('rightsize-run-view-'), 'r.db'));
    lab = await Lab.open({
      store,
      startup: {
        interruptedRuns: [],
        sweptContainers: [],
        engine: { version: '27.0.0', cpus: 1, memoryBytes: 2 ** 32 } as EngineInfo,
      },
      recheckMs: { down: 60_000, up: 60_000 },
    });
    const m = validateMatrix(
      { apps: ['hello'], cpuMillicores: [1000], memoryMb: [256], workers: [1], modes: ['cluster'] },
      { cores: 8, memoryMb: 8192, apps: ['hello'] },
    );
    if (!m.ok) throw new Error('matrix refused');
    const runId = store.createRun({
      name: 'v',
      matrix: m.matrix,
      host: {} as HostFacts,
      ownerSession: 'x:1:1',
      cellsTotal: 1,
    });
    for (const c of expandMatrix(m.matrix)) store.startCell(runId, c);
    const got = await dispatch(lab, 'runs.get', { runId });
    expect(got).toMatchObject({
      ok: true,
      value: { id: runId, view: { mixes: [], shareTolerancePp: SHARE_TOLERANCE_PP } },
    });
  });
});
