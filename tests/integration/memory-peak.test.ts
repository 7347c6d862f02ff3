// Real stats carry the cgroup's own memory peak: a short spike that 1 Hz readings usually miss is in
// it, and a real cell stores it with its source and the CPU period count.
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Docker from 'dockerode';
import { docker, type EngineInfo } from '../../src-main/docker/client.ts';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { StatsSampler } from '../../src-main/engine/stats-sampler.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { containerTarget } from '../../src-main/providers/docker/target.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

const MiB = 2 ** 20;
let engine: EngineInfo;
const made: Docker.Container[] = [];

beforeAll(async () => {
  engine = await requireDocker();
});
afterAll(async () => {
  await Promise.all(made.map((c) => c.remove({ force: true }).catch(() => {})));
});

/** Resolves when the sampler has `n` readings (Docker sends one a second). */
const readings = (s: StatsSampler, n: number): Promise<void> =>
  new Promise((resolve) => {
    const tick = (): void => (s.seconds.length >= n ? resolve() : void setTimeout(tick, 50));
    tick();
  });

describe('the memory peak', () => {
  it('is the cgroup’s own high-water mark: a 96 MB spike of 150 ms is in it', async () => {
    const { image } = await imageFor('hello');
    // Two readings before the spike, the spike, then the memory given back (munmap after gc) while readings go on.
    const script = `setTimeout(() => { let b = Buffer.alloc(96 * 1048576, 1); setTimeout(() => { b = null; gc(); console.log('freed'); }, 150); }, 2500); setTimeout(() => {}, 60000);`;
    const bytes = 256 * MiB;
    const c = await docker().createContainer({
      Image: image.tag,
      Entrypoint: ['node', '--expose-gc', '-e', script],
      Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.app]: 'memory-peak-test' },
      HostConfig: { Memory: bytes, MemorySwap: bytes, NanoCpus: 1e9 },
    });
    made.push(c);
    await c.start();
    const sampler = new StatsSampler(containerTarget(await TargetContainer.attach(docker(), c.id, { host: '', port: 0 }), { launch: { mode: 'single', workers: 1, entry: 'x', name: 'x' } }, { remove: async () => {}, local: true }), 1000);
    await sampler.start();
    await readings(sampler, 5); // about 6 s of readings: before, across and after the spike
    sampler.stop();
    const s = sampler.summary()!;
    console.log(`peak ${(s.memPeakBytes! / MiB).toFixed(1)} MB (${s.memPeakSource}); highest 1 Hz reading without cache ${(s.memMaxBytes / MiB).toFixed(1)} MB`);
    expect(s.memPeakSource).toBe('cgroup'); // this host: cgroup v1, Docker sends max_usage
    expect(s.memPeakBytes!).toBeGreaterThanOrEqual(96 * MiB);
    expect(s.memPeakBytes!).toBeLessThan(bytes);
    expect(s.memPeakBytes!).toBeGreaterThanOrEqual(s.memMaxBytes);
    expect(s.cpuPeriods).toBeGreaterThanOrEqual(0);
  }, 30_000);

  it('is stored with a real cell, with its source and the CFS period count', async () => {
    const { app, image } = await imageFor('hello');
    const r = await runCell(
      { index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 500, memoryMb: 192, load: { model: 'closed', connections: 4 }, durationSec: 2, warmupSec: 0, env: {} },
      { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10 },
    );
    expect(r.status).toBe('ok');
    const s = r.stats!;
    expect(s.memPeakSource).toBe('cgroup');
    // Two workers and a primary: tens of MB, below the cap, and at least any reading's usage.
    expect(s.memPeakBytes!).toBeGreaterThan(20 * MiB);
    expect(s.memPeakBytes!).toBeLessThanOrEqual(192 * MiB);
    expect(s.memPeakBytes!).toBeGreaterThanOrEqual(s.memMaxBytes);
    // Half a core of quota: the CFS ran periods over the measured seconds.
    expect(s.cpuPeriods!).toBeGreaterThan(0);
    expect(s.throttledPeriods).toBeLessThanOrEqual(s.cpuPeriods!);
  }, 60_000);
});
