// One repetition's p99 gets an interval too: batch means of its per-second p99s on a log scale (the
// same computation auto-size's judge uses, from analysis/decide/stats.ts), and the words say where it came
// from and how much weaker one run is than repetitions.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { logPooledInterval, pooledInterval, summarizeOneLog, tQuantile } from '../../src-main/analysis/decide/stats.ts';
import { RUN_TO_RUN_SPREAD } from '../../src-main/common/thresholds.ts';
import { pooledInterval as judgePooled } from '../../src-main/engine/auto-size/judge.ts';
import type { Sample } from '../../src-main/model/types.ts';
import { singleRunWeakness } from '../../src-main/analysis/explain/words.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const sample = (t: number, p99Us: number, rps = 1000): Sample => ({ t, rps, bytes: 0, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us, maxUs: 1, cpuPct: null, memBytes: null, throttledPeriods: null });
// 16 seconds alternating ×e^±0.1 around 2 ms: four 4-second batches, each with the same geometric mean.
const wobble = (centreUs: number, logStep = 0.1): number[] => Array.from({ length: 16 }, (_, i) => centreUs * Math.exp(i % 2 ? logStep : -logStep));
const drift = (centreUs: number): number[] => Array.from({ length: 16 }, (_, i) => centreUs * Math.exp((i - 7.5) * 0.02));

describe('the shared log-scale interval', () => {
  it('is one function, used by the judge and the answer', () => {
    expect(judgePooled).toBe(pooledInterval);
  });

  it('is a geometric mean with an asymmetric interval, never below zero', () => {
    const iv = logPooledInterval([drift(2000)])!;
    expect(iv.batches).toBe(4);
    expect(iv.mean).toBeCloseTo(2000, 6); // the geometric mean of a log ramp symmetric about 2 ms
    expect(iv.low).toBeGreaterThan(0);
    expect(iv.high - iv.mean).toBeGreaterThan(iv.mean - iv.low);
    expect(logPooledInterval([[1000]])).toBeNull(); // under two batches
    expect(logPooledInterval([[1000, 0, -1]])).toBeNull(); // only positive seconds count
  });

  it('one repetition: around the cell\'s own p99, width from the log batch means, with a test-ready se', () => {
    const m = summarizeOneLog(2500, drift(2000));
    const iv = logPooledInterval([drift(2000)])!;
    const half = tQuantile(0.975, 3) * iv.logSe;
    expect(m.intervalFrom).toBe('batch-means');
    expect(m.mean).toBe(2500);
    expect(m.ci!.low).toBeCloseTo(2500 * Math.exp(-half), 6);
    expect(m.ci!.high).toBeCloseTo(2500 * Math.exp(half), 6);
    expect(m.se).toBeCloseTo(2500 * iv.logSe, 6);
    expect(m.df).toBe(3);
    expect(summarizeOneLog(2500, null)).toMatchObject({ ci: null, intervalFrom: null });
    expect(summarizeOneLog(2500, [1, 2, 3].map((x) => x * 1000)).ci).not.toBeNull(); // b = 1, three batches
  });
});

describe('the answer with one repetition', () => {
  const r = run([cell({ workers: 1, rps: 9000, p99Us: 2000 }), cell({ workers: 2, rps: 10000, p99Us: 2600 })]);
  const samples = new Map(r.cells.map((c) => [c.id, drift(c.p99Us!).map((p, i) => sample(i, p, c.rpsMean! + (i % 2 ? 50 : -50)))]));
  const rec = recommend(r, { samples });

  it('p99 has a batch-means interval and says so, like throughput', () => {
    for (const c of rec.configurations) {
      expect(c.p99Us!.intervalFrom).toBe('batch-means');
      expect(c.p99Us!.ci!.low).toBeLessThan(c.p99Us!.mean);
      expect(c.p99Us!.ci!.high).toBeGreaterThan(c.p99Us!.mean);
    }
    expect(rec.words.find((w) => w.startsWith('Lowest p99'))).toMatch(/^Lowest p99: 1 cluster worker \(2\.0+ ms \([\d.]+( ms)?–[\d.]+( ms)?\), one run, batch means of its per-second p99s\)\.$/);
  });

  it('without per-second samples there is still no p99 interval', () => {
    expect(recommend(r).configurations.every((c) => c.p99Us!.ci === null && c.p99Us!.intervalFrom === null)).toBe(true);
  });

  it('with repetitions the p99 interval is still their spread', () => {
    const rr = recommend(run(reps({ workers: 1 }, [9000, 9100, 9200], [2000, 2100, 2200])));
    expect(rr.configurations[0]!.p99Us!.intervalFrom).toBe('repetitions');
  });

  it('says how much weaker one run is, against the run-to-run spread the benchmark measured', () => {
    const line = rec.words.find((w) => w.startsWith('Every configuration ran once'))!;
    expect(line).toContain(`differed by up to ${(RUN_TO_RUN_SPREAD * 100).toFixed(1)} %`);
    expect(line).toMatch(/times narrower than the variation it cannot see/);
    expect(rec.method).toContain('repeatability benchmark');
    expect(rec.method).toContain('log scale');
  });

  it('the comparison follows the widths: narrow intervals are called narrower, wide ones not', () => {
    const cfg = (mean: number, halfWidth: number) => ({ rps: { mean, ci: { halfWidth } } }) as never;
    expect(singleRunWeakness([cfg(10000, 50)])).toMatch(/1\.0 % wide: about 8\.3 times narrower/);
    expect(singleRunWeakness([cfg(10000, 500)])).toMatch(/about as wide as a single run's interval here \(10 %\), but that interval does not include it/);
  });
});
