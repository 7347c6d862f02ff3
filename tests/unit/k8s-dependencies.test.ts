// A cell's dependency on Kubernetes, against recorded API responses (tests/fixtures/k8s; no API server
// can run here): its ConfigMap, Deployment and Service made in the run's namespace before the app, the
// app started only once the dependency's pod is Ready, the app's pod mapping `db` to the cell's own
// Service (hostAliases), the dependency read by the kubelet, and everything deleted with the cell.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { V1ConfigMap, V1Deployment, V1Pod, V1Service } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DependenciesSchema } from '../../src-main/apps/dependencies.ts';
import { checkDependenciesHosted } from '../../src-main/engine/run/limits.ts';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import type { StatsReading, TargetSpec } from '../../src-main/providers/provider.ts';
import { FakeApi, fixture, listOf, status, type Recorded } from './k8s-fake-api.ts';

const NS = '/api/v1/namespaces/rightsize-run-7';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/rightsize-run-7/deployments';
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-k8s-deps-'));
const INIT = path.join(dir, 'init.sql');
writeFileSync(INIT, 'CREATE TABLE products (id int);\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const dependencies = DependenciesSchema.parse([
  {
    name: 'db', image: 'postgres:16', env: { POSTGRES_PASSWORD: 'secret' }, command: ['postgres', '-c', 'max_connections=30'],
    mounts: [{ source: INIT, target: '/docker-entrypoint-initdb.d/init.sql' }],
    healthcheck: { test: ['CMD-SHELL', 'pg_isready -h 127.0.0.1 -U postgres'], timeoutMs: 3000 }, port: 5432, cpuMillis: 1000, memoryMb: 256,
  },
]);
const spec: TargetSpec = {
  image: 'registry.example.com/rightsize/app-hello:9c1e2f3a', launch: { mode: 'single', workers: 1, entry: '/srv/apps/hello/server.js', name: 'hello' },
  port: 3000, env: {}, cpuMillis: 500, memoryMb: 512, labels: { run: '7', cell: '3', app: 'hello', session: 's' }, dependencies,
};

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
  api.on('POST', '/api/v1/namespaces', { status: 201, json: fixture('namespace-created.json') });
  // Creates answer with what was sent, as the API server does (plus what it adds): the app's with its recorded self.
  api.on('POST', `${NS}/configmaps`, (r: Recorded) => ({ status: 201, json: r.body }));
  api.on('POST', DEPLOYMENTS, (r: Recorded) =>
    (r.body as V1Deployment).metadata!.name === 'cell-3' ? { status: 201, json: fixture('deployment-created.json') } : { status: 201, json: r.body });
  api.on('POST', `${NS}/services`, { status: 201, json: fixture('service-created.json') });
  for (const name of ['cell-3', 'dep-3-db']) {
    api.on('DELETE', `${DEPLOYMENTS}/${name}`, { json: fixture('deployment-deleting.json') });
    api.on('GET', `${DEPLOYMENTS}/${name}`, status(404, 'status-404-deployment.json'));
  }
  api.on('DELETE', `${NS}/services/dep-3-db`, { json: fixture('status-deleted.json') });
  api.on('DELETE', `${NS}/configmaps/dep-3-db`, { json: fixture('status-deleted.json') });
  api.on('GET', '/api/v1/nodes/worker-a/proxy/stats/summary', { json: fixture('summary-dependency.json') });
});
afterEach(async () => api.close());

const provider = (): KubernetesProvider =>
  new KubernetesProvider({ name: 'lab', kubeConfig: api.kubeConfig(), pollMs: 5, readyTimeoutMs: 2000, removeTimeoutMs: 2000, statsEveryMs: 50 });

/** The run's pods: the dependency's (creating, then Ready on worker-a) for its selector, the app's otherwise. */
const pods = (dependency: V1Pod[]) => {
  let polls = 0;
  return (r: Recorded) => {
    const selector = r.query.get('labelSelector') ?? '';
    if (!selector.includes('role=dependency')) return listOf('PodList', [fixture<V1Pod>('pod-running.json')]);
    return listOf('PodList', [dependency[Math.min(polls++, dependency.length - 1)]!]);
  };
};

