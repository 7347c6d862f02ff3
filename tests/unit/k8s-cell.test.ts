// One whole cell on Kubernetes through the real cell runner (runStoredCell → runCell) with a real
// KubernetesProvider and a real SQLite Store, against the fake API server playing a cluster from the
// recorded responses (tests/fixtures/k8s): the run's namespace and the cell's Deployment made, the
// pod Pending then Running and Ready on worker-b, the launcher's "workers listening" line in its
// log, the load agent's pod on worker-a streaming its seconds and its result, the kubelet's stats
// through the node proxy, and everything deleted again — on success, on an OOM kill mid-load, and
// on cancel. Verified against recorded API responses, not a live cluster: no API server can run on
// this machine.
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import Docker from 'dockerode';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { builtInApps } from '../../src-main/apps/catalog.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runStoredCell } from '../../src-main/engine/run-matrix.ts';
import { warmupCapSec } from '../../src-main/load/steady-state.ts';
import type { CellConfig, HostFacts } from '../../src-main/model/types.ts';
import { deploymentManifest } from '../../src-main/providers/kubernetes/manifests.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import type { TargetSpec } from '../../src-main/providers/provider.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { Store } from '../../src-main/store/index.ts';
import { FakeApi, fixture, fixtureText, listOf, status, type Recorded } from './k8s-fake-api.ts';

// The recorded scene: run 7, cell 3 (hello, cluster mode with 2 workers, 500m / 512Mi).
const NS = 'rightsize-run-7';
const NAMESPACES = '/api/v1/namespaces';
const RUN_NS = `${NAMESPACES}/${NS}`;
const PODS = `${RUN_NS}/pods`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const DEPLOYMENT = `${DEPLOYMENTS}/cell-3`;
const TARGET_POD = 'cell-3-6b8f5d7c9d-k2x7p';
const TARGET_LOG = `${PODS}/${TARGET_POD}/log`;
const LOAD_POD = `${PODS}/load-3`;
const LOAD_LOG = `${LOAD_POD}/log`;
const SUMMARY = '/api/v1/nodes/worker-b/proxy/stats/summary';
const CADVISOR = '/api/v1/nodes/worker-b/proxy/metrics/cadvisor';

const APP_TAG = 'rightsize/app-hello:9c1e2f3a4b5c6d7e';
const APP_REF = `registry.example.com/rightsize/${APP_TAG}`;
const AGENT_TAG = 'rightsize/load-agent:4f2a9c0d1e3b5a7c';
const AGENT_REF = `registry.example.com/rightsize/${AGENT_TAG}`;

/** One agent "second" takes this long here, so that a 1 s warmup + 2 s cell runs in well under a second. */
const PACE_MS = 120;
/** The fake kubelet's CPU rate for the target: 0.4 cores, i.e. 80 % of its 500m cap. */
const CPU_NS_PER_MS = 400_000;

const okLog = fixtureText('load-agent-log-2s.txt').split('\n').filter(Boolean);
const stoppedLog = fixtureText('load-agent-log-stopped.txt').split('\n').filter(Boolean);
type ResultLine = { type: 'result'; result: Record<string, unknown>; cancelled: boolean };
const resultOf = (lines: string[]): ResultLine => JSON.parse(lines.at(-1)!) as ResultLine;

const host: HostFacts = {
  hostname: 'laptop',
  platform: 'linux',
  arch: 'x64',
  cpuModel: 'Intel Xeon E5-2680',
  cores: 2,
  memoryBytes: 8_589_934_592,
  nodeVersion: 'v20.19.0',
  dockerVersion: '27.3.1',
  cgroupVersion: '2',
  appVersions: {},
  rightsizeVersion: '0.1.0',
};

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

/**
 * A cluster as the API server shows it, one object at a time: the run's namespace, the cell's
 * Deployment and the pod its ReplicaSet makes (no pod yet, ContainerCreating, Running and Ready on
 * worker-b), the load pod (Pending on worker-a, Running; terminating after a delete with a grace;
 * gone after grace 0), their logs, the nodes and worker-b's kubelet. What exists is tracked, so a
 * test can say that nothing is left.
 */
class FakeCluster {
  ns: 'absent' | 'active' | 'terminating' | 'gone' = 'absent';
  deployment: 'absent' | 'live' | 'deleting' | 'gone' = 'absent';
  loadPod: 'absent' | 'live' | 'terminating' | 'gone' = 'absent';
  /** The target's container was OOM-killed and restarted by the kubelet (restartCount 1). */
  oom = false;
  private targetPolls = 0;
  private targetLogReads = 0;
  private loadPolls = 0;
  private loadLogRes?: ServerResponse;
  /** What the agent has printed so far (its log as a non-followed read returns it). */
  private printed: string[] = [];
  private readonly t0 = Date.now();

