// The answer's lines for "more containers or more workers?" and "which Node.js, which flags?", on
// constructed runs: every relation the contest can give (equivalent, shown within, one better,
// undecided, a lower bound), memory per replica and in total, the uneven-share caveat, the CPU a
// faster version saves (measured, or an estimate said as one), and flags.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import type { Recommendation } from '../../src-main/analysis/index.ts';
import type { ReplicaReading } from '../../src-main/model/replicas.ts';
import type { Flag, StatsSummary } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/model/stored.ts';
import { reps, run, type CellSpec } from '../helpers/run-fixture.ts';

const MB = 2 ** 20;
const stats = (peakMb: number): StatsSummary => ({
  cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: peakMb * MB, memMaxBytes: peakMb * MB, memLimitBytes: 512 * MB,
  throttledPeriods: 0, throttledMs: 0, samples: 10, memPeakBytes: peakMb * MB, memPeakSource: 'cgroup',
});

interface Extra { replicas?: number; node?: string; nodeFlags?: string[]; nodeVersion?: string; peakMb?: number; replicaPeakMb?: number; shares?: number[] }
type Cell = StoredCell & { replicas?: ReplicaReading[]; nodeVersion?: string };

/** Repetitions of one configuration with the model's new fields: replicas (their readings), Node.js, flags. */
function cells(spec: Omit<CellSpec, 'rps' | 'p99Us'>, rps: number[], x: Extra = {}): Cell[] {
  return reps({ app: 'json', ...spec }, rps).map((c): Cell => {
    const r = x.replicas ?? 1;
    const shares = x.shares ?? Array.from({ length: r }, () => 1 / r);
    return {
      ...c,
      config: {
        ...c.config,
        ...(r > 1 ? { replicas: r } : {}),
        ...(x.node ? { node: x.node } : {}),
        ...(x.nodeFlags ? { nodeFlags: x.nodeFlags } : {}),
      },
      ...(x.peakMb !== undefined ? { stats: stats(x.peakMb) } : {}),
      ...(x.nodeVersion ? { nodeVersion: x.nodeVersion } : {}),
      ...(r > 1
        ? {
            replicas: shares.map((share, index) => ({
              index, share, requests: Math.round(share * c.requests!), connections: 10,
              ...(x.replicaPeakMb !== undefined ? { stats: stats(x.replicaPeakMb) } : {}),
            })),
          }
        : {}),
    };
  });
}

const notes = (rec: Recommendation, kind: string) => (rec.comparisons ?? []).filter((n) => n.kind === kind);
const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };

