// The forecast before Start: which cells the load generator, not the server, will likely set the pace
// of on this host. Built on constructed history with known numbers: the ceiling (the most goodput one
// load thread carried while it was the bottleneck), the server's goodput per CPU from past cells of
// the same app and mode, the threads a run gives each cell, and the words with the remedy.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  approxRate, CEILING_SETTING, forecastCells, forecastMatrix, forecastMessage, hostHistory, plannedCells,
  predict, predictedRate, serverRatePerCpu, usableCpus, type PlannedCell,
} from '../../src-main/engine/client-forecast.ts';
import {
  ceilingOf, mergeCeiling, pastCell, storedCeiling, type HostKey, type LoadCeiling, type PastCell,
} from '../../src-main/engine/client-ceiling.ts';
import { validateMatrix, type Matrix } from '../../src-main/engine/matrix.ts';
import type { CellConfig, CellResult, Flag, HostFacts, LoadResult } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';
import { cell, HOST } from '../helpers/run-fixture.ts';

const host: HostKey = { cpuModel: HOST.cpuModel, cores: 2 };
const facts: HostFacts = { ...HOST, cores: 2 };
const CB: Flag = { kind: 'client-bound', reason: 'the load thread was busy 92 % of the time (near one full core)' };

let nextId = 1;
const past = (p: Partial<PastCell> & Pick<PastCell, 'goodput'>): PastCell => ({
  runId: 1, cellId: nextId++, app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, threads: 1, closedLoop: true, clientBound: false, clean: true, finishedAt: '2026-01-01T00:00:00.000Z', ...p,
});
const planned = (p: Partial<PlannedCell> = {}): PlannedCell => ({ app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, load: { model: 'closed', connections: 20 }, threads: 1, ...p });
const ceiling = (perThreadRps: number): LoadCeiling => ({ perThreadRps, host, from: { runId: 1, cellId: 1, app: 'hello', cpuMillis: 1000, threads: 1, goodput: perThreadRps, clientBound: true }, at: '2026-01-01T00:00:00.000Z' });

/** Today's `hello` history on a 2-core host: on 1 CPU one load thread is the limit, on 0.5 CPU the server is. */
const helloHistory = (): PastCell[] => [
  past({ goodput: 80_000, clientBound: true }),
  past({ goodput: 76_000, clientBound: true }),
  past({ goodput: 52_000, workers: 2, clientBound: true }),
  past({ goodput: 23_000, cpuMillis: 500 }),
  past({ goodput: 21_000, cpuMillis: 500, workers: 2 }),
];

/** The quick preset before this issue: hello, cluster ×1 and ×2 on 1 CPU, 3 repetitions. */
const oldQuick = (): PlannedCell[] => [1, 2, 1, 2, 1, 2].map((workers) => planned({ workers }));

