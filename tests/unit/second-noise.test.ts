import { describe, expect, it } from 'vitest';
import { RunNoise, secondNoise } from '../../src-main/load/second-noise.ts';

describe("a steady cell's per-second noise", () => {
  it("is σ from successive differences as a share of the level (von Neumann's estimator)", () => {
    // Differences +2, −2, +2, −2 around a level of 101: Σd² = 16 over 2 × 4 → σ = √2.
    expect(secondNoise([100, 102, 100, 102, 100])).toBeCloseTo(Math.SQRT2 / 100.8, 9);
  });

  it('is barely moved by a slow drift, which the plain standard deviation takes for noise', () => {
    const drift = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109];
    expect(secondNoise(drift)).toBeCloseTo(Math.sqrt(1 / 2) / 104.5, 9); // 0.7 %
    const mean = 104.5;
    const sd = Math.sqrt(drift.reduce((a, x) => a + (x - mean) ** 2, 0) / (drift.length - 1));
    expect(sd / mean).toBeGreaterThan(4 * secondNoise(drift)!);
  });

  it('says nothing below three seconds or with nothing served', () => {
    expect(secondNoise([100, 110])).toBeUndefined();
    expect(secondNoise([0, 0, 0])).toBeUndefined();
  });
});

describe("the run's reading of the host noise", () => {
  it('waits for two steady cells, leaves out unstable ones, and takes the median', () => {
    const noise = new RunNoise();
    const cell = (perSecondRps: number[], unstable = false) => ({ load: { perSecondRps }, unstable });
    noise.add(cell([100, 110, 100, 110, 100])); // ≈ 6.8 %
    expect(noise.get()).toBeUndefined();
    noise.add(cell([50, 100, 50, 100, 50], true)); // a drift or a step: not the host's noise
    noise.add(cell([100, 110])); // too short to say
    noise.add({ unstable: false }); // no load result (a failed cell)
    expect(noise.get()).toBeUndefined();
    noise.add(cell([100, 102, 100, 102, 100])); // ≈ 1.4 %
    noise.add(cell([100, 104, 100, 104, 100])); // ≈ 2.8 %
    expect(noise.get()).toBeCloseTo(secondNoise([100, 104, 100, 104, 100])!, 12);
  });
});
