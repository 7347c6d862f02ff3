// The forecast before Start for replicated cells: the load threads a replicated cell gets come from
// the replica placement rule (each replica on cores of its own where the host has them, the load on
// the cores after them), and its predicted rate is the replicas' together.
import { describe, expect, it } from 'vitest';
import { forecastCells, forecastMessage, plannedCells, predict, usableCpus, type PlannedCell } from '../../src-main/engine/client-forecast.ts';
import type { HostKey, LoadCeiling, PastCell } from '../../src-main/engine/client-ceiling.ts';
import { validateMatrix, type Matrix } from '../../src-main/engine/matrix.ts';
import { HOST } from '../helpers/run-fixture.ts';

const host: HostKey = { cpuModel: HOST.cpuModel, cores: 8 };
const ceiling: LoadCeiling = { perThreadRps: 30_000, host, from: { runId: 1, cellId: 1, app: 'json', cpuMillis: 1000, threads: 1, goodput: 30_000, clientBound: true }, at: '2026-01-01T00:00:00.000Z' };
let id = 1;
const past = (p: Partial<PastCell> & Pick<PastCell, 'goodput'>): PastCell => ({
  runId: 1, cellId: id++, app: 'json', mode: 'cluster', workers: 1, cpuMillis: 1000, threads: 1, closedLoop: true, clientBound: false, clean: true, finishedAt: '2026-01-01T00:00:00.000Z', ...p,
});
const planned = (p: Partial<PlannedCell> = {}): PlannedCell => ({ app: 'json', mode: 'cluster', workers: 1, cpuMillis: 1000, load: { model: 'closed', connections: 20 }, threads: 1, ...p });

const matrixOf = (m: Record<string, unknown>, cores: number): Matrix => {
  const v = validateMatrix({ apps: ['json'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256], ...m }, { cores, memoryMb: 8192, apps: ['json'] });
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.matrix;
};

describe('the load threads of a replicated cell', () => {
  it('replicas on cores of their own leave fewer cores to the load than one container of the same cap', () => {
    // 6 cores: one container of 1000m on core 0, the load on 1-4 (the last spare core left to the engine): 2 threads
    // (up to two per target core); 2 replicas on cores 0 and 1, the load on 2-4: 3 threads.
    const [one, two] = plannedCells(matrixOf({ replicas: [1, 2] }, 6), 6);
    expect(one).toMatchObject({ cpuMillis: 1000, threads: 2 });
    expect(one!.replicas).toBeUndefined();
    expect(two).toMatchObject({ cpuMillis: 1000, replicas: 2, threads: 3 });
  });

  it('on a 2-core host 2 replicas of 500m share core 0 (their total cap), and the load gets core 1', () => {
    const cells = plannedCells(matrixOf({ replicas: [2], cpuMillicores: [500] }, 2), 2);
    expect(cells.map((c) => [c.replicas, c.threads])).toEqual([[2, 1]]);
  });
});

describe('the rate a replicated cell is predicted to reach', () => {
  it('is the replicas’ together: goodput per usable CPU × each replica’s CPUs × replicas', () => {
    expect(usableCpus('cluster', 1, 2000, 2)).toBe(2); // one worker uses one core, in each of 2 containers
    expect(usableCpus('single', 1, 500, 3)).toBe(1.5);
    const history = [past({ goodput: 10_000, cpuMillis: 500 })]; // 20,000 per usable CPU
    expect(predict(history, planned({ cpuMillis: 500, replicas: 2 }))!.rate).toBe(20_000);
    expect(predict(history, planned({ cpuMillis: 500 }))!.rate).toBe(10_000);
  });

  it('a replicated past cell is not taken for a single container of its per-replica cap', () => {
    // 2 × 500m served 20,000 together: 20,000 per usable CPU, not 40,000.
    const history = [past({ goodput: 20_000, cpuMillis: 500, replicas: 2 })];
    expect(predict(history, planned({ cpuMillis: 500 }))!.rate).toBe(10_000);
    // Exactly its configuration: what it reached.
    expect(predict(history, planned({ cpuMillis: 500, replicas: 2 }))!.rate).toBe(20_000);
  });

  it('the forecast names the replicas of a group likely client-bound', () => {
    const f = forecastCells([planned({ cpuMillis: 1000, replicas: 2, threads: 1 })], [past({ goodput: 20_000 })], ceiling);
    expect(f.likely).toBe(1);
    expect(f.groups[0]).toMatchObject({ replicas: 2, cpuMillis: 1000, predictedRps: 40_000 });
    expect(forecastMessage(f)).toContain('(json at 2 × 1000m: ~40,000 req/s, one load thread tops out at ~30,000)');
  });
});
