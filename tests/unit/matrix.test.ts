import { describe, expect, it } from 'vitest';
import { countCells, expandMatrix, validateMatrix, type HostLimits } from '../../src-main/engine/matrix.ts';

const host: HostLimits = { cores: 2, memoryMb: 4096, apps: ['hello', 'json', 'static'] };
const base = { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500, 1000], memoryMb: [256] };

function problems(input: object): string[] {
  const v = validateMatrix(input, host);
  if (v.ok) throw new Error('expected problems');
  return v.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('validateMatrix', () => {
  it('accepts a valid matrix and fills defaults', () => {
    const v = validateMatrix(base, host);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.cells).toBe(4);
    expect(v.matrix.load).toEqual({ model: 'closed', connections: [20] });
    expect(v.matrix).toMatchObject({ durationSec: 10, warmupSec: 2, repetitions: 1, order: 'fixed', placement: 'auto' });
  });

  it.each([
    [{ cpuMillicores: [0] }, 'cpuMillicores: 0 is not a positive whole number of millicores'],
    [{ cpuMillicores: [-100] }, 'cpuMillicores: -100 is not a positive whole number of millicores'],
    [{ cpuMillicores: [2500] }, "cpuMillicores: 2500m is more than this host's 2 cores (2000m)"],
    [{ memoryMb: [16] }, 'memoryMb: 16 MB is below the minimum of 32 MB'],
    [{ memoryMb: [8192] }, "memoryMb: 8192 MB is more than this host's 4096 MB"],
    [{ workers: [0] }, 'workers: 0 is not a worker count (whole number ≥ 1)'],
    [{ workers: [1.5] }, 'workers: 1.5 is not a worker count (whole number ≥ 1)'],
    [{ apps: [] }, 'apps: needs at least one value'],
    [{ modes: [] }, 'modes: needs at least one value'],
    [{ workers: [] }, 'workers: needs at least one value'],
    [{ cpuMillicores: [] }, 'cpuMillicores: needs at least one value'],
    [{ memoryMb: [] }, 'memoryMb: needs at least one value'],
    [{ apps: ['nope'] }, 'apps: unknown app "nope". Known apps: hello, json, static.'],
    [{ apps: ['helo'] }, 'apps: unknown app "helo". Did you mean "hello"? Known apps: hello, json, static.'],
    [{ modes: ['fork'] }, 'modes.0: "fork" is not one of "single", "cluster", "pm2".'],
    [{ modes: ['Cluster'] }, 'modes.0: "Cluster" is not one of "single", "cluster", "pm2". Did you mean "cluster"?'],
    [{ durationSec: 0 }, 'durationSec: 0 is not a whole number of seconds from 1 to 3600'],
    [{ repetitions: 0 }, 'repetitions: 0 is not a whole number from 1 to 100'],
    [{ load: { model: 'closed', connections: [] } }, 'load.connections: needs at least one value'],
    [{ load: { model: 'rate', rates: [0] } }, 'load.rates: 0 is not a rate from 1 to 1000000 req/s'],
  ])('%j → %s', (over, message) => {
    expect(problems({ ...base, ...over })).toContain(message);
  });

  it('reports every problem at once', () => {
    const list = problems({ ...base, cpuMillicores: [0], memoryMb: [1], workers: [0], apps: ['x'] });
    expect(list).toHaveLength(4);
  });

  it('refuses more than 500 cells unless confirmed', () => {
    const big = { ...base, workers: Array.from({ length: 51 }, (_, i) => i + 1), memoryMb: [64, 128, 256, 512, 1024] };
    expect(problems(big)).toEqual(['(matrix): 510 cells is more than 500: confirm to run it (CLI --yes, JSON "confirmLarge": true)']);
    expect(validateMatrix({ ...big, confirmLarge: true }, host).ok).toBe(true);
  });

  it('refuses a non-object', () => {
    expect(problems(null as unknown as object)[0]).toMatch(/^\(matrix\): /);
  });
});