describe('more containers or more workers', () => {
  it('equivalent by TOST at equal total CPU, with memory per replica and in total', () => {
    // The single container serves a little more, so the costlier replicas get TOST (fewer containers are cheaper).
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10000, 10080, 9920], { replicas: 2, replicaPeakMb: 60 }),
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [10050, 9950, 10100], { peakMb: 80 }),
    ]));
    const [n] = notes(rec, 'topology');
    expect(notes(rec, 'topology')).toHaveLength(1);
    expect(n!.relation).toBe('equivalent');
    expect(n!.text).toMatch(/^At 1 CPU \/ 256 MB in total \(json, 20 connections\), 1 container × 2 cluster workers and 2 containers × 1 cluster worker are equivalent on goodput \(TOST ±5 %: p [^;]+; 10,033 ± \d+ against 10,000 ± \d+ req\/s\); the answer prefers 1 container × 2 cluster workers: fewer containers for the same total/);
    expect(n!.text).toContain('Memory (peak): 1 container × 2 cluster workers peaked at 80 MB; 2 containers × 1 cluster worker at 60 MB each, 120 MB in total: the single container uses 40 MB less in total than the 2 containers.');
    // The answer deploys what the line prefers.
    expect(rec.headline!.key).toBe(rec.configurations.find((c) => c.replicas === undefined)!.key);
    expect(n!.text).not.toContain('Caveat');
    // Said in the words, and in the summary as the question the pick's scope answers.
    expect(rec.words).toContain(n!.text);
    expect(rec.summary).toContain(n!.text);
  });

  it('a cheaper topology shown within the margin is said so (non-inferiority), not "equivalent"', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10050, 10020, 10040], { replicas: 2 }),
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [9990, 9980, 10000]),
    ]));
    const [n] = notes(rec, 'topology');
    expect(n!.relation).toBe('good-enough');
    expect(n!.text).toMatch(/1 container × 2 cluster workers is shown within 5 % of 2 containers × 1 cluster worker on goodput \(10,037 ± \d+ against 9,990 ± \d+ req\/s; one-sided Welch, Holm 5 %: p [^)]+\); the answer prefers 1 container × 2 cluster workers: fewer containers/);
    // No per-replica peak recorded: said so, never made up from the total.
    expect(n!.text).toContain('no per-replica peak was recorded for 2 containers × 1 cluster worker.');
    expect(n!.text).not.toContain('in total than');
  });

  it('one topology better: the gain on the means and the test; the best of each replica count is compared', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 1000, mem: 256 }, [9000, 9050, 8990]),
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [12000, 12100, 11950]),
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10000, 10100, 9950], { replicas: 2 }),
    ]));
    const ns = notes(rec, 'topology');
    expect(ns).toHaveLength(1);
    expect(ns[0]!.relation).toBe('worse');
    expect(ns[0]!.text).toMatch(/^At 1 CPU \/ 256 MB in total \(json, 20 connections\), 1 container × 2 cluster workers serves 20 % more than 2 containers × 1 cluster worker \(12,017 ± \d+ against 10,017 ± \d+ req\/s; one-sided Welch, Holm 5 %: p /);
  });

  it('a lower bound: a client-bound best serves "at least" more; a client-bound rival blocks the order', () => {
    const bound = (cs: Cell[]): Cell[] => cs.map((c) => ({ ...c, flags: [clientBound] }));
    const a = recommend(run([
      ...bound(cells({ workers: 2, cpu: 1000, mem: 256 }, [12000, 12100, 11950])),
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10000, 10100, 9950], { replicas: 2 }),
    ]));
    const [na] = notes(a, 'topology');
    expect(na!.text).toContain('1 container × 2 cluster workers serves at least 20 % more than 2 containers × 1 cluster worker (≥ 12,017 against 10,017 ± 190 req/s');
    expect(na!.text).toContain('≥: a lower bound, the load generator set the pace');
    const b = recommend(run([
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [12000, 12100, 11950]),
      ...bound(cells({ workers: 1, cpu: 500, mem: 128 }, [10000, 10100, 9950], { replicas: 2 })),
    ]));
    const [nb] = notes(b, 'topology');
    expect(nb!.relation).toBe('undecided');
    expect(nb!.text).toContain('cannot be ordered here (12,017 ± ');
    expect(nb!.text).toContain('a lower bound stands in the way');
  });

  it('an uneven share of the load across replicas is a caveat; an even one is not', () => {
    const uneven = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10050, 10020, 10040], { replicas: 2, shares: [0.62, 0.38] }),
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [10000, 9990, 10010]),
    ]));
    expect(notes(uneven, 'topology')[0]!.text).toContain(
      'Caveat: the load did not reach 2 containers × 1 cluster worker evenly (shares 62 % and 38 % in its most uneven repetition, against 50 % each when even)',
    );
    const nearlyEven = recommend(run([
      ...cells({ workers: 1, cpu: 500, mem: 128 }, [10050, 10020, 10040], { replicas: 2, shares: [0.53, 0.47] }),
      ...cells({ workers: 2, cpu: 1000, mem: 256 }, [10000, 9990, 10010]),
    ]));
    expect(notes(nearlyEven, 'topology')[0]!.text).not.toContain('Caveat');
  });

  it('a run without replicas, versions or flags has no comparison lines', () => {
    const rec = recommend(run([...cells({ workers: 1 }, [10000, 10050, 9990]), ...cells({ workers: 2 }, [12000, 12100, 11950])]));
    expect(rec.comparisons).toEqual([]);
  });
});

