// The JIT floor in a real cell: each serving process gets 1 CPU-second under the cell's cap before
// measurement starts (load/warmup.ts warmupBounds), however flat the first seconds look; under one CPU it is paid at
// one (until its processes have had that CPU by the container's own readings), and the cell measured at its own cap.
// Real Docker,
// real load generator. Its bounds are lower and upper bounds on a warm-up's length, so a busy host
// cannot fail it: shared lane. The raise on a starved host is in jit-floor-starved.test.ts (quiet lane).
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import { cellWarmup } from '../../src-main/engine/cell-warmup.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
beforeAll(async () => {
  engine = await requireDocker();
});

describe('the JIT floor', () => {
  it('2 cluster workers on 0.5 CPU asked to warm up 1 s warm up at least 4 s (1 CPU-second each), at most 10 s more', async () => {
    const cfg: CellConfig = {
      index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 500, memoryMb: 256,
      load: { model: 'closed', connections: 4 }, durationSec: 2, warmupSec: 1, env: {},
    };
    expect(cellWarmup(cfg)).toEqual({ minSec: 4, capSec: 14 });
    const { app, image } = await imageFor(cfg.app);
    const r = await runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10 });
    expect(r.status, r.failure).toBe('ok');
    const load = r.load!;
    // hello is flat from its first second: the flatness test alone would have started measuring after 1 s.
    expect(load.warmupUsedSec!, JSON.stringify(load.warmupPerSecondRps)).toBeGreaterThanOrEqual(4);
    expect(load.warmupUsedSec!).toBeLessThanOrEqual(14);
    expect(load.perSecondRps).toHaveLength(2);
  }, 60_000);

  it('6 cluster workers on 0.5 CPU warm up at one CPU for 6 s, then measure at their own cap (not at the raised one)', async () => {
    const cfg: CellConfig = {
      index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 6, cpuMillis: 500, memoryMb: 512,
      load: { model: 'closed', connections: 12 }, durationSec: 3, warmupSec: 1, env: {},
    };
    // 6 CPU-seconds at one CPU, the cap back, 2 s at it: 8 s, not the 12 s its own cap would take; on a busy host,
    // until its CPU readings show the 6 CPU-seconds, at most 10 s (then 2 s back: its own floor's 12 s; the cap, 10 s
    // past the floor, moves with it).
    expect(cellWarmup(cfg, true)).toEqual({ minSec: 8, capSec: 18, raise: { cpus: 1, untilSec: 6, latestSec: 10, cpuSec: 6 } });
    const { app, image } = await imageFor(cfg.app);
    const r = await runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10 });
    expect(r.status, r.failure).toBe('ok');
    const load = r.load!;
    expect(load.warmupRaise!.cpuMillis).toBe(1000);
    expect(load.warmupRaise!.untilSec).toBeGreaterThanOrEqual(6);
    expect(load.warmupRaise!.untilSec).toBeLessThanOrEqual(10);
    expect(load.warmupUsedSec!).toBeGreaterThanOrEqual(load.warmupRaise!.untilSec + 2);
    expect(load.warmupUsedSec!).toBeLessThanOrEqual(load.warmupRaise!.untilSec + 2 + 10 + 3);
    // hello's 6 workers use all the CPU they get: at the raised cap they would read about 200 % of 500m.
    const rps = load.warmupPerSecondRps ?? [];
    console.log(`raised ${load.warmupRaise!.untilSec} s: seconds ${rps.slice(1, 6).map(Math.round).join(', ')} req/s; measured ${load.perSecondRps?.map(Math.round).join(', ')} req/s at ${r.stats?.cpuPctMean.toFixed(0)} % of 500m`);
    expect(r.stats!.cpuPctMean).toBeLessThanOrEqual(105);
  }, 60_000);
});
