// The answer's own sentences on runs with replicas and Node.js versions, on constructed data: the
// headline and summary name the topology, the version and the scope's totals; memory of a
// replicated pick is sized per replica from the replicas' own readings (never the total as if one);
// cheaper() at equal totals puts fewer containers first.
import { describe, expect, it } from 'vitest';

import { onWhat, who, whoContext, whoList } from '../../src-main/analysis/names.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { runPickOf } from '../../src-main/analysis/decide/run-pick.ts';
import { costOrder as makeOrder } from '../../src-main/analysis/decide/cost-order.ts';

const byCost = makeOrder();
const cheaper = byCost;
import type { ConfigurationSummary } from '../../src-main/analysis/types.ts';
import type { ReplicaReading } from '../../src-main/model/replicas.ts';
import type { StatsSummary } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/model/stored.ts';
import { reps, run, type CellSpec } from '../helpers/run-fixture.ts';

const MB = 2 ** 20;
const stats = (peakMb: number, limitMb: number, extra: Partial<StatsSummary> = {}): StatsSummary => ({
  cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: peakMb * MB, memMaxBytes: peakMb * MB, memLimitBytes: limitMb * MB,
  throttledPeriods: 0, throttledMs: 0, samples: 10, memPeakBytes: peakMb * MB, memPeakSource: 'cgroup', ...extra,
});

type Cell = StoredCell & { replicas?: ReplicaReading[]; nodeVersion?: string };
interface Extra { replicas?: number; node?: string; nodeVersion?: string; totalMb?: number; replicaMb?: number[]; processes?: boolean }

/** The primary and worker of each replica, read together (host pids), with file-backed pages of 40 MB each. */
const processes = (r: number): Partial<StatsSummary> => {
  const procs = Array.from({ length: r }, (_, i) => [
    { pid: 100 + i * 10, role: 'primary' as const, command: 'node cluster.js', rssPeakBytes: 45 * MB, anonPeakBytes: 5 * MB, filePeakBytes: 40 * MB, readings: 3 },
    { pid: 101 + i * 10, role: 'worker' as const, command: 'node server.js', rssPeakBytes: 60 * MB, anonPeakBytes: 20 * MB, filePeakBytes: 40 * MB, readings: 3 },
  ]).flat();
  // Counted once over all of them: Σ own parts (5 + 20 per replica) + one 40 MB file set.
  return { processes: procs, rssTotalPeakBytes: r * 105 * MB, rssSharedOncePeakBytes: (r * 25 + 40) * MB };
};

function cells(spec: Omit<CellSpec, 'rps' | 'p99Us'>, rps: number[], x: Extra = {}): Cell[] {
  return reps({ app: 'json', ...spec }, rps).map((c): Cell => {
    const r = x.replicas ?? 1;
    const cap = spec.mem ?? 256;
    return {
      ...c,
      config: { ...c.config, ...(r > 1 ? { replicas: r } : {}), ...(x.node ? { node: x.node } : {}) },
      ...(x.nodeVersion ? { nodeVersion: x.nodeVersion } : {}),
      ...(x.totalMb !== undefined ? { stats: stats(x.totalMb, cap * r, x.processes ? processes(r) : {}) } : {}),
      ...(r > 1
        ? {
            replicas: Array.from({ length: r }, (_, index) => ({
              index, share: 1 / r, requests: Math.round(c.requests! / r), connections: 10,
              ...(x.replicaMb ? { stats: stats(x.replicaMb[index]!, cap) } : {}),
            })),
          }
        : {}),
    };
  });
}

