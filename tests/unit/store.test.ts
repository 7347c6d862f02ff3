import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CellConfig, CellResult, HostFacts, Sample } from '../../src-main/model/types.ts';
import { INTERRUPTED_ERROR, SCHEMA_VERSION, Store, defaultDataDir, resolveDbPath, type StoredCell } from '../../src-main/store/index.ts';

let dir: string;
let file: string;
const open: Store[] = [];
const openStore = (f = file): Store => {
  const s = Store.open(f);
  open.push(s);
  return s;
};
/** A second, raw connection: checks what is really in the file, not what the Store says. */
const raw = <T>(fn: (db: Database.Database) => T): T => {
  const db = new Database(file);
  try {
    return fn(db);
  } finally {
    db.close();
  }
};
const count = (table: string): number => raw((db) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-store-test-'));
  file = path.join(dir, 'sub', 'rightsize.db');
});
afterEach(() => {
  for (const s of open.splice(0)) {
    try {
      s.close();
    } catch {
      /* already closed by the test */
    }
  }
  vi.useRealTimers();
  fs.rmSync(dir, { recursive: true, force: true });
});

const host: HostFacts = {
  hostname: 'lab-1',
  platform: 'linux',
  arch: 'x64',
  cpuModel: 'Intel Xeon E5-2680',
  cores: 4,
  memoryBytes: 8_589_934_592,
  nodeVersion: 'v20.19.0',
  dockerVersion: '27.3.1',
  cgroupVersion: '2',
  appVersions: { express: '5.1.0' },
  rightsizeVersion: '0.1.0',
};

const config = (index: number, over: Partial<CellConfig> = {}): CellConfig => ({
  index,
  repetition: 1,
  app: 'express',
  mode: 'cluster',
  workers: 2,
  cpuMillis: 1500,
  memoryMb: 512,
  load: { model: 'rate', rate: 4000, connections: 32 },
  durationSec: 30,
  warmupSec: 5,
  env: { NODE_ENV: 'production', UV_THREADPOOL_SIZE: '8' },
  recycleRssMb: 400,
  ...over,
});

const okResult = (c: CellConfig, rpsMean = 3987.25, p99 = 10_500): CellResult => ({
  config: c,
  status: 'ok',
  load: {
    model: 'rate',
    connections: 32,
    targetRate: 4000,
    measuredSec: 30,
    requests: 119_617,
    bytes: 27_511_910,
    rpsMean,
    rpsStddev: 41.5,
    bytesPerSec: 917_063.67,
    latencyUs: { p50: 1210, p75: 1820, p90: 3050, p97_5: 6100, p99, p99_9: 22_000, max: 48_123, mean: 1534.75, stddev: 980.5 },
    latencyFrom: 'intended-send',
    statusCounts: { '200': 119_600, '503': 17 },
    errors: 3,
    timeouts: 1,
    non2xx: 17,
    clientElu: 0.42,
    clientBound: true,
    clientBoundReason: 'load worker event loop 97% busy',
  },
  stats: {
    cpuPctMean: 87.5,
    cpuPctMax: 100,
    memMeanBytes: 150_000_000,
    memMaxBytes: 201_326_592,
    memLimitBytes: 536_870_912,
    throttledPeriods: 812,
    throttledMs: 3456.5,
    samples: 30,
  },
  exit: { oomKilled: false, exitCode: null, restarts: 2 },
  flags: [
    { kind: 'client-bound', reason: 'load worker event loop 97% busy' },
    { kind: 'restarts', reason: '2 workers replaced' },
  ],
  bottleneck: 'client',
  imageTag: 'rightsize/express:5.1.0-abc123',
  ranOn: { target: 'pair', kind: 'swarm', node: 'node-2' },
  startedAt: '2025-03-01T10:00:00.000Z',
  finishedAt: '2025-03-01T10:00:35.250Z',
});

const failedResult = (c: CellConfig): CellResult => ({
  config: c,
  status: 'failed',
  failure: 'app did not become ready within 30 s',
  flags: [],
  startedAt: '2025-03-01T10:01:00.000Z',
  finishedAt: '2025-03-01T10:01:30.000Z',
});