describe('which Node.js', () => {
  const v20 = { node: '20', nodeVersion: '20.18.0' };
  const v22 = { node: '22', nodeVersion: '22.11.0' };

  it('a faster version: more per CPU by Welch + Holm, and the CPU it saves as an estimate said as one', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 1000, mem: 256 }, [10000, 10050, 9980], v20),
      ...cells({ workers: 1, cpu: 1000, mem: 256 }, [11200, 11250, 11180], v22),
    ]));
    const [n] = notes(rec, 'version');
    expect(n!.relation).toBe('worse');
    expect(n!.text).toMatch(/^Node 22 \(22\.11\.0\) serves 12 % more per CPU than Node 20 \(20\.18\.0\) \(11,210 ± \d+ against 10,010 ± \d+ req\/s; one-sided Welch, Holm 5 %: p [^)]+\), with 1 cluster worker on 1 CPU \/ 256 MB \(json, 20 connections\): /);
    // 1000m × 10,010 ÷ 11,210 = 893m, rounded up to 900m; no cell ran there, and it says so.
    expect(n!.text).toContain('the same goodput would fit in about 900m instead of 1000m — an estimate, not a measurement: 1000m × 10,010 ÷ 11,210, rounded up to 25m, if goodput scales in proportion to CPU; no cell ran at 900m');
  });

  it('where the run measured the faster version at a smaller cap holding the goodput, that cap is said, not an estimate', () => {
    const rec = recommend(run([
      ...cells({ workers: 1, cpu: 1000, mem: 256 }, [10000, 10050, 9980], v20),
      ...cells({ workers: 1, cpu: 1000, mem: 256 }, [11200, 11250, 11180], v22),
      ...cells({ workers: 1, cpu: 750, mem: 256 }, [10100, 10150, 10080], v22),
    ]));
    const [n] = notes(rec, 'version').filter((x) => x.text.includes('1000m'));
    expect(n!.text).toContain("Node 22 (22.11.0) at 750m already served 10,110 req/s, at least Node 20 (20.18.0)'s 10,010 at 1000m (measured, on the means)");
    expect(n!.text).not.toContain('estimate');
  });

  it('versions within the margin are equivalent; noisy ones are not distinguishable', () => {
    const eq = recommend(run([
      ...cells({ workers: 1 }, [10000, 10050, 9980], v20),
      ...cells({ workers: 1 }, [10020, 10040, 10010], v22),
    ]));
    expect(notes(eq, 'version')[0]!.text).toMatch(/^With 1 cluster worker on 1 CPU \/ 256 MB \(json, 20 connections\), Node 22 \(22\.11\.0\) and Node 20 \(20\.18\.0\) are equivalent on goodput \(TOST ±5 %/);
    const noisy = recommend(run([
      ...cells({ workers: 1 }, [9000, 10500, 9300], v20),
      ...cells({ workers: 1 }, [9500, 10400, 10000], v22),
    ]));
    const [n] = notes(noisy, 'version');
    expect(n!.relation).toBe('undecided');
    expect(n!.text).toMatch(/^With 1 cluster worker on 1 CPU \/ 256 MB \(json, 20 connections\), Node 22 \(22\.11\.0\) and Node 20 \(20\.18\.0\) are not distinguishable here \(/);
    expect(n!.text).toContain('more repetitions could tell them apart');
    expect(n!.text).not.toContain('per CPU');
  });

  it('versions whose goodput are both a busy host\'s lower bounds: no test applies, and it says what would decide it', () => {
    const busy: Flag = { kind: 'host-busy', reason: 'others took 40 % of core 1' };
    const rec = recommend(run([
      ...cells({ workers: 1 }, [9600, 9590], v20).map((c) => ({ ...c, flags: [busy] })),
      ...cells({ workers: 1 }, [9750, 9600], v22).map((c) => ({ ...c, flags: [busy] })),
    ]));
    const [n] = notes(rec, 'version');
    expect(n!.relation).toBe('undecided');
    expect(n!.text).toContain('are not distinguishable here (≥ 9,675 against ≥ 9,595 req/s; ≥: a lower bound, the host or the load generator set the pace, so no test applies): repetitions on a quieter host could tell them apart');
  });

  it('a flag against none: "adds N % goodput" with the test; a flag that costs is said so', () => {
    const flag = ['--max-semi-space-size=32'];
    const adds = recommend(run([
      ...cells({ workers: 1 }, [10000, 10050, 9980]),
      ...cells({ workers: 1 }, [10600, 10650, 10580], { nodeFlags: flag }),
    ]));
    const [n] = notes(adds, 'flags');
    expect(n!.text).toMatch(/^--max-semi-space-size=32 adds 6 % goodput with 1 cluster worker on 1 CPU \/ 256 MB \(json, 20 connections\) \(10,610 ± \d+ against 10,010 ± \d+ req\/s; one-sided Welch, Holm 5 %: p/);
    const costs = recommend(run([
      ...cells({ workers: 1 }, [10600, 10650, 10580]),
      ...cells({ workers: 1 }, [10000, 10050, 9980], { nodeFlags: flag }),
    ]));
    expect(notes(costs, 'flags')[0]!.text).toMatch(/^--max-semi-space-size=32 costs 5\.7 % goodput with 1 cluster worker/);
    // Versions and flags are not topologies: no topology line.
    expect(notes(adds, 'topology')).toEqual([]);
  });
});
