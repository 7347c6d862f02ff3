// The judge of one configuration against the objective, on constructed cells (no Docker).
import { describe, expect, it } from 'vitest';
import { evidenceOf, judge, pooledInterval, type CellEvidence } from '../../src-main/engine/auto-size/judge.ts';
import type { Sample } from '../../src-main/model/types.ts';
import { cell } from '../helpers/run-fixture.ts';

const SPEC = { slo: { p99Ms: 50, minRps: 200, maxErrorPct: 0.1 }, rate: 200, bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 256 }, workers: { min: 1, max: 2 }, modes: ['cluster' as const] } };

/** A clean cell: p99 per second (ms), goodput per second, failed of attempts. */
function ev(p99Ms: number[], o: Partial<CellEvidence> = {}): CellEvidence {
  const good = o.perSecondGood ?? p99Ms.map(() => 200);
  return {
    status: 'ok', failure: null, flags: [], p99Us: Math.max(...p99Ms) * 1000, perSecondP99Us: p99Ms.map((x) => x * 1000), perSecondGood: good,
    goodput: good.reduce((a, b) => a + b, 0) / good.length, failed: 0, attempts: 200 * p99Ms.length, shortfallBy: null, bottleneck: 'server', peakBytes: 60 * 2 ** 20, ...o,
  };
}
const steady = (ms: number, n = 9): number[] => Array.from({ length: n }, (_, i) => ms * (1 + 0.05 * Math.sin(i * 1.7)));

