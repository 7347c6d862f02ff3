import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinArgs, splitArgs } from '../../src-main/common/args.ts';
import { readEcosystem } from '../../src-main/apps/ecosystem.ts';
import { planFolder } from '../../src-main/apps/folder-plan.ts';
import { resolveUserApp, type ResolveContext } from '../../src-main/apps/user-apps.ts';
import { parseRequest } from '../../src-main/cli/commands/apps.ts';
import { expandMatrix, MatrixSchema, validateMatrix } from '../../src-main/engine/matrix.ts';

const EXPRESS = path.resolve(import.meta.dirname, '../fixtures/express-app');

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-project-'));
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

const noImages: ResolveContext = { taken: [], findImage: async () => ({ reason: 'no such image' }) };

describe('splitArgs', () => {
  it('splits like a shell for words and quotes', () => {
    expect(splitArgs('--greeting hello')).toEqual(['--greeting', 'hello']);
    expect(splitArgs(` -a "two words"  'it''s' "" `)).toEqual(['-a', 'two words', 'its', '']);
    expect(() => splitArgs('--x "open')).toThrow(/unclosed "/);
  });
  it('joins so that splitting gives the same arguments back', () => {
    for (const args of [['--greeting', 'hello'], ['two words', "it's", ''], ['a"b']]) expect(splitArgs(joinArgs(args))).toEqual(args);
  });
});

describe('readEcosystem', () => {
  it("reads the fixture's script, args and env, and names what it does not apply", async () => {
    const eco = await readEcosystem(EXPRESS, 'ecosystem.config.js');
    expect(eco).toEqual({ name: 'shop', entry: 'server.js', args: ['--greeting', 'hello'], env: { GREETING_SOURCE: 'ecosystem' }, cwd: '', ignored: ['instances', 'exec_mode'] });
  });
  it('picks an app by name, resolves cwd, takes args as a list and env values as strings', async () => {
    const dir = project({
      'api/index.js': '',
      'ecosystem.config.json': JSON.stringify({ apps: [{ name: 'web', script: 'x.js' }, { name: 'api', cwd: 'api', script: 'index.js', args: ['--a', 1], env: { N: 2 } }] }),
    });
    expect(await readEcosystem(dir, 'ecosystem.config.json', 'api')).toMatchObject({ entry: 'api/index.js', cwd: 'api', args: ['--a', '1'], env: { N: '2' } });
    await expect(readEcosystem(dir, 'ecosystem.config.json', 'worker')).rejects.toThrow(/no app named "worker" \(it has: web, api\)/);
  });
  it('says why a file is unusable', async () => {
    const dir = project({
      'syntax.config.js': 'module.exports = {',
      'empty.config.js': 'module.exports = {}',
      'python.config.js': "module.exports = { apps: [{ name: 'py', script: 'app.py', interpreter: 'python3' }] }",
      'escape.config.js': "module.exports = { apps: [{ script: '../../etc/passwd' }] }",
      'esm.config.mjs': "export default { apps: [{ script: 'server.mjs' }] }",
    });
    await expect(readEcosystem(dir, 'syntax.config.js')).rejects.toThrow(/syntax\.config\.js does not load: .*(Unexpected|SyntaxError)/);
    await expect(readEcosystem(dir, 'empty.config.js')).rejects.toThrow(/has no "apps" list/);
    await expect(readEcosystem(dir, 'python.config.js')).rejects.toThrow(/interpreter python3/);
    await expect(readEcosystem(dir, 'escape.config.js')).rejects.toThrow(/outside the project folder/);
    await expect(readEcosystem(dir, '../outside.js')).rejects.toThrow(/inside the project folder/);
    expect((await readEcosystem(dir, 'esm.config.mjs')).entry).toBe('server.mjs');
  });
});

describe('planFolder', () => {
  it("uses the folder's own node_modules when the image would get them", async () => {
    const dir = project({ 'server.js': '', 'package.json': '{"dependencies":{"x":"1"}}', 'node_modules/x/index.js': '' });
    expect((await planFolder(dir, 'server.js')).install).toEqual({ kind: 'node_modules' });
  });
  it('installs from the lockfile when .dockerignore leaves node_modules out, as the fixture does', async () => {
    const plan = await planFolder(EXPRESS, 'server.js');
    expect(plan.install).toEqual({ kind: 'lockfile', lockfile: 'package-lock.json' });
    expect(plan.skip('node_modules', true)).toBe(true);
    expect(plan.skip('server.js', false)).toBe(false);
    expect(plan.problems).toEqual([]);
  });
  it("follows Docker's rules, exceptions included, and skips .git without a .dockerignore", async () => {
    const dir = project({ 'server.js': '', '.dockerignore': 'logs\n*.md\n!README.md\n' });
    const plan = await planFolder(dir, 'server.js');
    expect(plan.skip('logs', true)).toBe(true);
    expect(plan.skip('notes.md', false)).toBe(true);
    expect(plan.skip('README.md', false)).toBe(false);
    expect(plan.skip('sub/notes.md', false)).toBe(false); // "*.md" is the top folder only, as in Docker
    expect(plan.install).toEqual({ kind: 'none' });
    const bare = await planFolder(project({ 'server.js': '' }), 'server.js');
    expect(bare.skip('.git', true)).toBe(true);
    expect(bare.skip('.env', false)).toBe(false);
  });
});

describe('resolveUserApp', () => {
  it('resolves a folder app from its ecosystem file, with the notes a user needs', async () => {
    const r = await resolveUserApp({ name: 'shop', source: { kind: 'folder', dir: EXPRESS }, port: 8080, env: { GREETING_SOURCE: 'form' } }, noImages);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.definition).toMatchObject({ entry: 'server.js', version: '1.2.0', health: '/', requests: [{ method: 'GET', path: '/' }], env: { GREETING_SOURCE: 'form' } });
    expect(r.definition.source).toEqual({ kind: 'folder', args: ['--greeting', 'hello'], cwd: '', ecosystem: { file: 'ecosystem.config.js', app: 'shop' } });
    expect(r.notes.join('\n')).toMatch(/instances, exec_mode: not applied/);
  });
  it('an explicit entry and args win over the ecosystem file', async () => {
    const r = await resolveUserApp({ name: 'shop', source: { kind: 'folder', dir: EXPRESS, entry: 'server.js', args: ['--greeting', 'yo'] }, port: 8080 }, noImages);
    expect(r.ok && r.definition.source).toEqual({ kind: 'folder', args: ['--greeting', 'yo'], cwd: '' });
  });
  it('reports every problem at once, each on its field', async () => {
    const r = await resolveUserApp(
      { name: 'Bad Name', source: { kind: 'folder', dir: 'relative/dir' }, port: 'x', health: 'health', requests: [{ method: 'GET', path: '/', status: 99 }], env: { 'A-B': '1' } },
      noImages,
    );
    expect(r.ok).toBe(false);
    const fields = !r.ok ? r.problems.map((p) => p.path).sort() : [];
    expect(fields).toEqual(['env.A-B', 'health', 'name', 'port', 'requests.0.status', 'source.dir']);
  });
  it('checks the image even when another field is malformed', async () => {
    const r = await resolveUserApp({ name: 'web', source: { kind: 'image', image: 'acme/web:1', workersEnv: 'not a var' }, port: 80 }, noImages);
    expect(!r.ok && r.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      'source.workersEnv: an environment variable name: letters, digits and _',
      'source.image: acme/web:1 is not on this machine and could not be pulled (no such image): build or pull it first',
    ]);
  });
  it('resolves an image app to its id, and says when its worker count is fixed', async () => {
    const r = await resolveUserApp({ name: 'web', source: { kind: 'image', image: 'acme/web:1' }, port: 80 }, { taken: [], findImage: async () => ({ id: 'sha256:0123456789abcdef' }) });
    if (!r.ok) throw new Error('expected ok');
    expect(r.definition.source).toEqual({ kind: 'image', image: 'acme/web:1', imageId: 'sha256:0123456789abcdef', workersEnv: null });
    expect(r.definition.version).toBe('0123456789ab');
    expect(r.notes[0]).toMatch(/workers dimension does not apply/);
  });
});

