// One whole cell on Kubernetes through the real cell runner (runStoredCell → runCell) with a real
// KubernetesProvider and a real SQLite Store, against the fake API server playing a cluster from the
// recorded responses (tests/fixtures/k8s): the run's namespace and the cell's Deployment made, the
// pod Pending then Running and Ready on worker-b, the launcher's "workers listening" line in its
// log, the load agent's pod on worker-a streaming its seconds and its result, the kubelet's stats
// through the node proxy, and everything deleted again — on success, on an OOM kill mid-load, and
// on cancel. Verified against recorded API responses, not a live cluster: no API server can run on
// this machine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { builtInApps } from '../../src-main/apps/catalog.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runStoredCell } from '../../src-main/engine/run-matrix.ts';
import { warmupCapSec } from '../../src-main/load/steady-state.ts';
import { deploymentManifest } from '../../src-main/providers/kubernetes/manifests.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import type { TargetSpec } from '../../src-main/providers/provider.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { Store } from '../../src-main/store/index.ts';
import { FakeApi, type Recorded } from './k8s-fake-api.ts';
import { AGENT_REF, APP_REF, historyBeforeTheScene, SCENE_CELL, sceneProvider, APP_TAG, DEPLOYMENT, DEPLOYMENTS, FakeCluster, fakeEngine, LOAD_POD, NAMESPACES, NS, okLog, PODS, resultOf, RUN_NS, stoppedLog, TARGET_LOG } from './k8s-fake-cluster.ts';


const cell = SCENE_CELL;

