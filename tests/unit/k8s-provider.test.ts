// The Kubernetes provider end to end against a fake API server (a real local HTTP server replaying
// recorded Kubernetes responses, tests/fixtures/k8s): what it sends (namespace, Deployment, delete
// options, label selectors, node-proxy paths, credentials), how it waits for readiness, what it
// reads back (stats, exit info), and the cleanup on finish, cancel and sweep. Verified against
// recorded API responses, not a live cluster: no API server can run on this machine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import type { StatsReading, TargetSpec } from '../../src-main/providers/provider.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { deploymentManifest, namespaceManifest } from '../../src-main/providers/kubernetes/manifests.ts';
import { isSessionAlive } from '../../src-main/session/session.ts';
import { FakeApi, fixture, fixtureText, listOf, status } from './k8s-fake-api.ts';

const SESSION = 'laptop~0a1b2c3d4e5f6a7b.9f8e7d6c5b4a:4242:123456';
const NS = '/api/v1/namespaces';
const RUN_NS = `${NS}/rightsize-run-7`;
const DEPLOYMENTS = '/apis/apps/v1/namespaces/rightsize-run-7/deployments';
const DEPLOYMENT = `${DEPLOYMENTS}/cell-3`;
const PODS = `${RUN_NS}/pods`;
const POD = 'cell-3-6b8f5d7c9d-k2x7p';
const LOG = `${PODS}/${POD}/log`;
const SUMMARY = '/api/v1/nodes/worker-b/proxy/stats/summary';
const CADVISOR = '/api/v1/nodes/worker-b/proxy/metrics/cadvisor';

const spec: TargetSpec = {
  image: 'registry.example.com/rightsize/app:9c1e2f3',
  launch: { mode: 'cluster', workers: 2, entry: '/srv/apps/hello/server.js', name: 'hello' },
  port: 3000,
  env: { NODE_ENV: 'production' },
  cpuMillis: 500,
  memoryMb: 512,
  labels: { run: '7', cell: '3', app: 'hello', session: SESSION },
};

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await api.close();
});

const provider = (over: Partial<ConstructorParameters<typeof KubernetesProvider>[0]> = {}): KubernetesProvider =>
  new KubernetesProvider({ name: 'lab', kubeConfig: api.kubeConfig(), pollMs: 5, statsEveryMs: 5, readyTimeoutMs: 10_000, removeTimeoutMs: 5_000, ...over });

/** Resolves once `n` requests matching method and path have been recorded (polling the record, not the clock). */
async function seen(method: string, path: string, n: number): Promise<void> {
  while (api.calls(method, path).length < n) await new Promise((r) => setImmediate(r));
}

/** The routes of a cell that starts: pods pending, then creating, then running. */
function startingCell(pods: (V1Pod[] | (() => V1Pod[]))[]): void {
  api.on('POST', NS, { status: 201, json: fixture('namespace-created.json') });
  api.on('POST', DEPLOYMENTS, { status: 201, json: fixture('deployment-created.json') });
  // Gone once deleted, as with a real API server once the Foreground deletion has finished.
  api.on('GET', DEPLOYMENT, () => (api.calls('DELETE', DEPLOYMENT).length ? status(404, 'status-404-deployment.json') : { json: fixture('deployment-created.json') }));
  api.on('GET', PODS, ...pods.map((p) => () => listOf('PodList', typeof p === 'function' ? p() : p)));
  api.on('DELETE', DEPLOYMENT, { json: fixture('deployment-deleting.json') });
}

const running = (): V1Pod => fixture<V1Pod>('pod-running.json');

