// What each configuration costs, checked by hand, and the cheapest-that-meets rule on constructed
// data: decided only when a test shows it, a client-bound cost said as an upper bound, a rival whose
// cost is only an upper bound never shown costlier, and no pick on point means.
import { describe, expect, it } from 'vitest';
import { copiesFor, fmtMoney, hourlyCost, parsePrice, perMillion, pricesText } from '../../src-main/common/cost.ts';
import { costsOf, costText, pricesFor } from '../../src-main/analysis/decide/cost.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import type { Flag } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const PRICES = { cpuHour: 0.04, gbHour: 0.005, replicaHour: 0 };
const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const bound = (cs: StoredCell[]): StoredCell[] => cs.map((c) => ({ ...c, flags: [clientBound], clientBound: true }));
const replicas = (n: number, cs: StoredCell[]): StoredCell[] => cs.map((c) => ({ ...c, config: { ...c.config, replicas: n } }));
const priced = (cells: StoredCell[], extra: Record<string, unknown> = {}) =>
  recommend(run(cells, { matrix: { apps: ['hello'], placement: 'auto', prices: PRICES } }), extra);

describe('the arithmetic (common/cost.ts)', () => {
  it('hourly cost, per million and copies, by hand', () => {
    // 1 CPU and 256 MB: 1 × $0.04 + 256/1024 × $0.005 = 0.04 + 0.00125 = $0.04125 an hour.
    expect(hourlyCost({ cpuMillis: 1000, memoryMb: 256 }, PRICES)).toBeCloseTo(0.04125, 12);
    // 2 replicas of 500m / 512 MB with $0.01 per replica-hour: 2 × (0.5 × 0.04 + 0.5 × 0.005 + 0.01) = 2 × 0.0325 = $0.065.
    expect(hourlyCost({ cpuMillis: 500, memoryMb: 512, replicas: 2 }, { ...PRICES, replicaHour: 0.01 })).toBeCloseTo(0.065, 12);
    // replicas 1 (or absent) counts once.
    expect(hourlyCost({ cpuMillis: 500, memoryMb: 512, replicas: 1 }, PRICES)).toBeCloseTo(0.0225, 12);
    // $0.04125 an hour at 1,000 req/s: 0.04125 ÷ (1000 × 3600) × 1e6 = 0.0114583… dollars per million requests.
    expect(perMillion(0.04125, 1000)).toBeCloseTo(0.0114583333, 9);
    expect(perMillion(0.04125, 0)).toBeNull();
    // 2,500 req/s at 1,000 req/s per copy: ⌈2.5⌉ = 3 copies; exactly 2,000: 2 (no float-error extra copy).
    expect(copiesFor(2500, 1000)).toBe(3);
    expect(copiesFor(2000, 1000.0000000001)).toBe(2);
    expect(copiesFor(100, 1000)).toBe(1);
  });

  it('money and prices in words; a bad price names its option', () => {
    expect(fmtMoney(0.0114583)).toBe('$0.0115');
    expect(fmtMoney(0.12375)).toBe('$0.124');
    expect(fmtMoney(1.5)).toBe('$1.50');
    expect(fmtMoney(1234.4)).toBe('$1,234');
    expect(pricesText({ ...PRICES, replicaHour: 0.01 })).toBe('$0.04 per vCPU-hour, $0.005 per GB-hour, $0.01 per replica-hour');
    expect(parsePrice('--cpu-price', '$0.0316')).toBe(0.0316);
    expect(parsePrice('--cpu-price', '-1')).toMatch(/^--cpu-price takes a price per hour in dollars from 0 to 1000/);
    expect(parsePrice('--memory-price', 'cheap')).toMatch(/^--memory-price .*got "cheap"/);
  });
});