const sample = (t: number, withStats = true): Sample => ({
  t,
  rps: 3990.5 + t,
  bytes: 917_000 + t,
  errors: t % 2,
  timeouts: 0,
  non2xx: t,
  p50Us: 1200 + t,
  p90Us: 3000 + t,
  p99Us: 10_000 + t,
  maxUs: 40_000 + t,
  cpuPct: withStats ? 85.25 : null,
  memBytes: withStats ? 199_000_000 + t : null,
  throttledPeriods: withStats ? 27 : null,
  // Over TLS: connections opened and, of them, handshakes resumed (load.tlsResume; migrations 15 and 17).
  ...(t === 2 ? { opened: 5, resumed: 4 } : {}),
});

const newRun = (s: Store, name: string, over: { preset?: string | null; owner?: string; cellsTotal?: number } = {}): number =>
  s.createRun({
    name,
    preset: over.preset ?? null,
    matrix: { apps: ['express'], cpuMillis: [1500] },
    host,
    ownerSession: over.owner ?? 'lab-1:100:999',
    cellsTotal: over.cellsTotal ?? 2,
  });

describe('Store.open', () => {
  it('creates the folder, turns WAL on and records the schema version', () => {
    openStore().close();
    raw((db) => {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
      const tables = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).pluck().all();
      expect(tables).toEqual(['baselines', 'cells', 'probe_cells', 'probe_seconds', 'run_baselines', 'run_picks', 'runs', 'samples', 'settings', 'targets', 'user_apps']);
    });
  });

  it('reopens an existing database without migrating again and keeps the data', () => {
    const s1 = openStore();
    const id = newRun(s1, 'kept');
    s1.close();
    const s2 = openStore();
    expect(s2.getRun(id)?.name).toBe('kept');
    expect(s2.listRuns().total).toBe(1);
    expect(s2.integrityCheck()).toBe('ok');
    s2.close();
    expect(raw((db) => db.pragma('user_version', { simple: true }))).toBe(SCHEMA_VERSION);
  });

  it('refuses a database written by a newer schema, naming the file and both versions', () => {
    openStore().close();
    raw((db) => db.pragma(`user_version = ${SCHEMA_VERSION + 1}`));
    expect(() => Store.open(file)).toThrow(
      `Cannot open the Rightsize database ${file}: its schema version is ${SCHEMA_VERSION + 1}, but this Rightsize only knows versions up to ${SCHEMA_VERSION}.`,
    );
  });

  it('refuses a file that is not a SQLite database', () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'this is a text file, not a database\n'.repeat(200));
    expect(() => Store.open(file)).toThrow(`Cannot open the Rightsize database ${file}: file is not a database`);
  });

  it("refuses another program's SQLite database and leaves it unchanged", () => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    raw((db) => db.exec('CREATE TABLE notes (body TEXT)'));
    expect(() => Store.open(file)).toThrow(`Cannot open the Rightsize database ${file}: it is a SQLite database of another program`);
    expect(raw((db) => db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all())).toEqual(['notes']);
  });

  it('says which path when the folder cannot be created', () => {
    const blocker = path.join(dir, 'a-file');
    fs.writeFileSync(blocker, '');
    const bad = path.join(blocker, 'db', 'rightsize.db');
    expect(() => Store.open(bad)).toThrow(`Cannot create the folder for the Rightsize database ${bad}: ENOTDIR`);
  });
});

