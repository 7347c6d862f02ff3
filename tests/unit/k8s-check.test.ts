// The Kubernetes connection check in words, against a fake API server replaying recorded responses
// (tests/fixtures/k8s) and against real network and TLS failures made here: connection refused, a
// self-signed certificate, plain HTTP where TLS was expected. Not a live cluster.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { V1Pod } from '@kubernetes/client-node';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { NEEDED, parseQuantity } from '../../src-main/providers/kubernetes/check.ts';
import { FakeApi, fixture, kubeConfigFor, listOf, status } from './k8s-fake-api.ts';

const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const KiB = 1024;

let api: FakeApi;
beforeEach(async () => {
  api = await new FakeApi().start();
});
afterEach(async () => {
  await api.close();
});

/** A cluster that lets us do everything, with the given nodes and Rightsize pods. */
function healthy(nodes = 'nodes.json', ourPods: V1Pod[] = []): void {
  api.on('GET', '/version', { json: fixture('version.json') });
  api.on('POST', SSAR, (r) => ({ status: 201, json: { ...fixture<Record<string, unknown>>('ssar-allowed.json'), spec: (r.body as { spec: unknown }).spec } }));
  api.on('GET', '/api/v1/nodes', { json: fixture(nodes) });
  api.on('GET', '/api/v1/pods', listOf('PodList', ourPods));
}

const check = (over: Partial<ConstructorParameters<typeof KubernetesProvider>[0]> = {}) =>
  new KubernetesProvider({ name: 'lab', kubeConfig: api.kubeConfig(), ...over }).check();

