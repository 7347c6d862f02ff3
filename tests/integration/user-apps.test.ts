import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractError } from '../../src-main/contract/api.ts';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { BuildContext } from '../../src-main/docker/build-context.ts';
import { docker } from '../../src-main/docker/client.ts';
import { buildImage } from '../../src-main/docker/image-build.ts';
import { LABEL, ownFilters } from '../../src-main/docker/labels.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, ROOT, tempDir } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker } from '../helpers/docker.ts';
import { laneContainers } from '../helpers/lane-scope.ts';
import { until } from '../helpers/wait.ts';

const EXPRESS = path.join(ROOT, 'tests/fixtures/express-app');
const WEB_IMAGE = 'rightsize-test/web-concurrency:1';

beforeAll(async () => {
  await requireDocker();
});

describe('a user project folder (Express, with its lockfile and ecosystem file)', () => {
  it('is added with the CLI and sized end to end in single, cluster and pm2 modes', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'h.db');
    const add = await cli([
      '--db', db, 'apps', 'add', 'shop', '--folder', EXPRESS, '--port', '8080', '--health', '/health',
      // A sequence, each with its expected status: the 201 and the 404 are right answers here.
      '--request', 'GET /items/3',
      '--request', 'POST /items 201 {"name":"pen"}',
      '--request', 'GET /items/999 404',
      // 409 unless the ecosystem file's args and env reached every process.
      '--request', 'GET /config?greeting=hello&source=ecosystem 200',
    ]);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toMatch(/read ecosystem\.config\.js \(app "shop"\): entry server\.js, args --greeting hello/);

    const config = path.join(dir, 'matrix.json');
    // A paced load here and below: these cells prove the app runs as added, not its speed.
    writeFileSync(config, JSON.stringify({ apps: ['shop'], modes: ['single', 'cluster', 'pm2'], workers: [2], cpuMillicores: [1000], memoryMb: [256], durationSec: 2, warmupSec: 0, load: { ...PACED_LOAD, connections: 8 }, settleBudgetPct: 0, verify: false }));
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: number; cells: { config: { mode: string; workers: number }; status: string; rpsMean: number; non2xx: number; errors: number }[] };
    expect(out.cells.map((c) => `${c.config.mode}×${c.config.workers}:${c.status}`)).toEqual(['single×1:ok', 'cluster×2:ok', 'pm2×2:ok']);
    for (const c of out.cells) {
      expect(c.rpsMean).toBeGreaterThan(100);
      expect(c.non2xx + c.errors).toBe(0); // every response matched its expected status
    }

    const store = Store.open(db);
    try {
      const run = store.getRun(out.runId)!;
      for (const cell of run.cells) expect(Object.keys(cell.load?.statusCounts ?? {}).sort()).toEqual(['200', '201', '404']);
      // The run keeps a copy of the definition it used, with what the ecosystem file said.
      const used = run.apps as { name: string; entry: string; source: { kind: string; args: string[]; ecosystem?: { file: string } } }[];
      expect(used.map((a) => a.name)).toEqual(['shop']);
      expect(used[0]!.entry).toBe('server.js');
      expect(used[0]!.source).toMatchObject({ kind: 'folder', args: ['--greeting', 'hello'], ecosystem: { file: 'ecosystem.config.js' } });
    } finally {
      store.close();
    }
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);
  });

  it('counts a response that does not match its expected status as an error', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'h.db');
    const add = await cli(['--db', db, 'apps', 'add', 'shop', '--folder', EXPRESS, '--port', '8080', '--health', '/health', '--request', 'GET /items/999 200']);
    expect(add.code, add.stderr).toBe(0);
    const config = path.join(dir, 'matrix.json');
    writeFileSync(config, JSON.stringify({ apps: ['shop'], modes: ['single'], workers: [1], cpuMillicores: [1000], memoryMb: [256], durationSec: 2, warmupSec: 0, load: PACED_LOAD, settleBudgetPct: 0, verify: false }));
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    const out = JSON.parse(r.stdout) as { cells: { requests: number; non2xx: number; flags: { kind: string }[] }[] };
    expect(out.cells[0]!.non2xx).toBe(out.cells[0]!.requests);
    expect(out.cells[0]!.requests).toBeGreaterThan(0);
    expect(out.cells[0]!.flags.map((f) => f.kind)).toContain('errors');
  });
});

