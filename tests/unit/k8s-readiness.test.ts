// Readiness decided in the cluster (this machine cannot reach a pod IP): the pod Ready (its
// readinessProbe on the health path) and every worker up from the target's own log lines (the
// cluster launcher's "all N listening", N distinct pids, PM2's instances). Against the fake API
// server replaying recorded pods and logs, not a live cluster.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { workersUp } from '../../src-main/providers/kubernetes/workers.ts';
import type { ProvisionedTarget, TargetSpec } from '../../src-main/providers/provider.ts';
import { FakeApi, fixture, fixtureText, listOf, status } from './k8s-fake-api.ts';

const PODS = '/api/v1/namespaces/rightsize-run-7/pods';
const LOG = `${PODS}/cell-3-6b8f5d7c9d-k2x7p/log`;
const DEPLOYMENT = '/apis/apps/v1/namespaces/rightsize-run-7/deployments/cell-3';

const spec = (mode: TargetSpec['launch']['mode'], workers: number): TargetSpec & { health: string } => ({
  image: 'registry.example.com/rightsize/app:9c1e2f3',
  launch: { mode, workers, entry: '/srv/apps/hello/server.js', name: 'hello' },
  port: 3000,
  env: {},
  cpuMillis: 500,
  memoryMb: 512,
  labels: { run: '7', cell: '3', app: 'hello', session: 's' },
  health: '/health',
});

describe('workersUp: every worker up, from the log', () => {
  it('cluster mode: the launcher says all N listen', () => {
    expect(workersUp(fixtureText('target-log-cluster-starting.txt'), { mode: 'cluster' }, 2)).toEqual({ up: false, waiting: 'waiting for the launcher\'s "all 2 workers listening"' });
    expect(workersUp(fixtureText('target-log-cluster.txt'), { mode: 'cluster' }, 2)).toEqual({ up: true });
  });

  it("PM2: N distinct pids among the app's lines; an app that prints none is taken at PM2's word", () => {
    expect(workersUp(fixtureText('target-log-pm2-starting.txt'), { mode: 'pm2' }, 2)).toEqual({ up: false, waiting: '1 of 2 worker processes listening' });
    expect(workersUp(fixtureText('target-log-pm2.txt'), { mode: 'pm2' }, 2)).toEqual({ up: true });
    const quiet = fixtureText('target-log-pm2.txt').split('\n').filter((l) => !l.startsWith('rightsize:')).join('\n');
    expect(workersUp(quiet, { mode: 'pm2' }, 2)).toEqual({ up: true });
    expect(workersUp(quiet, { mode: 'pm2' }, 3)).toEqual({ up: false, waiting: '2 of 3 PM2 instances online' });
  });

  it('one process: the pod being Ready is all', () => {
    expect(workersUp('', { mode: 'single' }, 1)).toEqual({ up: true });
    expect(workersUp('', { mode: 'image' }, 4)).toEqual({ up: true });
  });
});

