// A whole run on Kubernetes through the one run lifecycle (runSession): the real engine check, the
// real lab (reaper, base image, lock), images built on this machine's Docker engine and pushed
// through a fake one, then the cells on a cluster played by the fake API server from recorded
// responses (tests/fixtures/k8s) — no API server can run here. Whatever the cell source (an
// auto-size search or a matrix), the run's namespace is gone when the run ends.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runSearch } from '../../src-main/engine/auto-size/run-search.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import type { CellConfig, HostFacts } from '../../src-main/model/types.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { Store } from '../../src-main/store/index.ts';
import { requireDocker } from '../helpers/docker.ts';
import { FakeApi, fixture, listOf } from '../unit/k8s-fake-api.ts';
import { AGENT_TAG, FakeCluster, fakeEngine, NAMESPACES, NS, RUN_NS } from '../unit/k8s-fake-cluster.ts';

const host: HostFacts = {
  hostname: 'laptop',
  platform: 'linux',
  arch: 'x64',
  cpuModel: 'test',
  cores: 2,
  memoryBytes: 8_589_934_592,
  nodeVersion: 'v20.19.0',
  dockerVersion: '27.3.1',
  cgroupVersion: '2',
  appVersions: {},
  rightsizeVersion: '0.1.0',
};

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
  // Runs 1–6 and two cells exist, so the run is run 7 and its first cell is cell 3: the recorded scene.
  const cell: CellConfig = {
    index: 0,
    repetition: 0,
    app: 'hello',
    mode: 'cluster',
    workers: 2,
    cpuMillis: 500,
    memoryMb: 512,
    load: { model: 'closed', connections: 16 },
    durationSec: 2,
    warmupSec: 1,
    env: {},
  };
  for (let i = 1; i <= 6; i++) {
    const id = store.createRun({ name: `earlier ${i}`, preset: null, matrix: {}, host, ownerSession: currentSession(), cellsTotal: 1 });
    store.finishRun(id, 'completed');
  }
  for (let i = 0; i < 2; i++) {
    const at = new Date().toISOString();
    const id = store.startCell(6, { ...cell, index: i });
    store.finishCell(id, { config: { ...cell, index: i }, status: 'failed', failure: 'earlier', flags: [], startedAt: at, finishedAt: at });
  }
});

afterEach(async () => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await api.close();
  await engine.close();
});

function provider(): KubernetesProvider {
  const u = new URL(engine.url);
  return new KubernetesProvider({
    name: 'lab',
    kubeConfig: api.kubeConfig(),
    pollMs: 10,
    statsEveryMs: 20,
    readyTimeoutMs: 5_000,
    removeTimeoutMs: 2_000,
    registry: { registry: 'registry.example.com/rightsize' },
    images: {
      engine: () => new Docker({ host: u.hostname, port: Number(u.port), protocol: 'http' }),
      loadAgentImage: async () => AGENT_TAG,
    },
  });
}

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