describe('each configuration’s cost at its measured goodput (analysis/decide/cost.ts)', () => {
  it('per million requests with the interval of the answer’s own goodput, and at the objective’s rate', () => {
    // 1 worker on 1 CPU / 256 MB: 900, 1000, 1100 req/s → mean 1000, sd 100, se 100/√3 = 57.735,
    // t(0.975, 2) = 4.3027; on the log scale t·se/mean = 0.24841 → goodput 1000·e^∓0.24841 = 780.04–1281.99 req/s.
    // Hourly $0.04125 → 0.04125e6 / 3600 = 11.4583 per (req/s): per million 11.4583 / 1000 = $0.011458,
    // interval 11.4583 / 1281.99 = $0.0089379 to 11.4583 / 780.04 = $0.014689.
    const rec = priced(reps({ workers: 1 }, [900, 1000, 1100]));
    const k = rec.costs!.configurations[0]!;
    expect(rec.costs!.source).toBe('run');
    expect(k.hourly).toBeCloseTo(0.04125, 12);
    expect(k.perMillion).toBeCloseTo(0.0114583, 6);
    expect(k.interval!.low).toBeCloseTo(0.0089379, 6);
    expect(k.interval!.high).toBeCloseTo(0.014689, 5);
    expect(k.upperBound).toBe(false);
    expect(costText(k)).toBe('$0.0115 (0.00894–0.0147)');
    // At a 2,500 req/s objective: ⌈2500 / 1000⌉ = 3 copies (⌈2500 / 1281.99⌉ = 2 to ⌈2500 / 780.04⌉ = 4), 3 × 0.04125 = $0.12375 an hour.
    const at = costsOf(rec.configurations, { p99Ms: 50, minRps: 2500, maxErrorPct: 1 }, PRICES, 'given', 5).configurations[0]!;
    expect(at.atRate).toEqual({ rate: 2500, copies: 3, copiesLow: 2, copiesHigh: 4, hourly: expect.closeTo(0.12375, 12) });
    expect(at.meets).toBe(false); // 1,000 req/s is below the 2,500 the objective asks of one configuration
  });

  it('replicas multiply the hourly cost; the goodput is the replicas’ total', () => {
    // 2 replicas × (0.5 × 0.04 + 0.5 × 0.005) = $0.045 an hour at 2,000 req/s: 0.045e6 / 3600 / 2000 = $0.00625 per million.
    const rec = priced(replicas(2, reps({ workers: 1, cpu: 500, mem: 512 }, [1990, 2000, 2010])));
    const k = rec.costs!.configurations[0]!;
    expect(k.replicas).toBe(2);
    expect(k.hourly).toBeCloseTo(0.045, 12);
    expect(k.perMillion).toBeCloseTo(0.00625, 9);
    expect(k.label).toBe('2 containers × 1 cluster worker on 0.5 CPU / 512 MB each (1 CPU / 1 GB in total)');
  });

  it('a client-bound goodput is a lower bound, so its cost is an upper bound, said with ≤', () => {
    const rec = priced(bound(reps({ workers: 1 }, [2000, 2010, 1990])));
    const k = rec.costs!.configurations[0]!;
    expect(k.upperBound).toBe(true);
    // 11.4583 / 2000 = $0.00573 at most.
    expect(costText(k)).toBe('≤ $0.00573');
    expect(rec.costs!.cheapest[0]!.text).toBe('Cost: only 1 cluster worker on 1 CPU / 256 MB was measured, at ≤ $0.00573 per million requests.');
  });

  it('prices: given now over the run’s stored ones over the example defaults', () => {
    expect(pricesFor({ prices: PRICES }, { cpuHour: 0.1 })).toEqual({ prices: { ...PRICES, cpuHour: 0.1 }, source: 'given' });
    expect(pricesFor({ prices: PRICES })).toEqual({ prices: PRICES, source: 'run' });
    expect(pricesFor({ apps: [] }).source).toBe('default');
    // Recomputed at prices given now: $0.08 per vCPU-hour doubles the CPU part: 0.08 + 0.00125 = $0.08125.
    const rec = priced(reps({ workers: 1 }, [900, 1000, 1100]), { prices: { cpuHour: 0.08 } });
    expect(rec.costs!.configurations[0]!.hourly).toBeCloseTo(0.08125, 12);
    expect(rec.costs!.source).toBe('given');
  });
});

