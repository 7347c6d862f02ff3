// A total-budget matrix run end to end through the real CLI and engine: 1 CPU and 256 MB in total,
// as 1 × 1000m / 256 MB and 2 × 500m / 128 MB of `json`. The cells stored are exactly those splits,
// the replicated one ran (and read) two containers, and the answer compares both in one scope —
// equal totals — with their labels saying the topology.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

const matrix = {
  apps: ['json'],
  modes: ['cluster'],
  workers: [1],
  replicas: [1, 2],
  budget: { cpuMillicores: [1000], memoryMb: [256] },
  load: { model: 'closed', connections: [8] },
  durationSec: 3,
  warmupSec: 1,
  settleBudgetPct: 0,
  verify: false,
};

describe('a total-budget matrix', () => {
  it('runs the splits of 1 CPU / 256 MB and compares them at equal totals', async () => {
    const dir = tempDir('rightsize-budget-');
    const config = path.join(dir, 'matrix.json');
    writeFileSync(config, JSON.stringify(matrix));
    const db = path.join(dir, 'history.db');
    const r = await cli(['--db', db, '--json', 'run', '--config', config]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/✓ 2\/2 json cluster×1 2 × 500m\/128MB c8: ok/);
    const { runId } = JSON.parse(r.stdout) as { runId: number };
    const store = Store.open(db);
    try {
      const run = store.getRun(runId)!;
      expect(run.cells.map((c) => [c.status, c.config.replicas ?? 1, c.config.cpuMillis, c.config.memoryMb])).toEqual([
        ['ok', 1, 1000, 256],
        ['ok', 2, 500, 128],
      ]);
      const rec = recommend(run);
      expect(rec.configurations.map((c) => c.label)).toEqual([
        'json cluster×1 2 × 500m/128MB c8',
        'json cluster×1 1000m/256MB c8',
      ]);
      // One scope: the two topologies take the same total CPU and memory.
      expect(new Set(rec.configurations.map((c) => c.scopeKey)).size).toBe(1);
      expect(rec.configurations.find((c) => c.replicas === 2)).toBeDefined();
    } finally {
      store.close();
    }
  });
});