describe('run lifecycle', () => {
  it('round-trips every field of a run, its cells and their samples', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-03-01T09:59:58.000Z'));
    const s = openStore();
    const runId = s.createRun({ name: 'Express sweep', preset: 'quick', matrix: { apps: ['express'], workers: [1, 2] }, host, ownerSession: 'lab-1:100:999', cellsTotal: 2 });

    vi.setSystemTime(new Date('2025-03-01T09:59:59.500Z'));
    const c0 = config(0);
    const c1 = config(1, { mode: 'single', workers: 1, load: { model: 'closed', connections: 10 }, env: {} });
    delete c1.recycleRssMb;
    const cell0 = s.startCell(runId, c0);
    const cell1 = s.startCell(runId, c1);

    // While running: config columns are there, results are not.
    const running = s.getRun(runId)!.cells[0]!;
    expect(running).toMatchObject({ id: cell0, status: 'running', config: c0, load: null, stats: null, exit: null, flags: [], startedAt: '2025-03-01T09:59:59.500Z', finishedAt: null });

    // Out of order, and second 1 written twice: stored once, sorted, latest wins.
    const samples = [sample(2), sample(0, false), sample(1)];
    s.addSamples(cell0, samples);
    const second1 = { ...sample(1), rps: 1234.5, p99Us: 99_999 };
    s.addSamples(cell0, [second1]);
    s.addSamples(cell1, []);

    const r0 = okResult(c0);
    s.finishCell(cell0, r0);
    s.finishCell(cell1, failedResult(c1));
    vi.setSystemTime(new Date('2025-03-01T10:02:00.000Z'));
    expect(s.finishRun(runId, 'failed', '1 of 2 cells failed')).toBe(true);

    const run = s.getRun(runId)!;
    const { cells, ...rest } = run;
    expect(rest).toEqual({
      id: runId,
      name: 'Express sweep',
      preset: 'quick',
      matrix: { apps: ['express'], workers: [1, 2] },
      host,
      ownerSession: 'lab-1:100:999',
      status: 'failed',
      cellsTotal: 2,
      startedAt: '2025-03-01T09:59:58.000Z',
      finishedAt: '2025-03-01T10:02:00.000Z',
      durationSec: 122,
      error: '1 of 2 cells failed',
      apps: [], // createRun was given no app definitions
      search: null, // a matrix run has no search trace
    });
    const expected0: StoredCell = {
      id: cell0,
      runId,
      config: c0,
      status: 'ok',
      failure: null,
      rpsMean: 3987.25,
      rpsStddev: 41.5,
      bytesPerSec: 917_063.67,
      p50Us: 1210,
      p75Us: 1820,
      p90Us: 3050,
      p97_5Us: 6100,
      p99Us: 10_500,
      p99_9Us: 22_000,
      maxUs: 48_123,
      meanUs: 1534.75,
      stddevUs: 980.5,
      requests: 119_617,
      errors: 3,
      timeouts: 1,
      non2xx: 17,
      clientBound: true,
      cpuPctMean: 87.5,
      cpuPctMax: 100,
      memMaxBytes: 201_326_592,
      memLimitBytes: 536_870_912,
      throttledMs: 3456.5,
      load: r0.load!,
      stats: r0.stats!,
      exit: { oomKilled: false, exitCode: null, restarts: 2 },
      flags: r0.flags,
      bottleneck: 'client',
      imageTag: 'rightsize/express:5.1.0-abc123',
      ranOn: { target: 'pair', kind: 'swarm', node: 'node-2' },
      startedAt: '2025-03-01T10:00:00.000Z',
      finishedAt: '2025-03-01T10:00:35.250Z',
    };
    expect(cells).toHaveLength(2);
    expect(cells[0]).toEqual(expected0);
    const noMetrics = {
      rpsMean: null, rpsStddev: null, bytesPerSec: null, p50Us: null, p75Us: null, p90Us: null, p97_5Us: null, p99Us: null,
      p99_9Us: null, maxUs: null, meanUs: null, stddevUs: null, requests: null, errors: null, timeouts: null, non2xx: null,
      clientBound: null, cpuPctMean: null, cpuPctMax: null, memMaxBytes: null, memLimitBytes: null, throttledMs: null,
    };
    expect(cells[1]).toEqual({
      ...expected0,
      ...noMetrics,
      id: cell1,
      config: c1,
      status: 'failed',
      failure: 'app did not become ready within 30 s',
      load: null,
      stats: null,
      exit: null,
      flags: [],
      bottleneck: null,
      imageTag: null,
      ranOn: null,
      startedAt: '2025-03-01T10:01:00.000Z',
      finishedAt: '2025-03-01T10:01:30.000Z',
    });

    expect(s.getSamples(cell0)).toEqual([sample(0, false), second1, sample(2)]);
    expect(s.getSamples(cell1)).toEqual([]);
    const byCell = s.getRunSamples(runId);
    expect([...byCell.keys()]).toEqual([cell0]);
    expect(byCell.get(cell0)).toEqual([sample(0, false), second1, sample(2)]);

    // The flat columns really are in the table (CSV export and SQL users read them directly).
    const flat = raw((db) => db.prepare('SELECT load_model, connections, target_rate, oom_killed, client_bound, p97_5_us FROM cells WHERE id = ?').get(cell0));
    expect(flat).toEqual({ load_model: 'rate', connections: 32, target_rate: 4000, oom_killed: 0, client_bound: 1, p97_5_us: 6100 });
  });

  it('stores an OOM exit with its exit code', () => {
    const s = openStore();
    const runId = newRun(s, 'oom');
    const c = config(0);
    const cellId = s.startCell(runId, c);
    s.finishCell(cellId, { ...okResult(c), status: 'oom', exit: { oomKilled: true, exitCode: 137, restarts: 0 } });
    expect(s.getRun(runId)!.cells[0]).toMatchObject({ status: 'oom', exit: { oomKilled: true, exitCode: 137, restarts: 0 } });
  });

  it('reports unknown ids instead of failing silently', () => {
    const s = openStore();
    expect(s.getRun(999)).toBeUndefined();
    expect(s.finishRun(999, 'completed')).toBe(false);
    expect(s.finishCell(999, failedResult(config(0)))).toBe(false);
    expect(() => s.startCell(999, config(0))).toThrow(/FOREIGN KEY/);
  });
});

