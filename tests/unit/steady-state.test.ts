import { describe, expect, it } from 'vitest';
import { HOST_BUSY_PCT, UNSTABLE_ALPHA } from '../../src-main/common/thresholds.ts';
import { cellFlags } from '../../src-main/engine/flags.ts';
import type { LoadResult, StatsSummary } from '../../src-main/model/types.ts';
import { isWarm, stationarity, warmupBounds, warmupCapSec, WARM_WINDOW_SEC } from '../../src-main/load/steady-state.ts';
import { raiseOver, WARM_CPUS, WARM_DROP_SEC } from '../../src-main/load/warmup.ts';
import { warmBound } from '../../src-main/load/warmup.ts';
import { cellWarmup, raisable } from '../../src-main/engine/cell-warmup.ts';

/** Seeded noise (LCG + Box–Muller): the same series on every run, so a rate is a fact, not a flake. */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  const u = (): number => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return (s + 0.5) / 2 ** 32;
  };
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

/** n seconds around `level` with a coefficient of variation `cv`, AR(1) correlated by `phi`, shaped by `shape(i)`. */
function series(rand: () => number, n: number, cv: number, shape: (i: number) => number = () => 1, phi = 0, level = 50_000): number[] {
  let e = 0;
  return Array.from({ length: n }, (_, i) => {
    e = phi * e + Math.sqrt(1 - phi * phi) * rand();
    return Math.round(level * shape(i) * (1 + cv * e));
  });
}

const flaggedShare = (make: () => number[], trials: number): number => {
  let k = 0;
  for (let i = 0; i < trials; i++) if (stationarity(make()).unstable) k++;
  return k / trials;
};

describe('warmup cap', () => {
  it('is 3× the configured warmup, at least 10 s more, and none when none was asked for', () => {
    expect(warmupCapSec(1)).toBe(11);
    expect(warmupCapSec(2)).toBe(12);
    expect(warmupCapSec(10)).toBe(30);
    expect(warmupCapSec(0)).toBe(0);
  });
});

