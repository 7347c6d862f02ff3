// Issue 43's rules on constructed and recorded data: the sequential look's alpha and who it puts out
// of the contest (analysis/decide/sequential.ts), the randomized rounds it looks between
// (engine/matrix.ts), and the estimate (engine/estimate.ts) against a recorded run's own timings.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { clearlyOut, lookAlpha, pocockSpent } from '../../src-main/analysis/decide/sequential.ts';
import { cellCostFrom, costWithWorld, DEPENDENCY_WORLD_DEFAULT_SEC, estimateRun, estimateWithHistory, nearestCost, OVERHEAD_DEFAULT_SEC, WARMUP_EXTRA_DEFAULT_SEC } from '../../src-main/engine/estimate.ts';
import { warmupCapSec } from '../../src-main/load/warmup.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import type { CellTiming } from '../../src-main/store/timings.ts';
import { reps, run } from '../helpers/run-fixture.ts';
import { presetShareAtBest, shareAtBest } from '../../bench/time-to-answer.ts';

describe('the sequential look', () => {
  it('spends alpha by Pocock-type increments: nothing before three repetitions nor at the end, never more than α in all', () => {
    expect(pocockSpent(1)).toBeCloseTo(0.05, 12);
    expect(pocockSpent(0)).toBe(0);
    expect(lookAlpha(2, 3)).toBe(0); // two repetitions give no interval (MIN_VALUES_TO_BOUND)
    expect(lookAlpha(3, 3)).toBe(0); // the end: the contest decides
    expect(lookAlpha(3, 4)).toBeCloseTo(0.05 * Math.log(1 + (Math.E - 1) * 0.75), 12); // 0.0414
    const looks = [3, 4, 5, 6, 7, 8, 9].map((d) => lookAlpha(d, 10));
    expect(looks.every((a) => a > 0)).toBe(true);
    expect(looks.reduce((a, b) => a + b, 0)).toBeLessThan(0.05);
  });

  it('puts out of the contest only what the contest shows worse than its pair’s best at the look’s alpha', () => {
    const far = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9900]), ...reps({ workers: 2 }, [5000, 5050, 4950])]));
    const out = clearlyOut(far, lookAlpha(3, 5));
    expect(out).toHaveLength(1);
    expect(far.configurations.find((c) => c.key === out[0]!.key)!.workers).toBe(2);
    expect(out[0]!.p).toBeLessThanOrEqual(out[0]!.alpha);
    // Within the noise: nobody is out.
    const close = recommend(run([...reps({ workers: 1 }, [10000, 10300, 9700]), ...reps({ workers: 2 }, [9900, 10200, 9600])]));
    expect(clearlyOut(close, lookAlpha(3, 5))).toEqual([]);
    // At the end (alpha 0) or under an SLO (p99 decides there), nobody either.
    expect(clearlyOut(far, 0)).toEqual([]);
    expect(clearlyOut({ ...far, slo: { p99Ms: 5 } } as typeof far, lookAlpha(3, 5))).toEqual([]);
  });

  it('a shuffled grid runs in rounds: every configuration once before any twice, each round in its own seeded order', () => {
    const v = validateMatrix({ apps: ['hello'], modes: ['cluster'], workers: [1, 2, 3, 4], cpuMillicores: [500, 1000], memoryMb: [256], load: { model: 'closed', connections: [4] }, durationSec: 3, repetitions: 3, order: 'shuffle', seed: 11 }, { cores: 2, memoryMb: 4096, apps: ['hello'] });
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    const cells = expandMatrix(v.matrix);
    expect(cells.map((c) => c.repetition)).toEqual([...Array(8).fill(0), ...Array(8).fill(1), ...Array(8).fill(2)]);
    const order = (r: number) => cells.filter((c) => c.repetition === r).map((c) => `${c.workers}/${c.cpuMillis}`);
    expect(new Set(order(0))).toEqual(new Set(order(1)));
    expect(order(0)).not.toEqual(order(1)); // shuffled anew each round
    expect(expandMatrix(v.matrix).map((c) => c.index)).toEqual(cells.map((_, i) => i));
  });
});

