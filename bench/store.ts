// Store benchmark: a database the size of long use (1,000 runs, 1,000,000 samples), then the queries
// the UI makes on every screen. Run with `npx tsx bench/store.ts`.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { CellConfig, CellResult, HostFacts, LaunchMode, RunStatus, Sample } from '../src-main/model/types.ts';
import { Store } from '../src-main/store/index.ts';
import { isMain, printRows, row, type Row } from './stats.ts';

const RUNS = 1000;
const CELLS_PER_RUN = 4;
const SECONDS_PER_CELL = 250; // 1000 × 4 × 250 = 1,000,000 samples
const REPS = 10;
const TARGET_MS = 50;

// Seeded PRNG so every run of the benchmark builds the same database.
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const between = (lo: number, hi: number): number => lo + rand() * (hi - lo);

const APPS = ['express', 'fastify', 'koa', 'hono', 'nest'] as const;
const PRESETS = ['quick', 'cpu-sweep', 'memory-sweep', 'workers', null] as const;
const HOST: HostFacts = {
  hostname: 'bench-host',
  platform: 'linux',
  arch: 'x64',
  cpuModel: 'AMD EPYC 7B13',
  cores: 8,
  memoryBytes: 16 * 2 ** 30,
  nodeVersion: 'v20.19.0',
  dockerVersion: '27.3.1',
  cgroupVersion: '2',
  appVersions: { express: '5.1.0', fastify: '5.4.0', koa: '3.0.0', hono: '4.8.0', nest: '11.1.0' },
  rightsizeVersion: '0.1.0',
};

function cellResult(config: CellConfig, startedAt: string): { result: CellResult; samples: Sample[] } {
  const roll = rand();
  const status = roll < 0.05 ? 'failed' : roll < 0.07 ? 'oom' : 'ok';
  const rps = between(2_000, 30_000);
  const p50 = Math.round(between(800, 8_000));
  const samples: Sample[] = [];
  for (let t = 0; t < SECONDS_PER_CELL; t++) {
    const r = rps * between(0.9, 1.1);
    samples.push({
      t,
      rps: r,
      bytes: Math.round(r * 230),
      errors: rand() < 0.01 ? 1 : 0,
      timeouts: 0,
      non2xx: 0,
      p50Us: Math.round(p50 * between(0.9, 1.1)),
      p90Us: Math.round(p50 * between(1.8, 2.2)),
      p99Us: Math.round(p50 * between(3.5, 5)),
      maxUs: Math.round(p50 * between(6, 20)),
      cpuPct: between(60, 100),
      memBytes: Math.round(between(80, 200) * 2 ** 20),
      throttledPeriods: Math.round(between(0, 20)),
    });
  }
  const result: CellResult = {
    config,
    status,
    flags: status === 'oom' ? [{ kind: 'oom-killed', reason: 'the kernel killed the container (memory cap reached)' }] : [],
    imageTag: `rightsize/${config.app}:bench`,
    startedAt,
    finishedAt: new Date(Date.parse(startedAt) + (config.warmupSec + config.durationSec) * 1000).toISOString(),
  };
  if (status === 'failed') {
    result.failure = 'app did not become ready within 30 s';
    return { result, samples: [] };
  }
  result.load = {
    model: 'closed',
    connections: 64,
    measuredSec: SECONDS_PER_CELL,
    requests: Math.round(rps * SECONDS_PER_CELL),
    bytes: Math.round(rps * SECONDS_PER_CELL * 230),
    rpsMean: rps,
    rpsStddev: rps * 0.05,
    bytesPerSec: rps * 230,
    latencyUs: { p50, p75: p50 * 1.4, p90: p50 * 2, p97_5: p50 * 3, p99: p50 * 4, p99_9: p50 * 7, max: p50 * 15, mean: p50 * 1.2, stddev: p50 * 0.6 },
    latencyFrom: 'send',
    statusCounts: { '200': Math.round(rps * SECONDS_PER_CELL) },
    errors: 2,
    timeouts: 0,
    non2xx: 0,
    clientElu: between(0.2, 0.7),
    clientBound: false,
  };
  result.stats = {
    cpuPctMean: 85,
    cpuPctMax: 100,
    memMeanBytes: 120 * 2 ** 20,
    memMaxBytes: 180 * 2 ** 20,
    memLimitBytes: config.memoryMb * 2 ** 20,
    throttledPeriods: 900,
    throttledMs: 4200,
    samples: SECONDS_PER_CELL,
  };
  result.exit = { oomKilled: status === 'oom', exitCode: status === 'oom' ? 137 : null, restarts: 0 };
  return { result, samples };
}