describe('listRuns', () => {
  /** Five runs with known timestamps and cells. */
  function seed(s: Store): { alpha: number; beta: number; gamma: number; delta: number; empty: number } {
    vi.useFakeTimers({ toFake: ['Date'] });
    const at = (iso: string): void => {
      vi.setSystemTime(new Date(iso));
    };

    at('2025-01-01T00:00:00.000Z');
    const alpha = newRun(s, 'Alpha baseline', { preset: 'quick', cellsTotal: 3 });
    const a = [0, 1, 2].map((i) => s.startCell(alpha, config(i)));
    s.finishCell(a[0]!, okResult(config(0), 5000, 9000));
    s.finishCell(a[1]!, okResult(config(1), 7000, 12_000));
    // A failed cell with better-looking numbers than any ok cell: must not count as "best".
    s.finishCell(a[2]!, { ...okResult(config(2), 99_999, 10), status: 'failed', failure: 'crashed' });
    at('2025-01-01T00:10:00.000Z');
    s.finishRun(alpha, 'failed', 'a cell failed');

    at('2025-01-02T00:00:00.000Z');
    const beta = newRun(s, 'beta_100% load', { preset: 'CPU-sweep', cellsTotal: 1 });
    s.finishCell(s.startCell(beta, config(0)), okResult(config(0), 3000, 20_000));
    at('2025-01-02T00:00:30.000Z');
    s.finishRun(beta, 'completed');

    at('2025-01-03T00:00:00.000Z');
    const gamma = newRun(s, 'Gamma', { cellsTotal: 4 });
    s.startCell(gamma, config(0)); // still running
    at('2025-01-04T00:00:00.000Z');
    const delta = newRun(s, 'delta', { preset: 'quick', cellsTotal: 2 });
    s.finishCell(s.startCell(delta, config(0)), { ...failedResult(config(0)), status: 'cancelled' });
    at('2025-01-04T01:00:00.000Z');
    s.finishRun(delta, 'cancelled');

    at('2025-01-05T00:00:00.000Z');
    const empty = newRun(s, 'epsilon', { cellsTotal: 8 });
    vi.useRealTimers();
    return { alpha, beta, gamma, delta, empty };
  }

  it('returns the newest runs first with their aggregates', () => {
    const s = openStore();
    const ids = seed(s);
    const { total, runs } = s.listRuns();
    expect(total).toBe(5);
    expect(runs.map((r) => r.id)).toEqual([ids.empty, ids.delta, ids.gamma, ids.beta, ids.alpha]);
    expect(runs[4]).toEqual({
      id: ids.alpha,
      name: 'Alpha baseline',
      preset: 'quick',
      status: 'failed',
      cellsTotal: 3,
      cellsDone: 3,
      cellsFailed: 1,
      startedAt: '2025-01-01T00:00:00.000Z',
      finishedAt: '2025-01-01T00:10:00.000Z',
      durationSec: 600,
      bestRps: 7000,
      bestP99Us: 9000,
      pick: null, // the store alone works no answer out (service/run-list.ts does)
    });
    expect(runs[2]).toMatchObject({ name: 'Gamma', status: 'running', cellsDone: 0, cellsFailed: 0, durationSec: null, bestRps: null, bestP99Us: null });
    expect(runs[1]).toMatchObject({ name: 'delta', cellsDone: 1, cellsFailed: 0, durationSec: 3600, bestRps: null });
    expect(runs[0]).toMatchObject({ name: 'epsilon', cellsTotal: 8, cellsDone: 0, bestRps: null });
  });

  it('filters by status and by a case-insensitive search of name or preset', () => {
    const s = openStore();
    const ids = seed(s);
    const names = (q: Parameters<Store['listRuns']>[0]): string[] => s.listRuns(q).runs.map((r) => r.name);
    expect(names({ status: 'running' })).toEqual(['epsilon', 'Gamma']);
    expect(names({ search: 'QUICK' })).toEqual(['delta', 'Alpha baseline']); // preset
    expect(names({ search: 'cpu-SWEEP' })).toEqual(['beta_100% load']);
    expect(names({ search: 'alpha' })).toEqual(['Alpha baseline']);
    // LIKE wildcards in the search are literal characters.
    expect(names({ search: '100%' })).toEqual(['beta_100% load']);
    expect(names({ search: 'a_1' })).toEqual(['beta_100% load']);
    expect(names({ search: '%' })).toEqual(['beta_100% load']);
    expect(names({ search: 'l_a' })).toEqual([]);
    expect(s.listRuns({ status: 'completed', search: 'quick' })).toEqual({ total: 0, runs: [] });
    expect(s.listRuns({ status: 'failed', search: 'quick' }).runs.map((r) => r.id)).toEqual([ids.alpha]);
    expect(names({ search: '   ' })).toHaveLength(5); // blank search = no filter
  });

  it('sorts by every key in both directions, ties broken by id', () => {
    const s = openStore();
    seed(s);
    const names = (sort: 'started_at' | 'name' | 'status' | 'cells' | 'duration', order?: 'asc' | 'desc'): string[] =>
      s.listRuns({ sort, ...(order && { order }) }).runs.map((r) => r.name);
    expect(names('name')).toEqual(['Alpha baseline', 'beta_100% load', 'delta', 'epsilon', 'Gamma']); // case-insensitive
    expect(names('name', 'desc')).toEqual(['Gamma', 'epsilon', 'delta', 'beta_100% load', 'Alpha baseline']);
    expect(names('started_at', 'asc')).toEqual(['Alpha baseline', 'beta_100% load', 'Gamma', 'delta', 'epsilon']);
    expect(names('cells')).toEqual(['epsilon', 'Gamma', 'Alpha baseline', 'delta', 'beta_100% load']);
    expect(names('cells', 'asc')).toEqual(['beta_100% load', 'delta', 'Alpha baseline', 'Gamma', 'epsilon']);
    // Unfinished runs last in both directions.
    expect(names('duration')).toEqual(['delta', 'Alpha baseline', 'beta_100% load', 'epsilon', 'Gamma']);
    expect(names('duration', 'asc')).toEqual(['beta_100% load', 'Alpha baseline', 'delta', 'Gamma', 'epsilon']);
    expect(names('status')).toEqual(['delta', 'beta_100% load', 'Alpha baseline', 'Gamma', 'epsilon']);
    expect(() => s.listRuns({ sort: 'id; DROP TABLE runs' as 'name' })).toThrow('Unknown run sort');
    expect(() => s.listRuns({ order: 'sideways' as 'asc' })).toThrow('Unknown sort order');
  });

  it('pages with limit and offset, total counting every match', () => {
    const s = openStore();
    seed(s);
    const page = (limit: number, offset: number): { total: number; names: string[] } => {
      const r = s.listRuns({ limit, offset, sort: 'name' });
      return { total: r.total, names: r.runs.map((x) => x.name) };
    };
    expect(page(2, 0)).toEqual({ total: 5, names: ['Alpha baseline', 'beta_100% load'] });
    expect(page(2, 2)).toEqual({ total: 5, names: ['delta', 'epsilon'] });
    expect(page(2, 4)).toEqual({ total: 5, names: ['Gamma'] });
    expect(page(2, 10)).toEqual({ total: 5, names: [] });
    expect(page(0, 0)).toEqual({ total: 5, names: [] });
    expect(page(Number.NaN, -3).names).toHaveLength(5); // nonsense falls back to the defaults
  });

  it('caps the limit at 1000', () => {
    const s = openStore();
    s.transaction(() => {
      for (let i = 0; i < 1005; i++) newRun(s, `run ${i}`);
    });
    expect(s.listRuns({ limit: 5000 }).runs).toHaveLength(1000);
    expect(s.listRuns().runs).toHaveLength(100);
    expect(s.listRuns().total).toBe(1005);
  });
});

