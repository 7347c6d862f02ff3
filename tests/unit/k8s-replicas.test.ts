// A replicated cell on Kubernetes against the fake API server (recorded responses, tests/fixtures/k8s):
// one Deployment of R pods, each pod followed as a replica of its own once all exist, the load over
// the pods' IPs and its agent kept off every replica's node. Verified against recorded API
// responses, not a live cluster: no API server can run on this machine.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { deploymentManifest, loadPodManifest } from '../../src-main/providers/kubernetes/manifests.ts';
import { replicaPod } from '../../src-main/providers/kubernetes/pod-status.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import type { TargetSpec } from '../../src-main/providers/provider.ts';
import { FakeApi, fixture, listOf, status } from './k8s-fake-api.ts';

const SESSION = 'laptop~0a1b2c3d4e5f6a7b.9f8e7d6c5b4a:4242:123456';
const NS = '/api/v1/namespaces';
const PODS = `${NS}/rightsize-run-7/pods`;
const DEPLOYMENTS = '/apis/apps/v1/namespaces/rightsize-run-7/deployments';
const DEPLOYMENT = `${DEPLOYMENTS}/cell-3`;

const spec: TargetSpec = {
  image: 'registry.example.com/rightsize/app:9c1e2f3',
  launch: { mode: 'cluster', workers: 2, entry: '/srv/apps/hello/server.js', name: 'hello' },
  port: 3000,
  env: { NODE_ENV: 'production' },
  cpuMillis: 500,
  memoryMb: 512,
  replicas: 2,
  labels: { run: '7', cell: '3', app: 'hello', session: SESSION },
};

/** The recorded Ready pod on worker-b, and a second pod of the same ReplicaSet on worker-a (name, IP, node changed). */
const onB = (): V1Pod => fixture<V1Pod>('pod-running.json');
const onA = (): V1Pod => {
  const p = onB();
  p.metadata!.name = 'cell-3-6b8f5d7c9d-a9zzq';
  p.spec!.nodeName = 'worker-a';
  p.status!.podIP = '10.244.1.9';
  p.status!.podIPs = [{ ip: '10.244.1.9' }];
  p.status!.hostIP = '10.0.1.11';
  return p;
};

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await api.close();
});

const provider = (): KubernetesProvider =>
  new KubernetesProvider({ name: 'lab', kubeConfig: api.kubeConfig(), pollMs: 5, statsEveryMs: 5, readyTimeoutMs: 10_000, removeTimeoutMs: 5_000 });

describe('a replicated cell on Kubernetes (recorded API responses)', () => {
  it('one Deployment of 2 pods; each replica follows a pod of its own once both exist; the load goes to both IPs', async () => {
    api.on('POST', NS, { status: 201, json: fixture('namespace-created.json') });
    api.on('POST', DEPLOYMENTS, { status: 201, json: fixture('deployment-created.json') });
    api.on('GET', DEPLOYMENT, () => (api.calls('DELETE', DEPLOYMENT).length ? status(404, 'status-404-deployment.json') : { json: fixture('deployment-created.json') }));
    api.on('DELETE', DEPLOYMENT, { json: fixture('deployment-deleting.json') });
    // First one pod of two (no replica may take it yet: they would not be told apart), then both.
    api.on('GET', PODS, () => listOf('PodList', [onB()]), () => listOf('PodList', [onB()]), () => listOf('PodList', [onB(), onA()]));

    const target = await provider().provision(spec);
    const [dep] = api.calls('POST', DEPLOYMENTS);
    expect(dep!.body).toEqual(JSON.parse(JSON.stringify(deploymentManifest(spec, { spread: 'required' }))));
    expect(dep!.body).toMatchObject({ spec: { replicas: 2 } });
    // Replicas in pod-name order: a9zzq on worker-a, then k2x7p on worker-b.
    expect(target.replicas!.map((r) => [r.id, r.node])).toEqual([
      ['rightsize-run-7/cell-3#1', 'worker-a'],
      ['rightsize-run-7/cell-3#2', 'worker-b'],
    ]);
    expect(target.addresses).toEqual([
      { host: '10.244.1.9', port: 3000 },
      { host: '10.244.2.17', port: 3000 },
    ]);
    expect(target.node).toBe('worker-a, worker-b');
    await target.remove();
    // One Deployment for both: deleted (each replica's removal asks; the second finds it gone or going).
    expect(api.calls('DELETE', DEPLOYMENT).length).toBeGreaterThanOrEqual(1);
    expect(api.calls('DELETE', DEPLOYMENT)[0]!.query.get('propagationPolicy')).toBe('Foreground');
  });

  it('a lone cell keeps replicas 1 (the manifest as before)', () => {
    const { replicas: _r, ...lone } = spec;
    expect(deploymentManifest(lone, { spread: 'required' }).spec!.replicas).toBe(1);
  });

  it('picks replica i among the live pods by name, only once all of them exist', () => {
    const going = { ...onA(), metadata: { ...onA().metadata, name: 'cell-3-old', deletionTimestamp: new Date() } } as V1Pod;
    expect(replicaPod([onB()], 0, 2)).toBeUndefined();
    expect(replicaPod([onB(), going], 1, 2)).toBeUndefined();
    expect(replicaPod([onB(), onA()], 0, 2)!.metadata!.name).toBe('cell-3-6b8f5d7c9d-a9zzq');
    expect(replicaPod([onB(), onA()], 1, 2)!.metadata!.name).toBe('cell-3-6b8f5d7c9d-k2x7p');
  });

  it("keeps the load pod off every replica's node", () => {
    const pod = loadPodManifest({
      labels: spec.labels,
      image: 'registry.example.com/rightsize/load-agent:1',
      plan: { plan: {} as never, adaptiveWarmup: true },
      threads: 1,
      targetNodes: ['worker-a', 'worker-b'],
      avoid: 'required',
    });
    expect(pod.spec!.affinity!.nodeAffinity!.requiredDuringSchedulingIgnoredDuringExecution).toEqual({
      nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['worker-a', 'worker-b'] }] }],
    });
  });
});
