import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram, recordUs, summarize } from '../../src-main/load/histogram.ts';
import { type CompletedSecond, Measurement } from '../../src-main/load/measurement.ts';
import { isWarm, WARM_WINDOW_SEC } from '../../src-main/load/warmup.ts';
import type { ThreadSecond } from '../../src-main/load/protocol.ts';

/** One thread's second with `requests` responses, each at the given latencies (µs) in turn. */
function sec(index: number, requests: number, latenciesUs: number[] = [100], over: Partial<ThreadSecond> = {}): ThreadSecond {
  const h = newHistogram();
  for (let i = 0; i < requests; i++) recordUs(h, latenciesUs[i % latenciesUs.length]!);
  return { index, requests, good: requests, bytes: requests * 10, errors: 0, timeouts: 0, non2xx: 0, sent: requests, busyMs: requests * 0.1, opened: 0, cpuMs: 1, statusCounts: { 200: requests }, histogram: encodeHistogram(h), ...over };
}

describe('merging load threads second by second', () => {
  it('a second is complete only when every thread has sent it, and the merge is lossless', () => {
    const m = new Measurement(2, { warmupSec: 0, durationSec: 2 });
    expect(m.measureFrom).toBe(0);
    expect(m.add(sec(0, 3, [100, 200, 300]))).toEqual([]);
    const [first] = m.add(sec(0, 2, [1000, 5000], { non2xx: 1, good: 1, statusCounts: { 200: 1, 503: 1 } }));
    expect(first!.second).toMatchObject({ t: 0, requests: 5, bytes: 50, non2xx: 1 });
    expect(first!.warmup).toBe(false);
    // The merged histogram holds every value of both threads: the same as one histogram of all five.
    const all = newHistogram();
    for (const v of [100, 200, 300, 1000, 5000]) recordUs(all, v);
    expect(first!.second.p50Us).toBe(summarize(all).p50);
    expect(first!.second.p99Us).toBe(summarize(all).p99);
    // The max comes back as its bucket's top (3 significant digits), like every HDR value.
    expect(Math.abs(first!.second.maxUs - 5000)).toBeLessThanOrEqual(5000 * 1e-3);
    // A thread ahead by a second waits for the other.
    expect(m.add(sec(1, 4))).toEqual([]);
    const [second] = m.add(sec(1, 6));
    expect(second!.last).toBe(true);
    expect(m.done).toBe(true);
    expect(m.perSecondRps).toEqual([5, 10]);
    expect(m.perSecondGood).toEqual([4, 10]);
    expect(m.totals).toMatchObject({ requests: 15, non2xx: 1, statusCounts: { 200: 14, 503: 1 } });
    expect(m.latency.totalCount).toBe(15);
  });

  it('connections opened (over TLS, handshakes) are summed over the threads, and said only where there were some', () => {
    const m = new Measurement(2, { warmupSec: 0, durationSec: 2 });
    m.add(sec(0, 3, [100], { opened: 4 }));
    const [first] = m.add(sec(0, 3, [100], { opened: 4 }));
    expect(first!.second.opened).toBe(8);
    m.add(sec(1, 3));
    const [second] = m.add(sec(1, 3, [100], { opened: undefined as unknown as number })); // an older agent's second
    expect(second!.second).not.toHaveProperty('opened');
    expect(m.totals.opened).toBe(8);
  });

  it('a fixed warmup: seconds before it are warmup, counted -2, -1, then measured from 0', () => {
    const m = new Measurement(1, { warmupSec: 2, durationSec: 2 });
    const out = [0, 1, 2, 3].flatMap((i) => m.add(sec(i, 10 + i)));
    expect(out.map((c) => [c.second.t, c.warmup])).toEqual([[-2, true], [-1, true], [0, false], [1, false]]);
    expect(m.measureFrom).toBe(2);
    expect(m.perSecondRps).toEqual([12, 13]);
    expect(m.totals.requests).toBe(25); // warmup excluded
  });

  it('adaptive warmup: isWarm is asked once the minimum and a window have passed; measurement starts where the steady window began', () => {
    expect(WARM_WINDOW_SEC).toBe(3); // the series below are written for a three-second window
    const asked: number[][] = [];
    const m = new Measurement(1, { warmupSec: 2, maxWarmupSec: 10, durationSec: 3 }, (rps) => {
      asked.push(rps);
      const w = rps.slice(-3);
      return Math.max(...w) - Math.min(...w) <= 0.05 * Math.max(...w); // warm once the last three agree within 5 %
    });
    const series = [5, 50, 90, 100, 100, 101, 102, 103];
    const out = series.flatMap((r, i) => m.add(sec(i, r)));
    expect(asked).toEqual([[5, 50, 90, 100, 100], [5, 50, 90, 100, 100, 101]]);
    expect(m.measureFrom).toBe(3); // not 6: seconds 3–5 were already steady when that was seen after second 5
    // Every second is reported as it comes; the steady ones again, as measured, naming the warm-up second they were.
    expect(out.map((c) => [c.second.t, c.warmup, c.second.wasWarmup])).toEqual([
      [-2, true, undefined], [-1, true, undefined], [0, true, undefined], [1, true, undefined], [2, true, undefined], [3, true, undefined],
      [0, false, 3], [1, false, 4], [2, false, 5],
    ]);
    expect(out.at(-1)!.last).toBe(true);
    expect(m.done).toBe(true);
    expect(m.perSecondRps).toEqual([100, 100, 101]);
    expect(m.totals.requests).toBe(301); // the replayed seconds' counts, once; nothing of the ramp, nothing after
    expect(m.latency.totalCount).toBe(301);
  });

  it("the judge is given the host's measured noise from the plan (LoadPlan.warmNoise)", () => {
    const noises: (number | undefined)[] = [];
    const judge = (rps: number[], noise?: number): boolean => {
      noises.push(noise);
      return isWarm(rps, noise);
    };
    const wobble = [3110, 5174, 7073, 6933, 7995, 7968, 6315]; // a busy hour's cell: a ramp, then ±10 % seconds
    const busy = new Measurement(1, { warmupSec: 1, maxWarmupSec: 11, warmNoise: 0.1, durationSec: 3 }, judge);
    wobble.forEach((r, i) => busy.add(sec(i, r)));
    expect(noises).toEqual([0.1]);
    expect(busy.measureFrom).toBe(1); // 5,174 · 7,073 · 6,933: within 3.31 × 10 %
    const quiet = new Measurement(1, { warmupSec: 1, maxWarmupSec: 11, durationSec: 3 }, judge);
    wobble.forEach((r, i) => quiet.add(sec(i, r)));
    expect(noises.slice(1)).toEqual([undefined, undefined, undefined, undefined]);
    expect(quiet.measureFrom).toBeUndefined(); // no three of these seconds within 12 %: still warming up
  });

  it('a measurement shorter than the steady window ends inside it', () => {
    const m = new Measurement(1, { warmupSec: 1, maxWarmupSec: 10, durationSec: 1 }, () => true);
    const out = [10, 100, 100, 100].flatMap((r, i) => m.add(sec(i, r)));
    expect(m.measureFrom).toBe(1);
    expect(out.filter((c) => !c.warmup).map((c) => [c.second.t, c.second.wasWarmup, c.last])).toEqual([[0, 1, true]]);
    expect(m.totals.requests).toBe(100);
    expect(m.add(sec(4, 100))).toEqual([]); // after the window
  });

  it('adaptive warmup stops at the cap even if never warm', () => {
    let calls = 0;
    const m = new Measurement(1, { warmupSec: 1, maxWarmupSec: 5, durationSec: 1 }, () => (calls++, false));
    const out = [0, 1, 2, 3, 4, 5].flatMap((i) => m.add(sec(i, 1)));
    expect(m.measureFrom).toBe(5);
    expect(calls).toBe(2); // after seconds 4 (the minimum and a window) and 5, where the cap decides
    expect(out.map((c) => c.warmup)).toEqual([true, true, true, true, true, false]);
    expect(out.every((c) => c.second.wasWarmup === undefined)).toBe(true);
  });

  it("the engine's warmFrom holds measurement back: no steady window starts before it, and the cap moves with it", () => {
    // Warm from second 2 at best; the engine learns after second 6 that second 7 is the first it may measure.
    let from: number | undefined;
    const m = new Measurement(1, { warmupSec: 2, maxWarmupSec: 20, durationSec: 2 }, () => true, () => from);
    const flat = (i: number): CompletedSecond[] => m.add(sec(i, 100));
    for (let i = 0; i <= 5; i++) flat(i);
    expect(m.measureFrom).toBeUndefined(); // steady since second 2, but not yet known
    from = 7;
    for (let i = 6; i <= 8; i++) flat(i);
    expect(m.measureFrom).toBeUndefined(); // a steady window from 7 needs seconds 7–9
    const out = flat(9);
    expect(m.measureFrom).toBe(7);
    expect(out.filter((c) => !c.warmup).map((c) => c.second.wasWarmup)).toEqual([7, 8]);
    // Never steady: the cap (6, 4 s past the minimum) moves as far as the start did, to 7 + 4 = 11.
    const capped = new Measurement(1, { warmupSec: 2, maxWarmupSec: 6, durationSec: 1 }, () => false, () => 7);
    for (let i = 0; i <= 9; i++) capped.add(sec(i, 1));
    expect(capped.measureFrom).toBeUndefined();
    capped.add(sec(10, 1));
    expect(capped.measureFrom).toBe(11);
  });

  it('without a judge, warmFrom moves the start itself; never known, the start comes a window past the cap', () => {
    let from: number | undefined = 4;
    const fixed = new Measurement(1, { warmupSec: 2, durationSec: 1 }, undefined, () => from);
    [0, 1, 2, 3].forEach((i) => fixed.add(sec(i, 1)));
    expect(fixed.measureFrom).toBe(4);
    from = undefined;
    const never = new Measurement(1, { warmupSec: 2, maxWarmupSec: 5, durationSec: 1 }, () => false, () => from);
    const out = [0, 1, 2, 3, 4, 5, 6, 7, 8].flatMap((i) => never.add(sec(i, 1)));
    expect(never.measureFrom).toBe(8); // 5 + WARM_WINDOW_SEC: the engine then judges what it got
    expect(out.filter((c) => !c.warmup).map((c) => c.index)).toEqual([8]);
  });

  it('without isWarm the warmup is the minimum, whatever the cap', () => {
    const m = new Measurement(1, { warmupSec: 1, maxWarmupSec: 5, durationSec: 1 });
    [0, 1].forEach((i) => m.add(sec(i, 1)));
    expect(m.measureFrom).toBe(1);
    expect(m.done).toBe(true);
  });

  it('a stop counts what the threads had not merged, in the totals but in no per-second series', () => {
    const m = new Measurement(2, { warmupSec: 1, durationSec: 10 });
    m.add(sec(0, 100));
    m.add(sec(0, 100)); // warmup
    m.add(sec(1, 10));
    m.add(sec(1, 20)); // measured second 0
    m.add(sec(2, 7)); // thread 0 finished second 1, thread 1 not yet
    const measuredSec = m.finishEarly([sec(3, 1), sec(2, 5, [100], { timeouts: 2 })], 2.5);
    expect(measuredSec).toBe(1.5);
    expect(m.perSecondRps).toEqual([30]);
    expect(m.totals.requests).toBe(30 + 7 + 1 + 5);
    expect(m.totals.timeouts).toBe(2);
    expect(m.latency.totalCount).toBe(43);
  });

  it('a stop during warmup measured nothing', () => {
    const m = new Measurement(1, { warmupSec: 3, durationSec: 5 });
    m.add(sec(0, 10));
    expect(m.finishEarly([sec(1, 3)], 1.4)).toBe(0);
    expect(m.totals.requests).toBe(0);
  });
});