  /**
   * `agent`: 'all' prints every line of the 2 s cell then exits; 'hold' prints up to the first
   * measured second and keeps running until its pod is deleted with a grace (SIGTERM), then prints
   * what it measured.
   */
  constructor(
    readonly api: FakeApi,
    private readonly agent: { mode: 'all' | 'hold' } = { mode: 'all' },
  ) {
    const a = api;
    a.on('GET', '/api/v1/nodes', { json: fixture('nodes.json') });
    // The run's namespace.
    a.on('POST', NAMESPACES, () => ((this.ns = 'active'), { status: 201, json: fixture('namespace-created.json') }));
    a.on('GET', RUN_NS, () => {
      if (this.ns === 'active') return { json: fixture('namespace-created.json') };
      if (this.ns === 'terminating') return (this.ns = 'gone'), { json: fixture('namespace-terminating.json') };
      return status(404, 'status-404-namespace.json');
    });
    a.on('DELETE', RUN_NS, () => {
      if (this.ns !== 'active') return status(404, 'status-404-namespace.json');
      this.ns = 'terminating';
      return { json: fixture('namespace-terminating.json') };
    });
    // The cell's Deployment (Foreground deletion: its pod goes first, then the Deployment).
    a.on('POST', DEPLOYMENTS, () => ((this.deployment = 'live'), { status: 201, json: fixture('deployment-created.json') }));
    a.on('GET', DEPLOYMENT, () => {
      if (this.deployment === 'live') return { json: fixture('deployment-created.json') };
      if (this.deployment === 'deleting') return (this.deployment = 'gone'), { json: fixture('deployment-deleting.json') };
      return status(404, 'status-404-deployment.json');
    });
    a.on('DELETE', DEPLOYMENT, () => {
      if (this.deployment !== 'live') return status(404, 'status-404-deployment.json');
      this.deployment = 'deleting';
      return { json: fixture('deployment-deleting.json') };
    });
    // Pods of the namespace, by label selector: the target's (role=target) or the load agents' (role=load).
    a.on('GET', PODS, (r) => {
      const selector = r.query.get('labelSelector') ?? '';
      if (this.ns !== 'active') return status(404, 'status-404-namespace.json');
      if (selector.includes('rightsize.dev/role=load')) return listOf('PodList', this.loadPod === 'live' || this.loadPod === 'terminating' ? [this.loadPodObject()] : []);
      if (this.deployment !== 'live') return listOf('PodList', []);
      const n = ++this.targetPolls;
      if (n === 1) return listOf('PodList', []); // the ReplicaSet has not made it yet
      if (n === 2) return listOf('PodList', [fixture('pod-creating.json')]);
      return listOf('PodList', [fixture(this.oom ? 'pod-oomkilled.json' : 'pod-running.json')]);
    });
    // The target's log: one worker listening at the first read, both and the launcher's line after.
    a.on('GET', TARGET_LOG, (r) => {
      if (this.deployment !== 'live') return status(404, 'status-404-deployment.json');
      if (r.query.get('previous') === 'true') return this.oom ? { text: fixtureText('target-log-cluster.txt') } : { status: 400, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `previous terminated container "app" in pod "${TARGET_POD}" not found`, reason: 'BadRequest', code: 400 } };
      return { text: fixtureText(this.targetLogReads++ === 0 ? 'target-log-cluster-starting.txt' : 'target-log-cluster.txt') };
    });
    // worker-b's kubelet: the summary stamped now (its counters moving at 0.4 cores), cAdvisor's page
    // (refreshed every 10-15 s: within the second after an OOM kill it still shows the page before it).
    a.on('GET', SUMMARY, () => ({ json: this.summary() }));
    a.on('GET', CADVISOR, { text: fixtureText('cadvisor.txt') });
    // The load agent's pod.
    a.on('POST', PODS, () => ((this.loadPod = 'live'), { status: 201, json: fixture('load-pod-created.json') }));
    a.on('GET', LOAD_POD, () => (this.loadPod === 'live' || this.loadPod === 'terminating' ? { json: this.loadPodObject() } : status(404, 'status-404-deployment.json')));
    a.on('DELETE', LOAD_POD, (r) => {
      if (this.loadPod === 'absent' || this.loadPod === 'gone') return status(404, 'status-404-deployment.json');
      if (r.query.get('gracePeriodSeconds') === '0') {
        this.loadPod = 'gone';
        this.loadLogRes?.end();
      } else {
        // SIGTERM: the agent prints what it measured and exits.
        this.loadPod = 'terminating';
        this.print(stoppedLog.slice(3));
        this.loadLogRes?.end();
      }
      return { json: fixture('load-pod-deleting.json') };
    });
    a.on('GET', LOAD_LOG, (r) => (r.query.get('follow') === 'true' ? { stream: (res) => this.follow(res) } : { text: this.printed.map((l) => `${l}\n`).join('') }));
  }

  /** The load pod as the API server has it now: Pending on worker-a at the first read, then Running; deleting after a graceful delete. */
  private loadPodObject(): V1Pod {
    if (this.loadPod === 'terminating') return fixture<V1Pod>('load-pod-deleting.json');
    return fixture<V1Pod>(this.loadPolls++ === 0 ? 'load-pod-pending.json' : 'load-pod-running.json');
  }

  private print(lines: string[]): void {
    for (const l of lines) {
      this.printed.push(l);
      if (this.loadLogRes && !this.loadLogRes.destroyed) this.loadLogRes.write(`${l}\n`);
    }
  }

  /** The agent's followed log: a line every PACE_MS, as the agent prints them. */
  private follow(res: ServerResponse): void {
    this.loadLogRes = res;
    const lines = this.agent.mode === 'all' ? okLog : stoppedLog.slice(0, 3);
    let i = 0;
    const next = (): void => {
      if (res.destroyed || this.loadPod !== 'live') return;
      if (i < lines.length) {
        this.print([lines[i++]!]);
        setTimeout(next, PACE_MS);
      } else if (this.agent.mode === 'all') res.end(); // the agent exited after its result
    };
    next();
  }

  /** The kubelet's summary with the target container's readings taken now (to the millisecond here, so that a 2 s cell gets several). */
  private summary(): unknown {
    const s = fixture<{ pods: { podRef: { name: string }; containers: { name: string; cpu: { time: string; usageCoreNanoSeconds: number }; memory: { time: string } }[] }[] }>('summary.json');
    const now = Date.now();
    const c = s.pods.find((p) => p.podRef.name === TARGET_POD)!.containers.find((x) => x.name === 'app')!;
    c.cpu.time = c.memory.time = new Date(now).toISOString();
    c.cpu.usageCoreNanoSeconds += (now - this.t0) * CPU_NS_PER_MS;
    return s;
  }

  /** What still exists in the cluster. */
  left(): string[] {
    return [
      ...(this.ns === 'active' || this.ns === 'terminating' ? [`namespace ${NS}`] : []),
      ...(this.deployment === 'live' || this.deployment === 'deleting' ? [`deployment ${NS}/cell-3`] : []),
      ...(this.loadPod === 'live' || this.loadPod === 'terminating' ? [`pod ${NS}/load-3`] : []),
    ];
  }
}

