// Settling on a real SQLite store: an undecided answer gets more repetitions of only its contenders,
// interleaved, stored and marked; it stops when the answer is decided or the budget is spent, and
// never runs when a lower bound is in the way. The cells themselves are constructed results (the
// real engine settles in tests/integration/settle.test.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { MatrixSchema } from '../../src-main/engine/matrix.ts';
import type { PhaseContext } from '../../src-main/engine/phases.ts';
import { settleAnswer, settleBudgetSec } from '../../src-main/engine/settle.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import type { CellConfig, CellResult } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';
import { HOST } from '../helpers/run-fixture.ts';

let store: Store | null = null;
afterEach(() => {
  store?.close();
  store = null;
});

const base = { apps: ['hello'], cpuMillicores: [1000], memoryMb: [256], workers: [1, 2], modes: ['cluster'], durationSec: 5, warmupSec: 1, repetitions: 3 };

function result(config: CellConfig, rps: number, bound = false): CellResult {
  const seconds = Array.from({ length: config.durationSec }, (_, i) => rps * (1 + ((i % 3) - 1) * 0.002));
  return {
    config, status: 'ok', flags: bound ? [{ kind: 'client-bound', reason: 'load thread busy 97 %' }] : [], bottleneck: bound ? 'client' : 'server',
    load: {
      model: 'closed', connections: 20, measuredSec: config.durationSec, requests: Math.round(rps * config.durationSec), bytes: 1, rpsMean: rps, rpsStddev: 1,
      bytesPerSec: 1, latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 700, p99: 900, p99_9: 1000, max: 2000, mean: 350, stddev: 50 },
      latencyFrom: 'send', statusCounts: { 200: 1 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.5, clientBound: bound,
      perSecondRps: seconds, perSecondGood: seconds, goodputMean: rps,
    },
    startedAt: new Date().toISOString(), finishedAt: new Date().toISOString(),
  };
}

/** A stored run with the grid's cells (req/s per workers, in order) and a context whose cells give `next(workers)`. */
function setUp(grid: [number, number][], next: (workers: number) => number, matrix: Record<string, unknown> = {}, boundWorkers: number[] = []) {
  store = Store.open(join(mkdtempSync(join(tmpdir(), 'settle-')), 'runs.db'));
  const m = MatrixSchema.parse({ ...base, ...matrix });
  const runId = store.createRun({ name: 'settle', preset: null, matrix: m, host: HOST, ownerSession: 'lab:1:1', cellsTotal: grid.length, apps: [] });
  let index = 0;
  const add = (config: CellConfig, rps: number): CellResult => {
    const id = store!.startCell(runId, config);
    const r = result(config, rps, boundWorkers.includes(config.workers));
    store!.finishCell(id, r);
    return r;
  };
  const reps = new Map<number, number>();
  for (const [workers, rps] of grid) {
    const repetition = reps.get(workers) ?? 0;
    reps.set(workers, repetition + 1);
    add({ index: index++, repetition, app: 'hello', mode: 'cluster', workers, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20 }, durationSec: 5, warmupSec: 1, env: {} }, rps);
  }
  const events: RunEvent[] = [];
  const ran: CellConfig[] = [];
  const ctx: PhaseContext = {
    store, runId, matrix: m, emit: (e) => events.push(e), log: (level, message) => events.push({ type: 'log', runId, level, message }),
    announce: (phase, message, moreCells) => {
      store!.growRun(runId, moreCells);
      events.push({ type: 'run-phase', runId, phase, message, total: 0, etaSec: 1 });
    },
    runCell: async (cell) => {
      const config = { ...cell, index: index++ } as CellConfig;
      ran.push(config);
      return add(config, next(config.workers));
    },
  };
  return { ctx, ran, events, runId };
}

