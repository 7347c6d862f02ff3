// A whole run on Kubernetes through the one run lifecycle (runSession): the real engine check, the
// real lab (reaper, base image, lock), images built on this machine's Docker engine and pushed
// through a fake one, then the cells on a cluster played by the fake API server from recorded
// responses (tests/fixtures/k8s) — no API server can run here. Whatever the cell source (an
// auto-size search or a matrix), the run's namespace is gone when the run ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSearch } from '../../src-main/engine/auto-size/run-search.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { Store } from '../../src-main/store/index.ts';
import { requireDocker } from '../helpers/docker.ts';
import { FakeApi, fixture, listOf } from '../unit/k8s-fake-api.ts';
import {
  FakeCluster,
  fakeEngine,
  historyBeforeTheScene,
  NAMESPACES,
  NS,
  RUN_NS,
  sceneProvider,
} from '../unit/k8s-fake-cluster.ts';


let api: FakeApi;
let engine: FakeApi;
let cluster: FakeCluster;
let dir: string;
let store: Store;

beforeAll(async () => {
  await requireDocker();
});

beforeEach(async () => {
  api = await new FakeApi().start();
  engine = await fakeEngine();
  cluster = new FakeCluster(api);
  // A cluster that lets a run do everything: the check before the run, and an empty sweep.
  api.on('GET', '/version', { json: fixture('version.json') });
  api.on('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', (r) => ({
    status: 201,
    json: { ...fixture<Record<string, unknown>>('ssar-allowed.json'), spec: (r.body as { spec: unknown }).spec },
  }));
  api.on('GET', '/api/v1/pods', listOf('PodList', []));
  api.on('GET', NAMESPACES, listOf('NamespaceList', []));
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-k8s-session-'));
  store = Store.open(path.join(dir, 'rightsize.db'));
  historyBeforeTheScene(store); // the run is run 7 and its first cell is cell 3: the recorded scene
});

afterEach(async () => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await api.close();
  await engine.close();
});

const provider = (): KubernetesProvider => sceneProvider(api, engine);

const deletedNamespace = (): boolean => api.requests.some((r) => r.method === 'DELETE' && r.url.startsWith(RUN_NS));

describe('one run lifecycle on Kubernetes (fake API server, recorded responses)', () => {
  it('an auto-size search leaves no namespace behind', async () => {
    const out = await runSearch(
      {
        app: 'hello',
        slo: { p99Ms: 1000, minRps: 50, maxErrorPct: 5 },
        rate: 50,
        bounds: { cpuMillis: { min: 500, max: 500 }, memoryMb: { min: 512, max: 512 }, workers: { min: 2, max: 2 }, modes: ['cluster'] },
        // The agent replays its recorded 2 s whatever the plan: the search's minimum is 5 s.
        durationSec: 5,
        warmupSec: 1,
        maxCells: 1,
      },
      { store, provider: provider() },
    );
    expect(out.runId).toBe(7);
    expect(out.trace.steps).toHaveLength(1);
    expect(store.getRun(7)!.cells.map((c) => c.id)).toEqual([3]);
    // The namespace the search's cell made was deleted by the run's end, and nothing is left.
    expect(deletedNamespace(), `the run's namespace ${NS} was never deleted`).toBe(true);
    expect(cluster.left()).toEqual([]);
    expect(store.getRun(7)!.status).not.toBe('running');
  });

  it('a matrix run ends the same way: its namespace deleted, nothing left', async () => {
    const out = await runMatrix(
      {
        apps: ['hello'],
        modes: ['cluster'],
        workers: [2],
        cpuMillicores: [500],
        memoryMb: [512],
        durationSec: 2,
        warmupSec: 1,
        repetitions: 1,
        settleBudgetPct: 0,
        verify: false,
        load: { model: 'closed', connections: [16] },
      },
      { store, provider: provider() },
    );
    expect(out.runId).toBe(7);
    expect(out.cells).toHaveLength(1);
    expect(deletedNamespace()).toBe(true);
    expect(cluster.left()).toEqual([]);
  });
});