describe('the load thread ceiling', () => {
  it('is the highest goodput per load thread of a client-bound cell', () => {
    const c = ceilingOf([...helloHistory(), past({ goodput: 150_000, threads: 2, clientBound: true, cpuMillis: 2000 })], host)!;
    expect(c.perThreadRps).toBe(80_000);
    expect(c.from).toMatchObject({ goodput: 80_000, threads: 1, clientBound: true, app: 'hello' });
    expect(c.host).toEqual(host);
  });

  it('is per thread: a client-bound cell with 2 threads counts half its goodput per thread', () => {
    expect(ceilingOf([past({ goodput: 170_000, threads: 2, clientBound: true })], host)!.perThreadRps).toBe(85_000);
  });

  it('is raised by a clean cell that carried more per thread without saturating it, and never set by clean cells alone', () => {
    expect(ceilingOf([past({ goodput: 60_000, clientBound: true }), past({ goodput: 70_000 })], host)!.perThreadRps).toBe(70_000);
    expect(ceilingOf([past({ goodput: 60_000, clientBound: true }), past({ goodput: 90_000, clean: false })], host)!.perThreadRps).toBe(60_000); // host-busy: not evidence
    expect(ceilingOf([past({ goodput: 70_000 }), past({ goodput: 23_000, cpuMillis: 500 })], host)).toBeUndefined();
    expect(ceilingOf([], host)).toBeUndefined();
  });

  it('stored: only a well-formed one of this host counts, and the higher of stored and seen wins', () => {
    const stored = ceiling(75_000);
    expect(storedCeiling(JSON.parse(JSON.stringify(stored)), host)).toEqual(stored);
    expect(storedCeiling({ ...stored, host: { cpuModel: 'Other CPU', cores: 2 } }, host)).toBeUndefined();
    expect(storedCeiling({ ...stored, host: { ...host, cores: 4 } }, host)).toBeUndefined();
    for (const bad of [undefined, null, 3, 'x', {}, { ...stored, perThreadRps: -1 }, { ...stored, perThreadRps: '80000' }]) expect(storedCeiling(bad, host)).toBeUndefined();
    const seen = ceiling(80_000);
    expect(mergeCeiling(stored, seen)).toBe(seen);
    expect(mergeCeiling(seen, stored)).toBe(seen);
    expect(mergeCeiling(undefined, seen)).toBe(seen);
    expect(mergeCeiling(stored, undefined)).toBe(stored);
  });
});

describe('the server rate predicted from past cells', () => {
  it('counts the CPUs a cell can use: the cap, at most one core per process', () => {
    expect(usableCpus('cluster', 1, 500)).toBe(0.5);
    expect(usableCpus('cluster', 1, 2000)).toBe(1);
    expect(usableCpus('cluster', 4, 2000)).toBe(2);
    expect(usableCpus('pm2', 2, 1500)).toBe(1.5);
    expect(usableCpus('single', 4, 2000)).toBe(1);
    expect(usableCpus('image', 1, 2000)).toBe(2);
  });

  it('per CPU: the median of clean cells at the same cap, and at least what a client-bound cell reached', () => {
    const h = helloHistory();
    // At 500m the clean cells say 44,000 per CPU; the client-bound cells at 1000m say at least 80,000.
    expect(serverRatePerCpu(h, planned({ cpuMillis: 500 }))).toBe(80_000);
    expect(serverRatePerCpu(h.filter((p) => !p.clientBound), planned({ cpuMillis: 500 }))).toBe(44_000);
    expect(serverRatePerCpu(h.filter((p) => !p.clientBound), planned({ cpuMillis: 250 }))).toBe(44_000); // no cell at 250m: all caps
    expect(serverRatePerCpu([...h, past({ goodput: 40_000, cpuMillis: 250 })], planned({ cpuMillis: 250 }))).toBe(160_000);
    expect(serverRatePerCpu([past({ goodput: 40_000, cpuMillis: 250 }), past({ goodput: 23_000, cpuMillis: 500 })], planned({ cpuMillis: 250 }))).toBe(160_000);
  });

  it('uses the same app and request set, the same mode first, and knows nothing of an app never measured here', () => {
    const h = [...helloHistory(), past({ app: 'json', goodput: 9_000 }), past({ app: 'json', mode: 'single', goodput: 11_000 }), past({ app: 'static', requestSet: '32k', goodput: 6_000 })];
    expect(serverRatePerCpu(h, planned({ app: 'json' }))).toBe(9_000);
    expect(serverRatePerCpu(h, planned({ app: 'json', mode: 'single' }))).toBe(11_000);
    expect(serverRatePerCpu(h, planned({ app: 'json', mode: 'pm2' }))).toBe(10_000); // never in pm2: any mode
    expect(serverRatePerCpu(h, planned({ app: 'static', requestSet: '32k' }))).toBe(6_000);
    expect(serverRatePerCpu(h, planned({ app: 'static', requestSet: '1k' }))).toBeUndefined();
    expect(serverRatePerCpu(h, planned({ app: 'pbkdf2' }))).toBeUndefined();
  });

  it('a constant rate below what the server can do is the rate', () => {
    expect(predictedRate(helloHistory(), planned({ load: { model: 'rate', rate: 5_000, connections: 20 } }))).toBe(5_000);
    expect(predictedRate(helloHistory(), planned({ load: { model: 'rate', rate: 500_000, connections: 20 } }))).toBe(80_000);
    expect(predictedRate(helloHistory(), planned({ cpuMillis: 2000, workers: 2 }))).toBe(160_000);
  });
});

