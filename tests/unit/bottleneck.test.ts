// One bottleneck per cell (issue 40): decided once when the cell is measured (common/bottleneck.ts, in the engine's
// flags step), stored with it, backfilled for cells stored before by store migration 11 with the same function, and
// read — never re-derived — by the answer and the auto-size judge.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cellBottleneck, isLowerBound } from '../../src-main/common/bottleneck.ts';
import { attribute, type AttributionInput } from '../../src-main/load/attribution.ts';
import { cellFlagsAndBottleneck } from '../../src-main/engine/flags.ts';
import { evidenceOf, judge } from '../../src-main/engine/auto-size/judge.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { cellShortfall, configurationKey } from '../../src-main/analysis/decide/group.ts';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src-main/store/migrations.ts';
import { Store, type StoredCell } from '../../src-main/store/index.ts';
import type { CellConfig, DependencyReading, Flag, LoadResult, StatsSummary } from '../../src-main/model/types.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';
import { migratedFrom, storedBottlenecks } from '../helpers/old-store.ts';

/** A load result as the load runner builds it from the attribution of what it measured. */
function measured(x: AttributionInput): LoadResult {
  const v = attribute(x);
  return {
    model: x.targetRate ? 'rate' : 'closed', connections: x.connections, ...(x.targetRate ? { targetRate: x.targetRate } : {}),
    measuredSec: 10, requests: x.rpsMean * 10, bytes: 0, rpsMean: x.rpsMean, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 800, p99: 1000, p99_9: 1500, max: 2000, mean: 350, stddev: 100 },
    latencyFrom: x.targetRate ? 'intended-send' : 'send', statusCounts: {}, errors: 0, timeouts: 0, non2xx: 0,
    clientElu: Math.max(...x.threadElu), clientBound: v.clientBound,
    ...(v.clientBoundReason ? { clientBoundReason: v.clientBoundReason } : {}), ...(v.shortfallBy ? { shortfallBy: v.shortfallBy } : {}),
  };
}
const stats = (otherPct: number): StatsSummary => ({
  cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 1, memMaxBytes: 1, memLimitBytes: 1, throttledPeriods: 0, throttledMs: 0, samples: 10,
  host: { cores: '0-1', otherPct, perSecondOtherPct: Array(10).fill(otherPct) },
} as StatsSummary);

describe('the one bottleneck decision, on measured inputs', () => {
  const closed = { connections: 20, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.4 };

  it('client-bound: a load thread at its ceiling set the pace', () => {
    const r = cellFlagsAndBottleneck(measured({ ...closed, threadElu: [0.97] }), stats(1), undefined, 256);
    expect(r.flags.map((f) => f.kind)).toEqual(['client-bound']);
    expect(r.bottleneck).toBe('client');
    expect(isLowerBound(r)).toBe(true);
  });

  it('host-busy: other processes took the cores', () => {
    const r = cellFlagsAndBottleneck(measured({ ...closed, threadElu: [0.4] }), stats(30), undefined, 256);
    expect(r.flags.map((f) => f.kind)).toEqual(['host-busy']);
    expect(r.bottleneck).toBe('host');
    expect(isLowerBound(r)).toBe(true);
  });

  it('server-bound: a clean cell, and a missed constant rate with every connection waiting on the server', () => {
    expect(cellFlagsAndBottleneck(measured({ ...closed, threadElu: [0.4] }), stats(1), undefined, 256).bottleneck).toBe('server');
    // 1,000 req/s × 20 ms = 20 in flight on 10 connections: full, and the busy thread was not busy first.
    const saturated = measured({ targetRate: 1000, connections: 10, rpsMean: 700, sentPerSec: 700, meanServiceMs: 20, threadElu: [0.95] });
    expect(saturated).toMatchObject({ clientBound: false, shortfallBy: 'server' });
    const r = cellFlagsAndBottleneck(saturated, stats(1), undefined, 256);
    expect(r.bottleneck).toBe('server');
    expect(isLowerBound(r)).toBe(false);
  });

  it('one cause: a client-bound flag with the shortfall on the server is the server; no load result, no pace', () => {
    const flag: Flag = { kind: 'client-bound', reason: 'load thread busy 95 %' };
    expect(cellBottleneck({ flags: [flag], load: { shortfallBy: 'server' } })).toBe('server');
    expect(cellBottleneck({ flags: [flag, { kind: 'host-busy', reason: 'x' }], load: {} })).toBe('client');
    expect(cellBottleneck({ flags: [flag], load: null })).toBeNull();
  });
});