describe('check', () => {
  it('passes on a reachable cluster with the permissions a run needs and two free workers', async () => {
    healthy();
    const r = await check();
    expect(r).toEqual({
      ok: true,
      problems: [],
      version: 'v1.30.4',
      nodes: [
        { name: 'control-plane', cpus: 4, memoryBytes: 16272104 * KiB, free: false },
        { name: 'worker-a', cpus: 4, memoryBytes: 16272104 * KiB, free: true },
        { name: 'worker-b', cpus: 4, memoryBytes: 16272104 * KiB, free: true },
      ],
    });
    // It asked RBAC about each thing a run does, and created nothing.
    const asked = api.calls('POST', SSAR).map((c) => (c.body as { spec: { resourceAttributes: Record<string, string> } }).spec.resourceAttributes);
    expect(asked).toHaveLength(NEEDED.length);
    expect(asked).toContainEqual({ verb: 'create', group: '', resource: 'namespaces' });
    expect(asked).toContainEqual({ verb: 'get', group: '', resource: 'nodes', subresource: 'proxy' });
    for (const verb of ['create', 'get', 'delete']) expect(asked).toContainEqual({ verb, group: '', resource: 'pods' }); // the load agents
    expect(api.requests.filter((q) => q.method !== 'GET' && q.pathname !== SSAR)).toHaveLength(0);
    expect(api.calls('GET', '/api/v1/pods')[0]!.query.get('labelSelector')).toBe('rightsize.dev/product=rightsize');
  });

  it('says the credentials were refused on 401', async () => {
    api.on('GET', '/version', status(401, 'status-401.json'));
    const r = await check();
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      `The API server at ${api.url} did not accept the credentials of context "fake-ctx" (401 Unauthorized): the token or client certificate is wrong or has expired; log in again or refresh the kubeconfig.`,
    ]);
  });

  it('names what RBAC forbids on 403', async () => {
    healthy();
    const denied = new Set(['create namespaces', 'get nodes/proxy']);
    api.on('POST', SSAR, (r) => {
      const a = (r.body as { spec: { resourceAttributes: { verb: string; resource: string; subresource?: string } } }).spec.resourceAttributes;
      const key = `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ''}`;
      return { status: 201, json: { ...fixture<Record<string, unknown>>(denied.has(key) ? 'ssar-denied.json' : 'ssar-allowed.json'), spec: r.body && (r.body as { spec: unknown }).spec } };
    });
    api.on('GET', '/api/v1/nodes', status(403, 'status-403-nodes.json'));
    const r = await check();
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([
      `Forbidden by the cluster's RBAC: context "fake-ctx" may not create namespaces (one per run); read the kubelet's stats through the node proxy.`,
      'Forbidden by the cluster\'s RBAC (403): nodes is forbidden: User "system:serviceaccount:ci:rightsize" cannot list resource "nodes" in API group "" at the cluster scope. Ask a cluster admin for the permissions listed by `rightsize targets check`.',
    ]);
  });

  it('says the API server is unreachable when the connection is refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await check({ kubeConfig: kubeConfigFor(`http://127.0.0.1:${port}`) });
    expect(r.ok).toBe(false);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(new RegExp(`^The API server at http://127\\.0\\.0\\.1:${port} is unreachable \\(ECONNREFUSED: .*\\): is the cluster running`));
  });

  it('says TLS failed when the server speaks plain HTTP where TLS was expected', async () => {
    const url = api.url.replace('http:', 'https:');
    const r = await check({ kubeConfig: kubeConfigFor(url) });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(new RegExp(`^TLS with the API server at ${url.replace(/\./g, '\\.')} failed \\((EPROTO|ERR_SSL_WRONG_VERSION_NUMBER): `));
  });

  it("says TLS failed when the server's certificate is not the kubeconfig's CA's", async (ctx) => {
    let openssl = true;
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' });
    } catch {
      openssl = false;
    }
    ctx.skip(!openssl, 'openssl is needed to make a self-signed certificate');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rs-k8s-tls-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
      const server = https.createServer({ key: readFileSync(`${dir}/key.pem`), cert: readFileSync(`${dir}/cert.pem`) }, (_q, s) => s.end('{}'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const r = await check({ kubeConfig: kubeConfigFor(url) });
        expect(r.problems).toHaveLength(1);
        expect(r.problems[0]).toMatch(/^TLS with the API server at https:\/\/127\.0\.0\.1:\d+ failed \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN): .*certificate-authority does not match/);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((r) => server.close(() => r()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('says there are no nodes', async () => {
    healthy('nodes-empty.json');
    const r = await check();
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual(['No nodes free: the cluster has no nodes.']);
  });

  it('says why too few nodes are free: tainted, not Ready, running another run', async () => {
    const load = fixture<V1Pod>('pod-running.json');
    load.metadata = { ...load.metadata, name: 'load-5-abc', namespace: 'rightsize-run-5', labels: { 'rightsize.dev/product': 'rightsize', 'rightsize.dev/role': 'load' } };
    load.spec = { ...load.spec!, nodeName: 'worker-a' };
    healthy('nodes-one-busy.json', [load]);
    const r = await check();
    expect(r.ok).toBe(false);
    expect(r.nodes.map((n) => [n.name, n.free])).toEqual([
      ['control-plane', false],
      ['worker-a', false],
      ['worker-b', false],
    ]);
    expect(r.problems).toEqual([
      'No nodes free: 0 of 3 can take a cell now, 2 needed (the target alone on one, its load agent on another); control-plane is tainted node-role.kubernetes.io/control-plane:NoSchedule; worker-a runs a load agent of Rightsize (rightsize-run-5/load-5-abc); worker-b is not Ready (Kubelet stopped posting node status.).',
    ]);
  });

  it('needs one free node with preferred spread (a one-node cluster), two with required', async () => {
    healthy('nodes-one-busy.json');
    expect((await check({ spread: 'preferred' })).ok).toBe(true);
    const strict = await check();
    expect(strict.ok).toBe(false);
    expect(strict.problems[0]).toMatch(/^No nodes free: 1 of 3 can take a cell now, 2 needed/);
  });

  it('says what is wrong with the kubeconfig itself', async () => {
    const r = await check({ kubeConfig: undefined, kubeconfigPath: '/nonexistent/kubeconfig' });
    expect(r.ok).toBe(false);
    expect(r.problems[0]).toMatch(/^The kubeconfig could not be used: .*\/nonexistent\/kubeconfig/);
    const ctx = await check({ context: 'staging' });
    expect(ctx.problems).toEqual(['The kubeconfig could not be used: The kubeconfig has no context "staging" (it has: fake-ctx)']);
    expect(api.requests).toHaveLength(0);
  });

  it('loads a kubeconfig file and its context, as a user has them', async () => {
    healthy();
    const dir = mkdtempSync(path.join(os.tmpdir(), 'rs-k8s-cfg-'));
    try {
      const file = path.join(dir, 'config');
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          `- name: lab\n  cluster:\n    server: ${api.url}\n    insecure-skip-tls-verify: true`,
          '- name: other\n  cluster:\n    server: https://other.example.com',
          'users:',
          '- name: lab-user\n  user:\n    token: file-token-9',
          'contexts:',
          '- name: lab-ctx\n  context:\n    cluster: lab\n    user: lab-user',
          '- name: other-ctx\n  context:\n    cluster: other\n    user: lab-user',
          'current-context: other-ctx',
          '',
        ].join('\n'),
      );
      const r = await check({ kubeConfig: undefined, kubeconfigPath: file, context: 'lab-ctx' });
      expect(r.ok).toBe(true);
      expect(api.requests[0]!.headers.authorization).toBe('Bearer file-token-9');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseQuantity', () => {
  it('reads CPU and memory quantities', () => {
    expect(parseQuantity('3920m')).toBeCloseTo(3.92, 10);
    expect(parseQuantity('4')).toBe(4);
    expect(parseQuantity('16272104Ki')).toBe(16272104 * 1024);
    expect(parseQuantity('8Gi')).toBe(8 * 2 ** 30);
    expect(parseQuantity('1e9')).toBe(1e9);
    expect(parseQuantity('2G')).toBe(2e9);
    expect(parseQuantity(undefined)).toBe(0);
    expect(parseQuantity('lots')).toBe(0);
  });
});