describe('markInterrupted', () => {
  it('interrupts only running runs whose owner is dead, keeping finished cells', () => {
    const s = openStore();
    const dead = 'lab-1:200:111';
    const alive = 'lab-1:300:222';
    const orphan = newRun(s, 'orphan', { owner: dead, cellsTotal: 3 });
    const done = s.startCell(orphan, config(0));
    s.finishCell(done, okResult(config(0)));
    const mid = s.startCell(orphan, config(1));
    const live = newRun(s, 'live', { owner: alive });
    const liveCell = s.startCell(live, config(0));
    const finished = newRun(s, 'finished earlier', { owner: dead });
    s.finishRun(finished, 'completed');

    const asked: string[] = [];
    const marked = s.markInterrupted((owner) => {
      asked.push(owner);
      return owner === alive;
    });
    expect(marked).toEqual([orphan]);
    expect(asked.sort()).toEqual([dead, alive].sort()); // once per owner, finished runs not asked about

    const o = s.getRun(orphan)!;
    expect(o.status).toBe('interrupted');
    expect(o.error).toBe(INTERRUPTED_ERROR);
    expect(o.error).toBe('interrupted: the process running it stopped');
    expect(o.finishedAt).not.toBeNull();
    expect(o.cells.map((c) => [c.id, c.status])).toEqual([
      [done, 'ok'],
      [mid, 'interrupted'],
    ]);
    expect(o.cells[0]).toMatchObject({ rpsMean: 3987.25, finishedAt: '2025-03-01T10:00:35.250Z' });
    expect(o.cells[1]!.finishedAt).toBe(o.finishedAt);

    const l = s.getRun(live)!;
    expect([l.status, l.finishedAt, l.error, l.cells[0]!.id, l.cells[0]!.status]).toEqual(['running', null, null, liveCell, 'running']);
    expect(s.getRun(finished)!.status).toBe('completed');
    expect(s.markInterrupted(() => false)).toEqual([live]);
    expect(s.markInterrupted(() => false)).toEqual([]);
  });
});