describe('store migration 11: cells stored before it get their bottleneck from the same function', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-bottleneck-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const rate = { model: 'rate' as const, rate: 1000, connections: 10 };
  const config = (index: number, load: CellConfig['load'] = { model: 'closed', connections: 20 }): CellConfig => ({
    index, repetition: 0, app: 'hello', mode: 'cluster', workers: index + 1, cpuMillis: 1000, memoryMb: 256, load, durationSec: 10,
    warmupSec: 2, env: {},
  });
  const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
  const hostBusy: Flag = { kind: 'host-busy', reason: 'other processes took 30 %' };
  /** Rows as schema 10 stored them: no bottleneck column, no shortfall side in the older load results. */
  const OLD: { config: CellConfig; flags: Flag[]; load: Partial<LoadResult> | null; meanUs?: number; rps?: number }[] = [
    { config: config(0), flags: [clientBound], load: { clientBound: true } },
    { config: config(1), flags: [hostBusy], load: { clientBound: false } },
    { config: config(2), flags: [], load: { clientBound: false } },
    { config: config(3), flags: [clientBound], load: { clientBound: true, shortfallBy: 'server' } }, // issue 21's pair
    // A missed constant rate, stored before the load side said which side: 20 ms × 1,000 req/s fills 10 connections.
    { config: config(4, rate), flags: [], load: { clientBound: false, latencyUs: { mean: 20_000 } as never }, rps: 700 },
    { config: config(5), flags: [], load: null }, // failed before it measured
  ];

  function oldDatabase(file: string): number {
    const db = new Database(file);
    MIGRATIONS.slice(0, 10).forEach((m, v) => {
      db.exec(m as string);
      db.pragma(`user_version = ${v + 1}`);
    });
    const runId = Number(
      db.prepare(`INSERT INTO runs (name, matrix_json, host_json, owner_session, status, cells_total, started_at)
                  VALUES ('old', '{}', '{}', 'lab:1:1', 'completed', ?, '2026-01-01T00:00:00.000Z')`).run(OLD.length).lastInsertRowid,
    );
    const insert = db.prepare(
      `INSERT INTO cells (run_id, idx, repetition, app, mode, workers, cpu_millis, memory_mb, load_model, connections, target_rate,
                          config_json, status, rps_mean, requests, non2xx, mean_us, client_bound, load_json, flags_json, started_at)
       VALUES (@run_id, @idx, 0, 'hello', 'cluster', @workers, 1000, 256, @load_model, @connections, @target_rate,
               @config_json, @status, @rps, @requests, 0, @mean_us, @client_bound, @load_json, @flags_json, '2026-01-01T00:00:00.000Z')`,
    );
    for (const o of OLD) {
      const l = o.config.load;
      insert.run({
        run_id: runId, idx: o.config.index, workers: o.config.workers, load_model: l.model, connections: l.connections,
        target_rate: l.model === 'rate' ? l.rate : null, config_json: JSON.stringify(o.config), status: o.load ? 'ok' : 'failed',
        rps: o.load ? (o.rps ?? 9000) : null, requests: o.load ? (o.rps ?? 9000) * 10 : null, mean_us: o.meanUs ?? null,
        client_bound: o.load ? (o.load.clientBound ? 1 : 0) : null, load_json: o.load ? JSON.stringify(o.load) : null,
        flags_json: JSON.stringify(o.flags),
      });
    }
    db.close();
    return runId;
  }

  it('backfills each old row to the value the decision gives, and records the side of an old missed rate', () => {
    const file = path.join(dir, 'old.db');
    const runId = oldDatabase(file);
    const store = Store.open(file);
    try {
      const raw = new Database(file, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const column = raw.prepare('SELECT idx, bottleneck FROM cells ORDER BY idx').all();
      raw.close();
      const expected = OLD.map((o) => cellBottleneck({ flags: o.flags, load: o.load }));
      expect(expected).toEqual(['client', 'host', 'server', 'server', 'server', null]);
      expect(column).toEqual(expected.map((bottleneck, idx) => ({ idx, bottleneck })));
      const cells = store.getRun(runId)!.cells;
      expect(cells.map((c) => c.bottleneck)).toEqual(expected);
      // The old Little's-law reading was made once, here: stored as the load side now records it.
      expect(cells[4]!.load!.shortfallBy).toBe('server');
      expect(cellShortfall(cells[4]!)).toBe('server');
      expect(cells.filter((c) => c.load && c !== cells[4]).every((c) => c.load!.shortfallBy === OLD[c.config.index]!.load!.shortfallBy)).toBe(true);
    } finally {
      store.close();
    }
  });
});

