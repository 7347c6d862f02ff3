// `rightsize run --dry-run` through the real CLI: a matrix checked where it would run and listed with its
// estimate, or refused with the run's own words and exit code — and nothing written: the history keeps 0
// runs, and a history file that did not exist is not created. The Docker engine is only asked about
// (its cores and memory); one case points DOCKER_HOST nowhere, as on a CI machine without Docker.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src-main/cli/exit-codes.ts';
import { hostFacts } from '../../src-main/engine/host.ts';
import type { CellConfig, CellResult, LoadResult } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';

const NO_DOCKER = { DOCKER_HOST: 'unix:///nonexistent/rightsize-dry-run.sock' };

/** A history that exists before the dry run (so "nothing stored" is a count, not a missing file). */
function history(): string {
  const db = path.join(tempDir('rightsize-dry-run-'), 'h.db');
  Store.open(db).close();
  return db;
}
const runCount = (db: string): number => {
  const s = Store.open(db);
  try {
    return s.listRuns({}).total;
  } finally {
    s.close();
  }
};
const configFile = (content: string): string => {
  const file = path.join(tempDir('rightsize-dry-run-config-'), 'matrix.json');
  writeFileSync(file, content);
  return file;
};

/** A finished hello cell measured on this host: client-bound at 160,000 req/s with 2 load threads. */
function addClientBoundCell(db: string): void {
  const config: CellConfig = { index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20, threads: 2 }, durationSec: 5, warmupSec: 1, env: {} };
  const load: LoadResult = {
    model: 'closed', connections: 20, measuredSec: 5, requests: 800_000, bytes: 0, rpsMean: 160_000, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 700, p99: 900, p99_9: 1200, max: 5000, mean: 350, stddev: 100 }, latencyFrom: 'send',
    statusCounts: { 200: 800_000 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.95, clientBound: true, goodputMean: 160_000, threads: 2, warmupUsedSec: 2,
  };
  const result: CellResult = { config, status: 'ok', load, flags: [{ kind: 'client-bound', reason: 'load threads 1, 2 of 2 were busy 95 %, 94 % of the time' }], bottleneck: 'client', ranOn: { target: 'local', kind: 'local' }, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:08.000Z' };
  const store = Store.open(db);
  try {
    const runId = store.createRun({ name: 'earlier', matrix: {}, host: hostFacts(null, []), ownerSession: 'lab:1:1', cellsTotal: 1 });
    store.finishCell(store.startCell(runId, config), result);
    store.finishRun(runId, 'completed');
  } finally {
    store.close();
  }
}

