// Saved targets: the store, the settings check (no key material, files that exist, did-you-mean),
// the registry (one provider per connection, checks in words) and the Lab's refusal to run a
// matrix elsewhere until the engine runs cells through providers. A real SQLite file throughout;
// the Kubernetes target is checked against the fake API server of the provider's own tests (no
// API server can run here).
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContractError } from '../../src-main/contract/api.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { resolveTarget, TargetRegistry, UnknownTargetError } from '../../src-main/targets/registry.ts';
import { secretIn, validateTarget } from '../../src-main/targets/settings.ts';
import { tempDir } from '../helpers/cli.ts';
import { FakeApi, fixture, listOf } from './k8s-fake-api.ts';

const PEM = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIO3vAbCdEf\n-----END EC PRIVATE KEY-----\n';
const JWT = 'eyJhbGciOiJSUzI1NiIsImtpZCI6IiJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.c2lnbmF0dXJl';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = tempDir('rightsize-targets-');
  store = Store.open(path.join(dir, 'h.db'));
});
afterEach(() => store.close());

/** A TLS folder as Docker lays it out (the contents are never read by validation, only checked readable). */
function tlsDir(files = ['ca.pem', 'cert.pem', 'key.pem']): string {
  const d = path.join(dir, `tls-${Math.random().toString(36).slice(2)}`);
  mkdirSync(d);
  for (const f of files) writeFileSync(path.join(d, f), PEM);
  return d;
}

const problemsOf = async (input: unknown, taken: string[] = []) => {
  const v = await validateTarget(input, { taken, cwd: dir, env: { KUBECONFIG: path.join(dir, 'none') } });
  return v.ok ? [] : v.problems;
};

describe('the targets table', () => {
  it('stores, lists by name, reads back and deletes; a duplicate name is refused by the key', () => {
    store.targets.add({ name: 'b', kind: 'docker', settings: { url: 'tcp://b:2375' } });
    store.targets.add({ name: 'a', kind: 'swarm', settings: { managerUrl: 'tcp://m:2375', nodeEngines: { n1: 'tcp://n1:2375' } } });
    expect(store.targets.list().map((t) => t.name)).toEqual(['a', 'b']);
    expect(store.targets.get('a')).toMatchObject({ kind: 'swarm', settings: { nodeEngines: { n1: 'tcp://n1:2375' } } });
    expect(() => store.targets.add({ name: 'a', kind: 'docker', settings: {} })).toThrow(/UNIQUE|PRIMARY/);
    expect(store.targets.delete('a')).toBe(true);
    expect(store.targets.delete('a')).toBe(false);
    expect(store.targets.list().map((t) => t.name)).toEqual(['b']);
  });

  it('refuses a kind it does not know, at the database too', () => {
    expect(() => store.targets.add({ name: 'x', kind: 'nomad' as never, settings: {} })).toThrow(/CHECK/);
  });
});