const mutating = (rs: Recorded[]): string[] => rs.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.url}`);

let api: FakeApi;
let engine: FakeApi;
let dir: string;
let store: Store;
let runId: number;
beforeEach(async () => {
  api = await new FakeApi().start();
  engine = await fakeEngine();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-k8s-cell-'));
  store = Store.open(path.join(dir, 'rightsize.db'));
  const run = historyBeforeTheScene(store);
  runId = run('k8s cell');
  expect(runId).toBe(7);
});
afterEach(async () => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await api.close();
  await engine.close();
});

const provider = (): KubernetesProvider => sceneProvider(api, engine);

/** The run as runMatrix does it for one cell: images pushed, the cell stored, the run finished, what it left removed. */
async function runOneCell(p: KubernetesProvider, o: { signal?: AbortSignal; onEvent?: (e: RunEvent) => void } = {}) {
  const events: RunEvent[] = [];
  expect(await p.prepareImage(APP_TAG)).toBe(APP_REF);
  const app = builtInApps().find((a) => a.name === 'hello')!;
  const out = await runStoredCell(cell, {
    store,
    runId,
    app,
    image: { tag: APP_TAG, entry: '/srv/apps/hello/server.js', built: false },
    placement: false,
    timeoutSec: 10,
    ...(o.signal ? { signal: o.signal } : {}),
    provider: p,
    emit: (e) => {
      events.push(e);
      o.onEvent?.(e);
    },
    warned: new Set(),
    total: 1,
    etaSec: () => 0,
  });
  const cellRequests = [...api.requests];
  store.finishRun(runId, o.signal?.aborted ? 'cancelled' : 'completed');
  const removed = await p.removeRun(String(runId));
  return { ...out, events, cellRequests, removed, stored: store.getRun(runId)!.cells[0]!, samples: store.getSamples(out.cellId) };
}

/** The cell's own mutating requests, in order: namespace, Deployment, load pod made; load pod, Deployment deleted. */
const CELL_MUTATIONS = (loadDeletes: string[]): string[] => [
  `POST ${NAMESPACES}`,
  `POST ${DEPLOYMENTS}`,
  `POST ${PODS}`,
  ...loadDeletes.map((g) => `DELETE ${LOAD_POD}?gracePeriodSeconds=${g}`),
  `DELETE ${DEPLOYMENT}?gracePeriodSeconds=0&propagationPolicy=Foreground`,
];
const RUN_END_MUTATIONS = [`DELETE ${RUN_NS}?gracePeriodSeconds=0&propagationPolicy=Foreground`];

describe('one cell on Kubernetes, start to finish', () => {
  it('ends ok with its measured seconds, the agent\'s result, where it ran, and nothing left in the cluster', async () => {
    const cluster = new FakeCluster(api);
    const p = provider();
    const { result, stored, samples, events, cellRequests, removed, cellId } = await runOneCell(p);
    expect(cellId).toBe(3);

    expect(result.failure).toBeUndefined();
    expect(result.status).toBe('ok');
    expect(stored.status).toBe('ok');
    expect(stored.ranOn).toEqual({ target: 'lab', kind: 'kubernetes', node: 'worker-b', loadNode: 'worker-a' });

    // The load: the agent's own result, with the warmup seconds it streamed.
    const final = resultOf(okLog).result;
    expect(stored.load).toEqual({ ...final, warmupPerSecondRps: [4402] });
    expect(stored.rpsMean).toBe(4404.5);
    expect(stored.load!.goodputMean).toBe(4404.5);
    expect(stored.p99Us).toBe(9343);
    expect(stored.p50Us).toBe(3543);
    expect(stored.requests).toBe(8809);
    expect(stored.flags).toEqual([]);

    // Its measured seconds, one sample per second of durationSec, each with the kubelet's readings of then.
    expect(samples).toHaveLength(cell.durationSec);
    expect(samples.map((s) => [s.t, s.rps, s.p99Us])).toEqual([
      [0, 4418, 9215],
      [1, 4391, 9471],
    ]);
    for (const s of samples) {
      expect(s.cpuPct).toBeCloseTo(80, 6);
      expect(s.memBytes).toBe(98_304_000);
      expect(s.throttledPeriods).toBe(0);
    }
    // Measured seconds are stored and streamed; warm-up seconds are streamed only (live charts shade them).
    const streamed = events.filter((e) => e.type === 'sample');
    expect(streamed.filter((e) => !e.sample.warmup)).toHaveLength(2);
    expect(streamed.filter((e) => e.sample.warmup).length).toBe(result.load!.warmupPerSecondRps!.length);
    expect(events.filter((e) => e.type === 'cell-phase').map((e) => (e as { phase: string }).phase)).toEqual(['starting', 'ready', 'warmup', 'measuring', 'teardown']);

    // Stats from worker-b's kubelet: 0.4 cores of a 500m cap; working set, limit and peak from the summary and cAdvisor.
    expect(stored.stats!.cpuPctMean).toBeCloseTo(80, 6);
    expect(stored.stats!.cpuPctMax).toBeCloseTo(80, 6);
    expect(stored.stats!.memMaxBytes).toBe(98_304_000);
    expect(stored.stats!.memLimitBytes).toBe(536_870_912);
    expect(stored.stats!.memPeakBytes).toBe(117_440_512);
    expect(stored.stats!.memPeakSource).toBe('cgroup');
    expect(stored.stats!.throttledMs).toBe(0);
    expect(stored.exit).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });

    // The Deployment as made: the pushed image, the caps as requests = limits, the health path as its readinessProbe.
    const session = currentSession();
    const spec: TargetSpec = {
      image: APP_REF,
      launch: { mode: 'cluster', workers: 2, entry: '/srv/apps/hello/server.js', name: 'hello' },
      port: 3000,
      health: '/health',
      env: {},
      cpuMillis: 500,
      memoryMb: 512,
      labels: { run: '7', cell: '3', app: 'hello', session },
    };
    const dep = api.calls('POST', DEPLOYMENTS)[0]!.body as V1Deployment;
    expect(dep).toEqual(JSON.parse(JSON.stringify(deploymentManifest(spec, { spread: 'required' }))));
    // The load pod: the agent's image, away from worker-b, the cell's plan against the pod's IP.
    const load = api.calls('POST', PODS)[0]!.body as V1Pod;
    expect(load.spec!.containers[0]!.image).toBe(AGENT_REF);
    expect(load.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution!.nodeSelectorTerms[0]!.matchFields).toEqual([{ key: 'metadata.name', operator: 'NotIn', values: ['worker-b'] }]);
    expect(JSON.parse(load.spec!.containers[0]!.env![0]!.value!)).toEqual({
      plan: { host: '10.244.2.17', port: 3000, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 16 }, durationSec: 2, warmupSec: 4, maxWarmupSec: 14, timeoutSec: 10, threads: 2 }, // the JIT floor: 2 workers on 0.5 CPU
      adaptiveWarmup: true,
    });
    // Readiness waited for the pod (no pod, creating, ready) and for the launcher's line (the first log read had one worker).
    expect(api.calls('GET', PODS).filter((r) => r.query.get('labelSelector')?.includes('role=target')).length).toBeGreaterThanOrEqual(3);
    expect(api.calls('GET', TARGET_LOG).filter((r) => r.query.has('limitBytes')).length).toBeGreaterThanOrEqual(2);

    // Exactly these changes, in this order; then the run's end removes its namespace, and nothing is left.
    expect(mutating(cellRequests)).toEqual(CELL_MUTATIONS(['0']));
    expect(mutating(api.requests)).toEqual([...CELL_MUTATIONS(['0']), ...RUN_END_MUTATIONS]);
    expect(removed).toEqual([`namespace ${NS}`]);
    expect(cluster.left()).toEqual([]);
    expect(store.getRun(runId)!.status).toBe('completed');
  });

  it('is oom when the target is OOM-killed mid-load (restartCount 1, lastState OOMKilled), the load stopped and everything deleted', async () => {
    const cluster = new FakeCluster(api, { mode: 'hold' });
    // Killed once its first measured second is in: the kubelet restarts the container in place.
    const { result, stored, samples, cellRequests, removed } = await runOneCell(provider(), { onEvent: (e) => e.type === 'sample' && !e.sample.warmup && (cluster.oom = true) });

    expect(result.status).toBe('oom');
    expect(stored.status).toBe('oom');
    expect(stored.failure).toBe('OOM-killed under the 512 MB cap (container exited with code 137)');
    expect(stored.exit).toEqual({ oomKilled: true, exitCode: 137, restarts: 1 });
    expect(stored.flags.map((f) => f.kind)).toEqual(['oom-killed', 'restarts']);
    expect(stored.ranOn).toEqual({ target: 'lab', kind: 'kubernetes', node: 'worker-b', loadNode: 'worker-a' });
    // The load was stopped (SIGTERM through a graceful delete) and reported what it measured until then.
    expect(stored.load).toEqual({ ...resultOf(stoppedLog).result, warmupPerSecondRps: [4402] });
    expect(samples.map((s) => [s.t, s.rps])).toEqual([[0, 4418]]);
    // The previous instance's log was read (where the kill is), as a restarted pod has it.
    expect(api.calls('GET', TARGET_LOG).some((r) => r.query.get('previous') === 'true')).toBe(true);

    expect(mutating(cellRequests)).toEqual(CELL_MUTATIONS(['15', '0']));
    expect(mutating(api.requests)).toEqual([...CELL_MUTATIONS(['15', '0']), ...RUN_END_MUTATIONS]);
    expect(removed).toEqual([`namespace ${NS}`]);
    expect(cluster.left()).toEqual([]);
  });

  it('is cancelled when the run is cancelled mid-load: the load pod and the Deployment deleted', async () => {
    const ctl = new AbortController();
    const cluster = new FakeCluster(api, { mode: 'hold' });
    const { result, stored, samples, cellRequests, removed } = await runOneCell(provider(), {
      signal: ctl.signal,
      onEvent: (e) => e.type === 'sample' && !e.sample.warmup && ctl.abort(),
    });

    expect(result.status).toBe('cancelled');
    expect(stored.status).toBe('cancelled');
    expect(stored.failure).toBeNull();
    expect(samples.map((s) => [s.t, s.rps])).toEqual([[0, 4418]]);
    expect(stored.load).toEqual({ ...resultOf(stoppedLog).result, warmupPerSecondRps: [4402] });
    expect(stored.ranOn).toEqual({ target: 'lab', kind: 'kubernetes', node: 'worker-b', loadNode: 'worker-a' });

    // Deleted by the cell itself, before the run's end: the load pod (SIGTERM, then at once) and the Deployment.
    expect(mutating(cellRequests)).toEqual(CELL_MUTATIONS(['15', '0']));
    expect(mutating(api.requests)).toEqual([...CELL_MUTATIONS(['15', '0']), ...RUN_END_MUTATIONS]);
    expect(removed).toEqual([`namespace ${NS}`]);
    expect(cluster.left()).toEqual([]);
    expect(store.getRun(runId)!.status).toBe('cancelled');
  });
});