describe('the headline and summary name the topology, the version and the totals', () => {
  it('an undecided replicas run names each contender by containers × workers, on the scope’s totals', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 256 }, [10000, 11000, 9000], { replicas: 2 }),
      ...cells({ workers: 2, cpu: 1000, mem: 512 }, [10200, 9000, 11000]),
    ]));
    const h = rec.headline!;
    expect(h.state).toBe('undecided');
    expect(h.text).toMatch(/^Undecided on 1 CPU \/ 512 MB in total between 1 container × 2 cluster workers \(10,067 req\/s\) and 2 containers × 1 cluster worker \(10,000 req\/s\)/);
    // The pick's numbers where it ran, the total said once; no "1 cluster worker and 1 cluster worker".
    expect(rec.summary[0]).toMatch(/^1 container × 2 cluster workers on 1 CPU \/ 512 MB in total: 10,067 ± /);
    expect(rec.summary[1]).toBe('Not yet separable from 2 containers × 1 cluster worker (10,000 req/s).');
  });

  it('a replicated pick is said per container and in total, in the headline, the resources and History', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 256 }, [12000, 12100, 11950], { replicas: 2, totalMb: 60, replicaMb: [29, 31] }),
      ...cells({ workers: 2, cpu: 1000, mem: 512 }, [10000, 10080, 9920], { totalMb: 80 }),
    ]));
    expect(rec.headline!.text).toMatch(/^Pick: 2 containers × 1 cluster worker on 0.5 CPU \/ 256 MB each \(1 CPU \/ 512 MB in total\) — confident/);
    expect(rec.summary).toContain('Give each of its 2 containers a memory limit of 64 MB and 0.5 CPU (the only CPU cap tried: less may do) (128 MB and 1 CPU in total).');
    expect(runPickOf(rec)!.configuration).toBe('2 × cluster×1 on 0.5 CPU / 256 MB each (1 CPU / 512 MB in total)');
  });

  it('two Node.js versions are told apart in the headline (never "1 cluster worker and 1 cluster worker")', () => {
    const rec = recommend(run([
      ...cells({ workers: 1 }, [10000, 11000, 9000], { node: '20', nodeVersion: '20.18.0' }),
      ...cells({ workers: 1 }, [10200, 9000, 11000], { node: '22', nodeVersion: '22.11.0' }),
    ]));
    expect(rec.headline!.text).toContain('between 1 cluster worker (Node 22) (10,067 req/s) and 1 cluster worker (Node 20) (10,000 req/s)');
  });

  it('the one label rule: containers, version and flags; the context names the defaults beside them', () => {
    const a = { mode: 'cluster', workers: 2 } as const;
    expect(who(a)).toBe('2 cluster workers');
    expect(who({ ...a, replicas: 3, node: '22', nodeFlags: ['--max-semi-space-size=32'] })).toBe(
      '3 containers × 2 cluster workers (Node 22, --max-semi-space-size=32)',
    );
    const ctx = whoContext([a, { ...a, replicas: 2, node: '22', nodeFlags: ['--jitless'] }]);
    expect(who(a, ctx)).toBe('1 container × 2 cluster workers (the default Node.js, no flags)');
    expect(onWhat({ cpuMillis: 500, memoryMb: 256, replicas: 2 })).toBe('0.5 CPU / 256 MB each (1 CPU / 512 MB in total)');
    expect(onWhat({ cpuMillis: 500, memoryMb: 256 })).toBe('0.5 CPU / 256 MB');
    const list = [1, 2].map((workers) => ({ ...a, workers, replicas: 2 }) as ConfigurationSummary);
    expect(whoList(list)).toBe('2 containers × 1 and 2 cluster workers');
    expect(whoList([list[0]!, { ...list[1]!, replicas: undefined }])).toBe('2 containers × 1 cluster worker and 2 cluster workers');
  });
});