describe('warm-up bounds', () => {
  it('hold each serving process to its JIT floor (1 CPU-s each), with the cap 10 s past it', () => {
    // One process a CPU: the floor is 1 s, under any configured warm-up; the cap as before.
    expect(warmupBounds(2, 1, 1)).toEqual({ minSec: 2, capSec: 12 });
    // 6 workers on one CPU: 6 s; 16 PM2 instances on half a CPU: 32 s, cap 42 s.
    expect(warmupBounds(2, 6, 1)).toEqual({ minSec: 6, capSec: 16 });
    expect(warmupBounds(2, 16, 0.5)).toEqual({ minSec: 32, capSec: 42 });
    // A configured warm-up longer than the floor stays; none asked for stays none.
    expect(warmupBounds(20, 2, 1)).toEqual({ minSec: 20, capSec: 60 });
    expect(warmupBounds(0, 16, 0.5)).toEqual({ minSec: 0, capSec: 0 });
  });

  it('count a cell by what serves: workers in cluster and PM2, one process in single mode, against its CPU cap', () => {
    const cell = { warmupSec: 1, workers: 8, cpuMillis: 500 };
    expect(cellWarmup({ ...cell, mode: 'cluster' }, false).minSec).toBe(16);
    expect(cellWarmup({ ...cell, mode: 'pm2' }, false).minSec).toBe(16);
    expect(cellWarmup({ ...cell, mode: 'single' }, false).minSec).toBe(2);
  });

  it('under one CPU, warm at one where that is shorter: the floor at one CPU, then the cap back for 2 s before measuring', () => {
    // 16 PM2 instances on half a CPU: 16 s at one CPU, the cap back, 2 s more (18 s, not 32); the cap 10 s past that.
    // A busy host may hold the raise until 30 s (the cap then moves with it: load/measurement.ts).
    expect(warmupBounds(2, 16, 0.5, true)).toEqual({ minSec: 16 + WARM_DROP_SEC, capSec: 28, raise: { cpus: WARM_CPUS, untilSec: 16, latestSec: 30, cpuSec: 16 } });
    expect(cellWarmup({ warmupSec: 2, mode: 'pm2', workers: 8, cpuMillis: 500 }, true)).toEqual({ minSec: 10, capSec: 20, raise: { cpus: 1, untilSec: 8, latestSec: 14, cpuSec: 8 } });
    // Where it would not be shorter, nothing is raised: 2 workers on half a CPU (4 s either way), a quarter CPU's one
    // process (4 s against 1 + 2 = 3 s: raised), a configured warm-up longer than both, a whole CPU, none asked for.
    expect(warmupBounds(1, 2, 0.5, true)).toEqual({ minSec: 4, capSec: 14 });
    expect(warmupBounds(1, 1, 0.25, true)).toEqual({ minSec: 3, capSec: 13, raise: { cpus: 1, untilSec: 1, latestSec: 2, cpuSec: 1 } });
    expect(warmupBounds(40, 16, 0.5, true)).toEqual({ minSec: 40, capSec: 120 });
    expect(warmupBounds(2, 16, 1, true)).toEqual({ minSec: 16, capSec: 26 });
    expect(warmupBounds(0, 16, 0.5, true)).toEqual({ minSec: 0, capSec: 0 });
    // A target whose cap cannot be raised in place keeps its floor at its own cap: replicas, or another provider.
    expect(cellWarmup({ warmupSec: 2, mode: 'pm2', workers: 16, cpuMillis: 500 })).toEqual({ minSec: 32, capSec: 42 });
    expect(raisable(true, {})).toBe(true);
    expect(raisable(true, { replicas: 2 })).toBe(false);
    expect(raisable(undefined, {})).toBe(false);
  });

  it('a raised warm-up ends once its processes have had their CPU-seconds, not before the raised cap allows, and no later than no raise would', () => {
    const raise = warmupBounds(2, 16, 0.5, true).raise!;
    // A quiet host: 16 CPU-seconds in 16 s at one CPU.
    expect(raiseOver(raise, 15, 15.2)).toBe(false);
    expect(raiseOver(raise, 16, 16.1)).toBe(true);
    // CPU counted before the raised cap could give it (a reading's overshoot) does not end it early.
    expect(raiseOver(raise, 12, 16.5)).toBe(false);
    // A busy host gave it 0.6 CPU: it goes on until its 16 CPU-seconds (27 s)…
    expect(raiseOver(raise, 20, 12)).toBe(false);
    expect(raiseOver(raise, 27, 16.2)).toBe(true);
    // …and never past 30 s, where the floor at its own cap would have ended, less the 2 s of the cap's return.
    expect(raiseOver(raise, 29, 10)).toBe(false);
    expect(raiseOver(raise, 30, 10)).toBe(true);
  });
});

describe('isWarm', () => {
  it(`needs ${WARM_WINDOW_SEC} seconds to judge`, () => {
    expect(isWarm([50_000, 50_100])).toBe(false);
    expect(isWarm([50_000, 50_100, 49_900])).toBe(true);
  });

  it('waits while a cold start ramps or steps up, and starts once the last seconds are flat', () => {
    const coldStart = [20_000, 25_000, 25_500, 50_000, 51_000, 50_500]; // two slow seconds, then full speed
    const decisions = coldStart.map((_, i) => isWarm(coldStart.slice(0, i + 1)));
    expect(decisions).toEqual([false, false, false, false, false, true]);
    expect(isWarm([40_000, 44_000, 48_000])).toBe(false); // a ramp of 10 %/s
    expect(isWarm([0, 0, 0])).toBe(false); // nothing answered yet
  });

  it('allows for counting noise at low rates', () => {
    expect(isWarm([18, 25, 21])).toBe(true); // ±√20 is ±22 %: flat for 20 req/s
    expect(isWarm([1800, 2500, 2100])).toBe(false); // the same shape at 2,000 req/s is not
  });

  it('rarely delays a steady cell: under 10 % of windows at the measured 3.5 % noise', () => {
    const rand = noise(7);
    let waits = 0;
    for (let i = 0; i < 2000; i++) if (!isWarm(series(rand, WARM_WINDOW_SEC, 0.035))) waits++;
    expect(waits / 2000).toBeLessThan(0.1);
  });
});

