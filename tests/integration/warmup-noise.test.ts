// The warm-up at the host's measured noise, on the real engine: a run's cells from its third on are judged flat within
// 3.31 × the per-second noise its earlier steady cells measured (load/second-noise.ts), and say so in the store and the
// CSV; a real ramp is still waited out at a wide reading. Real Docker, real load generator, the real CLI. Its checks
// are of the path and of a ramp many times any noise, not of rates: shared lane.
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import { RunNoise } from '../../src-main/load/second-noise.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { Store } from '../../src-main/store/index.ts';
import { runConfig } from '../helpers/cli.ts';
import { parseCsv } from '../helpers/report.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
beforeAll(async () => {
  engine = await requireDocker();
});

describe("the warm-up at the host's measured noise", () => {
  it("each cell is judged by the noise of the run's steady cells before it, and stores it", async () => {
    const { db, runId } = await runConfig({
      name: 'warm-up noise', apps: ['hello'], modes: ['single'], workers: [1], cpuMillicores: [1000], memoryMb: [128],
      load: { model: 'closed', connections: [8] }, durationSec: 3, warmupSec: 1, repetitions: 4, order: 'fixed',
      settleBudgetPct: 0, verify: false,
    }, 'rightsize-warmup-noise-');
    const store = Store.open(db);
    try {
      const run = store.getRun(runId)!;
      const cells = [...run.cells].sort((a, b) => a.config.index - b.config.index);
      expect(cells.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
      // The run's reading before each cell, replayed from what the cells before it stored, in the order they ran.
      const replay = new RunNoise();
      const csv = parseCsv(cellsCsv(run));
      for (const c of cells) {
        const expected = replay.get();
        const seen = JSON.stringify({ index: c.config.index, expected, stored: c.load?.warmupNoise });
        if (expected === undefined) expect(c.load?.warmupNoise, seen).toBeUndefined();
        else expect(c.load?.warmupNoise, seen).toBeCloseTo(expected, 12);
        const row = csv.find((x) => x.cell_index === String(c.config.index))!;
        if (expected === undefined) expect(row.warmup_noise_pct, seen).toBe('');
        else expect(Number(row.warmup_noise_pct), seen).toBeCloseTo(expected * 100, 1); // a tenth of a percent
        replay.add({ load: c.load, unstable: c.flags.some((f) => f.kind === 'unstable') });
      }
      // The first two cells never have a reading; the run's own first cells are the quiet host's.
      expect(cells[0]!.load?.warmupNoise).toBeUndefined();
      expect(cells[1]!.load?.warmupNoise).toBeUndefined();
    } finally {
      store.close();
    }
  }, 180_000);

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
    // 3 s of slow answers then full speed: a step far past 3.31 × 20 %, so at least the slow seconds are warm-up.
    expect(load.warmupUsedSec!, seen).toBeGreaterThanOrEqual(3);
    const absorbed = Math.min(...load.perSecondRps!) > 5 * Math.min(...load.warmupPerSecondRps!);
    expect(absorbed || r.flags.some((f) => f.kind === 'unstable'), seen).toBe(true);
  }, 60_000);
});