describe('an existing image that reads its worker count from WEB_CONCURRENCY', () => {
  let lab: Lab;
  let base: Awaited<ReturnType<typeof ensureBaseImage>>;
  beforeAll(async () => {
    // No registry here: build the "user's image" locally on a base image, as a user's own build would.
    base = await ensureBaseImage();
    const ctx = new BuildContext();
    const src = path.join(ROOT, 'tests/fixtures/web-concurrency-image');
    ctx.addText('Dockerfile', readFileSync(path.join(src, 'Dockerfile'), 'utf8')).addFile('server.js', path.join(src, 'server.js'));
    await buildImage(ctx, WEB_IMAGE, { kind: 'test', buildargs: { BASE_IMAGE: base.tag } });
    lab = await Lab.open({ dbPath: path.join(tempDir(), 'h.db') });
  });
  afterAll(async () => lab?.close());

  it('runs the image with its own command, WEB_CONCURRENCY set per cell', async () => {
    await lab.handlers['apps.add']({ app: { name: 'web', source: { kind: 'image', image: WEB_IMAGE, workersEnv: 'WEB_CONCURRENCY' }, port: 5000 } });
    const processes: Record<number, number> = {};
    const stop = lab.subscribe('run.progress', {}, (e) => {
      if (e.type !== 'cell-phase' || e.phase !== 'measuring') return;
      // While it is under load: count the node processes inside the cell's container, the run's only
      // one then (a target started ahead carries the run's label, not yet its cell's).
      void (async () => {
        const [c] = await docker().listContainers({ filters: JSON.stringify({ label: [...ownFilters(), `${LABEL.run}=${e.runId}`] }) });
        const top = (await docker().getContainer(c!.Id).top()) as { Processes: string[][] };
        processes[e.index] = top.Processes.filter((p) => p.some((f) => f.includes('server.js'))).length;
      })();
    });
    const finished = runFinished(lab); // before runs.start, so the event cannot be missed
    const { runId } = await lab.handlers['runs.start']({ matrix: { apps: ['web'], modes: ['cluster', 'pm2'], workers: [1, 3], cpuMillicores: [1000], memoryMb: [256], durationSec: 2, warmupSec: 0, load: PACED_LOAD, settleBudgetPct: 0, verify: false } });
    await finished(runId);
    stop();
    const run = await lab.handlers['runs.get']({ runId });
    // One cell per worker count, whatever modes the matrix lists: the image has its own launcher.
    expect(run.cells.map((c) => `${c.config.mode}×${c.config.workers}:${c.status}`)).toEqual(['image×1:ok', 'image×3:ok']);
    expect(processes).toEqual({ 0: 2, 1: 4 }); // primary + WEB_CONCURRENCY workers
    expect(await listOwnContainers({ run: runId })).toEqual([]);
    // The runtime probe reached every Node.js process of the user's image (its file copied into the
    // container), with the image's own NODE_OPTIONS kept: every heap limit is the image's 48 MB old
    // space plus the young generation, far below the ~250 MB a 256 MB cap gives by default.
    const probed = await lab.handlers['runs.probe']({ runId });
    expect(probed.map((c) => [c.probe?.attached, c.probe?.note])).toEqual([
      [2, undefined],
      [4, undefined],
    ]);
    for (const c of probed) {
      expect(new Set(c.seconds.filter((s) => s.t >= 0).map((s) => s.pid)).size).toBe(c.probe!.attached);
      for (const s of c.seconds) expect(s.heapLimitBytes).toBeLessThan(100 * 2 ** 20);
    }
  });

  it("a folder with its own Dockerfile is built with it (its build argument), runs its command, and the image's Node.js is recorded", async () => {
    const src = path.join(ROOT, 'tests/fixtures/web-concurrency-image');
    const db = path.join(tempDir(), 'df.db');
    // --entry with a Dockerfile: refused with what to do, nothing saved.
    const entry = await cli(['--db', db, 'apps', 'add', 'web-df', '--folder', src, '--entry', 'server.js', '--port', '5000', '--no-try']);
    expect(entry.code).toBe(2);
    expect(entry.stderr).toContain('is built with its Dockerfile, whose command starts the server');
    const badArg = await cli(['--db', db, 'apps', 'add', 'web-df', '--folder', src, '--build-arg', 'BASE_IMAGE', '--port', '5000', '--no-try']);
    expect([badArg.code, badArg.stderr.trim()]).toEqual([2, 'rightsize: --build-arg takes NAME=value, got "BASE_IMAGE".']);
    const add = await cli(['--db', db, 'apps', 'add', 'web-df', '--folder', src, '--build-arg', `BASE_IMAGE=${base.tag}`,
      '--workers-env', 'WEB_CONCURRENCY', '--port', '5000', '--no-try']);
    expect(add.code, add.stderr).toBe(0);
    const config = path.join(tempDir(), 'df.json');
    writeFileSync(config, JSON.stringify({ apps: ['web-df'], modes: ['cluster'], workers: [2], cpuMillicores: [1000], memoryMb: [256], durationSec: 2, warmupSec: 0, load: PACED_LOAD, settleBudgetPct: 0, verify: false }));
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: number; cells: { config: { mode: string; workers: number }; status: string; imageTag: string; nodeVersion?: string }[] };
    expect(out.cells.map((c) => `${c.config.mode}×${c.config.workers}:${c.status}`)).toEqual(['image×2:ok']);
    expect(out.cells[0]!.imageTag).toMatch(/^rightsize\/app-user-web-df:/);
    // Built FROM the base the build argument named: its Node.js version, read from the image, not the host's.
    expect(out.cells[0]!.nodeVersion).toBe(base.nodeVersion);
    const inspect = await docker().getImage(out.cells[0]!.imageTag).inspect();
    expect(inspect.Config.Cmd).toEqual(['node', '/srv/web/server.js']); // the team's CMD, not Rightsize's launcher
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);
  }, 120_000);

  it('collapses the workers dimension for a fixed image', async () => {
    await lab.handlers['apps.add']({ app: { name: 'web-fixed', source: { kind: 'image', image: WEB_IMAGE, workersEnv: null }, port: 5000 } });
    const check = await lab.handlers['matrix.validate']({ matrix: { apps: ['web-fixed'], modes: ['cluster'], workers: [1, 2, 4], cpuMillicores: [500, 1000], memoryMb: [256] } });
    expect(check).toMatchObject({ ok: true, cells: 2 });
  });
});