describe('provision', () => {
  it('makes the namespace and the Deployment exactly, waits for the pod to be Ready, and returns its IP and node', async () => {
    startingCell([[], [fixture<V1Pod>('pod-unschedulable.json')], [fixture<V1Pod>('pod-creating.json')], [running()]]);
    const target = await provider().provision(spec);

    expect(target.id).toBe('rightsize-run-7/cell-3');
    expect(target.address).toEqual({ host: '10.244.2.17', port: 3000 });
    expect(target.node).toBe('worker-b');

    const [ns] = api.calls('POST', NS);
    expect(ns!.body).toEqual(namespaceManifest('7', SESSION));
    const [dep] = api.calls('POST', DEPLOYMENTS);
    // What went over the wire is the whole manifest: client-node's serializer dropped nothing.
    expect(dep!.body).toEqual(JSON.parse(JSON.stringify(deploymentManifest(spec, { spread: 'required' }))));
    expect(dep!.body).toMatchObject({ spec: { template: { spec: { containers: [{ resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '500m', memory: '512Mi' } } }] } } } });
    expect(dep!.headers.authorization).toBe('Bearer fake-token-123');

    const polls = api.calls('GET', PODS);
    expect(polls.length).toBeGreaterThanOrEqual(4); // no pod, unschedulable, creating, ready
    expect(polls[0]!.query.get('labelSelector')).toBe('rightsize.dev/run=7,rightsize.dev/cell=3,rightsize.dev/role=target');
    // The first poll found no pod: it checked that the Deployment still exists (not cancelled).
    expect(api.calls('GET', DEPLOYMENT).length).toBeGreaterThanOrEqual(1);
    await target.remove();
  });

  it('fails in words on a pod that cannot pull its image, with the log tail, and removes the Deployment', async () => {
    startingCell([[fixture<V1Pod>('pod-imagepullbackoff.json')]]);
    api.on('GET', LOG, { status: 400, json: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `container "app" in pod "${POD}" is waiting to start: trying and failing to pull image`, reason: 'BadRequest', code: 400 } });
    api.on('GET', DEPLOYMENT, { json: fixture('deployment-deleting.json') }, status(404, 'status-404-deployment.json'));
    await expect(provider().provision(spec)).rejects.toThrow(
      'Cell 3 did not start (rightsize-run-7/cell-3): ImagePullBackOff: Back-off pulling image "registry.example.com/rightsize/app:9c1e2f3"',
    );
    const del = api.calls('DELETE', DEPLOYMENT);
    expect(del).toHaveLength(1);
    expect(del[0]!.query.get('propagationPolicy')).toBe('Foreground');
  });

  it('says that no node is free when the pod stays unschedulable, and removes the Deployment', async () => {
    startingCell([[fixture<V1Pod>('pod-unschedulable.json')]]);
    api.on('GET', DEPLOYMENT, status(404, 'status-404-deployment.json'));
    await expect(provider({ readyTimeoutMs: 30 }).provision(spec)).rejects.toThrow(
      /^Cell 3 no node free for it after 0 s \(rightsize-run-7\/cell-3\): not scheduled: 0\/3 nodes are available: 1 node\(s\) had untolerated taint/,
    );
    expect(api.calls('DELETE', DEPLOYMENT)).toHaveLength(1);
  });

  it('stops waiting when the run is cancelled while the cell starts (its namespace deleted)', async () => {
    startingCell([[]]);
    api.on('GET', DEPLOYMENT, status(404, 'status-404-deployment.json'));
    await expect(provider().provision(spec)).rejects.toThrow('Cell 3 was removed while it started (rightsize-run-7/cell-3 is gone)');
  });

  it('uses the run namespace made by an earlier cell, and refuses a namespace that is not ours', async () => {
    startingCell([[running()]]);
    api.on('POST', NS, status(409, 'status-409-namespace.json'));
    api.on('GET', RUN_NS, { json: fixture('namespace-created.json') });
    const t = await provider().provision(spec);
    expect(api.calls('POST', DEPLOYMENTS)).toHaveLength(1);
    await t.remove();

    const foreign = fixture<{ metadata: { labels: Record<string, string> } }>('namespace-created.json');
    foreign.metadata.labels = { 'kubernetes.io/metadata.name': 'rightsize-run-7' };
    api.on('GET', RUN_NS, { json: foreign });
    await expect(provider().provision(spec)).rejects.toThrow("namespace rightsize-run-7 exists and is not Rightsize's");
  });

  it('waits out a namespace of the same run that is still being deleted, then makes it again', async () => {
    startingCell([[running()]]);
    api.on('POST', NS, status(409, 'status-409-namespace.json'), { status: 201, json: fixture('namespace-created.json') });
    api.on('GET', RUN_NS, { json: fixture('namespace-terminating.json') }, { json: fixture('namespace-terminating.json') }, status(404, 'status-404-namespace.json'));
    const t = await provider().provision(spec);
    expect(api.calls('POST', NS)).toHaveLength(2);
    expect(api.calls('GET', RUN_NS).length).toBeGreaterThanOrEqual(3);
    await t.remove();
  });
});

