// `npm start` / `npm run serve` (scripts/start.mjs): builds first when dist/ is missing or older than
// the sources, forwards its arguments, and without Electron says why instead of a stack trace; the
// recipe for bringing Electron's binary names the file, the cache folder and ELECTRON_OVERRIDE_DIST_PATH.
// The script runs for real in a throwaway copy of the project whose build and CLI are stand-ins.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildState, BUILD_OUTPUTS } from '../../scripts/build-state.mjs';
// @ts-expect-error -- a plain .mjs script without types (as tests/e2e/electron.spec.ts imports it)
import { electronRecipe as recipeAny, electronVersion as versionAny, findElectronBinary as findAny } from '../../scripts/electron-binary.mjs';

type RecipeInput = { version?: string | null; platform?: string; arch?: string; env?: Record<string, string | undefined>; home?: string; nodeVersion?: string };
const electronRecipe = recipeAny as (o?: RecipeInput) => string;
const electronVersion = versionAny as (dir?: string) => string | null;
const findElectronBinary = findAny as () => { path: string | null; reason?: string };

const repo = path.resolve(import.meta.dirname, '../..');
let root: string;

const write = (rel: string, text: string): void => {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
};
const age = (rel: string, secondsAgo: number): void => {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(path.join(root, rel), t, t);
};
const builds = (): number => (existsSync(path.join(root, 'builds.log')) ? readFileSync(path.join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean).length : 0);

