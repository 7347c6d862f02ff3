// The run list shows each finished run's pick (the answer's, not the fastest cell), worked out once
// and cached in the SQLite file until the run's cells change.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { runPickOf } from '../../src-main/analysis/decide/run-pick.ts';
import { pickGoodput, pickText } from '../../src-main/common/pick-words.ts';
import type { CellConfig, CellResult, HostFacts } from '../../src-main/model/types.ts';
import type { RunPick } from '../../src-main/model/stored.ts';
import { listRunsWithPicks, pickOfRun } from '../../src-main/service/run-list.ts';
import { Store } from '../../src-main/store/index.ts';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-picks-'));
  store = Store.open(path.join(dir, 'rightsize.db'));
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const host = { hostname: 'lab', platform: 'linux', arch: 'x64', cpuModel: 'cpu', cores: 8, memoryBytes: 2 ** 34, nodeVersion: 'v20.19.0', appVersions: {}, rightsizeVersion: '0.1.0' } as HostFacts;

const config = (index: number, workers: number, repetition: number): CellConfig => ({
  index, repetition, app: 'hello', mode: 'cluster', workers, cpuMillis: 1000, memoryMb: 256,
  load: { model: 'closed', connections: 20 }, durationSec: 10, warmupSec: 2, env: {},
});

