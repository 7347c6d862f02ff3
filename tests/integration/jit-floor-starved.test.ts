// The raised warm-up on a host that starves the target (load/warmup.ts raiseOver): the raise lasts until the
// container's own CPU readings show its processes' CPU-seconds, or its latest. Real Docker, real load generator.
// In the quiet lane: its busy loop on every core, weighted 8 times a container's default, starves whatever runs
// beside it (a shared lane's load agent fell to a tenth of its rate), so it may run only with nothing beside it.
import { cpus } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { docker, type EngineInfo } from '../../src-main/docker/client.ts';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
beforeAll(async () => {
  engine = await requireDocker();
});

describe('the JIT floor raised on a starved host', () => {
  it('on a host that starves it (a busy loop on every core), the raise lasts past its 6 s until the CPU-seconds or 10 s, then measures at its own cap', async () => {
    const cfg: CellConfig = {
      index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 6, cpuMillis: 500, memoryMb: 512,
      load: { model: 'closed', connections: 12 }, durationSec: 2, warmupSec: 1, env: {},
    };
    const { app, image } = await imageFor(cfg.app);
    // A loop on every core, weighted 8 times a container's default: the scheduler gives the raised target at most
    // about a fifth of its core, so its 6 CPU-seconds would take 30 s and it is lowered at its latest, 10 s.
    const threads = cpus().length;
    const starver = await docker().createContainer({
      Image: (await ensureBaseImage()).tag,
      Cmd: ['node', '-e', `const { Worker } = require('node:worker_threads'); for (let i = 1; i < ${threads}; i++) new Worker('for (;;) {}', { eval: true }); for (;;) {}`],
      Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.app]: 'jit-starver' },
      HostConfig: { Memory: 128 * 2 ** 20, MemorySwap: 128 * 2 ** 20, CpuShares: 8 * 1024 },
    });
    try {
      await starver.start();
      const r = await runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10 });
      expect(r.status, r.failure).toBe('ok');
      const load = r.load!;
      console.log(`starved: raised ${load.warmupRaise?.untilSec} s, warm-up ${load.warmupUsedSec} s, measured at ${r.stats?.cpuPctMean.toFixed(0)} % of 500m`);
      // At a fifth of a CPU, 6 CPU-seconds cannot come before 10 s; at 8 s it would take three quarters of one.
      expect(load.warmupRaise!.cpuMillis).toBe(1000);
      expect(load.warmupRaise!.untilSec).toBeGreaterThanOrEqual(9);
      expect(load.warmupRaise!.untilSec).toBeLessThanOrEqual(10);
      expect(load.warmupUsedSec!).toBeGreaterThanOrEqual(load.warmupRaise!.untilSec + 2);
      expect(r.stats!.cpuPctMean).toBeLessThanOrEqual(105);
    } finally {
      await starver.remove({ force: true });
    }
  }, 90_000);
});