describe('the cheapest configuration that meets the objective, against its runner-up', () => {
  // A: 1 worker on 1 CPU / 256 MB, $0.04125 an hour; B: 2 workers on 2 CPU / 256 MB, 2 × 0.04 + 0.00125 = $0.08125 an hour.
  const A = (rps: number[]) => reps({ workers: 1, cpu: 1000 }, rps);
  const B = (rps: number[]) => reps({ workers: 2, cpu: 2000 }, rps);

  it('decided: A costs less per million than B, shown by the test, and the runner-up’s cost is said', () => {
    // A ≈ 1000 req/s → $0.011458; B ≈ 1500 req/s → 0.08125e6 / 3600 / 1500 = $0.015046.
    // A cheaper ⟺ g_A − (0.04125 / 0.08125) g_B > 0: 1000 − 0.5077 × 1500 = 238.5 req/s, far beyond its error.
    // A's goodput interval on the log scale: 1000·e^∓(4.3027 × 5.7735 / 1000) = 975.46–1025.15 → $0.011177–0.011747.
    const rec = priced([...A([1000, 1010, 990]), ...B([1500, 1510, 1490])]);
    const c = rec.costs!.cheapest[0]!;
    expect(c.state).toBe('decided');
    expect(rec.configurations.find((x) => x.key === c.cheapest)!.workers).toBe(1);
    expect(c.text).toMatch(/^Cheapest per million requests: 1 cluster worker on 1 CPU \/ 256 MB at \$0\.0115 \(0\.0112–0\.0117\) per million requests; the runner-up, 2 cluster workers on 2 CPUs \/ 256 MB, would cost \$0\.0150 \(0\.0148–0\.0153\) \(shown costlier, p < 0\.001\)\.$/);
    // One line, in the answer's words and in its summary.
    expect(rec.words).toContain(c.text);
    expect(rec.summary).toContain(c.text);
  });

  it('undecided: the two costs are not distinguishable, so none is named cheapest (never on point means)', () => {
    // B ≈ 2066.7 ± wide req/s → $0.010921, lower than A's $0.011458 on the means, but
    // g_B − (0.08125 / 0.04125) g_A = 2066.7 − 1.9697 × 1000 = 97 req/s against an se of ~176: not shown.
    const rec = priced([...A([1000, 1010, 990]), ...B([1800, 2400, 2000])]);
    const c = rec.costs!.cheapest[0]!;
    expect(c.state).toBe('undecided');
    expect(c.notDistinguishable).toHaveLength(1);
    expect(c.text).toMatch(/^Cheapest per million requests: not decided, 2 cluster workers .* and 1 cluster worker .* are not distinguishable \(p = .*; more repetitions would decide\)\.$/);
  });

  it('a rival whose cost is only an upper bound is never shown costlier', () => {
    // B client-bound at ≥ 1500 req/s: its cost ≤ $0.015046 may be far lower, so A cannot be shown cheaper.
    const rec = priced([...A([1000, 1010, 990]), ...bound(B([1500, 1510, 1490]))]);
    const c = rec.costs!.cheapest[0]!;
    expect(c.state).toBe('undecided');
    expect(c.text).toContain('≤ $0.0150');
    expect(c.text).toContain("a rival's cost is only an upper bound");
  });

  it('one repetition without a series has no interval: undecided, not picked on means', () => {
    const rec = priced([cell({ workers: 1, rps: 1000 }), cell({ workers: 2, cpu: 2000, rps: 1500 })]);
    const c = rec.costs!.cheapest[0]!;
    expect(c.state).toBe('undecided');
    expect(c.text).toContain('no interval to test');
  });

  it('with an objective only configurations meeting it are priced as its answer; the rate’s copies are said', () => {
    // C (1 worker on 0.5 CPU, $0.02125 an hour) is cheapest per million but misses p99 ≤ 2 ms (5 ms): not a candidate.
    const C = reps({ workers: 1, cpu: 500 }, [1000, 1010, 990], [5000, 5000, 5000]);
    const slo = { p99Ms: 2, minRps: 800, maxErrorPct: 1 };
    const rec = priced([...C, ...A([1000, 1010, 990]), ...B([1500, 1510, 1490])], { slo });
    const c = rec.costs!.cheapest[0]!;
    expect(rec.costs!.configurations.find((k) => k.label.includes('0.5 CPU'))!.meets).toBe(false);
    expect(c.state).toBe('decided');
    expect(c.text).toMatch(/^Cheapest per million requests meeting the objective: 1 cluster worker on 1 CPU \/ 256 MB at \$0\.0115/);
    // 800 req/s at 1000 req/s per copy: ⌈0.8⌉ = 1 copy, $0.04125 an hour.
    expect(c.text).toContain("at the objective's 800 req/s: ⌈800 ÷ 1,000⌉ = 1 copy, $0.0413 an hour");
  });

  // Two CPU caps: 0.5 CPU ($0.02125 an hour) against 1 CPU ($0.04125). 1 CPU is the lowest per million at 1,000 req/s;
  // 0.5 CPU matches it per dollar at 1,000 × 0.02125 ÷ 0.04125 = 515 req/s, and is within 5 % above 0.95 × 515 = 489.
  const half = (rps: number[]) => reps({ workers: 1, cpu: 500 }, rps);
  const one = (rps: number[]) => reps({ workers: 1, cpu: 1000 }, rps);
  it('the cost line reads the contest: within the margin per dollar, it names the answer as the cheapest of them', () => {
    // 500 req/s is shown below 515 (a test of its own would call it "costlier"), and shown above 489: within the margin.
    const rec = priced([...half([500, 502, 498]), ...one([1000, 1010, 990])]);
    const c = rec.costs!.cheapest[0]!;
    expect(c.state).toBe('equivalent');
    expect(c.text).not.toContain('costlier');
    expect(c.text).toMatch(/^Cheapest per million requests: 1 cluster worker on 1 CPU \/ 256 MB at \$0\.0115 .*; shown within 5 % of it: 1 cluster worker on 0\.5 CPU \/ 256 MB at \$0\.0118 .*\. The answer is the cheapest of them, 1 cluster worker on 0\.5 CPU \/ 256 MB\.$/);
    expect(rec.headline!.text).toContain('0.5 CPU');
  });

  it('an undecided contest leaves the cost line undecided, naming the same two', () => {
    const rec = priced([...half([470, 530, 500]), ...one([1000, 1010, 990])]);
    const c = rec.costs!.cheapest[0]!;
    expect(rec.decisions![0]!.state).toBe('undecided');
    expect(c.state).toBe('undecided');
    expect(c.text).toMatch(/not decided, 1 cluster worker on 1 CPU .* and 1 cluster worker on 0\.5 CPU .* are not distinguishable/);
  });

  it('none meets: said so, and nothing is priced as the answer', () => {
    const rec = priced(A([1000, 1010, 990]), { slo: { p99Ms: 0.5, minRps: 0, maxErrorPct: 1 } });
    expect(rec.costs!.cheapest[0]).toMatchObject({ state: 'none', cheapest: null });
    expect(rec.words).toContain('No configuration meets the objective, so none is priced as its answer.');
  });
});

describe('an auto-size run is priced by what its search found', () => {
  it('found: its price an hour and per million at the rate; none: said so', async () => {
    const { searchCostLine } = await import('../../src-main/analysis/decide/cost.ts');
    const base = { status: 'found', app: 'hello', slo: { p99Ms: 50, minRps: 500, maxErrorPct: 1 }, rate: 500, objective: '', foundKey: 'k', evidence: null, memoryFrom: 'peak', bestSoFar: null, words: '', cells: 5, gridCells: 80 } as const;
    // 0.5 CPU / 256 MB: 0.5 × 0.04 + 0.25 × 0.005 = $0.02125 an hour; at 500 req/s: 0.02125e6 / 3600 / 500 = $0.0118 per million.
    const found = searchCostLine({ ...base, found: { mode: 'cluster', workers: 1, cpuMillis: 500, memoryMb: 256 } }, PRICES);
    expect(found.text).toBe('What the search found, cluster × 1 worker, 0.5 CPU, 256 MB, costs $0.0213 an hour: $0.0118 per million requests at 500 req/s.');
    expect(searchCostLine({ ...base, status: 'none', found: null, foundKey: null }, PRICES)).toMatchObject({ state: 'none' });
  });
});