describe("isWarm at the host's measured noise", () => {
  it("a noise-sized wobble after the ramp is flat at a busy hour's noise, not at a quiet host's", () => {
    // A quick-preset cell at a busy hour (2026-12-02 13:29 UTC): 1 cluster worker on 1 CPU.
    const seconds = [3110, 5174, 7073, 6933];
    expect(isWarm(seconds)).toBe(false); // 29 % over three seconds: not within 12 %
    expect(isWarm(seconds, 0.1)).toBe(true); // 3.31 × 10 % = 33 %: within what steady seconds spread
    expect(isWarm(seconds.slice(0, 3), 0.1)).toBe(false); // the ramp itself (77 %) is no wobble at any such hour
  });

  it('the bound is the widest of the three: the quiet 12 %, counting noise, and 3.31 × the host noise', () => {
    expect(warmBound(10_000)).toBeCloseTo(1200, 6);
    expect(warmBound(10_000, 0.02)).toBeCloseTo(1200, 6); // a quieter reading never tightens the quiet bound
    expect(warmBound(10_000, 0.1)).toBeCloseTo(3310, 6);
    expect(warmBound(20, 0.1)).toBeCloseTo(3.5 * Math.sqrt(20), 6);
  });

  it('at the measured noise, steady windows seldom wait (under 10 %), ramps of three times that noise a second always do', () => {
    const rand = noise(5);
    for (const cv of [0.05, 0.1, 0.15]) {
      let waits = 0;
      for (let i = 0; i < 2000; i++) if (!isWarm(series(rand, WARM_WINDOW_SEC, cv), cv)) waits++;
      expect(waits / 2000).toBeLessThan(0.1);
      // Without the reading, the same steady seconds wait most of the time at 10 % and more.
      let quietWaits = 0;
      for (let i = 0; i < 2000; i++) if (!isWarm(series(rand, WARM_WINDOW_SEC, cv))) quietWaits++;
      if (cv >= 0.1) expect(quietWaits / 2000).toBeGreaterThan(0.5);
      const ramp = [1, 1 + 3 * cv, 1 + 6 * cv].map((f) => 10_000 * f);
      expect(isWarm(ramp, cv)).toBe(false);
    }
  });
});

