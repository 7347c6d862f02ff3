// The exact Kubernetes objects a run makes (verified against the API's object shapes, not a live
// cluster): a namespace per run, a Deployment per cell with requests = limits, labels on every
// object, anti-affinity against load agents, and the launch command of each mode.
import { describe, expect, it } from 'vitest';
import type { TargetSpec } from '../../src-main/providers/provider.ts';
import {
  K8S_LABEL,
  deploymentFor,
  deploymentManifest,
  labelValue,
  namespaceFor,
  namespaceManifest,
} from '../../src-main/providers/kubernetes/manifests.ts';

const SESSION = 'laptop~0a1b2c3d4e5f6a7b.9f8e7d6c5b4a:4242:123456';
const spec = (over: Partial<TargetSpec> = {}, launch: Partial<TargetSpec['launch']> = {}): TargetSpec => ({
  image: 'registry.example.com/rightsize/app:9c1e2f3',
  launch: { mode: 'cluster', workers: 2, entry: '/srv/apps/hello/server.js', name: 'hello', ...launch },
  port: 3000,
  env: { NODE_ENV: 'production' },
  cpuMillis: 500,
  memoryMb: 512,
  labels: { run: '7', cell: '3', app: 'hello', session: SESSION },
  ...over,
});
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

describe('label values and names', () => {
  it('keeps valid values and makes any text a valid, distinct label value', () => {
    expect(labelValue('7')).toBe('7');
    expect(labelValue('hello-app_v1.2')).toBe('hello-app_v1.2');
    const s = labelValue(SESSION);
    expect(s).toMatch(LABEL_VALUE);
    expect(s.length).toBeLessThanOrEqual(63);
    expect(s.startsWith('laptop-0a1b2c3d4e5f6a7b.9f8e7d6c5b4a-4242-123456-')).toBe(true);
    // Two sessions that clean to the same text stay apart (the hash is of the original).
    expect(labelValue('a:b')).not.toBe(labelValue('a~b'));
    const long = labelValue('x'.repeat(200));
    expect(long).toMatch(LABEL_VALUE);
    expect(long.length).toBeLessThanOrEqual(63);
    expect(labelValue('::')).toMatch(/^[0-9a-f]{10}$/);
  });

  it('names the namespace and Deployment as DNS labels', () => {
    expect(namespaceFor('7')).toBe('rightsize-run-7');
    expect(deploymentFor('3')).toBe('cell-3');
    const odd = namespaceFor('Run #12/B');
    expect(odd).toMatch(/^rightsize-run-run-12-b-[0-9a-f]{10}$/);
    expect(odd.length).toBeLessThanOrEqual(63);
    expect(deploymentFor('y'.repeat(100)).length).toBeLessThanOrEqual(45);
  });

  it('takes the saved namespace prefix, still a DNS label of at most 63', () => {
    expect(namespaceFor('7', 'team-a')).toBe('team-a-run-7');
    expect(namespaceManifest('7', SESSION, 'team-a').metadata!.name).toBe('team-a-run-7');
    const long = namespaceFor('z'.repeat(80), 'p'.repeat(30));
    expect(long).toMatch(/^p{30}-run-z+-[0-9a-f]{10}$/);
    expect(long.length).toBeLessThanOrEqual(63);
  });
});

describe('namespace manifest', () => {
  it('carries product, run and session labels, and the exact session in an annotation', () => {
    expect(namespaceManifest('7', SESSION)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'rightsize-run-7',
        labels: {
          'rightsize.dev/product': 'rightsize',
          'rightsize.dev/run': '7',
          'rightsize.dev/session': labelValue(SESSION),
          'app.kubernetes.io/managed-by': 'rightsize',
        },
        annotations: { 'rightsize.dev/session': SESSION },
      },
    });
  });
});

