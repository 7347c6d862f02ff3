// Load threads set by the matrix (`load.threads`) or `rightsize run --load-threads N`: checked, carried
// into every cell, honoured by the load runner's thread count, recorded and shown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runLoad } from '../../src-main/load/runner.ts';
import { expandMatrix, validateMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';
import { threadCount } from '../../src-main/load/threads.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';
import { withLoadThreads } from '../../src-main/cli/commands/run.ts';
import { cellsTable } from '../../src-main/cli/describe.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { cell, run } from '../helpers/run-fixture.ts';
import { parseCsv } from '../helpers/report.ts';

const host: HostLimits = { cores: 4, memoryMb: 4096, apps: ['hello'] };
const base = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256] };

function problems(input: object): string[] {
  const v = validateMatrix(input, host);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('load.threads in the matrix', () => {
  it('is optional, and when set every cell carries it', () => {
    const none = validateMatrix(base, host);
    expect(none.ok && expandMatrix(none.matrix)[0]!.load).toEqual({ model: 'closed', connections: 20 });
    const v = validateMatrix({ ...base, load: { model: 'closed', connections: [10, 40], threads: 2 } }, host);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(expandMatrix(v.matrix).map((c) => c.load)).toEqual([
      { model: 'closed', connections: 10, threads: 2 },
      { model: 'closed', connections: 40, threads: 2 },
    ]);
    const r = validateMatrix({ ...base, load: { model: 'rate', rates: [500], connections: 8, threads: 3 } }, host);
    expect(r.ok && expandMatrix(r.matrix)[0]!.load).toEqual({ model: 'rate', rate: 500, connections: 8, threads: 3 });
  });

  it.each([
    [{ model: 'closed', connections: [20], threads: 0 }, 'load.threads: 0 is not a number of load threads (a whole number, 1 or more)'],
    [{ model: 'closed', connections: [20], threads: 1.5 }, 'load.threads: 1.5 is not a number of load threads (a whole number, 1 or more)'],
    [{ model: 'closed', connections: [20], threads: 5 }, "load.threads: 5 load threads is more than this host's 4 cores: each thread needs a core of its own to keep up"],
    [{ model: 'closed', connections: [2, 20], threads: 3 }, 'load.threads: 3 load threads is more than the 2 connections to share among them: every thread needs at least one connection'],
    [{ model: 'rate', rates: [100], connections: 1, threads: 2 }, 'load.threads: 2 load threads is more than the 1 connection to share among them: every thread needs at least one connection'],
  ])('refuses %j in plain words', (load, message) => {
    expect(problems({ ...base, load })).toEqual([message]);
  });

  it('a misspelt key is refused with a suggestion, not ignored', () => {
    expect(problems({ ...base, load: { model: 'closed', connections: [20], thread: 2 } }).join('\n')).toMatch(/thread.*threads/);
  });
});

const plan = (over: Partial<LoadPlan>): LoadPlan => ({
  host: 'h', port: 1, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 10 }, durationSec: 5, warmupSec: 1, timeoutSec: 10, ...over,
});

describe('the load runner honours it', () => {
  it('load.threads overrides the count chosen from the free cores; the plan\'s own threads (benchmarks) win', () => {
    expect(threadCount(plan({ cpus: '1-3' }))).toBe(3);
    expect(threadCount(plan({ cpus: '1-3', load: { model: 'closed', connections: 10, threads: 1 } }))).toBe(1);
    expect(threadCount(plan({ load: { model: 'closed', connections: 10, threads: 2 } }))).toBe(2);
    expect(threadCount(plan({ threads: 4, load: { model: 'closed', connections: 10, threads: 2 } }))).toBe(4);
    expect(() => threadCount(plan({ load: { model: 'closed', connections: 10, threads: 0 } }))).toThrow(/at least 1/);
  });
});

describe('a real load phase', () => {
  it('runs as many threads as load.threads says and records the count', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as AddressInfo;
      const result = await runLoad({ host: '127.0.0.1', port, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 4, threads: 2 }, durationSec: 1, warmupSec: 0, timeoutSec: 5 });
      expect(result.threads).toBe(2);
      expect(result.requests).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('rightsize run --load-threads', () => {
  it('sets load.threads on the matrix (the default load when it names none)', () => {
    expect(withLoadThreads(base, undefined)).toBe(base);
    expect(withLoadThreads(base, '2')).toEqual({ ...base, load: { model: 'closed', connections: [20], threads: 2 } });
    const rate = { ...base, load: { model: 'rate', rates: [100], connections: 4, threads: 1 } };
    expect(withLoadThreads(rate, '3')).toEqual({ ...base, load: { model: 'rate', rates: [100], connections: 4, threads: 3 } });
    // The range is the matrix's to check, in its words.
    expect(problems(withLoadThreads(base, '9') as object)).toEqual(["load.threads: 9 load threads is more than this host's 4 cores: each thread needs a core of its own to keep up"]);
  });

  it.each(['0', 'two', '1.5', '-1', ''])('refuses %j before anything starts', (v) => {
    expect(() => withLoadThreads(base, v)).toThrow(/--load-threads should be a whole number of load threads, 1 or more/);
  });
});

describe('the thread count used is recorded and shown', () => {
  const withLoad = (c: StoredCell, load: Partial<NonNullable<StoredCell['load']>>): StoredCell => ({ ...c, load: load as StoredCell['load'] });
  const r = run([
    withLoad(cell({}), { threads: 2, warmupUsedSec: 5 }),
    withLoad(cell({ load: { model: 'closed', connections: 20, threads: 1 } }), { threads: 1, warmupUsedSec: 2 }),
    cell({}),
  ]);

  it('CSV: load_threads (used) and load_threads_set (asked for)', () => {
    const rows = parseCsv(cellsCsv(r));
    expect(rows.map((x) => [x.load_threads, x.load_threads_set])).toEqual([['2', ''], ['1', '1'], ['', '']]);
  });

  it('CLI table: the warm-up each cell used and its load threads', () => {
    const lines = cellsTable(r.cells).split('\n');
    expect(lines[0]).toMatch(/load\s+warm-up\s+status/);
    expect(lines.find((l) => l.trimStart().startsWith('1 '))).toMatch(/20 conn, 2 thr\s+2 → 5 s\s+ok/);
    expect(lines.find((l) => l.trimStart().startsWith('2 '))).toMatch(/20 conn, 1 thr\s+2 s\s+ok/);
    expect(lines.find((l) => l.trimStart().startsWith('3 '))).toMatch(/20 conn\s+—\s+ok/);
  });
});
