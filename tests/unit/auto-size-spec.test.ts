// The auto-size request: validation (defaults, every problem at once, did-you-mean, host limits),
// the CLI's reading of it, and the search trace in the store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionsFor, gridCellsOf, sizeEtaSec, validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';
import type { SearchTrace } from '../../src-main/model/search.ts';
import { parseRange, parseSizeSlo, sizeSpecFromOptions } from '../../src-main/cli/commands/size.ts';
import { CliError } from '../../src-main/cli/exit-codes.ts';
import { Store } from '../../src-main/store/index.ts';
import { HOST as FACTS } from '../helpers/run-fixture.ts';

const HOST = { cores: 2, memoryMb: 3900, apps: ['hello', 'pbkdf2', 'json-read', 'shop'], imageApps: { shop: { fixed: true } } };

describe('auto-size spec', () => {
  it('fills the defaults: 8 s cells, 2 s warmup, 12 cells, cluster, workers 1–cores, CPU 250m–cores, memory 128–1024 MB', () => {
    const v = validateSizeSpec({ app: 'hello', slo: { p99Ms: 50 }, rate: 2000 }, HOST);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.spec).toEqual({
      app: 'hello', slo: { p99Ms: 50, minRps: 2000, maxErrorPct: 0.1 }, rate: 2000,
      bounds: { cpuMillis: { min: 250, max: 2000 }, memoryMb: { min: 128, max: 1024 }, workers: { min: 1, max: 2 }, modes: ['cluster'] },
      durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 125, memoryStepMb: 32, connections: 100,
    });
    expect(v.gridCells).toBe(15 * 29 * 2);
    expect(gridCellsOf(v.spec)).toBe(v.gridCells);
    expect(sizeEtaSec(v.spec)).toBe(12 * (2 + 8 + 4));
    // The spec as stored is valid input as it is (a UI may send it back to run it again).
    expect(validateSizeSpec(v.spec, HOST)).toEqual(v);
  });

  it('reports every problem at once, with "did you mean" for a misspelt field', () => {
    const v = validateSizeSpec({ app: 'helo', slo: { p99Ms: 0, maxErrorPct: 150 }, rate: -5, bounds: { cpuMillis: { min: 1000, max: 4000 }, memoryMb: { min: 16, max: 8000 }, workers: { min: 3, max: 2 }, mode: ['cluster'] }, maxCell: 3, durationSec: 2 }, HOST);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    const byPath = (p: string): string => v.problems.filter((x) => x.path === p).map((x) => x.message).join(' | ');
    expect(byPath('maxCell')).toMatch(/Did you mean "maxCells"/);
    expect(byPath('bounds.mode')).toMatch(/Did you mean "modes"/);
    expect(byPath('app')).toMatch(/unknown app "helo"\. Did you mean "hello"/);
    expect(byPath('slo.p99Ms')).toMatch(/not a p99 limit above 0/);
    expect(byPath('slo.maxErrorPct')).toMatch(/percentage from 0 to 100/);
    expect(byPath('rate')).toMatch(/not a rate above 0/);
    expect(byPath('bounds.cpuMillis')).toMatch(/4000m is more than this host's 2 cores/);
    expect(byPath('bounds.memoryMb')).toMatch(/minimum is 32 MB/);
    expect(byPath('bounds.workers')).toMatch(/min 3 is above max 2/);
    expect(byPath('durationSec')).toMatch(/from 5/);
  });

  it('refuses memory above the host, min above max, an rps that differs from the rate, a non-object', () => {
    const v = validateSizeSpec({ app: 'hello', slo: { p99Ms: 50, minRps: 100 }, rate: 200, bounds: { memoryMb: { min: 512, max: 8192 }, cpuMillis: { min: 900, max: 500 } } }, HOST);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.problems.map((p) => p.message).join('\n')).toMatch(/8192 MB is more than this host's 3900 MB[\s\S]*min 900 is above max 500|min 900 is above max 500[\s\S]*8192 MB/);
    expect(v.problems.some((p) => p.path === 'slo.minRps')).toBe(true);
    expect(validateSizeSpec([1], HOST)).toMatchObject({ ok: false, problems: [{ path: '(spec)' }] });
    expect(validateSizeSpec({}, HOST)).toMatchObject({ ok: false });
  });

  it('an image app with a fixed worker count runs in its own mode with one worker', () => {
    const v = validateSizeSpec({ app: 'shop', slo: { p99Ms: 50 }, rate: 100, bounds: { workers: { min: 1, max: 4 } } }, HOST);
    expect(v.ok && v.spec.bounds).toMatchObject({ modes: ['image'], workers: { min: 1, max: 1 } });
  });

  it('connections: enough for rate × p99 in flight, at least 20, at most one per request a second', () => {
    expect(connectionsFor(2000, 50)).toBe(100);
    expect(connectionsFor(200, 50)).toBe(20);
    expect(connectionsFor(10, 50)).toBe(10);
    expect(connectionsFor(100_000, 500)).toBe(1000);
  });
});