describe('deployment manifest', () => {
  it('is exactly one replica with requests = limits, our labels, and anti-affinity against load agents and other targets', () => {
    const labels = {
      'rightsize.dev/product': 'rightsize',
      'rightsize.dev/session': labelValue(SESSION),
      'rightsize.dev/app': 'hello',
      'rightsize.dev/run': '7',
      'rightsize.dev/cell': '3',
      'rightsize.dev/role': 'target',
      'app.kubernetes.io/managed-by': 'rightsize',
    };
    const annotations = { 'rightsize.dev/session': SESSION, 'rightsize.dev/app': 'hello' };
    const ours = { matchLabels: { 'rightsize.dev/product': 'rightsize' } };
    expect(deploymentManifest(spec(), { spread: 'required' })).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'cell-3', namespace: 'rightsize-run-7', labels, annotations },
      spec: {
        replicas: 1,
        revisionHistoryLimit: 0,
        strategy: { type: 'Recreate' },
        selector: { matchLabels: { 'rightsize.dev/run': '7', 'rightsize.dev/cell': '3', 'rightsize.dev/role': 'target' } },
        template: {
          metadata: { labels, annotations },
          spec: {
            terminationGracePeriodSeconds: 0,
            automountServiceAccountToken: false,
            enableServiceLinks: false,
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  { labelSelector: { matchLabels: { 'rightsize.dev/role': 'load' } }, namespaceSelector: ours, topologyKey: 'kubernetes.io/hostname' },
                  { labelSelector: { matchLabels: { 'rightsize.dev/role': 'target' } }, namespaceSelector: ours, topologyKey: 'kubernetes.io/hostname' },
                ],
              },
            },
            containers: [
              {
                name: 'app',
                image: 'registry.example.com/rightsize/app:9c1e2f3',
                imagePullPolicy: 'IfNotPresent',
                args: ['node', '/opt/rightsize/launchers/cluster.js'],
                env: [
                  { name: 'NODE_ENV', value: 'production' },
                  { name: 'RS_ENTRY', value: '/srv/apps/hello/server.js' },
                  { name: 'RS_WORKERS', value: '2' },
                  { name: 'PORT', value: '3000' },
                ],
                ports: [{ name: 'http', containerPort: 3000, protocol: 'TCP' }],
                resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
                // Without a health path (the spec has none): ready = the port accepts connections.
                readinessProbe: { tcpSocket: { port: 'http' }, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
              },
            ],
          },
        },
      },
    });
  });

  it("probes readiness on the app's health path when the spec has one, from the kubelet on the pod's node", () => {
    const c = deploymentManifest({ ...spec(), health: '/health' }, { spread: 'required' }).spec!.template.spec!.containers[0]!;
    expect(c.readinessProbe).toEqual({ httpGet: { path: '/health', port: 'http' }, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
  });

  it('puts the Deployment in the namespace of the saved prefix', () => {
    expect(deploymentManifest(spec(), { spread: 'required', namespacePrefix: 'team-a' }).metadata!.namespace).toBe('team-a-run-7');
  });

  it('sets requests equal to limits for every cap (Guaranteed QoS)', () => {
    for (const [cpuMillis, memoryMb] of [[250, 128], [1000, 1024], [3500, 6144]] as const) {
      const c = deploymentManifest(spec({ cpuMillis, memoryMb }), { spread: 'required' }).spec!.template.spec!.containers[0]!;
      expect(c.resources).toEqual({ requests: { cpu: `${cpuMillis}m`, memory: `${memoryMb}Mi` }, limits: { cpu: `${cpuMillis}m`, memory: `${memoryMb}Mi` } });
    }
  });

  it('puts the launch command of each mode in args and its variables in env', () => {
    const container = (s: TargetSpec) => deploymentManifest(s, { spread: 'required' }).spec!.template.spec!.containers[0]!;
    const env = (s: TargetSpec) => Object.fromEntries(container(s).env!.map((e) => [e.name, e.value]));

    const single = spec({}, { mode: 'single', workers: 1, args: ['--fast'] });
    expect(container(single).args).toEqual(['node', '/srv/apps/hello/server.js', '--fast']);
    expect(env(single)).toEqual({ NODE_ENV: 'production', PORT: '3000' });

    const cluster = spec({}, { mode: 'cluster', workers: 4, recycleRssMb: 300 });
    expect(container(cluster).args).toEqual(['node', '/opt/rightsize/launchers/cluster.js']);
    expect(env(cluster)).toEqual({ NODE_ENV: 'production', RS_ENTRY: '/srv/apps/hello/server.js', RS_WORKERS: '4', RS_RECYCLE_RSS_MB: '300', PORT: '3000' });

    const pm2 = spec({}, { mode: 'pm2', workers: 3 });
    expect(container(pm2).args).toEqual(['node', '/opt/rightsize/launchers/pm2.js', 'start', '/srv/apps/hello/server.js', '--name', 'hello', '-i', '3']);
    expect(env(pm2)).toEqual({ NODE_ENV: 'production', PORT: '3000' });

    // Image mode: the image's own command (no args: its ENTRYPOINT and CMD stay) and the worker count in its variable.
    const image = spec({ image: 'registry.example.com/team/api:1.4' }, { mode: 'image', workers: 6, entry: '', workersEnv: 'WEB_CONCURRENCY' });
    expect(container(image)).not.toHaveProperty('args');
    expect(container(image)).not.toHaveProperty('command');
    expect(env(image)).toEqual({ NODE_ENV: 'production', WEB_CONCURRENCY: '6', PORT: '3000' });
    expect(container(image).image).toBe('registry.example.com/team/api:1.4');
  });

  it('places the target on or off a node by its name, and softens the anti-affinity for one-node clusters', () => {
    const placed = deploymentManifest(spec({ placement: { node: 'worker-b', avoidNode: 'worker-a' } }), { spread: 'required' });
    expect(placed.spec!.template.spec!.affinity!.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchFields: [
              { key: 'metadata.name', operator: 'In', values: ['worker-b'] },
              { key: 'metadata.name', operator: 'NotIn', values: ['worker-a'] },
            ],
          },
        ],
      },
    });
    const soft = deploymentManifest(spec(), { spread: 'preferred' }).spec!.template.spec!.affinity!;
    expect(soft.nodeAffinity).toBeUndefined();
    expect(soft.podAntiAffinity!.requiredDuringSchedulingIgnoredDuringExecution).toBeUndefined();
    expect(soft.podAntiAffinity!.preferredDuringSchedulingIgnoredDuringExecution!.map((t) => [t.weight, t.podAffinityTerm.labelSelector!.matchLabels![K8S_LABEL.role]])).toEqual([
      [100, 'load'],
      [100, 'target'],
    ]);
  });

  it('labels an app whose name is not a valid label value, keeping the name in an annotation', () => {
    const d = deploymentManifest(spec({ labels: { run: '7', cell: '3', app: 'My App (v2)', session: SESSION } }), { spread: 'required' });
    expect(d.metadata!.labels![K8S_LABEL.app]).toMatch(/^My-App-v2-[0-9a-f]{10}$/);
    expect(d.metadata!.annotations!['rightsize.dev/app']).toBe('My App (v2)');
    for (const v of Object.values(d.spec!.template.metadata!.labels!)) expect(v).toMatch(LABEL_VALUE);
  });
});