describe('auto-size judge', () => {
  it('meets when the whole interval of the per-second p99 is under the limit and the rate was held', () => {
    const j = judge([ev(steady(10))], SPEC);
    expect(j.outcome).toBe('meets');
    expect(j.p99Ms!.high).toBeLessThanOrEqual(50);
    expect(j.p99Ms!.low).toBeGreaterThan(0);
    expect(j.detail).toMatch(/≤ 50 ms/);
    expect(j.peakBytes).toBe(60 * 2 ** 20);
  });

  it('misses when the whole interval is over the limit', () => {
    const j = judge([ev(steady(120))], SPEC);
    expect(j.outcome).toBe('misses');
    expect(j.detail).toMatch(/> 50 ms limit/);
  });

  it('is undecided (and asks for a repeat) when the interval reaches across the limit; more seconds can decide it', () => {
    const wobbly = [20, 70, 25, 60, 30, 80, 22, 40, 35];
    const one = judge([ev(wobbly, { p99Us: 45_000 })], SPEC);
    expect(one.outcome).toBe('undecided');
    expect(one.repeat).toBe(true);
    expect(one.p99Ms!.low).toBeLessThan(50);
    expect(one.p99Ms!.high).toBeGreaterThan(50);
    // A second cell of the same configuration that is steady well under the limit narrows the pooled interval.
    const two = judge([ev(wobbly, { p99Us: 45_000 }), ev(steady(12, 16), { p99Us: 14_000 })], SPEC);
    expect(two.p99Ms!.high - two.p99Ms!.low).toBeLessThan(one.p99Ms!.high - one.p99Ms!.low);
  });

  it('does not call a cell meeting when its whole-cell p99 is over the limit, even with a narrow per-second interval', () => {
    const j = judge([ev(steady(30), { p99Us: 80_000 })], SPEC);
    expect(j.outcome).toBe('undecided');
  });

  it('misses when the server clearly could not hold the rate', () => {
    const j = judge([ev(steady(40), { perSecondGood: steady(150), shortfallBy: 'server' })], SPEC);
    expect(j.outcome).toBe('misses');
    expect(j.detail).toMatch(/could not hold the rate: 15\d of 200 req\/s \(< 95 %\)/);
  });

  it('does not judge a shortfall the load generator caused', () => {
    const j = judge([ev(steady(10), { perSecondGood: steady(150), shortfallBy: 'client' })], SPEC);
    expect(j.outcome).toBe('undecided');
    expect(j.detail).toMatch(/load generator, not the server/);
  });

  it('misses on failed requests above the limit, pooled over the cells', () => {
    const j = judge([ev(steady(10), { failed: 3, attempts: 1800 })], SPEC); // 0.17 % > 0.1 %
    expect(j.outcome).toBe('misses');
    expect(j.detail).toMatch(/0\.17 % of requests failed > 0\.1 %/);
    expect(judge([ev(steady(10), { failed: 1, attempts: 1800 })], SPEC).outcome).toBe('meets'); // 0.06 %
  });

  it('an OOM kill misses and a failed cell is "failed", neither repeated', () => {
    const oom = judge([{ ...ev([]), status: 'oom', p99Us: null, failure: 'OOM-killed under the 128 MB cap' }], SPEC);
    expect(oom).toMatchObject({ outcome: 'misses', repeat: false });
    expect(oom.detail).toMatch(/OOM-killed under the 128 MB cap/);
    const failed = judge([{ ...ev([]), status: 'failed', p99Us: null, failure: 'not ready: timeout\nlog line' }], SPEC);
    expect(failed).toMatchObject({ outcome: 'failed', repeat: false });
    expect(failed.detail).toMatch(/not ready: timeout\)/);
  });

  it('never ranks a host-busy or client-bound cell as clean: a meet under contention stands, a miss is repeated', () => {
    const busy = { flags: [{ kind: 'host-busy' as const, reason: 'other processes took 30 %' }], bottleneck: 'host' as const };
    const meets = judge([ev(steady(10), busy)], SPEC);
    expect(meets.outcome).toBe('meets');
    expect(meets.detail).toMatch(/measured under host-busy.*contention can only have raised latency/);
    const misses = judge([ev(steady(120), busy)], SPEC);
    expect(misses).toMatchObject({ outcome: 'undecided', repeat: true });
    expect(misses.detail).toMatch(/seems to miss .* but under host-busy .*not judged as the server's/);
    // An unstable cell is not taken even when it would meet.
    expect(judge([ev(steady(10), { flags: [{ kind: 'unstable', reason: 'drift' }] })], SPEC).outcome).toBe('undecided');
  });

  it('an overloaded server\'s drift is its own result: an unstable cell that fell short by the server misses', () => {
    const j = judge([ev(steady(3000), { perSecondGood: steady(93), shortfallBy: 'server', flags: [{ kind: 'unstable', reason: 'level shift' }] })], SPEC);
    expect(j.outcome).toBe('misses');
    expect(j.detail).toMatch(/could not hold the rate: 9\d of 200 req\/s/);
  });

  it('judges on the clean cells when there are any, and says which were set aside', () => {
    const j = judge([ev(steady(120), { flags: [{ kind: 'client-bound', reason: 'load thread at 97 %' }], bottleneck: 'client' }), ev(steady(10))], SPEC);
    expect(j.outcome).toBe('meets');
    expect(j.detail).toMatch(/1 cell\(s\) set aside: client-bound .* not ranked as clean/);
  });

  it('pools batch means over cells: √n-second batches, t with k − 1 degrees of freedom', () => {
    expect(pooledInterval([[1], [2]])).toBeNull(); // each cell under two batches: nothing to pool
    expect(pooledInterval([[1, 2, 3]])!.batches).toBe(3); // b = ⌊√3⌋ = 1
    const iv = pooledInterval([[10, 10, 12, 12], [11, 11, 13, 13]])!; // b = 2: means 10, 12, 11, 13
    expect(iv.batches).toBe(4);
    expect(iv.mean).toBeCloseTo(11.5, 10);
    // sd of (10, 12, 11, 13) = 1.291; t(0.975, 3) = 3.182; half = 3.182 × 1.291 / 2 = 2.054
    expect(iv.high - iv.mean).toBeCloseTo(2.054, 2);
  });

  it('reads a stored cell and its samples: per-second p99 from the samples, goodput from the load result, the cgroup peak', () => {
    const c = { ...cell({ rps: 200, p99Us: 9000, load: { model: 'rate', rate: 200, connections: 20 } }), id: 7 };
    c.load = { perSecondGood: [199, 200, 201], goodputMean: 200 } as never;
    c.stats = { memPeakBytes: 90 * 2 ** 20, memMaxBytes: 70 * 2 ** 20 } as never;
    const samples = [3, 1, 2].map((t) => ({ t, p99Us: t * 1000 }) as Sample);
    const e = evidenceOf(c, samples);
    expect(e.perSecondP99Us).toEqual([1000, 2000, 3000]);
    expect(e.perSecondGood).toEqual([199, 200, 201]);
    expect(e.goodput).toBe(200);
    expect(e.peakBytes).toBe(90 * 2 ** 20);
    expect(e.attempts).toBe(2000);
  });
});
