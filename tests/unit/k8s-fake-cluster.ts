// The recorded Kubernetes scene the cell tests replay (tests/fixtures/k8s): run 7, cell 3 on a
// two-node cluster, as the fake API server plays it, and a fake Docker engine that tags and pushes.
// Shared by the unit test of one cell (k8s-cell.test.ts) and the integration test of a whole run.
import type { ServerResponse } from 'node:http';
import type { V1Pod } from '@kubernetes/client-node';
import Docker from 'dockerode';
import type { CellConfig, HostFacts } from '../../src-main/model/types.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { currentSession } from '../../src-main/session/session.ts';
import type { Store } from '../../src-main/store/index.ts';
import { FakeApi, fixture, fixtureText, listOf, status } from './k8s-fake-api.ts';

// The recorded scene: run 7, cell 3 (hello, cluster mode with 2 workers, 500m / 512Mi).
export const NS = 'rightsize-run-7';
export const NAMESPACES = '/api/v1/namespaces';
export const RUN_NS = `${NAMESPACES}/${NS}`;
export const PODS = `${RUN_NS}/pods`;
export const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
export const DEPLOYMENT = `${DEPLOYMENTS}/cell-3`;
export const TARGET_POD = 'cell-3-6b8f5d7c9d-k2x7p';
export const TARGET_LOG = `${PODS}/${TARGET_POD}/log`;
export const LOAD_POD = `${PODS}/load-3`;
export const LOAD_LOG = `${LOAD_POD}/log`;
export const SUMMARY = '/api/v1/nodes/worker-b/proxy/stats/summary';
export const CADVISOR = '/api/v1/nodes/worker-b/proxy/metrics/cadvisor';

export const APP_TAG = 'rightsize/app-hello:9c1e2f3a4b5c6d7e';
export const APP_REF = `registry.example.com/rightsize/${APP_TAG}`;
export const AGENT_TAG = 'rightsize/load-agent:4f2a9c0d1e3b5a7c';
export const AGENT_REF = `registry.example.com/rightsize/${AGENT_TAG}`;

/** One agent "second" takes this long here, so that a 1 s warmup + 2 s cell runs in well under a second. */
export const PACE_MS = 120;
/** The fake kubelet's CPU rate for the target: 0.4 cores, i.e. 80 % of its 500m cap. */
export const CPU_NS_PER_MS = 400_000;

export const okLog = fixtureText('load-agent-log-2s.txt').split('\n').filter(Boolean);
export const stoppedLog = fixtureText('load-agent-log-stopped.txt').split('\n').filter(Boolean);
export type ResultLine = { type: 'result'; result: Record<string, unknown>; cancelled: boolean };
export const resultOf = (lines: string[]): ResultLine => JSON.parse(lines.at(-1)!) as ResultLine;


/**
 * A cluster as the API server shows it, one object at a time: the run's namespace, the cell's
 * Deployment and the pod its ReplicaSet makes (no pod yet, ContainerCreating, Running and Ready on
 * worker-b), the load pod (Pending on worker-a, Running; terminating after a delete with a grace;
 * gone after grace 0), their logs, the nodes and worker-b's kubelet. What exists is tracked, so a
 * test can say that nothing is left.
 */
export class FakeCluster {
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
export async function fakeEngine(): Promise<FakeApi> {
  const e = await new FakeApi().start();
  e.on('POST', /^\/images\/.+\/tag$/, { status: 201, text: '' });
  e.on('POST', /^\/images\/.+\/push$/, { json: {}, contentType: 'application/json' });
  return e;
}


/** The host the scene's history was recorded on. */
export const host: HostFacts = {
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

/** The scene's cell: hello, cluster mode with 2 workers, 500m / 512Mi. */
export const SCENE_CELL: CellConfig = {
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
 * The history before the scene: runs 1–6 and two cells, so that the next run is run 7 and its first
 * cell is cell 3. Returns a maker of more runs.
 */
export function historyBeforeTheScene(store: Store): (name: string) => number {
  const run = (name: string): number => store.createRun({ name, preset: null, matrix: { apps: ['hello'] }, host, ownerSession: currentSession(), cellsTotal: 1 });
  for (let i = 1; i <= 6; i++) store.finishRun(run(`earlier ${i}`), 'completed');
  for (let i = 0; i < 2; i++) {
    const id = store.startCell(6, { ...SCENE_CELL, index: i });
    store.finishCell(id, { config: { ...SCENE_CELL, index: i }, status: 'failed', failure: 'an earlier cell', flags: [], startedAt: new Date().toISOString(), finishedAt: new Date().toISOString() });
  }
  return run;
}

/** The target the scene plays: the fake API server's cluster, images pushed through the fake engine. */
export function sceneProvider(api: FakeApi, engine: FakeApi): KubernetesProvider {
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
