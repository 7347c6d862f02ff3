// The price options: `run` and `size` put them in what the run stores, `report RUN --cpu-price`
// costs a stored run at other prices for that report only, `export --configurations` writes the
// costs; a bad price is a usage error naming the option, and nothing changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runInput } from '../../src-main/cli/commands/run.ts';
import { reportCommand } from '../../src-main/cli/commands/report.ts';
import { exportCommand } from '../../src-main/cli/commands/history.ts';
import { sizeSpecFromOptions } from '../../src-main/cli/commands/size.ts';
import { CliError } from '../../src-main/cli/exit-codes.ts';
import type { Recommendation } from '../../src-main/analysis/index.ts';
import type { CellConfig, CellResult, HostFacts } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';

const usageMessage = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CliError);
    expect((e as CliError).exitCode).toBe(2);
    return (e as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('run and size: the prices go with what the run stores', () => {
  it('run: --cpu-price over the preset, the rest from the defaults; a bad one names its option', () => {
    const { input } = runInput({ preset: 'quick', cpuPrice: '0.05' });
    expect((input as { prices: unknown }).prices).toEqual({ cpuHour: 0.05, gbHour: 0.004237, replicaHour: 0 });
    expect(runInput({ preset: 'quick' }).input).not.toHaveProperty('prices');
    expect(usageMessage(() => runInput({ preset: 'quick', memoryPrice: 'ten' }))).toBe(
      '--memory-price takes a price per hour in dollars from 0 to 1000, e.g. 0.0316; got "ten".',
    );
  });

  it('size: --cheapest and the prices in the spec; a bad price is listed with the other problems', () => {
    const spec = sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=1%', rate: '100', cheapest: true, replicaPrice: '0.01' });
    expect(spec).toMatchObject({ cheapest: true, prices: { cpuHour: 0.031611, gbHour: 0.004237, replicaHour: 0.01 } });
    const text = usageMessage(() => sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=1%', rate: 'x', cpuPrice: '-3' }));
    expect(text).toMatch(/- --cpu-price: takes a price per hour in dollars from 0 to 1000, e\.g\. 0\.0316; got "-3"\./);
    expect(text).toMatch(/- --rate: takes a number/);
  });
});

describe('report and export on a stored run', () => {
  let dir: string;
  let db: string;
  let out = '';
  const host = { hostname: 'lab', platform: 'linux', arch: 'x64', cpuModel: 'cpu', cores: 8, memoryBytes: 2 ** 34, nodeVersion: 'v20.19.0', appVersions: {}, rightsizeVersion: '0.1.0' } as HostFacts;
  const config = (index: number, repetition: number): CellConfig => ({
    index, repetition, app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256,
    load: { model: 'closed', connections: 20 }, durationSec: 10, warmupSec: 2, env: {},
  });
  const ok = (c: CellConfig, rps: number): CellResult => ({
    config: c, status: 'ok',
    load: {
      model: 'closed', connections: 20, measuredSec: 10, requests: rps * 10, bytes: rps * 1000, rpsMean: rps, rpsStddev: 5,
      bytesPerSec: rps * 100, latencyUs: { p50: 1000, p75: 1500, p90: 2000, p97_5: 3000, p99: 4000, p99_9: 6000, max: 9000, mean: 1100, stddev: 300 },
      latencyFrom: 'send', statusCounts: { '200': rps * 10 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3,
      clientBound: false, goodputMean: rps, perSecondGood: Array.from({ length: 10 }, (_, i) => rps + (i % 2 ? 3 : -3)),
    },
    stats: { cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 40e6, memMaxBytes: 50e6, memLimitBytes: 256 * 2 ** 20, throttledPeriods: 0, throttledMs: 0, samples: 10 },
    exit: { oomKilled: false, exitCode: null, restarts: 0 },
    flags: [],
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:12.000Z',
  });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-cost-'));
    db = path.join(dir, 'rightsize.db');
    const store = Store.open(db);
    const id = store.createRun({ name: 'priced', matrix: { apps: ['hello'], prices: { cpuHour: 0.04, gbHour: 0.005, replicaHour: 0 } }, host, ownerSession: 'lab:1:1', cellsTotal: 3 });
    [900, 1000, 1100].forEach((rps, rep) => {
      const c = config(rep, rep);
      store.finishCell(store.startCell(id, c), ok(c, rps));
    });
    store.finishRun(id, 'completed');
    store.close();
    out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('report: the run’s stored prices, or the prices given now for this report only', async () => {
    expect(await reportCommand('1', { db, json: true })).toBe(0);
    const stored = JSON.parse(out) as Recommendation;
    // 1 CPU / 256 MB at $0.04 and $0.005: $0.04125 an hour; at 1,000 req/s, 0.04125e6 / 3600 / 1000 = $0.0114583 per million.
    expect(stored.costs).toMatchObject({ source: 'run', prices: { cpuHour: 0.04, gbHour: 0.005, replicaHour: 0 } });
    expect(stored.costs!.configurations[0]!.perMillion).toBeCloseTo(0.0114583, 6);
    out = '';
    expect(await reportCommand('1', { db, json: true, cpuPrice: '0.08' })).toBe(0);
    const given = JSON.parse(out) as Recommendation;
    // 0.08 + 0.00125 = $0.08125 an hour → $0.0225694 per million.
    expect(given.costs).toMatchObject({ source: 'given', prices: { cpuHour: 0.08, gbHour: 0.005 } });
    expect(given.costs!.configurations[0]!.perMillion).toBeCloseTo(0.0225694, 6);
    // The run keeps its own.
    out = '';
    await reportCommand('1', { db, json: true });
    expect((JSON.parse(out) as Recommendation).costs!.source).toBe('run');
    expect(() => reportCommand('1', { db, json: true, cpuPrice: '1e9' })).toThrow(/--cpu-price takes a price per hour/);
  });

  it('export --configurations: one row per configuration with its cost', async () => {
    const file = path.join(dir, 'costs.csv');
    expect(await exportCommand('1', { db, configurations: file })).toBe(0);
    const [head, row] = fs.readFileSync(file, 'utf8').trim().split('\r\n');
    const rec = Object.fromEntries(head!.split(',').map((h, i) => [h, row!.split(',')[i]]));
    expect(rec).toMatchObject({ price_source: 'run', cost_per_hour: '0.04125', cost_per_million_requests: '0.0114583', repetitions: '3' });
  });
});