describe('readers read the stored bottleneck, never the numbers again', () => {
  /** Three repetitions each of 1 and 2 workers, 2 faster; `stored` overrides what the store gives back for 2 workers. */
  function twoConfigurations(stored: StoredCell['bottleneck'], flags: Flag[] = []): ReturnType<typeof run> {
    const r = run([...reps({ workers: 1 }, [9000, 9050, 8950]), ...reps({ workers: 2, flags }, [12000, 12050, 11950])]);
    return { ...r, cells: r.cells.map((c) => (c.config.workers === 2 ? { ...c, bottleneck: stored } : c)) };
  }

  it('a cell stored as client-bound is a lower bound though nothing in its numbers or flags says so', () => {
    const r = twoConfigurations('client');
    expect(r.cells.every((c) => c.flags.length === 0 && c.clientBound === false)).toBe(true);
    const rec = recommend(r);
    const two = configurationKey(r.cells.find((c) => c.config.workers === 2)!.config);
    expect(rec.scopes[0]!.lowerBounds).toEqual([two]);
    expect(rec.configurations.find((c) => c.key === two)!.bottleneck).toBe('client');
    // The auto-size judge sets it aside the same way.
    const cells = r.cells.filter((c) => c.config.workers === 2);
    const j = judge(cells.map((c) => evidenceOf(c, [])), { slo: { p99Ms: 50, minRps: 1, maxErrorPct: 1 }, rate: 1 } as never);
    expect(j.detail).toMatch(/client-bound \(the load generator was saturated\)/);
  });

  it('a cell flagged client-bound but stored with the server as its bottleneck is a measurement', () => {
    const flag: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
    const rec = recommend(twoConfigurations('server', [flag]));
    expect(rec.scopes[0]!.lowerBounds).toEqual([]);
    expect(rec.configurations.every((c) => c.bottleneck === null)).toBe(true);
  });

  it('a missed constant rate is put on the side the stored bottleneck names', () => {
    const rate = { model: 'rate' as const, rate: 1000, connections: 10 };
    const short = cell({ load: rate, rps: 700 });
    expect(cellShortfall({ ...short, bottleneck: 'client' })).toBe('client');
    expect(cellShortfall({ ...short, bottleneck: 'server', load: { shortfallBy: 'server' } as LoadResult })).toBe('server');
    // Not recorded which side: said as unknown, not worked out from the latency.
    expect(cellShortfall({ ...short, bottleneck: 'server', meanUs: 20_000 })).toBeNull();
  });
});