/** A Docker engine that tags and pushes (the images the cluster pulls). */
async function fakeEngine(): Promise<FakeApi> {
  const e = await new FakeApi().start();
  e.on('POST', /^\/images\/.+\/tag$/, { status: 201, text: '' });
  e.on('POST', /^\/images\/.+\/push$/, { json: {}, contentType: 'application/json' });
  return e;
}

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
  // The history already holds runs 1–6 and two cells, so this run is run 7 and its cell is cell 3: the recorded scene.
  const run = (name: string): number => store.createRun({ name, preset: null, matrix: { apps: ['hello'] }, host, ownerSession: currentSession(), cellsTotal: 1 });
  for (let i = 1; i <= 6; i++) store.finishRun(run(`earlier ${i}`), 'completed');
  for (let i = 0; i < 2; i++) {
    const id = store.startCell(6, { ...cell, index: i });
    store.finishCell(id, { config: { ...cell, index: i }, status: 'failed', failure: 'an earlier cell', flags: [], startedAt: new Date().toISOString(), finishedAt: new Date().toISOString() });
  }
  runId = run('k8s cell');
  expect(runId).toBe(7);
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
    images: { engine: () => new Docker({ host: u.hostname, port: Number(u.port), protocol: 'http' }), loadAgentImage: async () => AGENT_TAG },
  });
}

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
    expect(events.filter((e) => e.type === 'sample')).toHaveLength(2);
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
      plan: { host: '10.244.2.17', port: 3000, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 16 }, durationSec: 2, warmupSec: 1, maxWarmupSec: warmupCapSec(1), timeoutSec: 10, threads: 2 },
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
    const { result, stored, samples, cellRequests, removed } = await runOneCell(provider(), { onEvent: (e) => e.type === 'sample' && (cluster.oom = true) });

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
      onEvent: (e) => e.type === 'sample' && ctl.abort(),
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