describe('deleteRun', () => {
  it('removes the run, its cells and their samples, and nothing else', () => {
    const s = openStore();
    const gone = newRun(s, 'gone');
    const kept = newRun(s, 'kept');
    for (const runId of [gone, kept]) {
      for (const i of [0, 1]) {
        const cellId = s.startCell(runId, config(i));
        s.addSamples(cellId, [sample(0), sample(1), sample(2)]);
      }
    }
    expect([count('runs'), count('cells'), count('samples')]).toEqual([2, 4, 12]);
    expect(s.deleteRun(gone)).toBe(true);
    expect([count('runs'), count('cells'), count('samples')]).toEqual([1, 2, 6]);
    expect(s.getRun(gone)).toBeUndefined();
    expect(s.getRunSamples(gone).size).toBe(0);
    expect(s.getRunSamples(kept).size).toBe(2);
    expect(s.deleteRun(gone)).toBe(false);
  });
});

describe('paths', () => {
  const saved = { db: process.env.RIGHTSIZE_DB, dataDir: process.env.RIGHTSIZE_DATA_DIR };
  afterEach(() => {
    const restore = (k: string, v: string | undefined): void => {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    };
    restore('RIGHTSIZE_DB', saved.db);
    restore('RIGHTSIZE_DATA_DIR', saved.dataDir);
  });

  it('resolveDbPath: explicit db, then RIGHTSIZE_DB, then dataDir, then RIGHTSIZE_DATA_DIR', () => {
    const p = (...parts: string[]): string => path.join(dir, ...parts);
    process.env.RIGHTSIZE_DB = p('env-db', 'env.db');
    process.env.RIGHTSIZE_DATA_DIR = p('env-data');
    expect(resolveDbPath({ db: p('flag', 'flag.db'), dataDir: p('flag-data') })).toBe(p('flag', 'flag.db'));
    expect(fs.statSync(p('flag')).isDirectory()).toBe(true); // parent created
    expect(resolveDbPath({ dataDir: p('flag-data') })).toBe(p('env-db', 'env.db'));
    delete process.env.RIGHTSIZE_DB;
    expect(resolveDbPath({ dataDir: p('flag-data') })).toBe(p('flag-data', 'rightsize.db'));
    expect(resolveDbPath()).toBe(p('env-data', 'rightsize.db'));
    expect(fs.statSync(p('env-data')).isDirectory()).toBe(true);
    // Empty variables count as unset; the OS default comes last (checked on Linux only, where XDG_DATA_HOME
    // keeps it inside the temp folder instead of the real home).
    if (process.platform === 'linux') {
      expect(resolveDbPath({}, { RIGHTSIZE_DB: '', RIGHTSIZE_DATA_DIR: '', XDG_DATA_HOME: p('xdg') })).toBe(p('xdg', 'rightsize', 'rightsize.db'));
    }
  });

  it('defaultDataDir follows each OS convention', () => {
    expect(defaultDataDir('linux', { XDG_DATA_HOME: '/x/data' }, '/home/u')).toBe('/x/data/rightsize');
    expect(defaultDataDir('linux', {}, '/home/u')).toBe('/home/u/.local/share/rightsize');
    expect(defaultDataDir('linux', { XDG_DATA_HOME: 'relative' }, '/home/u')).toBe('/home/u/.local/share/rightsize');
    expect(defaultDataDir('darwin', {}, '/Users/u')).toBe('/Users/u/Library/Application Support/Rightsize');
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\Rightsize');
    expect(defaultDataDir('win32', {}, 'C:\\Users\\u')).toBe('C:\\Users\\u\\AppData\\Roaming\\Rightsize');
  });
});