describe('a running target', () => {
  it("streams the kubelet's readings through the node proxy, passing on only new ones, until stopped", async () => {
    startingCell([[running()]]);
    const target = await provider().provision(spec);
    api.on('GET', SUMMARY, { json: fixture('summary.json') }, { json: fixture('summary.json') }, { json: fixture('summary-later.json') });
    api.on('GET', CADVISOR, { text: fixtureText('cadvisor.txt') }, { text: fixtureText('cadvisor-later.txt') });
    const readings: StatsReading[] = [];
    let gotTwo!: () => void;
    const two = new Promise<void>((r) => (gotTwo = r));
    const stop = await target.stats((r) => {
      readings.push(r);
      if (readings.length === 2) gotTwo();
    });
    expect(readings).toHaveLength(1); // the first poll is done before stats() returns
    await two;
    stop();
    expect(readings[0]).toEqual({ atMs: Date.parse('2026-11-20T10:15:30Z'), cpuNs: 12345678901, memBytes: 98304000, memLimitBytes: 536870912, throttledPeriods: 187, throttledNs: 9482311000, memPeakBytes: 117440512 });
    expect(readings[1]).toEqual({ atMs: Date.parse('2026-11-20T10:15:45Z'), cpuNs: 19518532741, memBytes: 101449728, memLimitBytes: 536870912, throttledPeriods: 301, throttledNs: 15873004000, memPeakBytes: 120586240 });
    // The second summary repeated the first (the kubelet had not refreshed): it was not passed on.
    expect(api.calls('GET', SUMMARY).length).toBeGreaterThanOrEqual(3);
    const s = api.calls('GET', SUMMARY)[0]!;
    expect(s.url).toBe(`${SUMMARY}?only_cpu_and_memory=true`); // the '/' in stats/summary is not percent-encoded
    expect(s.headers.authorization).toBe('Bearer fake-token-123');
    expect(api.calls('GET', CADVISOR)[0]!.url).toBe(CADVISOR);
    // cAdvisor's (large) page was read only when the summary had moved: twice for three summaries.
    expect(api.calls('GET', CADVISOR)).toHaveLength(2);

    // Stopped: the exit watch goes on polling the pod, the stats polls do not.
    const after = api.calls('GET', SUMMARY).length;
    await seen('GET', PODS, api.calls('GET', PODS).length + 5);
    expect(api.calls('GET', SUMMARY).length).toBe(after);
    await target.remove();
  });

  it('reads OOM kills, the exit code and restarts (pod status, worker log lines, cAdvisor OOM events), and the log with the crashed instance first', async () => {
    let pod = running();
    startingCell([() => [pod]]);
    const target = await provider().provision(spec);
    pod = fixture<V1Pod>('pod-oomkilled.json');
    api.on('GET', LOG, (r) => ({
      text: r.query.get('previous') === 'true' ? 'listening on 3000\nrightsize:worker-replaced pid=41 code=null signal=SIGKILL\n' : 'listening on 3000\nrightsize:worker-replaced pid=57 code=1 signal=null\nok\n',
    }));
    api.on('GET', CADVISOR, { text: fixtureText('cadvisor-after-restart.txt') });
    expect(await target.exitInfo()).toEqual({ oomKilled: true, exitCode: 137, restarts: 1 + 2 });
    expect(await target.logTail(3)).toBe('listening on 3000\nrightsize:worker-replaced pid=57 code=1 signal=null\nok');
    const logs = api.calls('GET', LOG);
    expect(logs.some((l) => l.query.get('previous') === 'true' && l.query.get('container') === 'app')).toBe(true);
    expect(logs.every((l) => l.query.get('tailLines') !== null)).toBe(true);
    await target.remove();
  });

  it('resolves `exited` with the exit code when the container restarts by itself', async () => {
    let pod = running();
    startingCell([() => [pod]]);
    const target = await provider().provision(spec);
    pod = fixture<V1Pod>('pod-oomkilled.json');
    expect(await target.exited).toBe(137);
    await target.remove();
  });

  it('resolves `exited` with -1 when the pod is gone (evicted, or the run removed under it) and stops watching', async () => {
    let pods: V1Pod[] = [running()];
    startingCell([() => pods]);
    const target = await provider().provision(spec);
    pods = [];
    expect(await target.exited).toBe(-1);
    const polls = api.calls('GET', PODS).length;
    // The watch ended: while five stats polls (on the same period) go by, no pod poll does.
    api.on('GET', SUMMARY, { json: fixture('summary.json') });
    api.on('GET', CADVISOR, { text: fixtureText('cadvisor.txt') });
    const stop = await target.stats(() => {});
    await seen('GET', SUMMARY, 5);
    stop();
    expect(api.calls('GET', PODS).length).toBe(polls);
    await target.remove();
  });

  it('removes its Deployment (Foreground, no grace) and waits until it is gone; a second remove is harmless', async () => {
    startingCell([[running()]]);
    const target = await provider().provision(spec);
    api.on('GET', DEPLOYMENT, { json: fixture('deployment-deleting.json') }, { json: fixture('deployment-deleting.json') }, status(404, 'status-404-deployment.json'));
    api.on('DELETE', DEPLOYMENT, { json: fixture('deployment-deleting.json') }, status(404, 'status-404-deployment.json'));
    await target.remove();
    expect(await target.exited).toBe(-1);
    const [del] = api.calls('DELETE', DEPLOYMENT);
    expect(del!.query.get('propagationPolicy')).toBe('Foreground');
    expect(del!.query.get('gracePeriodSeconds')).toBe('0');
    expect(api.calls('GET', DEPLOYMENT).length).toBeGreaterThanOrEqual(3);
    await target.remove();
    expect(api.calls('DELETE', DEPLOYMENT)).toHaveLength(2);
  });
});

