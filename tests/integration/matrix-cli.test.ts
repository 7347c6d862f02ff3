import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, startCli, tempDir } from '../helpers/cli.ts';
import { callScope, requireDocker, twoCellMatrix } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

const twoCells = twoCellMatrix({ load: { model: 'closed', connections: [10] } });

/**
 * Resolves once the run has stored a measured second: read from the run's SQLite file (read-only,
 * beside the writer, as WAL allows) — the event itself, not a sleep that hopes it happened.
 */
async function storedSample(db: string, runId: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      const row = conn.prepare('SELECT count(*) AS n FROM samples JOIN cells ON cells.id = samples.cell_id WHERE cells.run_id = ?').get(runId) as { n: number };
      if (row.n > 0) return;
    } finally {
      conn.close();
    }
    if (Date.now() > deadline) throw new Error(`run ${runId} stored no sample within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// SIGINT → process exit with the run cancelled and its container removed, measured 8 times on the
// 2-core CI machine with other work beside it (RIGHTSIZE_MEASURE=file): 216 to 417 ms (median
// 275). The bound is 12× the worst; a cancel that waited for the 30 s cell would take far longer.
const CANCEL_BOUND_MS = 5000;

function setup(matrix: unknown = twoCells) {
  const dir = tempDir();
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify(matrix));
  return { dir, config, db: path.join(dir, 'history.db') };
}

describe('rightsize run', () => {
  it('runs a 2-cell matrix end to end: results and samples stored, containers gone', async () => {
    // With a warm-up: the first measured second then has a CPU reading before it to be measured from.
    const { dir, config, db } = setup({ ...twoCells, warmupSec: 1 });
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { runId: number; status: string; cells: { status: string; rpsMean: number }[] };
    expect(out.status).toBe('completed');
    expect(out.cells.map((c) => c.status)).toEqual(['ok', 'ok']);
    expect(r.stderr).toMatch(/✓ 2\/2 hello cluster×2 500m\/128MB c10: ok/); // progress went to stderr under --json

    const store = Store.open(db);
    try {
      const run = store.getRun(out.runId)!;
      expect(run.cells).toHaveLength(2);
      for (const c of run.cells) {
        expect(c.rpsMean).toBeGreaterThan(100);
        expect(c.p99Us).toBeGreaterThan(20); // µs: a real round trip (p50 alone is 100–180 µs here, load.test.ts); 1 would be the clamp
        expect(c.load!.latencyFrom).toBe('send');
        expect(c.stats!.samples).toBeGreaterThan(0);
        const samples = store.getSamples(c.id);
        expect(samples.map((s) => s.t)).toEqual([0, 1, 2]); // warmup excluded, one row a second
        expect(samples.every((s) => s.rps > 0 && s.cpuPct !== null)).toBe(true);
      }
      expect(store.integrityCheck()).toBe('ok');
    } finally {
      store.close();
    }
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);

    // The same run through the history commands.
    const shown = await cli(['--db', db, 'show', String(out.runId)]);
    expect(shown.stdout).toMatch(/Run \d+ "two cells": completed/);
    const csv = path.join(dir, 'cells.csv');
    const exported = await cli(['--db', db, 'export', String(out.runId), '--csv', csv]);
    expect(exported.code).toBe(0);
    const lines = readFileSync(csv, 'utf8').trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^run_id,cell_index,.*rps_mean.*latency_p99_us/);
  });

  it('after SIGKILL mid-run, its reaper removes its containers and the next start marks the run interrupted', async () => {
    const { config, db } = setup({ ...twoCells, durationSec: 20 });
    const { child, done } = startCli(['--db', db, 'run', '--config', config]);
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    // Kill once a cell is measuring: its container runs and the run is mid-way.
    const deadline = Date.now() + 60_000;
    let runId = 0;
    while (Date.now() < deadline) {
      const m = /Run (\d+) "two cells"/.exec(output);
      if (m) runId = Number(m[1]);
      if (runId && (await listOwnContainers({ run: runId })).length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(runId).toBeGreaterThan(0);
    await storedSample(db, runId); // what was measured so far must survive the kill
    child.kill('SIGKILL');
    await done;
    // The dead session's reaper removes its container within seconds, before any later start.
    const reapDeadline = Date.now() + 15_000;
    while ((await listOwnContainers({ run: runId })).length > 0 && Date.now() < reapDeadline) await new Promise((r) => setTimeout(r, 100));
    expect(await listOwnContainers({ run: runId })).toEqual([]);

    const next = await cli(['--db', db, 'runs', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(/Marked run\(s\) \d+ as interrupted/);
    const runs = JSON.parse(next.stdout) as { runs: { id: number; status: string }[] };
    expect(runs.runs.find((r) => r.id === runId)?.status).toBe('interrupted');
    expect(await listOwnContainers({ run: runId })).toEqual([]);
    const store = Store.open(db);
    try {
      expect(store.integrityCheck()).toBe('ok');
      const run = store.getRun(runId)!;
      expect(run.cells[0]!.status).toBe('interrupted');
      expect(store.getSamples(run.cells[0]!.id).length).toBeGreaterThan(0); // what was measured is kept
    } finally {
      store.close();
    }
  });

  it('SIGINT cancels: the current cell stops, its container is removed, the run is marked cancelled', async () => {
    const { config, db } = setup({ ...twoCells, durationSec: 30 });
    const { child, done } = startCli(['--db', db, '--json', 'run', '--config', config]);
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    while (!/Run \d+ "two cells"/.test(err)) await new Promise((r) => setTimeout(r, 100));
    const runId = Number(/Run (\d+)/.exec(err)![1]);
    await storedSample(db, runId); // the cell is measuring
    const t0 = performance.now();
    child.kill('SIGINT');
    const r = await done;
    const tookMs = performance.now() - t0;
    if (process.env.RIGHTSIZE_MEASURE) appendFileSync(process.env.RIGHTSIZE_MEASURE, `cli-cancel-ms ${tookMs}\n`);
    expect(r.code).toBe(130);
    expect(tookMs).toBeLessThan(CANCEL_BOUND_MS); // includes removing the container and the process exit
    expect(JSON.parse(r.stdout).status).toBe('cancelled');
    expect(await listOwnContainers({ run: runId })).toEqual([]);
  });
});

describe('validation before anything starts', () => {
  it('lists every problem in one error, exits 2, creates no run and starts no container', async () => {
    const bad = {
      apps: ['hello', 'nope'],
      modes: ['cluster'],
      workers: [0],
      cpuMillicores: [0, 64_000],
      memoryMb: [8, 10_000_000],
      durationSec: 3,
    };
    const { config, db } = setup(bad);
    const scope = callScope('validation');
    const r = await cli(['--db', db, 'run', '--config', config], scope.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/nothing was started/);
    expect(r.stderr).toMatch(/unknown app "nope"/);
    expect(r.stderr).toMatch(/workers: 0 is not a worker count/);
    expect(r.stderr).toMatch(/cpuMillicores: 0 is not a positive/);
    expect(r.stderr).toMatch(/cpuMillicores: 64000m is more than this host's/);
    expect(r.stderr).toMatch(/memoryMb: 8 MB is below the minimum/);
    expect(r.stderr).toMatch(/memoryMb: 10000000 MB is more than this host's/);
    expect(await scope.containers()).toEqual([]);
    const runs = await cli(['--db', db, 'runs', '--json']);
    expect(JSON.parse(runs.stdout).total).toBe(0);
  });

  it('a matrix over 500 cells needs --yes', async () => {
    const big = { ...twoCells, workers: Array.from({ length: 26 }, (_, i) => i + 1), memoryMb: Array.from({ length: 20 }, (_, i) => 64 + i) };
    const { config, db } = setup(big);
    const r = await cli(['--db', db, 'run', '--config', config]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/520 cells is more than 500: confirm/);
    expect(existsSync(db)).toBe(true);
    expect(JSON.parse((await cli(['--db', db, 'runs', '--json'])).stdout).total).toBe(0);
  });

  it('an unreachable Docker engine gives one clear error naming where it looked, exit 3', async () => {
    const { config, db } = setup();
    const r = await cli(['--db', db, 'run', '--config', config], { DOCKER_HOST: 'unix:///tmp/rightsize-no-such.sock' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/Cannot reach the Docker engine at DOCKER_HOST=unix:\/\/\/tmp\/rightsize-no-such.sock/);
    expect(r.stderr).toMatch(/Start Docker/);
  });
});
