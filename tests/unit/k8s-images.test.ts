// Images for a cluster: what this machine built is tagged under the target's registry and pushed by
// this machine's engine (a fake engine here, recording every request), with the login read from a
// Docker config.json whose path is all Rightsize keeps; the load agent's image goes the same way,
// once. Without a registry a run is refused in words naming the setting.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import type { V1Deployment, V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubernetesProvider } from '../../src-main/providers/kubernetes/provider.ts';
import { pushToRegistry, registryAuth, registryReference } from '../../src-main/providers/kubernetes/registry-push.ts';
import type { TargetSpec } from '../../src-main/providers/provider.ts';
import { FakeApi, fixture, listOf, status } from './k8s-fake-api.ts';

const APP = 'rightsize/app-hello:9c1e2f3a4b5c6d7e';
const AGENT = 'rightsize/load-agent:4f2a9c0d1e3b5a7c';
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-k8s-images-'));
const authFile = path.join(dir, 'config.json');
// `docker login` writes base64("user:password") under the registry's host.
writeFileSync(authFile, JSON.stringify({ auths: { 'registry.example.com': { auth: Buffer.from('ci-bot:s3cr3t:with-colon').toString('base64') } } }));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

let engine: FakeApi;
let api: FakeApi;
beforeEach(async () => {
  engine = await new FakeApi().start();
  api = await new FakeApi().start();
  engine.on('POST', /^\/images\/.+\/tag$/, { status: 201, text: '' });
  // The engine's push progress, as it streams it (JSON messages, one a line).
  engine.on('POST', /^\/images\/.+\/push$/, {
    contentType: 'application/json',
    text: ['{"status":"The push refers to repository [registry.example.com/rightsize/rightsize/app-hello]"}', '{"status":"Pushed","progressDetail":{},"id":"5f70bf18a086"}', '{"status":"9c1e2f3a4b5c6d7e: digest: sha256:0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c size: 1571"}', '{"progressDetail":{},"aux":{"Tag":"9c1e2f3a4b5c6d7e","Digest":"sha256:0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c","Size":1571}}', ''].join('\r\n'),
  });
});
afterEach(async () => {
  await engine.close();
  await api.close();
});