describe('validating a target', () => {
  it('accepts a docker target with a TLS folder and stores its absolute path', async () => {
    const tls = tlsDir();
    const v = await validateTarget({ name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376', tlsDir: path.relative(dir, tls) } }, { taken: [], cwd: dir });
    expect(v).toEqual({ ok: true, target: { name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376', tlsDir: tls } } });
  });

  it('refuses key material pasted in place of a path, in every setting, saying to use a file', async () => {
    const ps = await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376', tlsDir: PEM } });
    expect(ps).toEqual([{ path: 'settings.tlsDir', message: expect.stringMatching(/^is a PEM key or certificate pasted in\. Rightsize never stores keys, certificates or tokens in its database, only the path of the file/) }]);
    const k = await problemsOf({ name: 'k', kind: 'kubernetes', settings: { context: JWT } });
    expect(k).toContainEqual({ path: 'settings.context', message: expect.stringMatching(/^is a token pasted in\./) });
    const pw = await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'ssh://me:hunter2@box' } });
    expect(pw).toEqual([{ path: 'settings.url', message: expect.stringMatching(/^has a password in it\. .*--ssh-key/) }]);
    const cfg = await problemsOf({ name: 'k', kind: 'kubernetes', settings: { kubeconfig: 'apiVersion: v1\nclusters:\n- cluster: {}\n' } });
    expect(cfg[0]).toMatchObject({ path: 'settings.kubeconfig', message: expect.stringMatching(/^is the text of a kubeconfig pasted in/) });
    expect(secretIn('/home/me/.docker/certs')).toBeUndefined();
    expect(secretIn('tcp://box:2376')).toBeUndefined();
  });

  it('requires the files it refers to, to exist and be readable', async () => {
    const partial = tlsDir(['ca.pem', 'cert.pem']);
    const ps = await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376', tlsDir: partial } });
    expect(ps).toEqual([{ path: 'settings.tlsDir', message: `the TLS folder must hold readable ca.pem, cert.pem, key.pem: ${path.join(partial, 'key.pem')} does not exist` }]);
    const key = await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'ssh://me@box', sshKeyFile: 'id_missing' } });
    expect(key).toEqual([{ path: 'settings.sshKeyFile', message: `${path.join(dir, 'id_missing')} does not exist` }]);
    const notDir = path.join(dir, 'file.txt');
    writeFileSync(notDir, 'x');
    expect(await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376', tlsDir: notDir } })).toEqual([
      { path: 'settings.tlsDir', message: `${notDir} is not a folder: give the folder holding ca.pem, cert.pem, key.pem` },
    ]);
    if (process.getuid?.() !== 0) {
      // root reads anything: the permission case can only be seen as a user
      const locked = path.join(dir, 'locked');
      writeFileSync(locked, 'x');
      chmodSync(locked, 0);
      expect(await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'ssh://me@box', sshKeyFile: locked } })).toEqual([
        { path: 'settings.sshKeyFile', message: `${locked} is not readable by you (permissions)` },
      ]);
    }
    const k = await problemsOf({ name: 'k', kind: 'kubernetes', settings: {} });
    expect(k).toEqual([{ path: 'settings.kubeconfig', message: expect.stringMatching(/^no kubeconfig given, and the default one \(.*none\) cannot be used: .* does not exist\. Give --kubeconfig FILE\.$/) }]);
  });

  it('refuses a duplicate name and the reserved "local"', async () => {
    const t = { kind: 'docker', settings: { url: 'tcp://box:2375' } };
    expect(await problemsOf({ name: 'box', ...t }, ['box'])).toEqual([{ path: 'name', message: expect.stringMatching(/^a target named "box" is saved already: remove it first \(rightsize targets rm box\)/) }]);
    expect(await problemsOf({ name: 'Local', ...t })).toEqual([{ path: 'name', message: expect.stringMatching(/^"local" is this machine's Docker engine/) }]);
  });

  it('names an unknown kind, field or scheme with the likeliest intended one, all at once', async () => {
    expect(await problemsOf({ name: 'box', kind: 'dokcer', settings: { url: 'tcp://box:2375' } })).toEqual([
      { path: 'kind', message: '"dokcer" is not one of "docker", "swarm", "kubernetes". Did you mean "docker"?' },
    ]);
    expect(await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'tcp://box:2375', tlsdir: '/x' } })).toEqual([
      { path: 'settings.tlsdir', message: 'is not a field here. Did you mean "tlsDir"?' },
    ]);
    expect(await problemsOf({ name: 'box', kind: 'docker', settings: { url: 'tpc://box:2375' } })).toEqual([
      { path: 'settings.url', message: '"tpc://" engines are not supported: use unix://, tcp:// or ssh://. Did you mean "tcp://box:2375"?' },
    ]);
    const many = await problemsOf({ name: 'bad name!', kind: 'swarm', settings: { managerUrl: 'http://m:2375', nodeEngines: { n1: 'tcp://n1' } } });
    expect(many.map((p) => p.path)).toEqual(['name']); // the shape first; URL checks need a well-formed target
    const swarm = await problemsOf({ name: 'sw', kind: 'swarm', settings: { managerUrl: 'http://m:2375', nodeEngines: { n1: 'ftp://n1' } } });
    expect(swarm).toEqual([
      { path: 'settings.managerUrl', message: '"http://" engines are not supported: use unix://, tcp:// or ssh://. Did you mean "tcp://m:2375"?' },
      { path: 'settings.nodeEngines.n1', message: expect.stringMatching(/^"ftp:\/\/" engines are not supported/) },
    ]);
    expect(await problemsOf({ name: 'sw', kind: 'swarm', settings: { managerUrl: 'tcp://m:2375', nodeEngines: {} } })).toEqual([
      { path: 'settings.nodeEngines', message: 'needs at least one node: NODE=URL, the engine URL of each Swarm node.' },
    ]);
  });

  it('reads the kubeconfig as kubectl would and names a context it lacks, with the nearest one', async () => {
    const file = path.join(dir, 'kubeconfig');
    writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'c', cluster: { server: 'https://k:6443' } }], users: [{ name: 'u', user: { token: JWT } }], contexts: [{ name: 'prod-eu', context: { cluster: 'c', user: 'u' } }, { name: 'staging', context: { cluster: 'c', user: 'u' } }], 'current-context': 'staging' }));
    expect(await problemsOf({ name: 'k', kind: 'kubernetes', settings: { kubeconfig: file, context: 'prod-ue' } })).toEqual([
      { path: 'settings.context', message: `${file} has no context "prod-ue". Did you mean "prod-eu"? Its contexts: prod-eu, staging.` },
    ]);
    const v = await validateTarget({ name: 'k', kind: 'kubernetes', settings: { kubeconfig: 'kubeconfig', context: 'prod-eu' } }, { taken: [], cwd: dir });
    expect(v).toEqual({ ok: true, target: { name: 'k', kind: 'kubernetes', settings: { kubeconfig: file, context: 'prod-eu' } } });
  });
});