describe('settling', () => {
  it('the budget is a share of the grid\'s planned measured time', () => {
    expect(settleBudgetSec([{ warmupSec: 1, durationSec: 5 }, { warmupSec: 1, durationSec: 5 }], 50)).toBe(6);
    expect(settleBudgetSec([{ warmupSec: 1, durationSec: 5 }], 0)).toBe(0);
  });

  it('runs more repetitions of only the contenders until the answer is decided, and marks them', async () => {
    // Undecided after the grid: 1 and 2 workers 4 % apart with wide intervals. The extra cells are tight.
    const grid: [number, number][] = [[1, 9000], [2, 9500], [1, 10500], [2, 10400], [1, 9300], [2, 10000], [4, 5000], [4, 5100], [4, 5050]];
    const { ctx, ran, events, runId } = setUp(grid, (w) => (w === 1 ? 8800 : 10000), { workers: [1, 2, 4], settleBudgetPct: 200 });
    expect(recommend(store!.getRun(runId)!).scopes[0]!.state).toBe('undecided');
    const out = await settleAnswer(ctx);
    expect(out.result).toBe('settled');
    expect(out.rounds).toBeGreaterThan(0);
    // Only the contenders (never the 4 workers shown far below), one of each per round, marked as settling.
    expect(new Set(ran.map((c) => c.workers))).toEqual(new Set([1, 2]));
    expect(ran.length).toBe(out.rounds * 2);
    expect(ran.every((c) => c.phase === 'settle')).toBe(true);
    const stored = store!.getRun(runId)!;
    expect(stored.cells.filter((c) => c.config.phase === 'settle')).toHaveLength(ran.length);
    expect(stored.cellsTotal).toBe(grid.length + ran.length);
    expect(recommend(stored).scopes[0]!.state).not.toBe('undecided');
    expect(events.some((e) => e.type === 'run-phase' && e.phase === 'settle')).toBe(true);
    expect(out.usedSec).toBeLessThanOrEqual(out.budgetSec);
  });

  it('stops undecided when the budget is spent, within it', async () => {
    const grid: [number, number][] = [[1, 9000], [2, 9500], [1, 10500], [2, 10400], [1, 9300], [2, 10000]];
    // Each extra cell repeats the grid's spread: more data never separates them far enough.
    let k = 0;
    const { ctx, ran } = setUp(grid, (w) => (w === 1 ? [9000, 10500, 9300][k++ % 3]! : [9500, 10400, 10000][k % 3]!), { settleBudgetPct: 50 });
    const out = await settleAnswer(ctx);
    expect(out.result).toBe('budget');
    // 6 cells × 6 s = 36 s of grid; 50 % = 18 s; a round of two cells is 12 s: exactly one round fits.
    expect(out.budgetSec).toBe(18);
    expect(out.rounds).toBe(1);
    expect(ran).toHaveLength(2);
  });

  it('a decided pick too wide for verification to judge is narrowed: more repetitions of the pick alone, within the budget', async () => {
    // 1 worker is far above 2 workers (decided), but its own interval is ±20 %: wider than verification's 5 % margin.
    const grid: [number, number][] = [[1, 10000], [2, 5000], [1, 12000], [2, 5100], [1, 8500], [2, 5050]];
    const { ctx, ran, runId } = setUp(grid, () => 10100, { settleBudgetPct: 200 });
    const before = recommend(store!.getRun(runId)!);
    expect(before.scopes[0]!.state).not.toBe('undecided');
    const pick = before.scopes[0]!.knee;
    expect(pick.rps!.ci!.halfWidth / pick.rps!.mean).toBeGreaterThan(0.05);
    const out = await settleAnswer(ctx);
    expect(out.result).toBe('not-needed');
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.every((c) => c.workers === 1 && c.phase === 'settle')).toBe(true);
    expect(out.usedSec).toBeLessThanOrEqual(out.budgetSec);
    const after = recommend(store!.getRun(runId)!).configurations.find((c) => c.key === pick.key)!;
    // Narrowed to the margin, or stopped by the budget: never more than the budget allows.
    expect(after.rps!.ci!.halfWidth / after.rps!.mean <= 0.05 || out.usedSec + 6 > out.budgetSec).toBe(true);
    store!.close();
    // With verification off there is nothing to narrow for.
    const off = setUp(grid, () => 10100, { settleBudgetPct: 200, verify: false });
    expect(await settleAnswer(off.ctx)).toMatchObject({ result: 'not-needed', cells: 0 });
  });

  it('runs nothing when a lower bound is in the way, or when settling is off, or when already decided', async () => {
    const grid: [number, number][] = [[1, 9000], [2, 9500], [1, 10500], [2, 10400], [1, 9300], [2, 10000]];
    const bound = setUp(grid, () => 10000, {}, [2]);
    expect(await settleAnswer(bound.ctx)).toMatchObject({ result: 'bound', cells: 0 });
    expect(bound.ran).toHaveLength(0);
    store!.close();
    const off = setUp(grid, () => 10000, { settleBudgetPct: 0 });
    expect(await settleAnswer(off.ctx)).toMatchObject({ result: 'off', cells: 0 });
    store!.close();
    const decided = setUp([[1, 10000], [2, 8000], [1, 10100], [2, 8100], [1, 9900], [2, 7900]], () => 10000);
    expect(await settleAnswer(decided.ctx)).toMatchObject({ result: 'not-needed', cells: 0 });
  });
});