describe('rightsize size: the command line', () => {
  const usage = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(CliError);
      expect((e as CliError).exitCode).toBe(2);
      return (e as Error).message;
    }
    throw new Error('expected a usage error');
  };

  it('reads the objective without rps (the rate is --rate) and needs an error limit', () => {
    expect(parseSizeSlo('p99<=50ms,errors<=0.1%', 2000)).toEqual({ p99Ms: 50, maxErrorPct: 0.1 });
    expect(parseSizeSlo('p99<=0.5s,rps>=2000,errors<=1%', 2000)).toEqual({ p99Ms: 500, maxErrorPct: 1 });
    expect(usage(() => parseSizeSlo('p99<=50ms', 2000))).toMatch(/needs an error limit/);
    expect(usage(() => parseSizeSlo('p99<=50ms,rps>=100,errors<=1%', 2000))).toMatch(/the rate is --rate 2000/);
    expect(usage(() => parseSizeSlo('p99<=50,errors<=1%', 2000))).toMatch(/--slo: p99 needs a unit/);
  });

  it('reads ranges "MIN-MAX" or one value', () => {
    expect(parseRange('--cpu', '250-2000')).toEqual({ min: 250, max: 2000 });
    expect(parseRange('--workers', '2')).toEqual({ min: 2, max: 2 });
    expect(usage(() => parseRange('--cpu', '2000-'))).toMatch(/--cpu takes a range "MIN-MAX" \(e.g. --cpu 250-2000\)/);
  });

  it('builds the request; missing or misspelt options are clear usage errors', () => {
    expect(sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=0.1%', rate: '2000', cpu: '250-1000', modes: 'cluster,pm2', maxCells: '8', duration: '6' })).toEqual({
      app: 'hello', slo: { p99Ms: 50, maxErrorPct: 0.1 }, rate: 2000, bounds: { cpuMillis: { min: 250, max: 1000 }, modes: ['cluster', 'pm2'] }, maxCells: 8, durationSec: 6,
    });
    expect(usage(() => sizeSpecFromOptions({ slo: 'p99<=50ms,errors<=1%', rate: '1' }))).toMatch(/--app NAME/);
    expect(usage(() => sizeSpecFromOptions({ app: 'hello', rate: '1' }))).toMatch(/--slo/);
    expect(usage(() => sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=1%' }))).toMatch(/--rate/);
    expect(usage(() => sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=1%', rate: 'fast' }))).toMatch(/--rate: takes a number/);
    expect(usage(() => sizeSpecFromOptions({ app: 'hello', slo: 'p99<=50ms,errors<=1%', rate: '10', modes: 'clustre' }))).toMatch(/unknown launch mode "clustre"\. Did you mean "cluster"/);
  });
});

describe('the search trace in the store', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is null for a matrix run, and read back as written (with the cells planned) for a search', () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rs-size-'));
    const store = Store.open(path.join(dir, 'db.sqlite'));
    try {
      const matrixRun = store.createRun({ name: 'm', matrix: {}, host: FACTS, ownerSession: 's', cellsTotal: 2 });
      expect(store.getRun(matrixRun)!.search).toBeNull();
      const v = validateSizeSpec({ app: 'hello', slo: { p99Ms: 50 }, rate: 200 }, HOST);
      if (!v.ok) throw new Error('invalid');
      const id = store.createRun({ name: 'size hello', matrix: v.spec, host: FACTS, ownerSession: 's', cellsTotal: 12 });
      const trace: SearchTrace = {
        spec: v.spec, status: 'found', found: { mode: 'cluster', workers: 1, cpuMillis: 500, memoryMb: 128 }, words: 'found', gridCells: v.gridCells, bestSoFar: null,
        steps: [{ cellId: 1, mode: 'cluster', workers: 1, cpuMillis: 2000, memoryMb: 1024, reason: 'top', outcome: 'meets', detail: 'p99 3 ms' }],
      };
      expect(store.setRunSearch(id, trace, 1)).toBe(true);
      const run = store.getRun(id)!;
      expect(run.search).toEqual(trace);
      expect(run.cellsTotal).toBe(1);
      expect(run.matrix).toEqual(v.spec);
      expect(store.setRunSearch(9999, trace, 1)).toBe(false);
    } finally {
      store.close();
    }
  });
});