describe('the registry', () => {
  it('lists local first, resolves names with did-you-mean, and keeps one provider per connection', async () => {
    const reg = new TargetRegistry(store);
    expect((await reg.add({ name: 'build-box', kind: 'docker', settings: { url: 'tcp://127.0.0.1:1' } })).ok).toBe(true);
    expect(reg.list().map((t) => [t.name, t.kind, t.builtIn])).toEqual([['local', 'local', true], ['build-box', 'docker', false]]);
    expect(resolveTarget(store, undefined)).toEqual({ name: 'local', kind: 'local' });
    expect(() => resolveTarget(store, 'build-bx')).toThrow(new UnknownTargetError('build-bx', ['local', 'build-box']));
    expect(new UnknownTargetError('build-bx', ['local', 'build-box']).message).toBe('There is no target named "build-bx". Did you mean "build-box"? Targets: local, build-box. Add one with `rightsize targets add`.');
    const p = reg.provider('build-box');
    expect(reg.provider('build-box')).toBe(p);
    reg.remove('build-box');
    await reg.add({ name: 'build-box', kind: 'docker', settings: { url: 'tcp://127.0.0.1:2' } });
    expect(reg.provider('build-box')).not.toBe(p);
    expect(() => reg.remove('local')).toThrow(/cannot be removed/);
  });

  it('checks an engine nothing answers at as unreachable, in words', async () => {
    const reg = new TargetRegistry(store);
    await reg.add({ name: 'dead', kind: 'docker', settings: { url: 'tcp://127.0.0.1:1' } });
    const c = await reg.check('dead');
    expect(c).toMatchObject({ name: 'dead', kind: 'docker', ok: false, nodes: [], summary: 'not ready: no node answered; 1 problem' });
    expect(c.problems).toEqual(['unreachable: nothing answers at tcp://127.0.0.1:1 (is the engine running and listening there?)']);
  });

  it('says what is wrong when a TLS file it refers to has gone since it was added, rather than throwing', async () => {
    const tls = tlsDir();
    const reg = new TargetRegistry(store);
    await reg.add({ name: 'tls', kind: 'docker', settings: { url: 'tcp://127.0.0.1:2376', tlsDir: tls } });
    writeFileSync(path.join(tls, 'key.pem'), ''); // still there: now remove it
    const { rmSync } = await import('node:fs');
    rmSync(path.join(tls, 'key.pem'));
    const c = await reg.check('tls');
    expect(c.ok).toBe(false);
    expect(c.problems[0]).toMatch(/^TLS: cannot read .*key\.pem \(ENOENT\)/);
  });

  describe('a Kubernetes target (fake API server replaying recorded responses)', () => {
    let api: FakeApi;
    beforeEach(async () => {
      api = await new FakeApi().start();
    });
    afterEach(() => api.close());

    it('is checked through its kubeconfig file; the token stays in that file, not in the database', async () => {
      api.on('GET', '/version', { json: fixture('version.json') });
      api.on('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', (r) => ({ status: 201, json: { ...fixture<Record<string, unknown>>('ssar-allowed.json'), spec: (r.body as { spec: unknown }).spec } }));
      api.on('GET', '/api/v1/nodes', { json: fixture('nodes.json') });
      api.on('GET', '/api/v1/pods', listOf('PodList', []));
      const file = path.join(dir, 'kubeconfig');
      writeFileSync(file, api.kubeConfig(JWT).exportConfig());
      const reg = new TargetRegistry(store);
      expect(await reg.add({ name: 'k8s', kind: 'kubernetes', settings: { kubeconfig: file, context: 'fake-ctx' } })).toMatchObject({ ok: true });
      const c = await reg.check('k8s');
      expect(c).toMatchObject({ ok: true, kind: 'kubernetes', version: 'v1.30.4', summary: 'ok: 3 nodes, 2 free (version v1.30.4)', problems: [] });
      expect(api.requests.every((q) => q.headers.authorization === `Bearer ${JWT}`)).toBe(true);
      store.close();
      const db = readFileSync(path.join(dir, 'h.db')).toString('latin1') + readFileSync(path.join(dir, 'h.db-wal'), { flag: 'a+' }).toString('latin1');
      expect(db).toContain(file);
      expect(db).not.toContain(JWT.slice(0, 30));
      store = Store.open(path.join(dir, 'h.db'));
    });
  });
});