describe('adding an app: every problem gets its message and nothing changes', () => {
  let lab: Lab;
  let dir: string;
  beforeAll(async () => {
    dir = tempDir();
    lab = await Lab.open({ dbPath: path.join(dir, 'h.db') });
    await lab.handlers['apps.add']({ app: { name: 'shop', source: { kind: 'folder', dir: EXPRESS }, port: 8080, health: '/health' } });
  });
  afterAll(async () => lab?.close());

  const project = (name: string, files: Record<string, string>): string => {
    const p = path.join(dir, name);
    mkdirSync(p, { recursive: true });
    for (const [f, text] of Object.entries(files)) writeFileSync(path.join(p, f), text);
    return p;
  };

  const cases: [string, () => unknown, string, RegExp][] = [
    ['missing folder', () => ({ name: 'a1', source: { kind: 'folder', dir: path.join(dir, 'nope') }, port: 8080 }), 'source.dir', /does not exist/],
    ['missing entry file', () => ({ name: 'a2', source: { kind: 'folder', dir: EXPRESS, entry: 'main.js' }, port: 8080 }), 'source.entry', /no file main\.js/],
    ['port not a number', () => ({ name: 'a3', source: { kind: 'folder', dir: EXPRESS }, port: 'eighty' }), 'port', /must be a number/],
    ['port out of range', () => ({ name: 'a4', source: { kind: 'folder', dir: EXPRESS }, port: 70000 }), 'port', /1 to 65535/],
    ['image neither local nor pullable', () => ({ name: 'a5', source: { kind: 'image', image: 'rightsize-test/absent:1', workersEnv: null }, port: 80 }), 'source.image', /not on this machine and could not be pulled/],
    ['ecosystem file that does not parse', () => ({ name: 'a6', source: { kind: 'folder', dir: project('bad-eco', { 'server.js': '', 'ecosystem.config.js': 'module.exports = { apps: [ { script: ' }) }, port: 8080 }), 'source.ecosystem', /ecosystem\.config\.js does not load/],
    ['name of a built-in app', () => ({ name: 'hello', source: { kind: 'folder', dir: EXPRESS }, port: 8080 }), 'name', /built-in app/],
    ['name already taken', () => ({ name: 'shop', source: { kind: 'folder', dir: EXPRESS }, port: 8080 }), 'name', /already have an app named "shop"/],
    ['dependencies with neither node_modules nor lockfile', () => ({ name: 'a9', source: { kind: 'folder', dir: project('no-lock', { 'server.js': '', 'package.json': '{"dependencies":{"express":"4.21.2"}}' }), entry: 'server.js' }, port: 8080 }), 'source.dir', /run "npm install"/],
    ['.dockerignore that leaves out the entry', () => ({ name: 'a10', source: { kind: 'folder', dir: project('ignored', { 'server.js': '', '.dockerignore': '*.js\n' }), entry: 'server.js' }, port: 8080 }), 'source.entry', /\.dockerignore leaves server\.js out/],
  ];

  it.each(cases)('%s', async (_what, make, field, message) => {
    const before = JSON.stringify(await lab.handlers['apps.list']({}));
    const app = make();
    const check = await lab.handlers['apps.check']({ app });
    expect(check.ok).toBe(false);
    expect(check.problems.find((p) => p.path === field)?.message).toMatch(message);
    const err = await failure(() => lab.handlers['apps.add']({ app }));
    expect(err).toBeInstanceOf(ContractError);
    expect((err as ContractError).code).toBe('APP_INVALID');
    expect((err as ContractError).fields.find((p) => p.path === field)?.message).toMatch(message);
    expect(JSON.stringify(await lab.handlers['apps.list']({}))).toBe(before); // nothing saved
  });

  it('an edit that breaks the app is refused and keeps the old definition', async () => {
    const before = JSON.stringify(await lab.handlers['apps.list']({}));
    const err = await failure(() => lab.handlers['apps.update']({ name: 'shop', app: { name: 'shop', source: { kind: 'folder', dir: EXPRESS }, port: 0 } }));
    expect((err as ContractError).code).toBe('APP_INVALID');
    expect(JSON.stringify(await lab.handlers['apps.list']({}))).toBe(before);
  });

  it('a failed build reports its log and leaves no image and no container', async () => {
    // A lockfile left with a merge conflict: `npm ci` refuses it before it asks the registry for
    // anything, so the failure is the same offline (a registry hiccup once failed a network-bound variant).
    const broken = project('conflicted-lock', {
      'server.js': "require('node:http').createServer((q, s) => s.end('x')).listen(8080);",
      'package.json': '{"name":"oos","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}}',
      'package-lock.json': '{"name":"oos","version":"1.0.0","lockfileVersion":3,\n<<<<<<< HEAD\n',
    });
    await lab.handlers['apps.add']({ app: { name: 'oos', source: { kind: 'folder', dir: broken, entry: 'server.js' }, port: 8080 } });
    const containersBefore = new Set((await laneContainers()).map((c) => c.Id));
    const lines: string[] = [];
    const stop = lab.subscribe('apps.buildLog', { name: 'oos' }, (e) => lines.push(e.line));
    const err = await failure(() => lab.handlers['apps.build']({ name: 'oos' }));
    stop();
    expect((err as ContractError).code).toBe('BUILD_FAILED');
    const message = (err as ContractError).message;
    expect(message, message).toMatch(/npm error[^\n]*package-lock\.json/); // npm's own words
    expect(lines.join('\n')).toMatch(/Step \d+\/\d+ : RUN/); // the log was streamed as it happened
    const images = await docker().listImages({ filters: JSON.stringify({ reference: ['rightsize/app-user-oos'] }) });
    expect(images).toEqual([]);
    // The engine removes the failed step's container (forcerm) just after the build's stream ends:
    // wait for that state, not for a guessed time. The session's reaper (started with the first
    // build, alive as long as this process) is not the build's.
    const added = async (): Promise<string[]> =>
      (await laneContainers()).filter((c) => !containersBefore.has(c.Id) && c.Labels?.[LABEL.kind] !== 'reaper').map((c) => c.Id);
    await until(async () => (await added()).length === 0, "the failed build's container to be removed");
  });

  it('a code change rebuilds the image, reuses the install, and keeps one image per app', async () => {
    const copy = path.join(dir, 'shop-copy');
    cpSync(EXPRESS, copy, { recursive: true, filter: (src) => !src.includes('node_modules') });
    await lab.handlers['apps.add']({ app: { name: 'shop-copy', source: { kind: 'folder', dir: copy }, port: 8080, health: '/health' } });
    const first = await lab.handlers['apps.build']({ name: 'shop-copy' });
    writeFileSync(path.join(copy, 'server.js'), `${readFileSync(path.join(copy, 'server.js'), 'utf8')}\n// an edit\n`);
    const lines: string[] = [];
    // A subscriber that comes late (a socket still opening) gets the log so far: subscribe once the
    // build has logged something, known from an early subscriber, not after a guessed sleep.
    const early: string[] = [];
    let logged!: () => void;
    const started = new Promise<void>((r) => (logged = r));
    const stopEarly = lab.subscribe('apps.buildLog', { name: 'shop-copy' }, (e) => (early.push(e.line), logged()));
    const building = lab.handlers['apps.build']({ name: 'shop-copy' });
    await started;
    const stop = lab.subscribe('apps.buildLog', { name: 'shop-copy' }, (e) => lines.push(e.line));
    const second = await building;
    stop();
    stopEarly();
    expect(early.length).toBeGreaterThan(0);
    expect(lines).toEqual(early); // the late one got the lines it missed, then the rest
    expect(lines[0]).toMatch(/^building shop-copy from /);
    expect(second.built).toBe(true);
    expect(second.tag).not.toBe(first.tag);
    expect(lines.join('\n')).toMatch(/RUN \["node","\/opt\/rightsize-npm\/bin\/npm-cli\.js","ci"[\s\S]*?Using cache/); // the install was not redone
    const tags = (await docker().listImages({ filters: JSON.stringify({ reference: ['rightsize/app-user-shop-copy'] }) })).flatMap((i) => i.RepoTags ?? []);
    expect(tags).toEqual([second.tag]);
    expect(await lab.handlers['apps.build']({ name: 'shop-copy' })).toMatchObject({ tag: second.tag, built: false });
  });

  it('removes your app; a built-in one cannot be removed', async () => {
    const err = await failure(() => lab.handlers['apps.remove']({ name: 'hello' }));
    expect((err as ContractError).code).toBe('NOT_FOUND');
    expect(await lab.handlers['apps.remove']({ name: 'oos' })).toEqual({ removed: true });
    expect((await lab.handlers['apps.list']({})).some((a) => a.name === 'oos')).toBe(false);
  });
});

/** What a handler threw (synchronously or not); fails the test when it did not throw. */
async function failure(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected an error');
}

/** Subscribe to run.progress now; the returned function resolves on that run's 'run-finished' event (no polling). */
function runFinished(lab: Lab, timeoutMs = 150_000): (runId: number) => Promise<void> {
  const done = new Set<number>();
  const waiters = new Map<number, () => void>();
  const stop = lab.subscribe('run.progress', {}, (e) => {
    if (e.type !== 'run-finished') return;
    done.add(e.runId);
    waiters.get(e.runId)?.();
  });
  return (runId) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => (stop(), reject(new Error(`run ${runId} did not finish`))), timeoutMs);
      const finish = (): void => (clearTimeout(timer), stop(), resolve());
      if (done.has(runId)) finish();
      else waiters.set(runId, finish);
    });
}