interface Recorded {
  run: { name: string; started_at: string; finished_at: string };
  cells: (CellTiming & { app: string; mode: 'cluster'; phase: 'matrix' | 'settle' | 'verify'; durationSec: number })[];
}

describe('the estimate', () => {
  it('learns a cell’s warm-up and overhead from the history (medians), and falls back to the defaults', () => {
    expect(cellCostFrom([])).toEqual({ warmupExtraSec: WARMUP_EXTRA_DEFAULT_SEC, overheadSec: OVERHEAD_DEFAULT_SEC, cells: 0, from: 'defaults' });
    const t = (warmupUsedSec: number, wallSec: number): CellTiming => ({ warmupSec: 2, warmupUsedSec, measuredSec: 8, wallSec });
    expect(cellCostFrom([t(2, 10.5), t(12, 23), t(4, 14)])).toEqual({ warmupExtraSec: 2, overheadSec: 2, cells: 3, from: 'app' });
  });

  it('an app with no cells here borrows the nearest history: its mode under other apps, else any cell, else the defaults', () => {
    const t = (warmupUsedSec: number, wallSec: number): CellTiming => ({ warmupSec: 1, warmupUsedSec, measuredSec: 5, wallSec });
    const history: { app: string; mode: string; t: CellTiming }[] = [
      { app: 'json', mode: 'pm2', t: t(5, 13) }, // 4 s extra, 3 s around
      { app: 'hello', mode: 'cluster', t: t(2, 8) }, // 1 s extra, 1 s around
    ];
    const cellsOf = (app: string | null, mode: string | null): CellTiming[] =>
      history.filter((h) => (app === null || h.app === app) && (mode === null || h.mode === mode)).map((h) => h.t);
    expect(nearestCost(cellsOf, 'json', 'pm2')).toMatchObject({ from: 'app', warmupExtraSec: 4, overheadSec: 3 });
    expect(nearestCost(cellsOf, 'alloc', 'pm2')).toMatchObject({ from: 'mode', warmupExtraSec: 4, overheadSec: 3, cells: 1 });
    expect(nearestCost(cellsOf, 'alloc', 'single')).toMatchObject({ from: 'host', cells: 2 });
    expect(nearestCost(() => [], 'alloc', 'single')).toMatchObject({ from: 'defaults', cells: 0 });
  });

  it("where nothing has run here: the typical extension past the least warm-up, none at the range's bottom, the adaptive warm-up's cap at its top", () => {
    const cells = Array.from({ length: 4 }, () => ({ app: 'json', mode: 'pm2' as const, workers: 2, cpuMillis: 1000, warmupSec: 2, durationSec: 8 }));
    const matrix = { settleBudgetPct: 0, verify: false, durationSec: 8 };
    const none = estimateRun({ cells, matrix, costOf: () => cellCostFrom([]), pastRuns: [], k: 1 });
    expect(none.totalSec).toBe(4 * (2 + WARMUP_EXTRA_DEFAULT_SEC + 8 + OVERHEAD_DEFAULT_SEC)); // 4 × 13 s
    expect(none.lowSec).toBe(4 * (2 + 8 + OVERHEAD_DEFAULT_SEC)); // 4 × 11 s
    expect(none.highSec).toBe(4 * (warmupCapSec(2) + 8 + OVERHEAD_DEFAULT_SEC)); // 12 s of warm-up at most
    const known = estimateRun({ cells, matrix, costOf: () => cellCostFrom([{ warmupSec: 2, warmupUsedSec: 6, measuredSec: 8, wallSec: 17 }]), pastRuns: [], k: 1 });
    expect(known.highSec).toBe(known.totalSec); // a learned cost is its own top: the phases carry the range
  });

  it('a cell of many processes on little CPU warms up at least its JIT floor, and the history counts past that floor', () => {
    const matrix = { settleBudgetPct: 0, verify: false, durationSec: 8 };
    const heavy = { app: 'json', mode: 'pm2' as const, workers: 16, cpuMillis: 500, warmupSec: 2, durationSec: 8 };
    // Where the provider cannot raise a cap in place: 16 processes × 1 CPU-s ÷ 0.5 CPU.
    expect(estimateRun({ cells: [heavy], matrix, costOf: () => cellCostFrom([]), pastRuns: [], k: 1 }).totalSec).toBe(32 + WARMUP_EXTRA_DEFAULT_SEC + 8 + OVERHEAD_DEFAULT_SEC);
    const none = estimateRun({ cells: [heavy], matrix, costOf: () => cellCostFrom([]), pastRuns: [], k: 1, raisesCap: true });
    // This machine's engine: 16 processes × 1 CPU-s at one CPU (the cap raised for them), 2 s back at the cap, then the typical extension.
    expect(none.totalSec).toBe(18 + WARMUP_EXTRA_DEFAULT_SEC + 8 + OVERHEAD_DEFAULT_SEC);
    expect(none.lowSec).toBe(18 + 8 + OVERHEAD_DEFAULT_SEC);
    expect(none.highSec).toBe(18 + 10 + 8 + OVERHEAD_DEFAULT_SEC); // the cap: 10 s past the floor
    // A recorded 16-process cell that warmed 34 s at its own cap was 2 s past its 32 s floor; a raised one that warmed
    // 20 s, 2 s past its 18 s; a 2-process one 1 s past its 4 s floor.
    const rec = (workers: number, warmupUsedSec: number, raised = false): CellTiming => ({ warmupSec: 2, mode: 'pm2', workers, cpuMillis: 500, warmupUsedSec, warmupRaised: raised ? 1 : 0, measuredSec: 8, wallSec: warmupUsedSec + 10 });
    const history = [rec(16, 34), rec(2, 5), rec(16, 20, true)];
    expect(cellCostFrom(history).warmupExtraSec).toBe(2);
    // …and a cell is estimated as its own floor plus that extension, as the history's was counted.
    const known = estimateRun({ cells: [heavy], matrix, costOf: () => cellCostFrom(history), pastRuns: [], k: 1, raisesCap: true });
    expect(known.totalSec).toBe(18 + 2 + 8 + 2); // each recorded cell spent 2 s around its warm-up and 8 s
    // Without what it ran, a recorded cell's extra counts from its configured warm-up (as before the floor).
    expect(cellCostFrom([{ warmupSec: 2, warmupUsedSec: 34, measuredSec: 8, wallSec: 44 }]).warmupExtraSec).toBe(32);
  });

  it("an app with dependencies: their start and teardown are added where its cost is not learned from its own cells", () => {
    const own = cellCostFrom([{ warmupSec: 1, warmupUsedSec: 2, measuredSec: 5, wallSec: 11 }], 'app'); // 4 s around
    expect(costWithWorld(own, true)).toEqual(own); // its own cells started its world: counted already
    const borrowed = cellCostFrom([{ warmupSec: 1, warmupUsedSec: 2, measuredSec: 5, wallSec: 8 }], 'mode'); // 1 s
    expect(costWithWorld(borrowed, true).overheadSec).toBe(1 + DEPENDENCY_WORLD_DEFAULT_SEC);
    expect(costWithWorld(borrowed, false)).toEqual(borrowed);
    // Through the store's rule: the apps the matrix names with dependencies, and no history at all.
    const store = { timings: { cells: () => [], runs: () => [] } };
    const cells = ['catalog', 'json'].map((app) => ({ app, mode: 'cluster' as const, workers: 1, cpuMillis: 1000, warmupSec: 1, durationSec: 5 }));
    const matrix = { settleBudgetPct: 0, verify: false, durationSec: 5 };
    const e = estimateWithHistory(store, { cells, matrix, k: 1, withDependencies: new Set(['catalog']) });
    const plain = 1 + WARMUP_EXTRA_DEFAULT_SEC + 5 + OVERHEAD_DEFAULT_SEC;
    expect(e.totalSec).toBeCloseTo(plain + DEPENDENCY_WORLD_DEFAULT_SEC + plain);
  });

  it('on a recorded quick run: its own timings and phases give the wall time within 20 %', () => {
    const rec = JSON.parse(readFileSync('tests/fixtures/timings/quick-run.json', 'utf8')) as Recorded;
    const wall = (Date.parse(rec.run.finished_at) - Date.parse(rec.run.started_at)) / 1000;
    const grid = rec.cells.filter((c) => c.phase === 'matrix');
    const count = (p: string) => rec.cells.filter((c) => c.phase === p).length;
    const e = estimateRun({
      // The recording does not keep workers: one a CPU, whose warm-up floor (1 s) is the configured warm-up.
      cells: grid.map((c) => ({ app: c.app, mode: c.mode, workers: 1, cpuMillis: 1000, warmupSec: c.warmupSec, durationSec: c.durationSec })),
      matrix: { settleBudgetPct: 50, verify: true, durationSec: 5 },
      costOf: () => cellCostFrom(rec.cells),
      pastRuns: [{ grid: grid.length, settle: count('settle'), verify: count('verify') }],
      k: 1,
    });
    expect(e.gridCells).toBe(6);
    expect(e.verify.cells.expected).toBe(2);
    expect(e.lowSec).toBeLessThanOrEqual(e.totalSec);
    expect(e.totalSec).toBeLessThanOrEqual(e.highSec);
    expect(Math.abs(e.totalSec / wall - 1), JSON.stringify({ wall, e })).toBeLessThan(0.2);
  });

  it('without history, settling is a range around half its budget and verification two cells of at least 9 s', () => {
    const cells = Array.from({ length: 6 }, () => ({ app: 'json', mode: 'cluster' as const, workers: 1, cpuMillis: 1000, warmupSec: 1, durationSec: 5 }));
    const e = estimateRun({ cells, matrix: { settleBudgetPct: 50, verify: true, durationSec: 5 }, costOf: () => cellCostFrom([]), pastRuns: [], k: 1 });
    expect(e.gridSec).toBe(6 * (1 + WARMUP_EXTRA_DEFAULT_SEC + 5 + OVERHEAD_DEFAULT_SEC));
    expect(e.settle.cells).toEqual({ low: 0, expected: 1.5, high: 3 }); // a budget of 18 s: three 6 s cells
    expect(e.verify.cells).toEqual({ low: 1, expected: 2, high: 3 });
    expect(e.verify.sec.expected).toBe(2 * (1 + WARMUP_EXTRA_DEFAULT_SEC + 9 + OVERHEAD_DEFAULT_SEC));
    const off = estimateRun({ cells, matrix: { settleBudgetPct: 0, verify: false, durationSec: 5 }, costOf: () => cellCostFrom([]), pastRuns: [], k: 1 });
    expect(off.totalSec).toBe(off.gridSec);
  });
});