function populate(store: Store): void {
  for (let i = 0; i < RUNS; i++) {
    const app = pick(APPS);
    const preset = pick(PRESETS);
    // One transaction per run: how the engine's writes batch up, and quick enough for 1M rows.
    store.transaction(() => {
      const runId = store.createRun({
        name: `${app} ${preset ?? 'custom'} #${i}`,
        preset,
        matrix: { apps: [app], modes: ['single', 'cluster'], workers: [1, 2], cpuMillis: [1000, 2000], memoryMb: [512] },
        host: HOST,
        ownerSession: 'bench-host:4242:123456',
        cellsTotal: CELLS_PER_RUN,
      });
      let failed = false;
      for (let c = 0; c < CELLS_PER_RUN; c++) {
        const config: CellConfig = {
          index: c,
          repetition: 0,
          app,
          mode: pick<LaunchMode>(['single', 'cluster', 'pm2']),
          workers: pick([1, 2, 4]),
          cpuMillis: pick([500, 1000, 2000]),
          memoryMb: pick([256, 512, 1024]),
          load: { model: 'closed', connections: 64 },
          durationSec: SECONDS_PER_CELL,
          warmupSec: 5,
          env: { NODE_ENV: 'production' },
        };
        const cellId = store.startCell(runId, config);
        const { result, samples } = cellResult(config, new Date().toISOString());
        store.addSamples(cellId, samples);
        store.finishCell(cellId, result);
        failed ||= result.status !== 'ok';
      }
      const status: RunStatus = rand() < 0.05 ? 'cancelled' : failed ? 'failed' : 'completed';
      store.finishRun(runId, status, status === 'failed' ? 'some cells failed' : null);
    });
  }
}

function measure(op: string, fn: (rep: number) => unknown, targetMs?: number): Row {
  fn(-1); // warm-up: statement preparation, page cache
  const times: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const t0 = performance.now();
    fn(rep);
    times.push(performance.now() - t0);
  }
  return row(op, times, targetMs);
}

export async function benchStore(): Promise<{ name: string; rows: Row[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-bench-store-'));
  const file = path.join(dir, 'rightsize.db');
  const rows: Row[] = [];
  try {
    const store = Store.open(file);
    try {
      const t0 = performance.now();
      populate(store);
      const genMs = performance.now() - t0;
      rows.push(row(`generate ${RUNS} runs / ${RUNS * CELLS_PER_RUN * SECONDS_PER_CELL} samples`, [genMs]));

      // A different run at each repetition, spread over the file, so one hot run doesn't flatter the number.
      const runIds = store.listRuns({ limit: 1000 }).runs.map((r) => r.id);
      const runAt = (rep: number): number => runIds[((rep + 1) * 97) % runIds.length]!;
      let check = 0; // keeps results alive so nothing can be optimised away
      rows.push(measure('listRuns first page (limit 100)', () => (check += store.listRuns({ limit: 100 }).runs.length), TARGET_MS));
      rows.push(measure('listRuns search "fastify"', () => (check += store.listRuns({ search: 'fastify' }).total), TARGET_MS));
      rows.push(measure('listRuns sort duration, page 5', () => (check += store.listRuns({ sort: 'duration', offset: 400 }).runs.length), TARGET_MS));
      rows.push(
        measure('getRun + getRunSamples (1 run, 1,000 samples)', (rep) => {
          const id = runAt(rep);
          check += store.getRun(id)!.cells.length + store.getRunSamples(id).size;
        }, TARGET_MS),
      );
      if (check === 0) throw new Error('benchmark queries returned nothing');
      if (store.integrityCheck() !== 'ok') throw new Error('integrity check failed after generation');
    } finally {
      store.close();
    }
    const sizeMb = (statSync(file).size / 2 ** 20).toFixed(0);
    printRows(`store: ${RUNS} runs, ${sizeMb} MB file, median of ${REPS} after 1 warm-up`, rows, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'store', rows };
}

// Run directly (npx tsx bench/store.ts), not when imported by the bench runner.
if (isMain(import.meta.url)) {
  const result = await benchStore();
  if (result.rows.some((r) => r.targetMs !== undefined && r.medianMs > r.targetMs)) process.exitCode = 1;
}
