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
import type { CellConfig, LaunchMode } from '../../src-main/engine/types.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';
import { ROOT } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';

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
  load: { model: 'closed', connections: 8 }, durationSec: 5, warmupSec: 1, env: {}, ...over,
});

async function runOne(cfg: CellConfig) {
  const { app, image } = await imageFor(cfg.app);
  return runCell(cfg, { app, image, engine, hostCores: engine.cpus, placement: true, timeoutSec: 10 });
}

describe('every app in every launch mode starts under a cap and answers its requests', () => {
  const cases = builtInApps().flatMap((a) => (['single', 'cluster', 'pm2'] as const).map((m) => [a.name, m] as const));
  it.each(cases)('%s in %s mode', async (name, mode) => {
    const workers = mode === 'single' ? 1 : 2;
    const { app, c } = await start(name, mode, workers);
    const ready = await waitReady(c.address, { path: app.health, processes: servingProcesses(mode, workers), deadlineMs: 30_000, exited: c.exited });
    expect(ready.pids).toBe(workers); // every worker answered the health path before "ready"
    for (const r of app.requests) {
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
  it('pbkdf2 at 0.25 CPU vs 1 CPU differs about 4× in throughput', async () => {
    // 8 s after 2 s of warmup: a quarter core is throttled in bursts, and a short window is noisy.
    const quarter = await runOne(cell({ app: 'pbkdf2', cpuMillis: 250, durationSec: 8, warmupSec: 2 }));
    const one = await runOne(cell({ app: 'pbkdf2', cpuMillis: 1000, durationSec: 8, warmupSec: 2 }));
    expect(quarter.status).toBe('ok');
    expect(one.status).toBe('ok');
    const ratio = one.load!.rpsMean / quarter.load!.rpsMean;
    console.log(`pbkdf2: ${quarter.load!.rpsMean.toFixed(0)} req/s at 250m, ${one.load!.rpsMean.toFixed(0)} req/s at 1000m, ratio ${ratio.toFixed(2)}`);
    // About 4× (seen 3.97–5.6 here); without real caps it would be about 1.
    expect(ratio).toBeGreaterThan(3);
    expect(ratio).toBeLessThan(6);
    expect(quarter.flags.map((f) => f.kind)).toContain('throttled');
    // The container used its whole cap, and stats say so.
    expect(one.stats!.cpuPctMean).toBeGreaterThan(80);
    expect(quarter.stats!.cpuPctMean).toBeGreaterThan(80);
  });

  it('alloc under a small memory cap is reported as OOM-killed, not as a generic failure', async () => {
    const r = await runOne(cell({ app: 'alloc', memoryMb: 64, durationSec: 10, load: { model: 'closed', connections: 20 } }));
    expect(r.status).toBe('oom');
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

describe('sweep', () => {
  it("removes a killed owner's containers and leaves live sessions' alone", async () => {
    const mine = await start('hello', 'single', 1); // owned by this live process
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'tests/helpers/orphan-maker.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const id = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => resolve(c.toString().trim()));
      child.on('exit', (code) => reject(new Error(`orphan maker exited with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.on('exit', r));
    expect((await docker().getContainer(id).inspect()).State.Running).toBe(true); // left behind, as after a crash
    const swept = await sweepOrphans();
    expect(swept).toContain(id);
    await expect(docker().getContainer(id).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect((await mine.c.container.inspect()).State.Running).toBe(true);
  });
});