describe('the measured share at best (bench/time-to-answer.ts)', () => {
  it('counts each cell’s JIT floor as its least warm-up, raised to one CPU where the cap is below it', () => {
    const cell = (workers: number, cpuMillis: number) => ({ config: { warmupSec: 2, mode: 'pm2' as const, workers, cpuMillis }, measuredSec: 8 });
    // 16 PM2 instances on half a CPU: 16 CPU-seconds at the raised 1 CPU, then 2 s at the cap: 18 s for 8 measured.
    expect(shareAtBest([cell(16, 500)])).toBeCloseTo(8 / 26, 12);
    // 2 instances on a whole CPU: the configured 2 s is their floor.
    expect(shareAtBest([cell(2, 1000), cell(16, 500)])).toBeCloseTo(16 / (16 + 2 + 18), 12);
  });

  it('a preset’s grid: PM2 right-sizing’s fresh containers cannot measure 70 % of the time; one container a configuration pays each floor once', () => {
    const pm2 = presetShareAtBest('pm2-right-sizing');
    expect(pm2.fresh).toBeLessThan(0.5);
    expect(pm2.shared).toBeGreaterThan(pm2.fresh);
    const quick = presetShareAtBest('quick'); // 1 and 2 workers on 1 CPU, 1 s configured: floors 1 and 2 s for 5 s each
    expect(quick.fresh).toBeCloseTo(30 / (30 + 3 * (1 + 2)), 12);
    expect(quick.shared).toBeCloseTo(30 / (30 + 1 + 2), 12);
  });
});