describe('the forecast', () => {
  it("today's quick preset on a 2-core host: every cell likely client-bound, said with the remedy", () => {
    const f = forecastCells(oldQuick(), helloHistory(), ceiling(75_000));
    expect(f).toMatchObject({ cells: 6, likely: 6, unknown: 0, ceilingPerThread: 75_000 });
    expect(f.groups).toEqual([{ app: 'hello', cpuMillis: 1000, threads: 1, predictedRps: 80_000, ceilingRps: 75_000, cells: 6, boundBefore: false }]);
    expect(f.message).toBe(
      '6 of 6 cells are likely client-bound on this host (hello at 1000m: ~80,000 req/s, one load thread tops out at ~75,000): their goodput will be a lower bound. ' +
        'To measure the server: a smaller CPU cap, a heavier app, more load threads, or a target with more cores.',
    );
  });

  it('the new quick preset (a smaller cap) is not: nothing to say', () => {
    const f = forecastCells(oldQuick().map((c) => ({ ...c, cpuMillis: 500 })), helloHistory().filter((p) => !p.clientBound), ceiling(80_000));
    expect(f).toMatchObject({ cells: 6, likely: 0, unknown: 0, groups: [], message: null });
    // Even with the client-bound cells at 1000m as a lower bound (80,000 per CPU → 40,000 at 500m).
    expect(forecastCells(oldQuick().map((c) => ({ ...c, cpuMillis: 500 })), helloHistory(), ceiling(80_000)).likely).toBe(0);
  });

  it('counts only the likely cells of a mixed matrix, each group with its predicted rate', () => {
    const cells = [planned({ cpuMillis: 500 }), planned(), planned({ workers: 2 }), planned({ app: 'json' }), planned({ app: 'json' }), planned({ cpuMillis: 2000, workers: 2 })];
    const f = forecastCells(cells, [...helloHistory(), past({ app: 'json', goodput: 9_000 })], ceiling(75_000));
    expect(f).toMatchObject({ cells: 6, likely: 3, unknown: 0 });
    expect(f.groups.map((g) => [g.cpuMillis, g.cells, g.predictedRps])).toEqual([[1000, 2, 80_000], [2000, 1, 160_000]]);
    expect(f.message).toMatch(/^3 of 6 cells are likely client-bound on this host \(hello at 1000m: ~80,000 req\/s; hello at 2000m: ~160,000 req\/s, one load thread tops out at ~75,000\): their goodput will be a lower bound\./);
  });

  it('more load threads raise the bar: 2 threads carry twice the ceiling', () => {
    expect(forecastCells([planned({ threads: 2 })], helloHistory(), ceiling(75_000)).likely).toBe(0);
    const f = forecastCells([planned({ threads: 2, cpuMillis: 2000, workers: 2 }), planned()], helloHistory(), ceiling(75_000));
    expect(f.likely).toBe(2);
    expect(f.message).toContain('(hello at 2000m: ~160,000 req/s, 2 load threads top out at ~150,000 together; hello at 1000m: ~80,000 req/s, one load thread tops out at ~75,000)');
  });

  it('a cell predicted just under the ceiling is likely too (a thread is flagged from 90 % busy); well under it is not', () => {
    expect(forecastCells([planned()], [past({ goodput: 68_000 })], ceiling(75_000)).likely).toBe(1);
    expect(forecastCells([planned()], [past({ goodput: 60_000 })], ceiling(75_000)).likely).toBe(0);
  });

  it('uses what cells of exactly the configuration reached: 2 workers on 1 CPU slower than 1', () => {
    const h = [past({ goodput: 80_000, clientBound: true }), past({ goodput: 50_000, workers: 2 }), past({ goodput: 51_000, workers: 2 }), past({ goodput: 90_000, workers: 2, clean: false })];
    expect(predict(h, planned({ workers: 2 }))).toEqual({ rate: 50_500, boundBefore: false });
    const f = forecastCells([planned(), planned({ workers: 2 })], h, ceiling(80_000));
    expect(f).toMatchObject({ likely: 1, groups: [{ cells: 1, predictedRps: 80_000 }] });
  });

  it('a configuration mostly client-bound here before is likely again, even below the ceiling, and says so', () => {
    const h = [past({ goodput: 80_000, clientBound: true }), past({ goodput: 52_000, workers: 2, clientBound: true }), past({ goodput: 50_000, workers: 2, clientBound: true }), past({ goodput: 51_000, workers: 2 })];
    expect(predict(h, planned({ workers: 2 }))).toEqual({ rate: 52_000, boundBefore: true });
    // With other load threads the flags of 1 thread say nothing; nor for a constant rate.
    expect(predict(h, planned({ workers: 2, threads: 2 }))!.boundBefore).toBe(false);
    expect(predict(h, planned({ workers: 2, load: { model: 'rate', rate: 1000, connections: 20 } }))).toEqual({ rate: 1000, boundBefore: false });
    const f = forecastCells([planned({ workers: 2 }), planned({ workers: 2 })], h, ceiling(80_000));
    expect(f.groups).toEqual([{ app: 'hello', cpuMillis: 1000, threads: 1, predictedRps: 52_000, ceilingRps: 80_000, cells: 2, boundBefore: true }]);
    expect(f.message).toMatch(/^2 of 2 cells are likely client-bound on this host \(hello at 1000m: ~52,000 req\/s, client-bound there before, one load thread tops out at ~80,000\)/);
    // Only 1 of 3 client-bound: not "before".
    expect(predict([...h.slice(0, 2), past({ goodput: 50_000, workers: 2 }), past({ goodput: 51_000, workers: 2 })], planned({ workers: 2 }))!.boundBefore).toBe(false);
  });

  it('a constant-rate cell that kept its rate is a lower bound of the server, not an estimate', () => {
    const h = [past({ goodput: 5_000, closedLoop: false }), past({ goodput: 40_000, cpuMillis: 500 })];
    expect(predict(h, planned())).toEqual({ rate: 80_000, boundBefore: false }); // 40,000 at 0.5 CPU → 80,000 per CPU, above the 5,000 rate cell
    expect(predict([past({ goodput: 5_000, closedLoop: false })], planned())).toEqual({ rate: 5_000, boundBefore: false });
    expect(predict([past({ goodput: 5_000, closedLoop: false, clean: false })], planned())).toBeUndefined();
  });

  it('an app with no history here is unknown, not likely', () => {
    const f = forecastCells([planned({ app: 'json' }), planned()], helloHistory(), ceiling(75_000));
    expect(f).toMatchObject({ cells: 2, likely: 1, unknown: 1 });
    expect(f.message).toMatch(/^1 of 2 cells is likely client-bound on this host \(hello at 1000m: .*\): its goodput will be a lower bound\./);
  });

  it('words: two significant figures, a request set named, nothing when nothing is likely', () => {
    expect(approxRate(80_412)).toBe('80,000');
    expect(approxRate(75_499)).toBe('75,000');
    expect(approxRate(7_534)).toBe('7,500');
    expect(approxRate(954)).toBe('950');
    expect(approxRate(42)).toBe('42');
    expect(forecastMessage({ cells: 4, likely: 0, groups: [] })).toBeNull();
    expect(forecastMessage({ cells: 2, likely: 2, groups: [{ app: 'static', requestSet: '1k', cpuMillis: 1000, threads: 1, predictedRps: 71_000, ceilingRps: 70_000, cells: 2, boundBefore: false }] })).toContain('(static [1k] at 1000m: ~71,000 req/s, one load thread tops out at ~70,000)');
  });
});