describe('a dependency on Kubernetes', () => {
  it('is made before the app and Ready first; the app maps its name to the cell\'s Service; read by the kubelet; deleted with the cell', async () => {
    api.on('GET', `${NS}/pods`, pods([fixture('dependency-pod-creating.json'), fixture('dependency-pod-running.json')]));
    const t = await provider().provision(spec);
    const made = api.requests.filter((r) => r.method === 'POST').map((r) => `${r.pathname.split('/').at(-1)} ${(r.body as { metadata: { name: string } }).metadata.name}`);
    expect(made).toEqual(['namespaces rightsize-run-7', 'configmaps dep-3-db', 'deployments dep-3-db', 'services dep-3-db', 'deployments cell-3']);
    // The app was created only after the dependency's pod was seen Ready.
    const order = api.requests.map((r) => `${r.method} ${r.pathname}`);
    const readyAt = api.requests.findIndex((r, i) => r.query.get('labelSelector')?.includes('role=dependency') && i > order.indexOf(`POST ${NS}/services`) + 1);
    expect(order.lastIndexOf(`POST ${DEPLOYMENTS}`)).toBeGreaterThan(readyAt);

    const cm = api.calls('POST', `${NS}/configmaps`)[0]!.body as V1ConfigMap;
    expect(cm.binaryData).toEqual({ f0: Buffer.from('CREATE TABLE products (id int);\n').toString('base64') });
    const dep = api.calls('POST', DEPLOYMENTS)[0]!.body as V1Deployment;
    expect(dep.spec!.selector.matchLabels).toEqual({ 'rightsize.dev/run': '7', 'rightsize.dev/cell': '3', 'rightsize.dev/role': 'dependency', 'rightsize.dev/dependency': 'db' });
    const pod = dep.spec!.template.spec!;
    expect(pod.terminationGracePeriodSeconds).toBe(0);
    expect(pod.containers[0]).toEqual({
      name: 'dependency', image: 'postgres:16', imagePullPolicy: 'IfNotPresent', args: ['postgres', '-c', 'max_connections=30'],
      env: [{ name: 'POSTGRES_PASSWORD', value: 'secret' }], ports: [{ containerPort: 5432, protocol: 'TCP' }],
      resources: { requests: { cpu: '1000m', memory: '256Mi' }, limits: { cpu: '1000m', memory: '256Mi' } },
      readinessProbe: { exec: { command: ['/bin/sh', '-c', 'pg_isready -h 127.0.0.1 -U postgres'] }, periodSeconds: 1, timeoutSeconds: 3, initialDelaySeconds: 0, failureThreshold: 60 },
      volumeMounts: [{ name: 'files', mountPath: '/docker-entrypoint-initdb.d/init.sql', subPath: 'f0', readOnly: true }],
    });
    expect(pod.volumes).toEqual([{ name: 'files', configMap: { name: 'dep-3-db', defaultMode: 0o444 } }]);
    const svc = api.calls('POST', `${NS}/services`)[0]!.body as V1Service;
    expect(svc.spec).toEqual({ type: 'ClusterIP', selector: dep.spec!.selector.matchLabels, ports: [{ port: 5432, targetPort: 5432, protocol: 'TCP' }] });
    const app = api.calls('POST', DEPLOYMENTS)[1]!.body as V1Deployment;
    expect(app.spec!.template.spec!.hostAliases).toEqual([{ ip: '10.96.41.7', hostnames: ['db'] }]);

    // Its readings: on worker-a, apart from the app's worker-b; the database's connection limit from its command.
    const d = t.dependencies![0]!;
    expect(d).toMatchObject({ name: 'db', image: 'postgres:16', cpuMillis: 1000, memoryMb: 256, maxConnections: 30, sharesCores: false });
    const readings: StatsReading[] = [];
    const stop = await d.stats((r) => readings.push(r));
    stop();
    expect(readings[0]).toMatchObject({ memBytes: 98_304_000 });

    await t.remove();
    const deleted = api.requests.filter((r) => r.method === 'DELETE').map((r) => r.pathname.replace(/^.*\/namespaces\/rightsize-run-7\//, ''));
    // The app first; then its dependency's three objects (at once).
    expect(deleted[0]).toBe('deployments/cell-3');
    expect(deleted.slice(1).sort()).toEqual(['configmaps/dep-3-db', 'deployments/dep-3-db', 'services/dep-3-db']);
  });

  it("one that does not start fails the cell naming it, with the kubelet's reason; its objects are deleted and no app is made", async () => {
    api.on('GET', `${NS}/pods`, pods([fixture('dependency-pod-imagepullbackoff.json')]));
    api.on('GET', `${NS}/pods/dep-3-db-5c9d8b7f6a-q8w2n/log`, { text: '' });
    await expect(provider().provision(spec)).rejects.toThrow(/^Could not start cell 3 on lab: a dependency was not ready: db \(postgres:16\) did not start: (ErrImagePull|ImagePullBackOff)/);
    expect(api.calls('POST', DEPLOYMENTS).map((r) => (r.body as V1Deployment).metadata!.name)).toEqual(['dep-3-db']);
    expect(api.requests.filter((r) => r.method === 'DELETE').map((r) => r.pathname.split('/').slice(-2).join('/')).sort()).toEqual(['configmaps/dep-3-db', 'deployments/dep-3-db', 'services/dep-3-db']);
  });

  it('one without a port is refused before the run starts: a Service needs it', () => {
    const app = { name: 'shop', dependencies: [{ name: 'cache', image: 'redis:7' }] } as never;
    expect(() => checkDependenciesHosted(provider(), [app])).toThrow(
      'The target "lab" cannot start the dependencies as declared: shop: on Kubernetes cache is reached through a Service: give its port ("port"). Nothing was started.',
    );
  });
});
