// A Kubernetes target's settings for running cells: the registry the nodes pull from (checked as a
// name images can be tagged under), its login as the path of a Docker config.json (never the
// credentials), and the namespace prefix — each reaching the provider from the saved target (a real
// SQLite store; the provider against the fake API server replaying recorded responses).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src-main/store/index.ts';
import { TargetRegistry } from '../../src-main/targets/registry.ts';
import { registryProblem, targetWhere, validateTarget } from '../../src-main/targets/settings.ts';
import { tempDir } from '../helpers/cli.ts';
import { FakeApi, fixture } from './k8s-fake-api.ts';

let dir: string;
let kubeconfig: string;
let authFile: string;
let api: FakeApi;
beforeEach(async () => {
  dir = tempDir('rightsize-k8s-settings-');
  api = await new FakeApi().start();
  kubeconfig = path.join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, api.kubeConfig().exportConfig());
  authFile = path.join(dir, 'config.json');
  writeFileSync(authFile, JSON.stringify({ auths: { 'registry.example.com': { auth: Buffer.from('ci:pw').toString('base64') } } }));
});
afterEach(() => api.close());

const validate = (settings: Record<string, unknown>) => validateTarget({ name: 'k', kind: 'kubernetes', settings: { kubeconfig, ...settings } }, { taken: [], cwd: dir });

describe('registry settings', () => {
  it('takes host[:port][/path] and says what is wrong with anything else', () => {
    for (const ok of ['registry.example.com/rightsize', 'localhost:5000', '10.0.0.5:5000/team/rightsize']) expect(registryProblem(ok)).toBeUndefined();
    expect(registryProblem('https://registry.example.com')).toBe('give the registry without a scheme: "registry.example.com".');
    expect(registryProblem('me:pw@registry.example.com')).toMatch(/^has a login in it\. Rightsize never stores keys/);
    expect(registryProblem('Registry.Example.com/Team')).toMatch(/is not a registry an image can be tagged under/);
  });

  it('stores the registry and the absolute path of its login file, and refuses a file without a login for it', async () => {
    const v = await validate({ registry: 'registry.example.com/rightsize', registryAuth: 'config.json' });
    expect(v).toEqual({ ok: true, target: { name: 'k', kind: 'kubernetes', settings: { kubeconfig, registry: 'registry.example.com/rightsize', registryAuth: authFile } } });

    const other = path.join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ auths: { 'ghcr.io': { auth: 'eA==' } } }));
    expect(await validate({ registry: 'registry.example.com/rightsize', registryAuth: other })).toEqual({
      ok: false,
      problems: [{ path: 'settings.registryAuth', message: `The registry auth file ${other} has no "auths" entry for registry.example.com.` }],
    });
    expect(await validate({ registryAuth: authFile })).toEqual({ ok: false, problems: [{ path: 'settings.registryAuth', message: 'is the login of a registry: give the registry too (settings.registry).' }] });
    expect(await validate({ registry: 'registry.example.com', registryAuth: 'missing.json' })).toEqual({
      ok: false,
      problems: [{ path: 'settings.registryAuth', message: `${path.join(dir, 'missing.json')} does not exist` }],
    });
  });

  it('says where images go in the one-line description', () => {
    expect(targetWhere({ name: 'k', kind: 'kubernetes', settings: { kubeconfig, context: 'fake-ctx', registry: 'localhost:5000' } })).toBe(`kubeconfig ${kubeconfig}, context fake-ctx, images via localhost:5000`);
    expect(targetWhere({ name: 'k', kind: 'kubernetes', settings: { kubeconfig } })).toBe(`kubeconfig ${kubeconfig}, its current context, no registry`);
  });
});

describe('a saved Kubernetes target as a provider', () => {
  it('uses the saved namespacePrefix and registry', async () => {
    const store = Store.open(path.join(dir, 'h.db'));
    try {
      const reg = new TargetRegistry(store);
      expect(await reg.add({ name: 'k8s', kind: 'kubernetes', settings: { kubeconfig, namespacePrefix: 'team-a' } })).toMatchObject({ ok: true });
      api.on('DELETE', '/api/v1/namespaces/team-a-run-7', { json: fixture('namespace-terminating.json') });
      api.on('GET', '/api/v1/namespaces/team-a-run-7', { status: 404, json: fixture('status-404-namespace.json') });
      expect(await reg.provider('k8s').removeRun('7')).toEqual(['namespace team-a-run-7']);
      // No registry saved: a run is refused, naming the setting.
      await expect(reg.provider('k8s').prepareImage('rightsize/app-hello:1')).rejects.toThrow(/has no registry.*`registry` setting/);
      // Saved with one: the push goes there (this machine's engine has no such image, or no engine answers: the push fails, in words).
      expect(await reg.add({ name: 'k8s-reg', kind: 'kubernetes', settings: { kubeconfig, registry: 'localhost:5000' } })).toMatchObject({ ok: true });
      await expect(reg.provider('k8s-reg').prepareImage('rightsize/app-hello:no-such-tag')).rejects.toThrow(
        'Could not push rightsize/app-hello:no-such-tag to the registry localhost:5000 as localhost:5000/rightsize/app-hello:no-such-tag: ',
      );
    } finally {
      store.close();
    }
  });
});