describe('the cells a run would take, with their load threads', () => {
  const matrixOf = (m: Record<string, unknown>, cores = 2): Matrix => {
    const v = validateMatrix({ apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], ...m }, { cores, memoryMb: 8192, apps: ['hello', 'json'] });
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    return v.matrix;
  };

  it('one load thread on a 2-core host (the target on one core, the load on the other); two on a 5-core host', () => {
    const two = plannedCells(matrixOf({ repetitions: 3, order: 'shuffle' }), 2);
    expect(two).toHaveLength(6);
    expect(new Set(two.map((c) => c.threads))).toEqual(new Set([1]));
    expect(plannedCells(matrixOf({}, 5), 5).map((c) => c.threads)).toEqual([2, 2]);
    // A 2-CPU cap on 2 cores: placement off, one thread sharing the cores.
    expect(plannedCells(matrixOf({ cpuMillicores: [2000] }), 2).map((c) => c.threads)).toEqual([1, 1]);
  });

  it("the matrix's load.threads, and never more threads than connections", () => {
    expect(plannedCells(matrixOf({ load: { model: 'closed', connections: [20], threads: 2 } }), 2).map((c) => c.threads)).toEqual([2, 2]);
    expect(plannedCells(matrixOf({ load: { model: 'closed', connections: [1] } }, 5), 5).map((c) => c.threads)).toEqual([1, 1]);
  });
});

