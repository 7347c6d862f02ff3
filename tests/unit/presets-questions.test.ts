// The two presets that ask issue 25's questions: they validate on a 2-core host, expand into what
// they say, and their cells — given results — make the answer lines that settle the question.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { builtInApps } from '../../src-main/apps/catalog.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import { findPreset } from '../../src-main/presets/presets.ts';
import type { StoredCell } from '../../src-main/model/stored.ts';
import { cell, run } from '../helpers/run-fixture.ts';

const limits = { cores: 2, memoryMb: 4096, apps: builtInApps().map((a) => a.name) };

/** The preset's cells, each "measured" at the goodput `rps` gives its configuration (repetitions a little apart). */
function measured(name: string, rps: (c: StoredCell['config']) => number, nodeVersion?: (node: string) => string): ReturnType<typeof run> {
  const v = validateMatrix(findPreset(name)!.matrix, limits);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  const cells = expandMatrix(v.matrix).map((config) => {
    const base = cell({ app: config.app, workers: config.workers, cpu: config.cpuMillis, mem: config.memoryMb, rps: rps(config) + config.repetition * 30 });
    return { ...base, config: { ...base.config, ...config }, ...(config.node && nodeVersion ? { nodeVersion: nodeVersion(config.node) } : {}) };
  });
  return run(cells, { matrix: v.matrix });
}

describe('the replicas-vs-workers preset', () => {
  it('holds the total at 1 CPU / 512 MB: 1 × 1000m and 2 × 500m, each with 1 and 2 workers, 3 repetitions', () => {
    const v = validateMatrix(findPreset('replicas-vs-workers')!.matrix, limits);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const shapes = new Set(expandMatrix(v.matrix).map((c) => `${c.replicas ?? 1}×${c.cpuMillis}m/${c.memoryMb}MB×${c.workers}`));
    expect([...shapes].sort()).toEqual(['1×1000m/512MB×1', '1×1000m/512MB×2', '2×500m/256MB×1', '2×500m/256MB×2']);
    expect(v.cells).toBe(12);
  });

  it('its cells answer the question: one scope, the topologies compared by the contest', () => {
    const rec = recommend(measured('replicas-vs-workers', (c) => ((c.replicas ?? 1) === 2 ? 9000 : 10000)));
    expect(rec.scopes).toHaveLength(1);
    const [n] = rec.comparisons!.filter((x) => x.kind === 'topology');
    expect(n!.text).toMatch(/^At 1 CPU \/ 512 MB in total \(json, 20 connections\), 1 container × \d cluster workers? serves 11 % more than 2 containers × \d cluster workers? \(/);
  });
});

describe('the node-versions preset', () => {
  it('runs json on Node.js 20, 22 and 24 at one cap, 3 repetitions each', () => {
    const v = validateMatrix(findPreset('node-versions')!.matrix, limits);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    const cells = expandMatrix(v.matrix);
    expect([...new Set(cells.map((c) => c.node))].sort()).toEqual(['20', '22', '24']);
    expect(new Set(cells.map((c) => `${c.cpuMillis}/${c.memoryMb}/${c.workers}`)).size).toBe(1);
    expect(cells).toHaveLength(9);
  });

  it('its cells answer the question: each version against the fastest, with the exact versions named', () => {
    const exact: Record<string, string> = { '20': '20.18.0', '22': '22.11.0', '24': '24.1.0' };
    const rec = recommend(measured('node-versions', (c) => (c.node === '24' ? 11200 : 10000), (n) => exact[n]!));
    const lines = rec.comparisons!.filter((x) => x.kind === 'version').map((x) => x.text);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l).toMatch(/^Node 24 \(24\.1\.0\) serves 12 % more per CPU than Node 2[02] \(2[02]\.1[18]\.0\)/);
  });
});
