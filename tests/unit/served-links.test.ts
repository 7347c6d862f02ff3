// What a user's app says it serves (apps add --tls, --http2 h2|h2c): the declaration's own rule, kept through the
// definition and its manifest, and the cells refused for a link it does not serve — with what to write, by the run
// and its dry run alike (through the real CLI, no Docker asked).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppManifestSchema } from '../../src-main/apps/manifest.ts';
import { optionOf } from '../../src-main/apps/option-words.ts';
import { linkProblems, servesWords, tryLink, type Serving } from '../../src-main/apps/served-links.ts';
import { resolveUserApp, UserAppSchema, type ResolveContext } from '../../src-main/apps/user-apps.ts';
import { EXIT } from '../../src-main/cli/exit-codes.ts';
import { linksOf } from '../../src-main/engine/matrix-dimensions.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, ROOT, tempDir } from '../helpers/cli.ts';

const noImages: ResolveContext = { taken: [], findImage: async () => ({ reason: 'no such image' }) };
const H2_APP = path.join(ROOT, 'tests/fixtures/h2-app');
const app = (o: object): object => ({ name: 'h2app', source: { kind: 'folder', dir: H2_APP, entry: 'server.js' }, port: 8443, ...o });

describe('the declaration', () => {
  it('keeps h2 (with tls) and h2c through the definition, its JSON and the manifest it resolves to', async () => {
    for (const served of [{ tls: true, http2: 'h2' }, { http2: 'h2c' }] as const) {
      const r = await resolveUserApp(app(served), noImages);
      expect(r.ok && r.app.http2).toBe(served.http2);
      expect(r.ok && r.definition).toMatchObject(served);
      if (!r.ok) continue;
      expect(UserAppSchema.parse(JSON.parse(JSON.stringify(r.app)))).toEqual(r.app);
      expect(AppManifestSchema.parse({ ...r.definition, version: '1', stresses: 'x', entry: 'server.js' }).http2).toBe(served.http2);
    }
    const plain = await resolveUserApp(app({}), noImages);
    expect(plain.ok && 'http2' in plain.definition).toBe(false);
  });

  it('says what is wrong: h2 without TLS, h2c with it, a version it does not know', async () => {
    const problems = async (o: object): Promise<unknown> => {
      const r = await resolveUserApp(app(o), noImages);
      return r.ok ? [] : r.problems;
    };
    expect(await problems({ http2: 'h2' })).toEqual([{ path: 'http2', message: '"h2" is HTTP/2 over TLS: the app serves HTTPS itself too (--tls)' }]);
    expect(await problems({ tls: true, http2: 'h2c' })).toEqual([{ path: 'http2', message: '"h2c" is HTTP/2 in clear: an app that serves HTTPS itself (--tls) serves "h2" instead' }]);
    expect(await problems({ http2: 'h3' })).toEqual([{ path: 'http2', message: 'http2 is "h2" (HTTP/2 over TLS, HTTP/1.1 beside it) or "h2c" (HTTP/2 in clear)' }]);
    expect(optionOf('http2')).toBe('--http2');
  });
});

const plain: Serving = { name: 'plain', builtIn: false };
const secure: Serving = { name: 'secure', builtIn: false, tls: true };
const both: Serving = { name: 'both', builtIn: false, tls: true, http2: 'h2' };
const clear: Serving = { name: 'clear', builtIn: false, http2: 'h2c' };
const hello: Serving = { name: 'hello', builtIn: true };
const refusals = (m: object, apps: Serving[]): string[] => linkProblems(linksOf(m), apps).map((p) => `${p.path}: ${p.message}`);