describe('rightsize run --dry-run', () => {
  it('lists a valid preset: every cell, the counts, the phases and the estimate; exit 0, nothing stored', async () => {
    const db = history();
    const r = await cli(['--db', db, 'run', '--preset', 'quick', '--dry-run']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^Matrix "quick" is valid on this machine \(\d+ cores, [\d,]+ MB\)\.$/m);
    expect(r.stdout).toMatch(/^#\s+app\s+mode\s+workers\s+cpu\s+memory\s+load\s+duration\s+warm-up\s+rep$/m);
    // quick: json, cluster, 1 and 2 workers, 1000m, 256 MB, 20 connections, 5 s + 1 s, 3 repetitions
    const rows = r.stdout.split('\n').filter((l) => /^\d+\s+json\s+cluster/.test(l));
    expect(rows).toHaveLength(6);
    expect(rows[5]).toMatch(/^6\s+json\s+cluster\s+2\s+1000m\s+256 MB\s+20 conn\s+5 s\s+1 s\s+3$/);
    // 3 cells × (1 s warm-up + 2 s the adaptive warm-up typically adds + 5 s + 1 s around each) and 3 × (2 s, the JIT
    // floor of 2 workers on 1 CPU, + 2 + 5 + 1) = 57 s; settling expected at half its 3-cell budget (1.5 × 9.5 s = 14 s)
    // and two verification cells of 1 + 2 + 9 + 1 s (26 s), one at a time: what the run announces (engine/estimate.ts,
    // no history yet).
    expect(r.stdout).toContain('6 cells (2 configurations × 3 repetitions), about 1m37s (one cell at a time).');
    // The range's bottom adds nothing past the least warm-up: 3 × 7 + 3 × 8 + 0 + 13 s = 58 s. Its top lets each grid
    // cell warm up to its cap, 11 s (1 worker) or 12 s (2 workers: 10 s past the floor): 3 × 17 + 3 × 18 + 29 + 39 s.
    expect(r.stdout).toContain(
      'Estimate: grid 57s; settling 0s–29s, expected 14s; verification 13s–39s, expected 26s; 58s–2m53s in all (no cell ' +
        'has run here yet: each cell’s least warm-up (as configured or, where longer, its processes’ JIT floor) plus the ' +
        '2 s the adaptive warm-up typically adds, none at the bottom of the range and up to its cap at the top, and 1 s ' +
        'around each cell).',
    );
    expect(r.stdout).toContain("settling, only while the answer is undecided: up to 50 % of the grid's measured time (18s)");
    expect(r.stdout).toContain('verification: the pick run exactly as its deploy snippets deploy it');
    expect(r.stdout.trimEnd().endsWith('Nothing was started (--dry-run).')).toBe(true);
    expect(runCount(db)).toBe(0);
  });

  it("an app that starts dependencies: their start and teardown in the estimate, said, where no cell of it ran here", async () => {
    const r = await cli(['--db', history(), 'run', '--preset', 'pool-vs-workers', '--dry-run']);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toContain('; 1.7 s more around each cell of catalog for its dependencies, which no cell timed here started).');
  });

  it('creates no history file where there was none', async () => {
    const db = path.join(tempDir('rightsize-dry-run-none-'), 'never.db');
    const r = await cli(['--db', db, 'run', '--preset', 'quick', '--dry-run']);
    expect(r.code).toBe(EXIT.ok);
    expect(existsSync(db)).toBe(false);
  });

  it("refuses an invalid matrix with every problem at once, in the run's words and exit code", async () => {
    const db = history();
    const bad = { apps: ['hello', 'nope'], cpuMillicores: [0], memoryMb: [8], workers: [1], modes: ['cluster'], repetition: 3 };
    const r = await cli(['--db', db, 'run', '--config', configFile(JSON.stringify(bad)), '--dry-run']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'rightsize: The matrix is not valid; nothing was started:\n' +
        '  - repetition: is not a field here. Did you mean "repetitions"?\n' +
        '  - apps: unknown app "nope". Known apps: alloc, catalog, forky, hello, json, json-read, json-write, pbkdf2, static.\n' +
        '  - cpuMillicores: 0 is not a positive whole number of millicores\n' +
        '  - memoryMb: 8 MB is below the minimum of 32 MB\n',
    );
    expect(runCount(db)).toBe(0);
  });

  it('refuses a config file that is not JSON, naming the file', async () => {
    const file = configFile('{"apps": [');
    const r = await cli(['--db', history(), 'run', '--config', file, '--dry-run']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(new RegExp(`^rightsize: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON: `));
    expect(r.stdout).toBe('');
  });

  it('--json: one document with the verdict, the cells as a run takes them, the counts, phases and estimate', async () => {
    const db = history();
    const args = ['--db', db, '--json', 'run', '--preset', 'quick', '--dry-run'];
    const r = await cli([...args, '--load-threads', '2', '--settle-budget', '0', '--no-verify', '--no-probe']);
    expect(r.code).toBe(EXIT.ok);
    const doc = JSON.parse(r.stdout) as Record<string, unknown> & { cells: Record<string, unknown>[] };
    expect(doc).toMatchObject({
      schemaVersion: 1,
      dryRun: true,
      valid: true,
      name: 'quick',
      target: 'local',
      problems: [],
      counts: { cells: 6, configurations: 2, repetitions: 3 },
      phases: { settleBudgetPct: 0, settleBudgetSec: 0, verify: false },
      estimateSec: 57, // 3 × (1 s warm-up + 2 s typical extension + 5 s + 1 s) + 3 × (2 s JIT floor + 2 + 5 + 1): no phases
      cellsAtOnce: 1,
    });
    expect(doc.cells.map((c) => [c.index, c.workers, c.repetition])).toEqual([[0, 1, 0], [1, 2, 0], [2, 1, 1], [3, 2, 1], [4, 1, 2], [5, 2, 2]]);
    // every option that shapes the matrix reached the cells: 2 load threads, no probe
    for (const c of doc.cells) expect(c).toMatchObject({ app: 'json', mode: 'cluster', load: { model: 'closed', connections: 20, threads: 2 }, durationSec: 5, warmupSec: 1 });
    expect(doc.cells.some((c) => 'probe' in c)).toBe(false);
    expect(runCount(db)).toBe(0);
  });

  it('--json on an invalid matrix: valid false with every problem, and the exit code of the refusal', async () => {
    const bad = { apps: ['hello'], cpuMillicores: [500], memoryMb: [256], workers: [0], modes: ['cluster'], durationSec: 0 };
    const r = await cli(['--db', history(), '--json', 'run', '--config', configFile(JSON.stringify(bad)), '--dry-run']);
    expect(r.code).toBe(EXIT.usage);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ schemaVersion: 1, valid: false, cells: [], estimateSec: 0 });
    expect(doc.problems).toEqual([
      { path: 'workers', message: '0 is not a worker count (whole number ≥ 1)' },
      { path: 'durationSec', message: '0 is not a whole number of seconds from 1 to 3600' },
    ]);
    expect(r.stderr).toContain('rightsize: The matrix is not valid; nothing was started:\n  - workers: 0 is not a worker count');
  });

  it('a matrix of more than 500 cells needs --yes, as a run does', async () => {
    const memoryMb = Array.from({ length: 60 }, (_, i) => 64 + i);
    const big = { apps: ['hello'], cpuMillicores: [500], memoryMb, workers: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], modes: ['cluster'] };
    const file = configFile(JSON.stringify(big));
    const refused = await cli(['--db', history(), 'run', '--config', file, '--dry-run']);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toContain('  - (matrix): 600 cells is more than 500: confirm to run it (CLI --yes, JSON "confirmLarge": true)');
    const confirmed = await cli(['--db', history(), '--json', 'run', '--config', file, '--dry-run', '--yes']);
    expect(confirmed.code).toBe(EXIT.ok);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ valid: true, counts: { cells: 600, configurations: 600, repetitions: 1 } });
  });

  it("without a Docker engine: checked against this machine's cores and memory, said in one line", async () => {
    const db = history();
    const r = await cli(['--db', db, 'run', '--preset', 'quick', '--dry-run'], NO_DOCKER);
    expect(r.code).toBe(EXIT.ok);
    const notes = r.stdout.split('\n').filter((l) => l.startsWith('Note: '));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^Note: Docker did not answer at .*nonexistent.*: checked against this machine's \d+ cores and [\d,]+ MB\.$/);
    expect(r.stdout).toContain('Nothing was started (--dry-run).');
    // the limits are this machine's: a cap above its cores is named as a run here would name it
    const over = { apps: ['hello'], cpuMillicores: [1_000_000], memoryMb: [256], workers: [1], modes: ['cluster'] };
    const refused = await cli(['--db', db, 'run', '--config', configFile(JSON.stringify(over)), '--dry-run'], NO_DOCKER);
    expect(refused.code).toBe(EXIT.usage);
    expect(refused.stderr).toMatch(/ {2}- cpuMillicores: 1000000m is more than this host's \d+ cores/);
    expect(runCount(db)).toBe(0);
  });

  it("gives the run's client-bound forecast where this host's history has one, and stores no run", async () => {
    const db = history();
    addClientBoundCell(db);
    const helloQuick = { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], durationSec: 5, warmupSec: 1, repetitions: 3 };
    const r = await cli(['--db', db, 'run', '--config', configFile(JSON.stringify(helloQuick)), '--dry-run']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^6 of 6 cells are likely client-bound on this host \(hello at 1000m: .*\): their goodput will be a lower bound\. .*$/m);
    expect(runCount(db)).toBe(1); // the earlier run only
    // json has never run here: its cells borrow the hello cluster cell's timing (the mode's, another app's).
    const json = await cli(['--db', db, 'run', '--config', configFile(JSON.stringify({ ...helloQuick, apps: ['json'] })), '--dry-run']);
    expect(json.stdout).toContain("warm-up and start-up as the latest 1 cluster (other apps', for json) cells took here");
  });

  it('says what it does in `run --help`, with its JSON document', async () => {
    const r = await cli(['run', '--help']);
    expect(r.stdout).toContain('--dry-run');
    expect(r.stdout).toContain('"schemaVersion": 1, "dryRun": true, "valid"');
  });
});