describe('expandMatrix', () => {
  const parse = (input: object) => {
    const v = validateMatrix(input, host);
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    return v.matrix;
  };

  it('is the product of the dimensions, single mode collapsing workers to 1', () => {
    const m = parse({ ...base, modes: ['single', 'cluster'], workers: [1, 2, 4], repetitions: 2 });
    const cells = expandMatrix(m);
    // single: 1 worker count; cluster: 3 → 4 configurations × 2 CPU × 1 memory × 2 repetitions
    expect(cells).toHaveLength(16);
    expect(countCells(m)).toBe(16);
    expect(cells.filter((c) => c.mode === 'single').every((c) => c.workers === 1)).toBe(true);
    expect(cells.map((c) => c.index)).toEqual([...Array(16).keys()]);
    expect(cells.slice(0, 8).every((c) => c.repetition === 0)).toBe(true); // repetitions outermost
  });

  it('makes request sets and rates dimensions', () => {
    const m = parse({
      ...base,
      workers: [1],
      cpuMillicores: [1000],
      load: { model: 'rate', rates: [100, 200], connections: 5 },
      requestSets: [{ name: '1k', requests: [{ path: '/1k' }] }, { name: '32k', requests: [{ path: '/32k' }] }],
    });
    const cells = expandMatrix(m);
    expect(cells.map((c) => `${c.load.model === 'rate' ? c.load.rate : 0}/${c.requests?.name}`)).toEqual(['100/1k', '100/32k', '200/1k', '200/32k']);
  });

  it('shuffles deterministically by seed', () => {
    const m = parse({ ...base, workers: [1, 2, 3, 4, 5, 6], order: 'shuffle', seed: 42 });
    const a = expandMatrix(m).map((c) => `${c.cpuMillis}/${c.workers}`);
    const b = expandMatrix(m).map((c) => `${c.cpuMillis}/${c.workers}`);
    const fixed = expandMatrix({ ...m, order: 'fixed' }).map((c) => `${c.cpuMillis}/${c.workers}`);
    expect(a).toEqual(b);
    expect(a).not.toEqual(fixed);
    expect([...a].sort()).toEqual([...fixed].sort());
    expect(expandMatrix({ ...m, seed: 7 }).map((c) => `${c.cpuMillis}/${c.workers}`)).not.toEqual(a);
  });
});

describe('presets', () => {
  it('every preset is a valid matrix on a 2-core, 4 GiB host and says which seed it reproduces', async () => {
    const { listPresets } = await import('../../src-main/presets/presets.ts');
    const { builtInApps } = await import('../../src-main/apps/catalog.ts');
    const presets = listPresets();
    expect(presets.map((p) => p.name)).toEqual(['quick', 'cluster-vs-cpus', 'container-traps', 'file-sizes-network', 'http2-file-sizes', 'launch-modes', 'node-versions', 'pbkdf2-one-thread', 'pm2-right-sizing', 'pool-vs-workers', 'replicas-vs-workers', 'worker-recycling']);
    const limits = { cores: 2, memoryMb: 4096, apps: builtInApps().map((a) => a.name) };
    for (const p of presets) {
      const v = validateMatrix(p.matrix, limits);
      expect(v.ok, `${p.name}: ${JSON.stringify(v)}`).toBe(true);
      // The questions of issue 25 (containers or workers, which Node.js) reproduce no seed experiment.
      if (!['quick', 'node-versions', 'replicas-vs-workers', 'pool-vs-workers'].includes(p.name)) expect(p.seed).toMatch(/^00\d_[0-9a-f]+\.txt$/);
    }
    const quick = validateMatrix(presets[0]!.matrix, limits);
    expect(quick.ok && quick.cells * (quick.matrix.durationSec + quick.matrix.warmupSec + 1.5)).toBeLessThan(60); // under a minute
  });
});