describe('settings', () => {
  it('stores JSON values by key and upserts', () => {
    const s = openStore();
    expect(s.getSettings()).toEqual({});
    s.setSettings({ baseImage: 'offline', n: 3 });
    s.setSettings({ baseImage: 'auto' });
    expect(s.getSettings()).toEqual({ baseImage: 'auto', n: 3 });
  });
});

describe('user apps', () => {
  it('adds, lists by name, renames on update and deletes; runs keep their own copy', () => {
    const s = openStore();
    const shop = { name: 'shop', source: { kind: 'folder', dir: '/srv/shop' }, port: 8080 };
    s.addUserApp('shop', shop);
    s.addUserApp('api', { ...shop, name: 'api' });
    expect(() => s.addUserApp('shop', shop)).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(s.listUserApps().map((a) => a.name)).toEqual(['api', 'shop']);
    const runId = s.createRun({ name: 'r', matrix: {}, host: {} as HostFacts, ownerSession: 'x:1:1', cellsTotal: 0, apps: [shop] });
    expect(s.updateUserApp('shop', 'shop-api', { ...shop, name: 'shop-api', port: 9090 })).toBe(true);
    expect(s.getUserApp('shop')).toBeUndefined();
    expect(s.getUserApp('shop-api')?.definition).toMatchObject({ port: 9090 });
    expect(s.updateUserApp('nope', 'nope', {})).toBe(false);
    expect(s.deleteUserApp('shop-api')).toBe(true);
    expect(s.deleteUserApp('shop-api')).toBe(false);
    expect(s.getRun(runId)!.apps).toEqual([shop]); // the run's copy outlives the app
  });
});
