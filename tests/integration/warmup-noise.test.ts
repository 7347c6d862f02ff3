// The warm-up at the host's measured noise, on the real engine: a cell given a wide reading (20 %: a bound of 66 % over
// three seconds) still waits out a real slow start, and stores the reading it was judged by. That the run's reading
// reaches each cell's load plan is tested on the real run loop with a stub provider (unit warmup-noise-run.test.ts).
// Its check compares the measured seconds with the slow ones (5×), as steady-state.test.ts does: in a shared lane a
// starved target served 2,671–5,745 req/s after its slow start, under 5× (CI, 2026-12-02), so it runs in the quiet one.
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
beforeAll(async () => {
  engine = await requireDocker();
});

describe("the warm-up at the host's measured noise", () => {
  it('a slow start many times any noise is still waited out at a wide reading (20 %)', async () => {
    // Every response waits 10 ms for the first 3 s after the app listens: ~800 req/s on 8 connections, then thousands.
    const cfg: CellConfig = {
      index: 0, repetition: 0, app: 'hello', mode: 'single', workers: 1, cpuMillis: 1000, memoryMb: 128,
      load: { model: 'closed', connections: 8 }, durationSec: 3, warmupSec: 1, env: { RS_SLOW_START_MS: '3000' },
    };
    const { app, image } = await imageFor(cfg.app);
    const r = await runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10, warmNoise: 0.2 });
    expect(r.status, r.failure).toBe('ok');
    const load = r.load!;
    expect(load.warmupNoise).toBe(0.2);
    const seen = JSON.stringify({ warm: load.warmupPerSecondRps, measured: load.perSecondRps, flags: r.flags });
    // 3 s of slow answers then full speed: a step far past 3.31 × 20 %, so the first two seconds (slow whenever the
    // load starts within a second of the app listening) are warm-up, and so is the third unless it was mostly fast.
    expect(load.warmupUsedSec!, seen).toBeGreaterThanOrEqual(2);
    const absorbed = Math.min(...load.perSecondRps!) > 5 * Math.min(...load.warmupPerSecondRps!);
    expect(absorbed || r.flags.some((f) => f.kind === 'unstable'), seen).toBe(true);
  }, 60_000);
});