describe('run cleanup', () => {
  it('removeRun deletes the run namespace (Foreground) and waits until it is gone', async () => {
    api.on('DELETE', RUN_NS, { json: fixture('namespace-terminating.json') });
    api.on('GET', RUN_NS, { json: fixture('namespace-terminating.json') }, { json: fixture('namespace-terminating.json') }, status(404, 'status-404-namespace.json'));
    expect(await provider().removeRun('7')).toEqual(['namespace rightsize-run-7']);
    const [del] = api.calls('DELETE', RUN_NS);
    expect(del!.query.get('propagationPolicy')).toBe('Foreground');
    expect(api.calls('GET', RUN_NS)).toHaveLength(3);
  });

  it('removeRun deletes the run\'s load pods at once (grace 0) before the namespace, and names them', async () => {
    api.on('GET', PODS, { json: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '49000' }, items: [fixture('load-pod-running.json')] } });
    api.on('DELETE', `${PODS}/load-3`, { json: fixture('load-pod-deleting.json') });
    api.on('DELETE', RUN_NS, { json: fixture('namespace-terminating.json') });
    api.on('GET', RUN_NS, status(404, 'status-404-namespace.json'));
    expect(await provider().removeRun('7')).toEqual(['load pod rightsize-run-7/load-3', 'namespace rightsize-run-7']);
    expect(api.calls('GET', PODS)[0]!.query.get('labelSelector')).toBe('rightsize.dev/run=7,rightsize.dev/role=load');
    const deletes = api.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => [r.pathname, r.query.get('gracePeriodSeconds')])).toEqual([
      [`${PODS}/load-3`, '0'],
      [RUN_NS, '0'],
    ]);
  });

  it('removeRun and provision use the namespace of the saved prefix', async () => {
    api.on('DELETE', '/api/v1/namespaces/team-a-run-7', { json: fixture('namespace-terminating.json') });
    api.on('GET', '/api/v1/namespaces/team-a-run-7', status(404, 'status-404-namespace.json'));
    expect(await provider({ namespacePrefix: 'team-a' }).removeRun('7')).toEqual(['namespace team-a-run-7']);
    expect(api.calls('GET', '/api/v1/namespaces/team-a-run-7/pods')).toHaveLength(1);

    api.on('POST', NS, { status: 201, json: fixture('namespace-created.json') });
    api.on('POST', '/apis/apps/v1/namespaces/team-a-run-7/deployments', { status: 201, json: fixture('deployment-created.json') });
    api.on('GET', '/api/v1/namespaces/team-a-run-7/pods', () => listOf('PodList', [running()]));
    api.on('DELETE', '/apis/apps/v1/namespaces/team-a-run-7/deployments/cell-3', { json: fixture('deployment-deleting.json') });
    api.on('GET', '/apis/apps/v1/namespaces/team-a-run-7/deployments/cell-3', status(404, 'status-404-deployment.json'));
    const t = await provider({ namespacePrefix: 'team-a' }).provision(spec);
    expect(t.id).toBe('team-a-run-7/cell-3');
    expect(api.calls('POST', NS)[0]!.body).toEqual(namespaceManifest('7', SESSION, 'team-a'));
    expect((api.calls('POST', '/apis/apps/v1/namespaces/team-a-run-7/deployments')[0]!.body as { metadata: { namespace: string } }).metadata.namespace).toBe('team-a-run-7');
    await t.remove();
  });

  it('removeRun of a run that left nothing removes nothing', async () => {
    api.on('DELETE', RUN_NS, status(404, 'status-404-namespace.json'));
    expect(await provider().removeRun('7')).toEqual([]);
    expect(api.calls('GET', RUN_NS)).toHaveLength(0);
  });

  it('removeRun says when the namespace is still terminating at the bound', async () => {
    api.on('DELETE', RUN_NS, { json: fixture('namespace-terminating.json') });
    api.on('GET', RUN_NS, { json: fixture('namespace-terminating.json') });
    expect(await provider({ removeTimeoutMs: 20 }).removeRun('7')).toEqual(['namespace rightsize-run-7 (deleted, still terminating after 0.02 s)']);
  });

  it("sweep deletes dead sessions' load pods (at once, wherever they are) and namespaces only, found by labels and read from the session annotation", async () => {
    api.on('GET', '/api/v1/pods', { json: fixture('load-pods-all-namespaces.json') });
    api.on('DELETE', '/api/v1/namespaces/rightsize-run-5/pods/load-12', { json: fixture('load-pod-deleting.json') });
    api.on('GET', NS, { json: fixture('namespaces-rightsize.json') });
    api.on('DELETE', /^\/api\/v1\/namespaces\/rightsize-run-\d+$/, { json: fixture('namespace-terminating.json') });
    const asked: string[] = [];
    const removed = await provider().sweep((s) => {
      asked.push(s);
      return s.includes(':4242:');
    });
    expect(removed).toEqual(['load pod rightsize-run-5/load-12', 'namespace rightsize-run-5']);
    expect(api.calls('GET', '/api/v1/pods')[0]!.query.get('labelSelector')).toBe('rightsize.dev/product=rightsize,rightsize.dev/role=load');
    expect(api.calls('GET', NS)[0]!.query.get('labelSelector')).toBe('rightsize.dev/product=rightsize');
    const deletes = api.requests.filter((r) => r.method === 'DELETE');
    expect(deletes.map((r) => r.pathname)).toEqual(['/api/v1/namespaces/rightsize-run-5/pods/load-12', '/api/v1/namespaces/rightsize-run-5']);
    expect(deletes[0]!.query.get('gracePeriodSeconds')).toBe('0');
    // Load pods first (this session's load-3 is alive); rightsize-run-4 is already terminating: not asked about, not deleted again.
    const dead = 'laptop~0a1b2c3d4e5f6a7b.9f8e7d6c5b4a:3111:99887';
    expect(asked).toEqual([dead, SESSION, dead, SESSION]);
  });

  it("sweep with the real liveness check leaves other machines' sessions alone", async () => {
    api.on('GET', '/api/v1/pods', { json: fixture('load-pods-all-namespaces.json') });
    api.on('GET', NS, { json: fixture('namespaces-rightsize.json') });
    expect(await provider().sweep(isSessionAlive)).toEqual([]);
    expect(api.requests.filter((r) => r.method === 'DELETE')).toHaveLength(0);
  });
});
