// A p99 from one run has an asymmetric interval (taken on a log scale): tables and sentences give both ends, never "± half".
import { describe, expect, it } from 'vitest';
import { p99Short, p99Text, rpsShort, type ConfigurationSummary } from '../../src-main/analysis/index.ts';

const withP99 = (p99Us: unknown): ConfigurationSummary => ({ p99Us } as unknown as ConfigurationSummary);

describe('p99 in words', () => {
  it('gives both ends of a batch-means interval', () => {
    const c = withP99({ mean: 2100, n: 1, intervalFrom: 'batch-means', ci: { low: 1900, high: 2400, halfWidth: 250 } });
    expect(p99Short(c)).toBe('2.10 ms (1.90–2.40)');
    expect(p99Text(c)).toBe('2.10 ms (1.90–2.40), one run, batch means of its per-second p99s');
    // Ends in another unit than the mean keep their own.
    expect(p99Short(withP99({ mean: 1500, n: 1, intervalFrom: 'batch-means', ci: { low: 900, high: 2400, halfWidth: 750 } }))).toBe('1.50 ms (900 µs–2.40 ms)');
  });

  it('gives ± the half-width over repetitions, and says when there is no interval', () => {
    expect(p99Short(withP99({ mean: 2100, n: 3, intervalFrom: 'repetitions', ci: { low: 1800, high: 2400, halfWidth: 300 } }))).toBe('2.10 ms ± 0.30');
    expect(p99Short(withP99({ mean: 2100, n: 1, ci: null }))).toBe('2.10 ms (n = 1)');
  });
  it('says how many repetitions there were where there is no interval: two are too few to bound, not one (p99 and goodput)', () => {
    expect(p99Short(withP99({ mean: 2100, n: 2, ci: null }))).toBe('2.10 ms (n = 2, too few to bound)');
    const withRps = (rps: unknown): ConfigurationSummary => ({ rps } as unknown as ConfigurationSummary);
    expect(rpsShort(withRps({ mean: 4488.2, n: 2, ci: null }))).toBe('4,488 (n = 2, too few to bound)');
    expect(rpsShort(withRps({ mean: 4488.2, n: 1, ci: null }))).toBe('4,488 (n = 1)');
    expect(rpsShort(withRps({ mean: 25309, n: 3, intervalFrom: 'repetitions', ci: { low: 24497, high: 26121, halfWidth: 812 } }))).toBe('25,309 ± 812');
    expect(rpsShort(withRps({ mean: 25309, n: 1, intervalFrom: 'batch-means', ci: { low: 24497, high: 26121, halfWidth: 812 } }))).toBe('25,309 ± 812');
  });
});
