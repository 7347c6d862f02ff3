// Steady state inside a real cell: a cold start is absorbed by the adaptive warm-up (or flagged), and
// CPU hogs on the target's and the load's cores make the cell host-busy. Real Docker, real load generator.
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { planPlacement } from '../../src-main/docker/placement.ts';
import { runCell, type CellContext } from '../../src-main/engine/cell-runner.ts';
import { HOST_BUSY_PCT } from '../../src-main/common/thresholds.ts';
import { warmupCapSec, WARM_WINDOW_SEC } from '../../src-main/load/steady-state.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
beforeAll(async () => {
  engine = await requireDocker();
});

const cell = (over: Partial<CellConfig>): CellConfig => ({
  index: 0, repetition: 0, app: 'hello', mode: 'single', workers: 1, cpuMillis: 1000, memoryMb: 256,
  load: { model: 'closed', connections: 8 }, durationSec: 3, warmupSec: 1, env: {}, ...over,
});

async function run(cfg: CellConfig, extra: Partial<CellContext> = {}) {
  const { app, image } = await imageFor(cfg.app);
  return runCell(cfg, { app, image, provider: localProvider(engine), placement: true, timeoutSec: 10, ...extra });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('steady state', () => {
  it('a slow start is absorbed by the adaptive warm-up, or the cell is flagged unstable', async () => {
    // Every response waits 10 ms for the first 3 s after the app listens: ~800 req/s on 8 connections, against tens of thousands after.
    const r = await run(cell({ env: { RS_SLOW_START_MS: '3000' } }));
    expect(r.status, r.failure).toBe('ok');
    const load = r.load!;
    const warm = load.warmupPerSecondRps!;
    const measured = load.perSecondRps!;
    expect(measured).toHaveLength(3);
    expect(load.warmupUsedSec).toBe(warm.length);
    // The configured 1 s would have measured slow seconds: the second warm-up second was still slow.
    expect(warm[1]!).toBeLessThan(median(measured) / 5);
    expect(load.warmupUsedSec!).toBeGreaterThanOrEqual(Math.max(3, WARM_WINDOW_SEC));
    expect(load.warmupUsedSec!).toBeLessThanOrEqual(warmupCapSec(1));
    // Absorbed: no measured second at the slow-start level. Or, if one got through, the cell says so.
    const absorbed = Math.min(...measured) > 5 * Math.min(...warm);
    expect(absorbed || r.flags.some((f) => f.kind === 'unstable'), JSON.stringify({ warm, measured, flags: r.flags })).toBe(true);
  }, 60_000);

  it.runIf(process.platform === 'linux')('CPU hogs on the target’s and the load’s cores make the cell host-busy', async () => {
    const place = planPlacement(1000, engine.cpus, true);
    const cores = place.targetCpus ? [place.targetCpus, place.loadCpus!] : ['0'];
    // One spinning process per watched core, bounded: it spins at most as long as the longest cell could take, and is killed with the cell.
    // Detached: its own session, so the kernel's autogroups weigh it like any other program (a browser
    // drawing the UI), not as a share of this test process's group.
    const spinSec = warmupCapSec(1) + 3 + 5;
    const hogs: ChildProcess[] = [];
    const result = run(cell({}), {
      onPhase: (p) => {
        if (p !== 'ready' || hogs.length) return;
        for (const core of cores) hogs.push(spawn('taskset', ['-c', core, process.execPath, '-e', `const end = Date.now() + ${spinSec * 1000}; while (Date.now() < end);`], { stdio: 'ignore', detached: true }));
      },
    });
    try {
      const r = await result;
      expect(r.status, r.failure).toBe('ok');
      expect(hogs.length, 'the hogs started when the target was ready').toBe(cores.length);
      const host = r.stats!.host!;
      const seen = JSON.stringify({ host, rps: r.load?.perSecondRps, targetCpuPct: r.stats?.cpuPctMean });
      expect(host.perSecondOtherPct, seen).toHaveLength(r.load!.perSecondRps!.length);
      expect(host.otherPct, seen).toBeGreaterThan(HOST_BUSY_PCT);
      const flag = r.flags.find((f) => f.kind === 'host-busy');
      expect(flag, JSON.stringify(r.flags)).toBeDefined();
      expect(flag!.reason).toMatch(/^other processes took \d+ % of cores? [\d,-]+ \(the target's and the load's\)/);
    } finally {
      for (const h of hogs) h.kill('SIGKILL');
    }
  }, 60_000);
});
