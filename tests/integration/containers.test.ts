import { localProvider } from '../../src-main/providers/local/provider.ts';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInApps } from '../../src-main/apps/catalog.ts';
import { docker, type EngineInfo } from '../../src-main/docker/client.ts';
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { servingProcesses } from '../../src-main/docker/launch.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import { sweepOrphans, listOwnContainers } from '../../src-main/docker/sweep.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import type { CellConfig, LaunchMode } from '../../src-main/model/types.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';
import { cli, ROOT } from '../helpers/cli.ts';
import { EXIT } from '../../src-main/cli/exit-codes.ts';
import { request } from '../helpers/http.ts';
import { stepsOf } from '../../src-main/mix/routes.ts';

let engine: EngineInfo;
const started: TargetContainer[] = [];

beforeAll(async () => {
  engine = await requireDocker();
});
afterAll(async () => {
  await Promise.all(started.map((c) => c.remove()));
});

async function start(appName: string, mode: LaunchMode, workers: number, cpuMillis = 500, memoryMb = 256) {
  const { app, image } = await imageFor(appName);
  const c = await TargetContainer.start({
    image: image.tag,
    launch: { mode, workers, entry: image.entry, name: app.name },
    port: app.port,
    env: app.env,
    cpuMillis,
    memoryMb,
    publish: !engine.bridgeRoutable,
    labels: { app: app.name, run: 'containers-test' },
  });
  started.push(c);
  return { app, c };
}

const cell = (over: Partial<CellConfig>): CellConfig => ({
  index: 0, repetition: 0, app: 'hello', mode: 'single', workers: 1, cpuMillis: 1000, memoryMb: 256,
  load: { model: 'closed', connections: 8 }, durationSec: 5, warmupSec: 0, env: {}, ...over,
});

async function runOne(cfg: CellConfig) {
  const { app, image } = await imageFor(cfg.app);
  return runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10 });
}

describe('every app in every launch mode starts under a cap and answers its requests', () => {
  // An app with a database starts with it: catalog runs beside a real PostgreSQL in dependencies.test.ts.
  const cases = builtInApps().filter((a) => !a.dependencies?.length).flatMap((a) => (['single', 'cluster', 'pm2'] as const).map((m) => [a.name, m] as const));
  // Three at once: each only starts a container and asks it (the integration project's maxConcurrency).
  it.concurrent.for(cases)('%s in %s mode', async ([name, mode], { expect }) => {
    const workers = mode === 'single' ? 1 : 2;
    const { app, c } = await start(name, mode, workers);
    const ready = await waitReady(c.address, { path: app.health, processes: servingProcesses(mode, workers), deadlineMs: 30_000, exited: c.exited });
    expect(ready.pids).toBe(workers); // every worker answered the health path before "ready"
    for (const r of app.requests.flatMap(stepsOf)) {
      const res = await request(c.address.host, c.address.port, r);
      expect(res.status, `${r.method} ${r.path}`).toBeGreaterThanOrEqual(200);
      expect(res.status).toBeLessThan(300);
      expect(res.body.length).toBeGreaterThan(0);
    }
    const info = await c.container.inspect();
    expect(info.HostConfig.NanoCpus).toBe(500_000_000);
    expect(info.HostConfig.Memory).toBe(256 * 1024 * 1024);
    expect(info.HostConfig.MemorySwap).toBe(256 * 1024 * 1024);
    expect(info.Config.Labels['io.rightsize.session']).toBe(currentSession());
    await c.remove();
    await expect(c.container.inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('caps are real', () => {
  it('pbkdf2 under a quarter core is flagged as throttled', async () => {
    const r = await runOne(cell({ app: 'pbkdf2', cpuMillis: 250, durationSec: 3, warmupSec: 0 }));
    expect(r.status).toBe('ok');
    expect(r.flags.map((f) => f.kind)).toContain('throttled');
  });

  it('alloc under a small memory cap is reported as OOM-killed, not as a generic failure', async () => {
    // The whole 256 KiB a request is leaked, so a few hundred requests fill the cap however little CPU the
    // other lane leaves; the cell ends at the kill, not at 30 s. At 5 % a busy host once missed it in 10 s.
    const r = await runOne(cell({
      app: 'alloc', memoryMb: 64, durationSec: 30, env: { ALLOC_RETAIN: '1' }, load: { model: 'closed', connections: 20 },
    }));
    expect(r.status, `${r.load?.requests ?? '?'} requests, peak ${r.stats?.memPeakBytes ?? '?'} bytes`).toBe('oom');
    expect(r.exit?.oomKilled).toBe(true);
    expect(r.flags.map((f) => f.kind)).toContain('oom-killed');
    expect(r.failure).toMatch(/OOM-killed under the 64 MB cap/);
  });

  it('a cell whose app cannot start fails with the exit code and log tail, and leaves no container', async () => {
    const r = await runOne(cell({ app: 'hello', env: { NODE_OPTIONS: '--no-such-flag' } }));
    expect(r.status).toBe('failed');
    expect(r.failure).toMatch(/not ready: the container exited with code 9/);
    expect(r.failure).toMatch(/--no-such-flag/); // node's own complaint, from the log tail
    const held = new Set(started.map((c) => c.id));
    expect((await listOwnContainers({ session: currentSession() })).filter((id) => !held.has(id))).toEqual([]);
  });
});

/** A target container left by a process killed with SIGKILL (no cleanup code of ours ran), made with `labels` added to RIGHTSIZE_LABELS. */
async function orphan(labels = ''): Promise<string> {
  const scope = [process.env.RIGHTSIZE_LABELS, labels].filter(Boolean).join(',');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/helpers/orphan-maker.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, RIGHTSIZE_LABELS: scope },
  });
  const id = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => resolve(c.toString().trim()));
    child.on('exit', (code) => reject(new Error(`orphan maker exited with ${code}`)));
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  expect((await docker().getContainer(id).inspect()).State.Running).toBe(true); // left behind, as after a crash
  return id;
}
const gone = (id: string): Promise<unknown> => expect(docker().getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });

describe('sweep', () => {
  it("removes a killed owner's containers and leaves live sessions' alone", async () => {
    const mine = await start('hello', 'single', 1); // owned by this live process
    const id = await orphan();
    const swept = await sweepOrphans();
    expect(swept).toContain(id);
    await gone(id);
    expect((await mine.c.container.inspect()).State.Running).toBe(true);
  });

  it("leaves a build step's container alone: it carries the base image's labels, never a session", async () => {
    // As `docker build` makes one from a Rightsize image: the image's labels (product, kind, RIGHTSIZE_LABELS), no session.
    const { image } = await imageFor('hello');
    const c = await docker().createContainer({ Image: image.tag, Cmd: ['node', '-e', 'setTimeout(() => {}, 30000)'], HostConfig: { AutoRemove: false } });
    try {
      await c.start();
      expect((await c.inspect()).Config.Labels['io.rightsize.product']).toBe('rightsize');
      expect(await sweepOrphans()).not.toContain(c.id);
      expect((await c.inspect()).State.Running).toBe(true);
    } finally {
      await c.remove({ force: true });
    }
  });

  it('with RIGHTSIZE_LABELS, removes only the orphans that carry them; without, every orphan', async () => {
    const [x, y] = await Promise.all([orphan('rightsize-test.sweep=x'), orphan('rightsize-test.sweep=y')]);
    const scope = [process.env.RIGHTSIZE_LABELS, 'rightsize-test.sweep=x'].filter(Boolean).join(',');
    const doctor = await cli(['doctor'], { RIGHTSIZE_LABELS: scope });
    expect(doctor.code, doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/Removed 1 orphaned container/);
    await gone(x);
    expect((await docker().getContainer(y).inspect()).State.Running).toBe(true); // another job's: not this one's to remove
    // This process's scope is a subset of y's labels (or empty): y is its orphan too.
    expect(await sweepOrphans()).toContain(y);
    await gone(y);
    const bad = await cli(['doctor'], { RIGHTSIZE_LABELS: 'ci-job' });
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toBe('rightsize: RIGHTSIZE_LABELS: "ci-job" is not key=value (e.g. RIGHTSIZE_LABELS=ci-job=1234,team=payments)\n');
  });
});