describe('memory of a replicated configuration, per replica and in total', () => {
  it('the limit per container comes from the largest replica’s peak and its share of the processes, not the total', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 256 }, [12000, 12100, 11950], { replicas: 2, totalMb: 59, replicaMb: [29, 30], processes: true }),
      ...cells({ workers: 2, cpu: 1000, mem: 512 }, [10000, 10080, 9920], { totalMb: 51 }),
    ]));
    const s = rec.sizing!.find((x) => x.recommended)!;
    expect(s.memory.peakBytes).toBe(30 * MB); // the larger replica, not 59 MB
    expect(s.memory.peakShareOfCap).toBeCloseTo(30 / 256, 6);
    // One replica's processes: 25 MB of its own + the 40 MB of files it maps itself = 65 MB (the total, 90 MB, counts the files once for both).
    expect(s.memory.fresh!.rssBytes).toBe(65 * MB);
    expect(s.memory.fresh!.processes).toBe(2);
    expect(s.memory.limitMb).toBe(96); // 65 × 1.25 = 81.25 → 96
    expect(s.memory.replicas).toEqual({ count: 2, from: 'replicas', totalPeakBytes: 59 * MB, limitTotalMb: 192 });
    const words = rec.sizingWords.join('\n');
    expect(words).toContain(
      'Memory for 2 containers × 1 cluster worker on 0.5 CPU / 256 MB each (1 CPU / 512 MB in total): peak 30 MB per container ' +
        "(the largest replica's: the cgroup's own peak, page cache included, the highest of 3 repetitions; 12 % of its cap), 59 MB for the 2 together;",
    );
    expect(words).toContain(
      "A fresh deployment needs 65 MB per container, the processes' resident memory (RSS, file-backed pages counted once: 2 processes)",
    );
    expect(words).toContain("The processes' memory is read for the 2 containers together: one container's is their even share, the image's files counted in each.");
    expect(words).toContain('Recommended memory limit: 96 MB (the processes\' resident memory × 1.25, rounded up to a multiple of 32 MB) per container, 192 MB for the 2 in total.');
  });

  it('without per-replica readings, the total ÷ replicas, said as such', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 256 }, [12000, 12100, 11950], { replicas: 2, totalMb: 60 }),
      ...cells({ workers: 2, cpu: 1000, mem: 512 }, [10000, 10080, 9920], { totalMb: 51 }),
    ]));
    const s = rec.sizing!.find((x) => x.recommended)!;
    expect(s.memory.peakBytes).toBe(30 * MB);
    expect(s.memory.replicas!.from).toBe('even-split');
    expect(rec.sizingWords.join('\n')).toContain("peak 30 MB per container (the 2 containers' total ÷ 2, as no reading per replica was recorded: ");
  });
});

describe('the one order of cost (cost-order.ts)', () => {
  const c = (workers: number, cpuMillis: number, memoryMb: number, replicas?: number): ConfigurationSummary =>
    ({ mode: 'cluster', workers, cpuMillis, memoryMb, ...(replicas ? { replicas } : {}) }) as ConfigurationSummary;

  it('fewer containers first, then fewer workers in total, then less CPU and memory in total', () => {
    // 1 × 1000m × 2 workers against 2 × 500m × 1 worker: the same 2 workers and 1 CPU in total, one container fewer.
    expect(cheaper(c(2, 1000, 512), c(1, 500, 256, 2))).toBeLessThan(0);
    // 2 × 500m × 1 worker against 2 × 500m × 2 workers: the same containers, fewer workers.
    expect(cheaper(c(1, 500, 256, 2), c(2, 500, 256, 2))).toBeLessThan(0);
    // Workers are counted in total: 1 × 4 workers before 2 × 1 (fewer containers), 2 × 1 before 2 × 2.
    expect([c(1, 500, 256, 2), c(4, 1000, 512), c(2, 500, 256, 2)].sort(cheaper).map((x) => `${x.replicas ?? 1}×${x.workers}`)).toEqual(['1×4', '2×1', '2×2']);
    // One order of cost (issue 39): the price per hour decides first, so 2 workers on 1 CPU / 256 MB
    // ($0.0327 an hour at the example prices) is cheaper than 1 worker on 1 CPU / 512 MB ($0.0337),
    // which the old rule (fewer workers first) put ahead; 2 CPU is the dearest.
    expect([c(2, 1000, 256), c(1, 2000, 256), c(1, 1000, 512)].sort(cheaper).map((x) => `${x.workers}/${x.cpuMillis}/${x.memoryMb}`)).toEqual(['2/1000/256', '1/1000/512', '1/2000/256']);
    // At an equal price the old tie-breaks stand: fewer workers first.
    expect([c(2, 1000, 256), c(1, 1000, 256)].sort(cheaper).map((x) => x.workers)).toEqual([1, 2]);
  });

  it('the objective’s cost order counts totals too: 2 × 500m is not cheaper than 1 × 750m', () => {
    const p = (x: ConfigurationSummary) => ({ ...x, p99Us: null });
    const order = [c(1, 500, 256, 2), c(1, 750, 512), c(2, 1000, 512)].map(p).sort(byCost);
    expect(order.map((x) => `${x.replicas ?? 1}×${x.cpuMillis}`)).toEqual(['1×750', '1×1000', '2×500']);
  });
});
