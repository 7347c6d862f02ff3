import { describe, expect, it } from 'vitest';
import { StatsSampler } from '../../src-main/engine/stats-sampler.ts';
import { dockerReading } from '../../src-main/providers/docker/readings.ts';
import type { StatsReading } from '../../src-main/providers/provider.ts';

const MiB = 2 ** 20;
const t0 = Date.now();
/** A reading `sec` seconds in, with `cores` of CPU used per second so far. */
const reading = (sec: number, over: Partial<StatsReading> = {}): StatsReading => ({
  atMs: t0 + 1000 + sec * 1000, cpuNs: sec * 0.4e9, memBytes: 40 * MiB, memLimitBytes: 128 * MiB, throttledPeriods: sec * 3, throttledNs: sec * 50e6, ...over,
});
const noStream = { stats: async () => () => {} };

describe('the provider-neutral stats sampler', () => {
  it('turns cumulative readings into seconds: CPU as a share of the cap, throttling and periods as deltas', () => {
    const s = new StatsSampler(noStream, 500);
    expect(s.add(reading(0, { cfsPeriods: 0 }))).toBeUndefined(); // no "before" yet
    const sec = s.add(reading(1, { cfsPeriods: 10 }))!;
    expect(sec.cpuPct).toBeCloseTo(80, 6); // 0.4 core of a 0.5 cap
    expect([sec.throttledPeriods, sec.throttledMs, sec.periods]).toEqual([3, 50, 10]);
    expect(sec.memBytes).toBe(40 * MiB);
    s.add(reading(2, { cfsPeriods: 20 }));
    const sum = s.summary()!;
    expect([sum.samples, sum.throttledPeriods, sum.cpuPeriods]).toEqual([2, 6, 20]);
    expect(s.cpuSecBetween(t0 + 1000, t0 + 3000)).toBeCloseTo(0.8, 6);
  });

  it("with the window's end, the mean CPU is of the window: a reading's second begun before it weighs its overlap", () => {
    // The reading's second 0–1 s used 40 % of the cap, the next two 100 %; the window is 0.6–2.6 s.
    const s = new StatsSampler(noStream, 100);
    const at = (sec: number, cpuSec: number): StatsReading => reading(sec, { cpuNs: cpuSec * 1e9 });
    [at(0, 0), at(1, 0.04), at(2, 0.14), at(3, 0.24)].forEach((r) => s.add(r));
    const from = t0 + 1000 + 600;
    const to = from + 2000;
    // Per second: (40 + 100 + 100) / 3 = 80 %. Of the window: 0.4 s at 40 % and 1.6 s at 100 % = 88 %.
    expect(s.summary(from)!.cpuPctMean).toBeCloseTo(80, 6);
    expect(s.summary(from, to)!.cpuPctMean).toBeCloseTo(88, 6);
    expect(s.summary(from, to)!.samples).toBe(3); // the readings themselves are unchanged
  });

  it('takes the cgroup peak from the readings, else from the provider, else the highest usage (and says which)', () => {
    const withPeak = new StatsSampler(noStream, 1000);
    withPeak.add(reading(0, { memPeakBytes: 90 * MiB, memUsageBytes: 50 * MiB }));
    withPeak.add(reading(1, { memPeakBytes: 96 * MiB, memUsageBytes: 45 * MiB }));
    expect(withPeak.summary()).toMatchObject({ memPeakBytes: 96 * MiB, memPeakSource: 'cgroup' });

    const v2 = new StatsSampler({ ...noStream, memoryPeak: () => 70 * MiB }, 1000);
    v2.add(reading(0, { memUsageBytes: 60 * MiB }));
    v2.add(reading(1, { memUsageBytes: 50 * MiB }));
    expect(v2.summary()).toMatchObject({ memPeakBytes: 70 * MiB, memPeakSource: 'cgroup' });

    const none = new StatsSampler(noStream, 1000);
    none.add(reading(0, { memUsageBytes: 60 * MiB }));
    none.add(reading(1, { memUsageBytes: 50 * MiB }));
    expect(none.summary()).toMatchObject({ memPeakBytes: 60 * MiB, memPeakSource: 'samples' });
  });

  it("reads Docker's stats JSON (cgroup v1) into the neutral reading, page cache left out of the working set", () => {
    const r = dockerReading({
      read: '2026-11-22T10:00:01.000Z',
      cpu_stats: { cpu_usage: { total_usage: 5e9 }, throttling_data: { periods: 40, throttled_periods: 7, throttled_time: 3e8 } },
      memory_stats: { usage: 80 * MiB, max_usage: 100 * MiB, limit: 128 * MiB, stats: { total_inactive_file: 20 * MiB } },
    })!;
    expect(r).toEqual({
      atMs: Date.parse('2026-11-22T10:00:01.000Z'), cpuNs: 5e9, memBytes: 60 * MiB, memLimitBytes: 128 * MiB, throttledPeriods: 7, throttledNs: 3e8,
      memUsageBytes: 80 * MiB, memPeakBytes: 100 * MiB, cfsPeriods: 40,
    });
  });
});