function start(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/start.mjs'), ...args], { cwd: root, encoding: 'utf8', timeout: 20_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'rightsize-start-'));
  for (const f of ['start.mjs', 'build-state.mjs', 'electron-binary.mjs']) {
    mkdirSync(path.join(root, 'scripts'), { recursive: true });
    copyFileSync(path.join(repo, 'scripts', f), path.join(root, 'scripts', f));
  }
  // The build: writes every output (or fails when told to) and counts itself.
  write('scripts/build.mjs', `import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
if (process.env.FAKE_BUILD_FAILS) { console.error('boom'); process.exit(3); }
appendFileSync('builds.log', 'built\\n');
mkdirSync('dist/renderer', { recursive: true });
for (const f of ${JSON.stringify(BUILD_OUTPUTS)}) writeFileSync(f, '');
`);
  // The CLI: prints the arguments it was given.
  write('bin/rightsize.js', 'console.log(JSON.stringify(process.argv.slice(2)));\n');
  write('src-main/engine.ts', 'export {};\n');
  write('src-renderer/app.ts', 'export {};\n');
  const scripts = (JSON.parse(readFileSync(path.join(repo, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  write('package.json', JSON.stringify({ name: 'start-fixture', private: true, type: 'module', scripts: { start: scripts.start, serve: scripts.serve } }));
  for (const f of ['src-main/engine.ts', 'src-renderer/app.ts', 'package.json', 'scripts/build.mjs']) age(f, 3600);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the build before start', () => {
  it('is stale while dist/ is missing, fresh after a build, stale again when a source is newer', () => {
    expect(buildState(root)).toEqual({ stale: true, reason: 'missing' });
    write('dist/cli.js', '');
    expect(buildState(root).reason).toBe('missing'); // every output, not one
  });

  it('npm run serve: builds the first time, then forwards its arguments to `rightsize serve`', () => {
    const r = start(['serve', '--port', '0', '--host', '127.0.0.1']);
    expect(r.stderr).toContain('Building Rightsize (first start)…');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.trim())).toEqual(['serve', '--port', '0', '--host', '127.0.0.1']);
    expect(builds()).toBe(1);
    expect(buildState(root)).toEqual({ stale: false, reason: 'fresh' });
  });

  it('does not build again while dist/ is newer than the sources', () => {
    const r = start(['serve']);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/[Bb]uilding/);
    expect(builds()).toBe(1);
  });

  it('builds again when a source changed since the last build', () => {
    for (const f of BUILD_OUTPUTS) age(f, 60);
    write('src-main/engine.ts', 'export const changed = true;\n');
    expect(buildState(root)).toEqual({ stale: true, reason: 'changed' });
    const r = start(['serve']);
    expect(r.stderr).toContain('Sources changed since the last build: building…');
    expect(r.status).toBe(0);
    expect(builds()).toBe(2);
  });

  it('a failed build starts nothing and keeps its exit code', () => {
    rmSync(path.join(root, 'dist'), { recursive: true, force: true });
    const r = start(['serve'], { FAKE_BUILD_FAILS: '1' });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('The build failed (see above); nothing was started.');
    expect(r.stdout).toBe('');
  });

  it('`npm run serve -- ARGS` reaches the CLI with every argument', () => {
    const r = spawnSync('npm', ['run', '--silent', 'serve', '--', '--port', '5999', '--host', '0.0.0.0'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual(['serve', '--port', '5999', '--host', '0.0.0.0']);
  });

  it('without the electron package, `npm start` says why and how to open the app in a browser, with no stack trace', () => {
    const r = start([]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Cannot open the desktop app: the electron package is not installed (run npm ci).');
    expect(r.stderr).toContain('run `npm ci` first');
    expect(r.stderr).toContain('npm run serve');
    expect(r.stderr).not.toMatch(/\n\s+at |ENOENT|Error:/);
  });
});

describe('electronRecipe', () => {
  const linux = { version: '42.1.0', platform: 'linux', arch: 'x64', env: {}, home: '/home/u', nodeVersion: '22.12.0' } as const;

  it('names the exact file, its URL, and ELECTRON_OVERRIDE_DIST_PATH', () => {
    const text = electronRecipe(linux);
    expect(text).toContain('https://github.com/electron/electron/releases/download/v42.1.0/electron-v42.1.0-linux-x64.zip');
    expect(text).toContain('ELECTRON_OVERRIDE_DIST_PATH=~/electron-v42.1.0 npm start');
    expect(text).not.toContain('Node.js 22.12 or newer'); // this Node is new enough
    expect(electronRecipe({ ...linux, nodeVersion: '20.19.0' })).toContain("need Node.js 22.12 or newer; this is Node 20.19.0");
    expect(electronRecipe({ ...linux, platform: 'darwin', arch: 'arm64' })).toContain('electron-v42.1.0-darwin-arm64.zip');
  });

  it('puts the file in the cache folder @electron/get reads: <root>/<sha256 of the URL folder>/', async () => {
    const { Cache } = (await import('../../node_modules/@electron/get/dist/Cache.js')) as { Cache: { getCacheDirectory(url: string): string } };
    const hash = Cache.getCacheDirectory('https://github.com/electron/electron/releases/download/v42.1.0/electron-v42.1.0-linux-x64.zip');
    expect(electronRecipe(linux)).toContain(`mkdir -p /home/u/.cache/electron/${hash}\n`);
    expect(electronRecipe({ ...linux, env: { XDG_CACHE_HOME: '/c' } })).toContain(`/c/electron/${hash}`);
    expect(electronRecipe({ ...linux, env: { electron_config_cache: '/cache' } })).toContain(`/cache/${hash}`);
    expect(electronRecipe({ ...linux, platform: 'darwin' })).toContain(`/home/u/Library/Caches/electron/${hash}`);
  });

  it('without the electron package: a sentence, not a throw', () => {
    expect(electronVersion(path.join(root, 'node_modules/electron'))).toBeNull();
    expect(electronRecipe({ ...linux, version: null })).toMatch(/^The electron package is not installed.*npm ci/);
  });

  it('findElectronBinary honours ELECTRON_OVERRIDE_DIST_PATH', () => {
    const before = process.env.ELECTRON_OVERRIDE_DIST_PATH;
    try {
      const dir = path.join(root, 'electron-dist');
      process.env.ELECTRON_OVERRIDE_DIST_PATH = dir;
      expect(findElectronBinary()).toMatchObject({ path: null, reason: expect.stringContaining('ELECTRON_OVERRIDE_DIST_PATH is set but') });
      mkdirSync(dir, { recursive: true });
      const rel = existsSync(path.join(repo, 'node_modules/electron/path.txt')) ? readFileSync(path.join(repo, 'node_modules/electron/path.txt'), 'utf8').trim() : 'electron';
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), '');
      expect(findElectronBinary()).toEqual({ path: path.join(dir, rel) });
    } finally {
      if (before === undefined) delete process.env.ELECTRON_OVERRIDE_DIST_PATH;
      else process.env.ELECTRON_OVERRIDE_DIST_PATH = before;
    }
  });
});