describe('the cells an app serves', () => {
  it('lets each app into the cells it serves, and the built-in apps into all', () => {
    expect(refusals({}, [plain, hello])).toEqual([]);
    expect(refusals({ tls: [true] }, [secure, hello])).toEqual([]);
    expect(refusals({ protocol: ['h2'] }, [both])).toEqual([]);
    expect(refusals({ protocol: ['http1', 'h2'], tls: [true] }, [both, hello])).toEqual([]);
    expect(refusals({ protocol: ['h2c'] }, [clear, hello])).toEqual([]);
    expect(refusals({ protocol: ['http1', 'h2', 'h2c'], tls: [false, true] }, [hello])).toEqual([]);
  });

  it('refuses the rest, once per reason, naming the apps and what to write', () => {
    expect(refusals({ protocol: ['h2'] }, [plain, secure])).toEqual([
      'protocol: plain, secure do not serve HTTP/2 over TLS: "h2" cells need an app added with --tls --http2 h2 (it serves h2 itself); leave "h2" out of "protocol"',
    ]);
    expect(refusals({ protocol: ['h2c'] }, [both])).toEqual([
      'protocol: both does not serve h2c (HTTP/2 in clear): "h2c" cells need an app added with --http2 h2c; leave "h2c" out of "protocol"',
    ]);
    expect(refusals({ protocol: ['http1', 'h2'] }, [clear])).toEqual([
      'protocol: clear serves HTTP/2 in clear only (--http2 h2c): give "protocol": ["h2c"] so every cell of it speaks h2c',
    ]);
    expect(refusals({ protocol: ['http1', 'h2'] }, [both])).toEqual([
      'tls: both serves HTTPS itself (--tls --http2 h2): give "tls": [true] with "protocol": ["http1", "h2"], or "protocol": ["h2"], so every cell of it is measured over TLS',
    ]);
    expect(refusals({ tls: [false, true] }, [plain, secure])).toEqual([
      'tls: plain serves plain HTTP: HTTPS cells need the built-in apps or an app added with --tls (it serves HTTPS itself)',
      'tls: secure serves HTTPS itself (--tls): give "tls": [true] so every cell of it is measured over TLS',
    ]);
  });

  it('tries an app out over the link its cells speak, and lists what it serves', () => {
    expect([plain, secure, both, clear].map((a) => tryLink(a))).toEqual([{}, { tls: true }, { tls: true, protocol: 'h2' }, { protocol: 'h2c' }]);
    expect([plain, secure, both, clear, hello].map(servesWords)).toEqual(['HTTP/1.1', 'HTTPS', 'HTTPS, h2', 'h2c', 'any']);
  });
});

describe('rightsize apps add --http2 and run --dry-run', () => {
  const NO_DOCKER = { DOCKER_HOST: 'unix:///nonexistent/rightsize-served-links.sock' };
  it('refuses h2 without --tls by the option, lists what it serves, and the dry run refuses an h2c cell of it', async () => {
    const db = path.join(tempDir('rightsize-served-'), 'h.db');
    const add = (...more: string[]) => cli(['--db', db, 'apps', 'add', 'web2', '--folder', H2_APP, '--entry', 'server.js', '--port', '8443', '--no-try', ...more], NO_DOCKER);
    const bad = await add('--http2', 'h2');
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('  - --http2: "h2" is HTTP/2 over TLS: the app serves HTTPS itself too (--tls)');
    expect((await add('--http2', 'h2', '--tls')).code).toBe(EXIT.ok);
    expect((await cli(['--db', db, 'apps'], NO_DOCKER)).stdout).toMatch(/web2 .* HTTPS, h2 /);

    const matrix = path.join(tempDir('rightsize-served-'), 'm.json');
    writeFileSync(matrix, JSON.stringify({ apps: ['web2'], protocol: ['h2c'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [256] }));
    const dry = await cli(['--db', db, 'run', '--config', matrix, '--dry-run'], NO_DOCKER);
    expect(dry.code).toBe(EXIT.usage);
    expect(dry.stderr).toContain('  - protocol: web2 does not serve h2c (HTTP/2 in clear)');
    const store = Store.open(db);
    try {
      expect(store.listRuns({}).total).toBe(0);
    } finally {
      store.close();
    }

    const edit = await cli(['--db', db, '--json', 'apps', 'edit', 'web2', '--no-http2', '--no-try'], NO_DOCKER);
    expect(edit.code, edit.stderr).toBe(0);
    expect((JSON.parse(edit.stdout) as { user: { http2?: string; tls: boolean } }).user).toMatchObject({ tls: true });
    expect('http2' in (JSON.parse(edit.stdout) as { user: object }).user).toBe(false);
  }, 60_000);
});