describe('the Lab', () => {
  const open = (): Promise<Lab> => Lab.open({ store, startup: { interruptedRuns: [], sweptContainers: [], dockerError: 'not needed here' }, recheckMs: { down: 60_000, up: 60_000 } });

  it('adds, lists, checks and removes targets through the contract, with every problem as fields', async () => {
    const lab = await open();
    try {
      const err = await Promise.resolve(lab.handlers['targets.add']({ target: { name: 'x', kind: 'dokcer', settings: {} } })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ContractError);
      expect((err as ContractError).code).toBe('INVALID_INPUT');
      expect((err as ContractError).fields).toContainEqual({ path: 'kind', message: expect.stringContaining('Did you mean "docker"?') });
      await lab.handlers['targets.add']({ target: { name: 'dead', kind: 'docker', settings: { url: 'tcp://127.0.0.1:1' } } });
      expect((await lab.handlers['targets.list']({})).map((t) => t.name)).toEqual(['local', 'dead']);
      expect((await lab.handlers['targets.check']({ name: 'dead' })).ok).toBe(false);
      await expect(Promise.resolve().then(() => lab.handlers['targets.check']({ name: 'daed' }))).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('Targets: local, dead.') });
      await expect(Promise.resolve().then(() => lab.handlers['targets.remove']({ name: 'local' }))).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await lab.handlers['targets.remove']({ name: 'dead' })).toEqual({ removed: true });
    } finally {
      await lab.close();
      store = Store.open(path.join(dir, 'h.db'));
    }
  });

  it('starts a run or a search on a saved target through the engine (no silent fallback to this machine); an unknown name is NOT_FOUND', async () => {
    const lab = await open();
    try {
      await lab.handlers['targets.add']({ target: { name: 'box', kind: 'docker', settings: { url: 'tcp://127.0.0.1:1' } } });
      const matrix = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [256] };
      // This machine's engine is down here, and the run needs it (images are built here): the usual refusal, nothing stored.
      await expect(Promise.resolve().then(() => lab.handlers['runs.start']({ matrix, target: 'box' }))).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
      await expect(Promise.resolve().then(() => lab.handlers['runs.start']({ matrix, target: 'bx' }))).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('Did you mean "box"?') });
      await expect(Promise.resolve().then(() => lab.handlers['runs.size']({ spec: { app: 'hello' }, target: 'bx' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      // 'local' goes on to the usual checks (here: Docker is down), not to the refusal.
      await expect(Promise.resolve().then(() => lab.handlers['runs.start']({ matrix, target: 'local' }))).rejects.toMatchObject({ code: 'DOCKER_UNAVAILABLE' });
      expect(store.listRuns().runs).toHaveLength(0);
    } finally {
      await lab.close();
      store = Store.open(path.join(dir, 'h.db'));
    }
  });
});