describe('CLI request shorthand', () => {
  it('reads method, path, expected status and a JSON body', () => {
    expect(parseRequest('get /items')).toEqual({ method: 'GET', path: '/items' });
    expect(parseRequest('POST /items 201 {"name":"pen"}')).toEqual({ method: 'POST', path: '/items', status: 201, body: '{"name":"pen"}', headers: { 'content-type': 'application/json' } });
    expect(parseRequest('PUT /x plain text')).toEqual({ method: 'PUT', path: '/x', body: 'plain text' });
    expect(() => parseRequest('/items')).toThrow(/METHOD \/path/);
  });
});

describe('matrix expansion with image apps', () => {
  const m = MatrixSchema.parse({ apps: ['hello', 'web', 'fixed'], modes: ['single', 'cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256] });
  const imageApps = { web: { fixed: false }, fixed: { fixed: true } };
  it("gives an image app one 'image' mode, its worker counts through the variable, and a fixed one a single cell", () => {
    const cells = expandMatrix(m, imageApps).map((c) => `${c.app} ${c.mode}×${c.workers}`);
    expect(cells).toEqual(['hello single×1', 'hello cluster×1', 'hello cluster×2', 'web image×1', 'web image×2', 'fixed image×1']);
    const v = validateMatrix(m, { cores: 2, memoryMb: 4096, apps: ['hello', 'web', 'fixed'], imageApps });
    expect(v.ok && v.cells).toBe(6);
  });
});