describe('KubernetesTarget.waitReady', () => {
  let api: FakeApi;
  beforeEach(async () => {
    api = await new FakeApi().start();
    api.on('POST', '/api/v1/namespaces', { status: 201, json: fixture('namespace-created.json') });
    api.on('POST', '/apis/apps/v1/namespaces/rightsize-run-7/deployments', { status: 201, json: fixture('deployment-created.json') });
    api.on('DELETE', DEPLOYMENT, { json: fixture('deployment-deleting.json') });
    api.on('GET', DEPLOYMENT, () => (api.calls('DELETE', DEPLOYMENT).length ? status(404, 'status-404-deployment.json') : { json: fixture('deployment-created.json') }));
  });
  afterEach(async () => {
    await api.close();
  });

  const start = async (s: TargetSpec, pods: () => V1Pod[]): Promise<ProvisionedTarget> => {
    api.on('GET', PODS, () => listOf('PodList', pods()));
    return new KubernetesProvider({ name: 'lab', kubeConfig: api.kubeConfig(), pollMs: 5, readyTimeoutMs: 2000, removeTimeoutMs: 2000 }).provision(s);
  };
  const notReady = (): V1Pod => {
    const p = fixture<V1Pod>('pod-running.json');
    p.status!.conditions = p.status!.conditions!.map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False', reason: 'ContainersNotReady' } : c));
    return p;
  };

  it('sends the readinessProbe on the health path in the Deployment', async () => {
    const t = await start(spec('cluster', 2), () => [fixture<V1Pod>('pod-running.json')]);
    const body = api.calls('POST', '/apis/apps/v1/namespaces/rightsize-run-7/deployments')[0]!.body as { spec: { template: { spec: { containers: { readinessProbe: unknown }[] } } } };
    expect(body.spec.template.spec.containers[0]!.readinessProbe).toEqual({ httpGet: { path: '/health', port: 'http' }, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
    await t.remove();
  });

  it('waits for the pod to be Ready again and for the launcher\'s "all N listening" line (cluster mode)', async () => {
    let pod = fixture<V1Pod>('pod-running.json');
    const t = await start(spec('cluster', 2), () => [pod]);
    pod = notReady(); // the probe failed once since: Ready is asked for again
    const logs = [fixtureText('target-log-cluster-starting.txt'), fixtureText('target-log-cluster-starting.txt'), fixtureText('target-log-cluster.txt')];
    api.on('GET', LOG, ...logs.map((text) => ({ text })));
    const ready = t.waitReady!({ workers: 2, deadlineMs: 2000 });
    while (api.calls('GET', PODS).length < 4) await new Promise((r) => setImmediate(r));
    expect(api.calls('GET', LOG)).toHaveLength(0); // not Ready: no log read yet
    pod = fixture<V1Pod>('pod-running.json');
    const r = await ready;
    expect(r.ms).toBeGreaterThanOrEqual(0);
    const reads = api.calls('GET', LOG);
    expect(reads).toHaveLength(3);
    // The current instance's log from its start (where the workers' lines are), not a tail.
    expect(Object.fromEntries(reads[0]!.query)).toEqual({ container: 'app', limitBytes: String(1 << 20) });
    await t.remove();
  });

  it('waits for N distinct worker pids in PM2 mode', async () => {
    const t = await start(spec('pm2', 2), () => [fixture<V1Pod>('pod-running.json')]);
    api.on('GET', LOG, { text: fixtureText('target-log-pm2-starting.txt') }, { text: fixtureText('target-log-pm2.txt') });
    await t.waitReady!({ workers: 2, deadlineMs: 2000 });
    expect(api.calls('GET', LOG)).toHaveLength(2);
    await t.remove();
  });

  it('says what it still waits for when the deadline passes', async () => {
    const t = await start(spec('cluster', 2), () => [fixture<V1Pod>('pod-running.json')]);
    api.on('GET', LOG, { text: fixtureText('target-log-cluster-starting.txt') });
    await expect(t.waitReady!({ workers: 2, deadlineMs: 50 })).rejects.toThrow('not ready within 0 s (waiting for the launcher\'s "all 2 workers listening")');
    await t.remove();
  });

  it('fails at once when the container stops before it is ready, and on abort', async () => {
    let pod = fixture<V1Pod>('pod-running.json');
    const t = await start(spec('cluster', 2), () => [pod]);
    api.on('GET', LOG, { text: fixtureText('target-log-cluster-starting.txt') });
    pod = fixture<V1Pod>('pod-oomkilled.json');
    await expect(t.waitReady!({ workers: 2, deadlineMs: 5000 })).rejects.toThrow('the app exited with code 137 (OOMKilled) before it was ready');
    await t.remove();

    pod = fixture<V1Pod>('pod-running.json');
    const u = await start(spec('cluster', 2), () => [pod]);
    const ctl = new AbortController();
    ctl.abort();
    await expect(u.waitReady!({ workers: 2, deadlineMs: 5000, signal: ctl.signal })).rejects.toThrow('cancelled');
    await u.remove();
  });
});
