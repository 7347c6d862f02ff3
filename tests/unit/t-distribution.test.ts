// Student's t (common/t-distribution.ts, over stdlib) against published values: the two-sided 95 %
// critical values of any t table, closed forms for df 1 and 2, and the normal limit.
import { describe, expect, it } from 'vitest';
import { studentTCdf, tQuantile } from '../../src-main/common/t-distribution.ts';

describe('the t quantile', () => {
  it('gives the two-sided 95 % critical values of the t table', () => {
    const table: [number, number][] = [[1, 12.706], [2, 4.303], [5, 2.571], [10, 2.228], [30, 2.042]];
    for (const [df, t] of table) expect(Math.abs(tQuantile(0.975, df) - t)).toBeLessThan(5e-4);
    // More digits where a table gives them: df 10 → 2.228139, df 2 → 4.302653.
    expect(tQuantile(0.975, 10)).toBeCloseTo(2.228139, 6);
    expect(tQuantile(0.975, 2)).toBeCloseTo(4.302653, 6);
  });

  it('gives other levels of the table: one-sided 95 % and two-sided 99 %', () => {
    expect(tQuantile(0.95, 10)).toBeCloseTo(1.812461, 6);
    expect(tQuantile(0.995, 5)).toBeCloseTo(4.032143, 6);
    expect(tQuantile(0.995, 20)).toBeCloseTo(2.845340, 6);
  });

  it('approaches the normal as df grows, and takes an infinite df as the normal', () => {
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.959966, 5);
    expect(tQuantile(0.975, Infinity)).toBeCloseTo(1.959964, 6);
    expect(tQuantile(0.5, 7)).toBe(0);
  });

  it('is symmetric and refuses what has no answer', () => {
    expect(tQuantile(0.025, 4)).toBeCloseTo(-tQuantile(0.975, 4), 12);
    expect(() => tQuantile(1, 3)).toThrow(/0 < p < 1/);
    expect(() => tQuantile(0, 3)).toThrow(/0 < p < 1/);
    expect(() => tQuantile(0.9, 0)).toThrow(/df > 0/);
  });
});

describe('the t CDF', () => {
  it('is one half at 0 for any df, fractional ones included', () => {
    for (const df of [1, 2.5, 7, 30, 1e6]) expect(studentTCdf(0, df)).toBe(0.5);
  });

  it('meets the table where the quantile does: CDF(2.228, 10) ≈ 0.975', () => {
    expect(studentTCdf(2.228, 10)).toBeCloseTo(0.975, 4);
    expect(studentTCdf(-2.571, 5)).toBeCloseTo(0.025, 4);
  });

  it('matches the closed forms of df 1 (Cauchy) and df 2', () => {
    expect(studentTCdf(1, 1)).toBeCloseTo(0.75, 12); // ½ + atan(1)/π
    expect(studentTCdf(-3, 1)).toBeCloseTo(0.5 + Math.atan(-3) / Math.PI, 12);
    expect(studentTCdf(1, 2)).toBeCloseTo(0.5 + 1 / (2 * Math.sqrt(3)), 12); // ½ + t / (2 √(2 + t²))
  });

  it('approaches the normal for large df: Φ(1.96) = 0.975, Φ(−3) = 0.00135', () => {
    expect(studentTCdf(1.959963984540054, 1e9)).toBeCloseTo(0.975, 8);
    expect(studentTCdf(-3, Infinity)).toBeCloseTo(0.0013498980316301, 10);
  });

  it('inverts the quantile', () => {
    for (const [p, df] of [[0.9, 3], [0.975, 8.4], [0.001, 15]] as const) expect(studentTCdf(tQuantile(p, df), df)).toBeCloseTo(p, 10);
  });
});