describe('a dependency at its own cap sets the pace (issue 41)', () => {
  const closed = { connections: 20, rpsMean: 5_000, sentPerSec: 5_000, meanServiceMs: 4, threadElu: [0.4] };
  const app = (cpuPctMean: number): StatsSummary => ({ ...stats(1), cpuPctMean });
  const db = (cpuPctMean: number): DependencyReading => ({
    name: 'db', image: 'postgres:16', cpuMillis: 500, memoryMb: 256, seconds: [],
    stats: { ...stats(1), cpuPctMean, host: undefined } as StatsSummary,
  });

  it('the database at 97 % of its cap while the app used 35 % of its own: dependency-bound, a lower bound', () => {
    const r = cellFlagsAndBottleneck(measured(closed), app(35), undefined, 256, [db(97)]);
    expect(r.flags.map((f) => f.kind)).toEqual(['dependency-bound']);
    expect(r.flags[0]!.reason).toBe('db (postgres:16) used 97 % of its 0.5 CPU cap while the app used 35 % of its own: db set the pace');
    expect(r.bottleneck).toBe('dependency');
    expect(isLowerBound(r)).toBe(true);
  });

  it('not when the app was at its own cap too (both saturated: the server), nor when the database had room', () => {
    expect(cellFlagsAndBottleneck(measured(closed), app(95), undefined, 256, [db(97)]).bottleneck).toBe('server');
    expect(cellFlagsAndBottleneck(measured(closed), app(35), undefined, 256, [db(60)]).bottleneck).toBe('server');
  });

  it('out of its quota in 90 % or more of the periods it was busy in: at its cap, whatever idle seconds the mean read', () => {
    // 82 % on average (a reading's second begun before the load), but throttled in 19 of its 20 busy periods.
    const busy = (cpuPctMean: number, throttledPeriods: number, cpuPeriods: number): DependencyReading => {
      const d = db(cpuPctMean);
      return { ...d, stats: { ...d.stats!, throttledPeriods, cpuPeriods } };
    };
    const r = cellFlagsAndBottleneck(measured(closed), app(18), undefined, 256, [busy(82, 19, 20)]);
    expect(r.flags[0]!.reason).toBe(
      'db (postgres:16) used 82 % of its 0.5 CPU cap (out of it in 95 % of its busy periods) while the app used 18 % ' +
        'of its own: db set the pace',
    );
    // Throttled in fewer (a bursty database with room), or too few periods to read a share: not at its cap.
    expect(cellFlagsAndBottleneck(measured(closed), app(18), undefined, 256, [busy(82, 17, 20)]).bottleneck).toBe('server');
    expect(cellFlagsAndBottleneck(measured(closed), app(18), undefined, 256, [busy(82, 9, 9)]).bottleneck).toBe('server');
  });

  it('is never counted as the host: dependency-bound wins over host-busy, the load generator over both', () => {
    const dep: Flag = { kind: 'dependency-bound', reason: 'db' };
    expect(cellBottleneck({ flags: [{ kind: 'host-busy', reason: 'x' }, dep], load: {} })).toBe('dependency');
    expect(cellBottleneck({ flags: [{ kind: 'client-bound', reason: 'x' }, dep], load: {} })).toBe('client');
  });

  it('the answer keeps such a configuration as a lower bound, and says what would decide it', () => {
    const r = run([...reps({ workers: 1 }, [900, 905, 895]), ...reps({ workers: 2 }, [910, 915, 905])]);
    const bound = { ...r, cells: r.cells.map((c) => ({ ...c, bottleneck: 'dependency' as const })) };
    const rec = recommend(bound);
    expect(rec.scopes[0]!.ceiling).toBe('dependency');
    expect(rec.scopes[0]!.lowerBounds).toHaveLength(2);
    expect(rec.words.join(' ')).toMatch(/held by a dependency at its own CPU cap/);
  });
});

describe('store migration 12: the wider pace column keeps every stored value', () => {
  it("keeps 'server', 'client', 'host' and NULL, takes 'dependency', refuses anything else", () => {
    const { raw, done } = migratedFrom(12, ['server', 'client', 'host', null]);
    try {
      expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(storedBottlenecks(raw)).toEqual(['server', 'client', 'host', null]);
      raw.prepare("UPDATE cells SET bottleneck = 'dependency' WHERE idx = 3").run();
      expect(() => raw.prepare("UPDATE cells SET bottleneck = 'disk' WHERE idx = 3").run()).toThrow(/CHECK constraint/);
    } finally {
      done();
    }
  });
});