describe('stationarity of the measured seconds', () => {
  it('catches the case of the issue: 2 of 5 seconds at half speed', () => {
    const r = stationarity([26_000, 27_500, 52_000, 53_100, 51_800]);
    expect(r.unstable).toBe(true);
    expect(r.reason).toMatch(/^not a steady state: throughput rose 9\d % after the first 2 of 5 s \(p [<=] /);
    expect(r.shift).toMatchObject({ from: 2, to: 5 });
  });

  it('catches the issue case at realistic noise nearly always (5 % noise: ≥ 95 %)', () => {
    const rand = noise(11);
    expect(flaggedShare(() => series(rand, 5, 0.05, (i) => (i < 2 ? 0.5 : 1)), 1000)).toBeGreaterThan(0.95);
  });

  it('names a ramp as a trend per second', () => {
    const r = stationarity([50_000, 48_000, 46_100, 44_000, 42_200, 40_000, 38_100, 36_000, 34_000, 32_100]);
    expect(r.unstable).toBe(true);
    expect(r.reason).toContain('a trend of −4.');
    expect(r.reason).toContain('%/s over 10 s');
    expect(r.trendPctPerSec!).toBeCloseTo(-4.9, 0);
  });

  it('names a step between the halves', () => {
    const r = stationarity([50_200, 49_800, 50_500, 49_900, 50_100, 31_000, 31_400, 30_800, 31_200, 31_100]);
    expect(r.unstable).toBe(true);
    expect(r.reason).toContain('throughput fell 38 % between the first and the second half');
  });

  it('names a dip in the middle (a stall that came and went)', () => {
    // A real cell of this host: another process ran for seconds 6–16 of 20.
    const r = stationarity([22716, 35969, 36269, 34473, 40285, 60980, 66810, 66356, 63927, 61745, 59774, 67332, 67724, 66907, 69111, 68293, 39558, 35187, 38212, 33085]);
    expect(r.unstable).toBe(true);
    expect(r.reason).toContain('higher in seconds 6–16 of 20 than in the rest');
  });

  it('leaves a steady cell alone (a real hello cell of this host, 3.5 % noise)', () => {
    expect(stationarity([62269, 68066, 68404, 65250, 72273, 72264, 69679, 71861, 69917, 70554, 67150, 66239, 68908, 67687]).unstable).toBe(false);
  });

  it('ignores differences that are significant but small (under 10 %)', () => {
    const r = stationarity([50_000, 50_050, 49_980, 50_020, 47_000, 47_050, 46_990, 47_010]); // −6 %, no noise to speak of
    expect(r.shift!.p).toBeLessThan(UNSTABLE_ALPHA);
    expect(r.unstable).toBe(false);
  });

  it('does not judge fewer than 3 seconds or an idle cell', () => {
    expect(stationarity([10, 50_000]).unstable).toBe(false);
    expect(stationarity([0, 0, 0, 0]).unstable).toBe(false);
  });

  it('is rarely fooled by steady noise: false positives over thousands of seeded series', () => {
    const rand = noise(2024);
    for (const n of [5, 10, 20]) {
      expect(flaggedShare(() => series(rand, n, 0.03), 2000), `3 % noise, ${n} s`).toBeLessThan(0.01);
      expect(flaggedShare(() => series(rand, n, 0.03, undefined, 0.3), 2000), `3 % noise, correlated, ${n} s`).toBeLessThan(0.01);
      expect(flaggedShare(() => series(rand, n, 0.05), 2000), `5 % noise, ${n} s`).toBeLessThan(0.03);
      expect(flaggedShare(() => series(rand, n, 0.1), 2000), `10 % noise, ${n} s`).toBeLessThan(2 * UNSTABLE_ALPHA + 0.01);
    }
  });
});

describe('the flags a cell gets', () => {
  const load = (perSecondRps: number[]) => ({ requests: 1, errors: 0, timeouts: 0, non2xx: 0, measuredSec: perSecondRps.length, perSecondRps }) as unknown as LoadResult;
  const stats = (otherPct: number, perSecondOtherPct: number[]) => ({ throttledMs: 0, host: { cores: '0-1', otherPct, perSecondOtherPct } }) as unknown as StatsSummary;

  it('unstable with the reason, from the stored per-second series', () => {
    const f = cellFlags(load([26_000, 27_500, 52_000, 53_100, 51_800]), undefined, undefined, 256);
    expect(f.map((x) => x.kind)).toEqual(['unstable']);
    expect(f[0]!.reason).toContain('throughput rose');
    expect(cellFlags(load([50_000, 50_500, 49_800, 50_200, 50_100]), undefined, undefined, 256)).toEqual([]);
  });

  it(`host-busy above ${HOST_BUSY_PCT} % over the cell, or in a burst of seconds above twice that`, () => {
    const steady = load([50_000, 50_500, 49_800, 50_200, 50_100]);
    expect(cellFlags(steady, stats(2.7, [1, 3, 0, 9.4, 2]), undefined, 256)).toEqual([]); // a quiet cell of this host
    expect(cellFlags(steady, stats(15, [2, 20, 36, 35, 25]), undefined, 256)).toEqual([
      { kind: 'host-busy', reason: "other processes took 15 % of cores 0-1 (the target's and the load's) while it measured" },
    ]);
    expect(cellFlags(steady, stats(9, [0, 30, 25, 0, 0]), undefined, 256)[0]!.reason).toBe(
      "other processes took over 20 % of cores 0-1 (the target's and the load's) in 2 of 5 measured seconds (up to 30 %)",
    );
    expect(cellFlags(steady, stats(6, [0, 30, 0, 0, 0]), undefined, 256)).toEqual([]); // one second is not a burst
  });
});