describe('past cells from the store', () => {
  const result = (cfg: CellConfig, goodput: number, o: { flags?: Flag[]; threads?: number; status?: CellResult['status']; ranOn?: CellResult['ranOn'] } = {}): CellResult => {
    const load = { model: 'closed', connections: 20, measuredSec: 5, requests: goodput * 5, bytes: 0, rpsMean: goodput, rpsStddev: 1, bytesPerSec: 0, latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 700, p99: 900, p99_9: 1200, max: 5000, mean: 350, stddev: 100 }, latencyFrom: 'send', statusCounts: { 200: goodput * 5 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.5, clientBound: (o.flags ?? []).some((f) => f.kind === 'client-bound'), goodputMean: goodput, threads: o.threads ?? 1 } satisfies LoadResult;
    return { config: cfg, status: o.status ?? 'ok', load, flags: o.flags ?? [], ...(o.ranOn ? { ranOn: o.ranOn } : {}), startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:08.000Z' };
  };
  const config = (over: Partial<CellConfig> = {}): CellConfig => ({ ...cell({}).config, ...over });

  let dir: string;
  let store: Store;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-forecast-'));
    store = Store.open(path.join(dir, 'f.db'));
  });
  afterEach(() => {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const addRun = (cells: CellResult[], h: HostFacts = facts): number => {
    const runId = store.createRun({ name: 'r', matrix: {}, host: h, ownerSession: 'lab:1:1', cellsTotal: cells.length });
    cells.forEach((r, i) => store.finishCell(store.startCell(runId, { ...r.config, index: i }), r));
    store.finishRun(runId, 'completed');
    return runId;
  };

  it('reads only cells measured on this host, here, that finished with a load result', () => {
    const run = { id: 1, host: facts };
    const base = cell({ rps: 50_000 });
    const withLoad = { ...base, load: result(base.config, 50_000).load! };
    expect(pastCell(run, withLoad, host)).toMatchObject({ app: 'hello', goodput: 50_000, threads: 1, clientBound: false, clean: true });
    expect(pastCell(run, { ...withLoad, flags: [CB] }, host)!.clientBound).toBe(true);
    expect(pastCell(run, { ...withLoad, flags: [{ kind: 'host-busy', reason: 'x' }] }, host)!.clean).toBe(false);
    expect(pastCell({ id: 1, host: { ...facts, cpuModel: 'Other' } }, withLoad, host)).toBeUndefined();
    expect(pastCell(run, { ...withLoad, ranOn: { target: 'lab-swarm', kind: 'swarm', node: 'n1' } }, host)).toBeUndefined();
    expect(pastCell(run, { ...withLoad, ranOn: { target: 'local', kind: 'local' } }, host)).toBeDefined();
    expect(pastCell(run, { ...withLoad, status: 'failed' }, host)).toBeUndefined();
    expect(pastCell(run, base, host)).toBeUndefined(); // no load result
  });

  it('stores the ceiling in the settings table, keeps it when its run is deleted, and forecasts the matrix', () => {
    expect(hostHistory(store, host)).toEqual({ past: [] });
    expect(store.getSettings()[CEILING_SETTING]).toBeUndefined();
    const m = validateMatrix({ apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], repetitions: 3 }, { cores: 2, memoryMb: 8192, apps: ['hello'] });
    if (!m.ok) throw new Error('invalid');
    expect(forecastMatrix(store, m.matrix, 2, undefined, host)).toBeUndefined(); // no history: nothing to say

    const runId = addRun([result(config({ workers: 1 }), 80_000, { flags: [CB] }), result(config({ workers: 2 }), 52_000, { flags: [CB] }), result(config({ cpuMillis: 500 }), 23_000)]);
    const h = hostHistory(store, host);
    expect(h.past).toHaveLength(3);
    expect(h.ceiling).toMatchObject({ perThreadRps: 80_000, host, from: { runId, goodput: 80_000 } });
    expect(store.getSettings()[CEILING_SETTING]).toEqual(h.ceiling);
    const f = forecastMatrix(store, m.matrix, 2, undefined, host)!;
    expect(f).toMatchObject({ cells: 6, likely: 6, ceilingPerThread: 80_000 });
    expect(f.message).toContain('6 of 6 cells are likely client-bound on this host (hello at 1000m: ~80,000 req/s, one load thread tops out at ~80,000)');

    // The run deleted: no past cells, but the stored ceiling stays (and a lower one seen later does not replace it).
    store.deleteRun(runId);
    expect(hostHistory(store, host)).toMatchObject({ past: [], ceiling: { perThreadRps: 80_000 } });
    addRun([result(config(), 70_000, { flags: [CB] })]);
    expect(hostHistory(store, host).ceiling!.perThreadRps).toBe(80_000);
    addRun([result(config({ load: { model: 'closed', connections: 20 } }), 170_000, { flags: [CB], threads: 2 })]);
    expect(hostHistory(store, host).ceiling!.perThreadRps).toBe(85_000);
    expect((store.getSettings()[CEILING_SETTING] as LoadCeiling).perThreadRps).toBe(85_000);
  });

  it("ignores another host's runs and another host's stored ceiling", () => {
    addRun([result(config(), 90_000, { flags: [CB] })], { ...facts, cpuModel: 'Other CPU' });
    addRun([result(config(), 40_000, { flags: [CB] }), result(config(), 45_000, { ranOn: { target: 'far', kind: 'docker' }, flags: [CB] })]);
    store.setSettings({ [CEILING_SETTING]: { ...ceiling(120_000), host: { cpuModel: 'Other CPU', cores: 2 } } });
    const h = hostHistory(store, host);
    expect(h.past.map((p) => p.goodput)).toEqual([40_000]);
    expect(h.ceiling!.perThreadRps).toBe(40_000);
    expect((store.getSettings()[CEILING_SETTING] as LoadCeiling).host).toEqual(host);
  });
});
