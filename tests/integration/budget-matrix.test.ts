// A total-budget matrix through the real CLI against the real engine's limits (`run --dry-run`: the
// cells a run would start, nothing started): 2 CPUs and 1 GB in total expand into exactly the even
// splits, per replica, with the workers dimension on each; a split that is not whole is left out of a
// range and refused when named. Running a replicated cell end to end is tests/integration/replicas
// .test.ts; the scope of equal totals is tests/unit/group-dimensions.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

const matrix = (budget: Record<string, unknown>, replicas?: number[]) => ({
  apps: ['json'],
  modes: ['cluster'],
  workers: [1, 2],
  ...(replicas ? { replicas } : {}),
  budget,
  load: { model: 'closed', connections: [8] },
  durationSec: 3,
  warmupSec: 1,
});

type Cell = { replicas?: number; cpuMillis: number; memoryMb: number; workers: number };
const dryRun = async (m: unknown) => {
  const dir = tempDir('rightsize-budget-');
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify(m));
  const r = await cli(['--db', path.join(dir, 'h.db'), '--json', 'run', '--dry-run', '--config', config]);
  return { ...r, doc: JSON.parse(r.stdout) as { valid: boolean; cells: Cell[]; problems: { path: string; message: string }[] } };
};

describe('a total-budget matrix', () => {
  it('expands 2 CPUs / 1 GB in total into its even splits, workers on each, nothing started', async () => {
    const { code, doc } = await dryRun(matrix({ cpuMillicores: [2000], memoryMb: [1024], maxReplicas: 3 }));
    expect(code).toBe(0);
    expect(doc.valid).toBe(true);
    // 3 replicas do not split 2000m into whole millicores: left out of the range 1–3.
    expect(doc.cells.map((c) => [c.replicas ?? 1, c.cpuMillis, c.memoryMb, c.workers])).toEqual([
      [1, 2000, 1024, 1],
      [1, 2000, 1024, 2],
      [2, 1000, 512, 1],
      [2, 1000, 512, 2],
    ]);
  });

  it('a named count that does not split is refused, with every other problem, and nothing starts', async () => {
    const { code, doc } = await dryRun(matrix({ cpuMillicores: [1000], memoryMb: [256] }, [1, 3]));
    expect(code).not.toBe(0);
    expect(doc.valid).toBe(false);
    expect(doc.problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(/^replicas: 1000m and 256 MB over 3 replicas is not whole millicores and MB each/),
    ]);
  });
});