const client = (): Docker => {
  const u = new URL(engine.url);
  return new Docker({ host: u.hostname, port: Number(u.port), protocol: 'http' });
};
const decodeAuth = (h: string | string[] | undefined): unknown => JSON.parse(Buffer.from(String(h).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8'));

describe('registry references and logins', () => {
  it("names an image under the registry, leaving out a registry host of the local tag's own", () => {
    expect(registryReference(APP, 'registry.example.com/rightsize')).toBe(`registry.example.com/rightsize/${APP}`);
    expect(registryReference('node:22-alpine', 'localhost:5000')).toBe('localhost:5000/node:22-alpine');
    expect(registryReference('ghcr.io/team/api', 'localhost:5000/')).toBe('localhost:5000/team/api:latest');
  });

  it('reads the login from a Docker config.json, and says what is missing in words', () => {
    expect(registryAuth({ registry: 'registry.example.com/rightsize', authFile })).toEqual({ serveraddress: 'registry.example.com', username: 'ci-bot', password: 's3cr3t:with-colon' });
    expect(registryAuth({ registry: 'localhost:5000' })).toEqual({ serveraddress: 'localhost:5000' });
    const helper = path.join(dir, 'helper.json');
    writeFileSync(helper, JSON.stringify({ auths: {}, credsStore: 'desktop' }));
    expect(() => registryAuth({ registry: 'registry.example.com', authFile: helper })).toThrow(
      `The registry auth file ${helper} has no "auths" entry for registry.example.com (it names the credential helper "desktop", which Rightsize does not run`,
    );
  });
});

describe('pushToRegistry', () => {
  it('tags the image under the registry and pushes it with the login in X-Registry-Auth', async () => {
    expect(await pushToRegistry(client(), APP, { registry: 'registry.example.com/rightsize', authFile })).toBe(`registry.example.com/rightsize/${APP}`);
    const [tag] = engine.calls('POST', /\/tag$/);
    expect(tag!.pathname).toBe(`/images/${APP}/tag`);
    expect(Object.fromEntries(tag!.query)).toEqual({ repo: 'registry.example.com/rightsize/rightsize/app-hello', tag: '9c1e2f3a4b5c6d7e' });
    const [push] = engine.calls('POST', /\/push$/);
    expect(push!.pathname).toBe(`/images/registry.example.com/rightsize/${APP}/push`);
    expect(decodeAuth(push!.headers['x-registry-auth'])).toEqual({ serveraddress: 'registry.example.com', username: 'ci-bot', password: 's3cr3t:with-colon' });
  });

  it("fails with the registry's own words when it refuses the push (reported inside the stream)", async () => {
    engine.on('POST', /^\/images\/.+\/push$/, {
      contentType: 'application/json',
      text: '{"status":"The push refers to repository [registry.example.com/rightsize/rightsize/app-hello]"}\r\n{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}\r\n',
    });
    await expect(pushToRegistry(client(), APP, { registry: 'registry.example.com/rightsize' })).rejects.toThrow(
      `Could not push ${APP} to the registry registry.example.com/rightsize as registry.example.com/rightsize/${APP}: unauthorized: authentication required`,
    );
  });
});

describe('KubernetesProvider.prepareImage', () => {
  const provider = (registry?: string): KubernetesProvider =>
    new KubernetesProvider({
      name: 'lab',
      kubeConfig: api.kubeConfig(),
      pollMs: 5,
      readyTimeoutMs: 2000,
      removeTimeoutMs: 2000,
      ...(registry ? { registry: { registry, authFile } } : {}),
      images: { engine: client, loadAgentImage: async () => AGENT },
    });

  it("pushes the cell's image and, once, the load agent's; provision then runs the pushed reference", async () => {
    const p = provider('registry.example.com/rightsize');
    expect(await p.prepareImage(APP)).toBe(`registry.example.com/rightsize/${APP}`);
    expect(await p.prepareImage(APP)).toBe(`registry.example.com/rightsize/${APP}`);
    expect(engine.calls('POST', /\/push$/).map((r) => r.pathname)).toEqual([`/images/registry.example.com/rightsize/${APP}/push`, `/images/registry.example.com/rightsize/${AGENT}/push`]);

    // The cell runner passes the tag it built: the Deployment names what the nodes can pull.
    api.on('POST', '/api/v1/namespaces', { status: 201, json: fixture('namespace-created.json') });
    api.on('POST', '/apis/apps/v1/namespaces/rightsize-run-7/deployments', { status: 201, json: fixture('deployment-created.json') });
    api.on('GET', '/api/v1/namespaces/rightsize-run-7/pods', listOf('PodList', [fixture<V1Pod>('pod-running.json')]));
    api.on('DELETE', '/apis/apps/v1/namespaces/rightsize-run-7/deployments/cell-3', { json: fixture('deployment-deleting.json') });
    api.on('GET', '/apis/apps/v1/namespaces/rightsize-run-7/deployments/cell-3', status(404, 'status-404-deployment.json'));
    const spec: TargetSpec = {
      image: APP, launch: { mode: 'single', workers: 1, entry: '/srv/apps/hello/server.js', name: 'hello' }, port: 3000, env: {}, cpuMillis: 500, memoryMb: 512,
      labels: { run: '7', cell: '3', app: 'hello', session: 's' },
    };
    const t = await p.provision(spec);
    const dep = api.calls('POST', '/apis/apps/v1/namespaces/rightsize-run-7/deployments')[0]!.body as V1Deployment;
    expect(dep.spec!.template.spec!.containers[0]!.image).toBe(`registry.example.com/rightsize/${APP}`);
    await t.remove();
  });

  it('refuses without a registry, naming the setting, and pushes nothing', async () => {
    await expect(provider().prepareImage(APP)).rejects.toThrow(
      'The Kubernetes target "lab" has no registry: its nodes pull images (the app\'s and the load agent\'s) from one, and Rightsize pushes them there. Set the target\'s `registry` setting',
    );
    expect(engine.requests).toHaveLength(0);
  });
});