const ok = (c: CellConfig, rps: number, p99 = 4000, clientBound = false): CellResult => ({
  config: c, status: 'ok',
  load: {
    model: 'closed', connections: 20, measuredSec: 10, requests: rps * 10, bytes: rps * 1000, rpsMean: rps, rpsStddev: 5,
    bytesPerSec: rps * 100, latencyUs: { p50: 1000, p75: 1500, p90: 2000, p97_5: 3000, p99: p99, p99_9: 6000, max: 9000, mean: 1100, stddev: 300 },
    latencyFrom: 'send', statusCounts: { '200': rps * 10 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: clientBound ? 0.99 : 0.3,
    clientBound, goodputMean: rps, perSecondGood: Array.from({ length: 10 }, (_, i) => rps + (i % 2 ? 3 : -3)),
  },
  stats: { cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 40e6, memMaxBytes: 50e6, memLimitBytes: 256 * 2 ** 20, throttledPeriods: 0, throttledMs: 0, samples: 10 },
  exit: { oomKilled: false, exitCode: null, restarts: 0 },
  flags: clientBound ? [{ kind: 'client-bound', reason: 'load worker event loop 99% busy' }] : [],
  bottleneck: clientBound ? 'client' : 'server',
  startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:12.000Z',
});

/** One cluster worker at about 1,000 req/s and two at about 1,020 (within the 5 % margin: the cheaper one is the pick). */
function finishedRun(name = 'quick'): number {
  const id = store.createRun({ name, matrix: {}, host, ownerSession: 'lab:1:1', cellsTotal: 6 });
  let i = 0;
  for (const [workers, values] of [[1, [1000, 1004, 996]], [2, [1020, 1030, 1010]]] as const)
    values.forEach((rps, rep) => {
      const c = config(i++, workers, rep);
      store.finishCell(store.startCell(id, c), ok(c, rps));
    });
  store.finishRun(id, 'completed');
  return id;
}

describe('the run list names the answer’s pick', () => {
  it('is the pick the answer itself names, not the fastest cell', () => {
    const id = finishedRun();
    const rec = recommend(store.getRun(id)!, { samples: store.getRunSamples(id) });
    const [row] = listRunsWithPicks(store).runs;
    expect(row!.bestRps).toBe(1030); // the fastest single cell
    expect(row!.pick).toEqual(runPickOf(rec));
    expect(row!.pick).toMatchObject({ state: 'equivalent', workers: 1, configuration: 'cluster×1 on 1 CPU / 256 MB', lowerBound: false });
    expect(row!.pick!.goodputRps).toBeCloseTo(1000, 0);
    expect(pickText(row!.pick)).toBe('cluster×1 on 1 CPU / 256 MB, equivalent');
  });

  it('works a pick out once, then reads it from the file until the run gets a cell', () => {
    const id = finishedRun();
    const pickOf = vi.fn((runId: number) => pickOfRun(store, runId));
    const first = store.listRuns({}, pickOf).runs[0]!.pick;
    expect(pickOf).toHaveBeenCalledTimes(1);
    // Another process (a new Store on the same file) reads the cached pick without working it out.
    const other = Store.open(store.path);
    try {
      const again = vi.fn((runId: number) => pickOfRun(other, runId));
      expect(other.listRuns({}, again).runs[0]!.pick).toEqual(first);
      expect(again).not.toHaveBeenCalled();
    } finally {
      other.close();
    }
    // A verification or settling cell appended to the finished run: worked out again.
    const c = { ...config(6, 1, 3), phase: 'settle' as const };
    const cellId = store.startCell(id, c);
    store.listRuns({}, pickOf);
    expect(pickOf).toHaveBeenCalledTimes(2); // a running cell changes what the pick rests on
    store.finishCell(cellId, ok(c, 1002));
    store.listRuns({}, pickOf);
    store.listRuns({}, pickOf);
    expect(pickOf).toHaveBeenCalledTimes(3);
  });

  it('shows nothing for a run still running or one with no answer, and says a lower bound with ≥', () => {
    const running = store.createRun({ name: 'live', matrix: {}, host, ownerSession: 'lab:1:1', cellsTotal: 2 });
    const c0 = config(0, 1, 0);
    store.finishCell(store.startCell(running, c0), ok(c0, 900));
    const failed = store.createRun({ name: 'broken', matrix: {}, host, ownerSession: 'lab:1:1', cellsTotal: 1 });
    store.finishCell(store.startCell(failed, c0), { config: c0, status: 'failed', failure: 'not ready', flags: [], startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z' });
    store.finishRun(failed, 'failed');
    const bound = store.createRun({ name: 'bound', matrix: {}, host, ownerSession: 'lab:1:1', cellsTotal: 2 });
    for (let r = 0; r < 2; r++) {
      const c = config(r, 1, r);
      store.finishCell(store.startCell(bound, c), ok(c, 78_361 + r, 4000, true));
    }
    store.finishRun(bound, 'completed');
    const pickOf = vi.fn((runId: number) => pickOfRun(store, runId));
    const byName = new Map(store.listRuns({}, pickOf).runs.map((r) => [r.name, r.pick]));
    expect(byName.get('live')).toBeNull();
    expect(pickOf).not.toHaveBeenCalledWith(running);
    expect(byName.get('broken')).toBeNull();
    expect(pickText(byName.get('broken')!)).toBe('—');
    const b = byName.get('bound') as RunPick;
    expect(b.lowerBound).toBe(true);
    expect(pickGoodput(b)).toBe('≥ 78,362');
  });

  it('undecided never says pick: the leading contender, undecided', () => {
    const p: RunPick = { state: 'undecided', configuration: 'cluster×2 on 1 CPU / 256 MB', app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 1000, memoryMb: 256, goodputRps: 1200, lowerBound: false, p99Us: 4000 };
    expect(pickText(p)).toBe('leading: cluster×2 on 1 CPU / 256 MB, undecided');
    expect(pickText({ ...p, state: 'confident' })).toBe('cluster×2 on 1 CPU / 256 MB, confident');
  });

  it('a deleted run takes its cached pick with it', () => {
    const id = finishedRun();
    listRunsWithPicks(store);
    const cached = (): number => {
      const db = new Database(store.path);
      try {
        return (db.prepare('SELECT count(*) AS n FROM run_picks').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    expect(cached()).toBe(1);
    store.deleteRun(id);
    expect(cached()).toBe(0);
  });
});
