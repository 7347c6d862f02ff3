import { describe, expect, it } from 'vitest';
import type { Flag } from '../../src-main/model/types.ts';
import { RunNoise, secondNoise } from '../../src-main/load/second-noise.ts';

describe("a steady cell's per-second noise", () => {
  it("is σ from successive differences, less the counting noise, as a share of the level (von Neumann's estimator)", () => {
    // Differences ±400 around 10,160: Σd² ÷ 2(n − 1) = 80,000, less the counting variance 10,160.
    expect(secondNoise([10_000, 10_400, 10_000, 10_400, 10_000])).toBeCloseTo(Math.sqrt(80_000 - 10_160) / 10_160, 12);
  });

  it('reads counting noise alone as none: the judge allows for it already', () => {
    expect(secondNoise([100, 110, 100, 110, 100])).toBe(0); // Σd² ÷ 8 = 50, under the counting variance 104
  });

  it('is barely moved by a slow drift, which the plain standard deviation takes for noise', () => {
    const drift = Array.from({ length: 10 }, (_, i) => 10_000 + 100 * i + (i % 2 ? 200 : -200));
    const mean = drift.reduce((a, b) => a + b, 0) / drift.length;
    const sd = Math.sqrt(drift.reduce((a, x) => a + (x - mean) ** 2, 0) / (drift.length - 1));
    expect(secondNoise(drift)!).toBeLessThan(0.035);
    expect(sd / mean).toBeGreaterThan(secondNoise(drift)!);
  });

  it('says nothing below three seconds or with nothing served', () => {
    expect(secondNoise([100, 110])).toBeUndefined();
    expect(secondNoise([0, 0, 0])).toBeUndefined();
  });
});

describe("the run's reading of the host noise", () => {
  const wobble = (d: number): number[] => [10_000, 10_000 + d, 10_000, 10_000 + d, 10_000];
  const cell = (perSecondRps: number[], flags: Flag['kind'][] = [], status: 'ok' | 'failed' = 'ok') => ({
    status,
    flags: flags.map((kind) => ({ kind, reason: '' })),
    load: { perSecondRps },
  });

  it('waits for two steady cells and takes the lower median: one odd cell of two cannot widen the bound', () => {
    const noise = new RunNoise();
    noise.add(cell(wobble(2000)));
    expect(noise.get()).toBeUndefined();
    noise.add(cell(wobble(400)));
    expect(noise.get()).toBe(secondNoise(wobble(400))); // the smaller of two
    noise.add(cell(wobble(800)));
    expect(noise.get()).toBe(secondNoise(wobble(800))); // the middle of three
  });

  it('leaves out cells whose spread is their own: unstable, failing, restarting, OOM-killed, or not ok', () => {
    const noise = new RunNoise();
    for (const kind of ['unstable', 'errors', 'restarts', 'oom-killed'] as const) noise.add(cell(wobble(3000), [kind]));
    noise.add(cell(wobble(3000), [], 'failed'));
    noise.add(cell([10_000, 10_400])); // too short to say
    noise.add({ status: 'ok', flags: [] }); // no load result
    expect(noise.get()).toBeUndefined();
    noise.add(cell(wobble(400), ['host-busy'])); // a busy host's seconds are the host's noise
    noise.add(cell(wobble(600)));
    expect(noise.get()).toBe(secondNoise(wobble(400)));
  });
});
