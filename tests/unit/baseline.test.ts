// The baseline verdict rules on constructed runs: exact numbers, known answers.
import { describe, expect, it } from 'vitest';
import { compareToBaseline, type BaselineComparison, type MetricVerdict } from '../../src-main/analysis/compare/baseline.ts';
import type { Flag } from '../../src-main/model/types.ts';
import type { RunDetail, StoredCell } from '../../src-main/store/index.ts';
import { HOST, cell, reps, run } from '../helpers/run-fixture.ts';

const MB = 2 ** 20;
const withId = (r: RunDetail, id: number): RunDetail => ({ ...r, id, cells: r.cells.map((c) => ({ ...c, runId: id })) });
/** Repetitions with their goodput, p99 and peak memory. */
function side(rps: number[], p99: number[], peakMb: number[], flags: Flag[] = [], app = 'hello'): StoredCell[] {
  return reps({ app, flags }, rps, p99).map((c, i) => ({
    ...c,
    stats: { memPeakBytes: peakMb[i]! * MB, memPeakSource: 'cgroup' } as unknown as StoredCell['stats'],
  }));
}
const compare = (b: StoredCell[], c: StoredCell[], o: { thresholdPct?: number; hostB?: typeof HOST } = {}) =>
  compareToBaseline(
    [{ run: withId(run(b, { host: o.hostB ?? HOST }), 1) }],
    { run: withId(run(c), 2) },
    o.thresholdPct === undefined ? {} : { thresholdPct: o.thresholdPct },
  );
const metric = (c: BaselineComparison, m: MetricVerdict['metric'], i = 0): MetricVerdict =>
  c.configurations[i]!.metrics.find((x) => x.metric === m)!;

const STEADY = [1000, 1008, 995, 1003, 997];
const P99 = [2000, 2020, 1990, 2010, 1985];
const PEAK = [80, 80.5, 79.8, 80.2, 80.1];

describe('baseline verdicts', () => {
  it('a clear regression: goodput 20 % lower, p99 30 % higher, memory 25 % higher', () => {
    const c = compare(
      side(STEADY, P99, PEAK),
      side(
        STEADY.map((x) => x * 0.8),
        P99.map((x) => x * 1.3),
        PEAK.map((x) => x * 1.25),
      ),
    );
    expect(c.configurations).toHaveLength(1);
    for (const m of ['goodput', 'p99', 'memory'] as const) expect(metric(c, m).verdict).toBe('regressed');
    const g = metric(c, 'goodput');
    expect(g.ratio).toBeCloseTo(0.8, 6);
    expect(g.low!).toBeLessThan(0.8);
    expect(g.high!).toBeGreaterThan(0.8);
    expect(g.high!).toBeLessThan(0.95);
    expect(c.counts.regressed).toBe(3);
    expect(c.gateFailed).toBe(true);
    expect(c.summary).toMatch(/3 regressed of 3 comparisons .*the gate fails/);
  });

  it('a clear improvement, and nothing regressed', () => {
    const c = compare(side(STEADY, P99, PEAK), side(STEADY.map((x) => x * 1.3), P99.map((x) => x * 0.7), PEAK));
    expect(metric(c, 'goodput').verdict).toBe('improved');
    expect(metric(c, 'p99').verdict).toBe('improved');
    expect(metric(c, 'memory').verdict).toBe('unchanged');
    expect(c.gateFailed).toBe(false);
  });

  it('the same numbers, shuffled, are shown unchanged within ± 5 % (TOST)', () => {
    const c = compare(side(STEADY, P99, PEAK), side([...STEADY].reverse(), [...P99].reverse(), [...PEAK].reverse()));
    for (const m of ['goodput', 'p99', 'memory'] as const) expect(metric(c, m).verdict).toBe('unchanged');
    expect(metric(c, 'goodput').ratio).toBeCloseTo(1, 9);
  });

  it('a change smaller than the threshold is never a regression, however sure', () => {
    // 3 % lower with almost no spread: significant, but within the 5 % threshold.
    const c = compare(side(STEADY, P99, PEAK), side(STEADY.map((x) => x * 0.97), P99, PEAK));
    expect(metric(c, 'goodput').verdict).toBe('unchanged');
    // …and regressed with a 2 % threshold.
    const strict = compare(side(STEADY, P99, PEAK), side(STEADY.map((x) => x * 0.97), P99, PEAK), { thresholdPct: 2 });
    expect(metric(strict, 'goodput').verdict).toBe('regressed');
  });

  it('noisy repetitions are inconclusive, never regressed', () => {
    const c = compare(side([1000, 700], [2000, 3000], [80, 110]), side([850, 600], [2600, 2000], [100, 80]));
    for (const m of ['goodput', 'p99', 'memory'] as const) {
      expect(metric(c, m).verdict).toBe('inconclusive');
      expect(metric(c, m).reason).toMatch(/add repetitions/);
    }
    expect(c.gateFailed).toBe(false);
  });

  it('client-bound on both sides: goodput inconclusive, both capped by the load generator', () => {
    const cb: Flag[] = [{ kind: 'client-bound', reason: 'the load thread was at 99 %' }];
    const c = compare(side(STEADY, P99, PEAK, cb), side(STEADY.map((x) => x * 0.7), P99, PEAK, cb));
    expect(metric(c, 'goodput').verdict).toBe('inconclusive');
    expect(metric(c, 'goodput').reason).toBe('both capped by the load generator');
  });

  it('a bound can only be shown better than measured', () => {
    const cb: Flag[] = [{ kind: 'client-bound', reason: 'the load thread was at 99 %' }];
    // This run capped and lower: the server may be as fast as before, so no regression.
    const capped = compare(side(STEADY, P99, PEAK), side(STEADY.map((x) => x * 0.7), P99, PEAK, cb));
    expect(metric(capped, 'goodput').verdict).toBe('inconclusive');
    expect(metric(capped, 'goodput').reason).toMatch(/this run was capped by the load generator/);
    // The baseline capped and this run clearly lower than that bound: a regression stands.
    const below = compare(side(STEADY, P99, PEAK, cb), side(STEADY.map((x) => x * 0.7), P99, PEAK));
    expect(metric(below, 'goodput').verdict).toBe('regressed');
    // The baseline capped, this run higher: not an improvement (the baseline may have been as fast).
    const above = compare(side(STEADY, P99, PEAK, cb), side(STEADY.map((x) => x * 1.3), P99, PEAK));
    expect(metric(above, 'goodput').verdict).toBe('inconclusive');
  });

  it('a busy host is sized: at most as much faster as the CPU other processes took on its cores', () => {
    const busy = (otherPct: number, cores = '1'): StoredCell[] =>
      side(STEADY.map((x) => x * 0.7), P99, PEAK, [{ kind: 'host-busy', reason: 'other processes took it' }]).map((c) => ({
        ...c,
        stats: { ...c.stats!, host: { cores, otherPct, perSecondOtherPct: [] } },
      }));
    // 12 % of one core, against a 1-CPU cap: at most 1 ÷ 0.88 faster, so 30 % lower is still shown a regression.
    expect(metric(compare(side(STEADY, P99, PEAK), busy(12)), 'goodput').verdict).toBe('regressed');
    // 20 % of two cores is 40 % of the cap: 0.7 ÷ 0.6 > 1, a bound that can no longer be shown worse.
    const wide = metric(compare(side(STEADY, P99, PEAK), busy(20, '0-1')), 'goodput');
    expect(wide.verdict).toBe('inconclusive');
    expect(wide.reason).toMatch(/this run was held back by a busy host/);
    // Nearly all of the cap: nothing bounds it.
    expect(metric(compare(side(STEADY, P99, PEAK), busy(95)), 'goodput').verdict).toBe('inconclusive');
  });

  it('runs on different hosts are not comparable: verdicts shown, the gate does not fail', () => {
    const other = { ...HOST, hostname: 'ci-7', cores: 2 };
    const c = compare(side(STEADY, P99, PEAK), side(STEADY.map((x) => x * 0.8), P99, PEAK), { hostB: other });
    expect(metric(c, 'goodput').verdict).toBe('regressed');
    expect(c.comparability.comparable).toBe(false);
    expect(c.comparability.problems[0]).toMatch(/ran on ci-7 \(2 cores.*this run on lab \(8 cores/);
    expect(c.gateFailed).toBe(false);
    expect(c.summary).toMatch(/not gated/);
  });

  it('another hostname alone is a note; another image or env is a change, not a problem', () => {
    const b = side(STEADY, P99, PEAK).map((x) => ({ ...x, imageTag: 'rightsize-app-hello:aaa' }));
    const c = side(STEADY, P99, PEAK).map((x) => ({
      ...x,
      imageTag: 'rightsize-app-hello:bbb',
      config: { ...x.config, env: { SLOW: '1' } },
    }));
    const r = compare(b, c, { hostB: { ...HOST, hostname: 'runner-1' } });
    expect(r.comparability.comparable).toBe(true);
    expect(r.comparability.notes.join()).toMatch(/hostname differs/);
    expect(r.comparability.changes.join('\n')).toMatch(/hello's image: rightsize-app-hello:aaa in the baseline/);
    expect(r.comparability.changes.join('\n')).toMatch(/hello's environment/);
  });

  it('other load settings make the runs not comparable', () => {
    const b = side(STEADY, P99, PEAK);
    const c = side(STEADY, P99, PEAK).map((x) => ({ ...x, config: { ...x.config, durationSec: 3 } }));
    const r = compare(b, c);
    expect(r.comparability.problems).toEqual(['measured seconds per cell: 10 in the baseline, 3 in this run']);
  });

  it('one repetition per side: batch means of its seconds, threshold raised to the run-to-run spread', () => {
    const series = (level: number): number[] => Array.from({ length: 16 }, (_, i) => level * (1 + ((i % 4) - 1.5) / 300));
    const one = (level: number): StoredCell => {
      const c = cell({ rps: level, p99Us: 2000 });
      return { ...c, load: { goodputMean: level, perSecondGood: series(level) } as unknown as StoredCell['load'] };
    };
    // 6 % lower, very steady seconds: beyond 5 % but within the raised 8.3 %.
    const six = compare([one(1000)], [one(940)]);
    expect(metric(six, 'goodput').thresholdPct).toBeCloseTo(8.3, 6);
    expect(metric(six, 'goodput').verdict).not.toBe('regressed');
    // 30 % lower: regressed even so.
    expect(metric(compare([one(1000)], [one(700)]), 'goodput').verdict).toBe('regressed');
    // One peak per side cannot be tested.
    expect(metric(six, 'memory').verdict).toBe('inconclusive');
    expect(metric(six, 'memory').reason).toMatch(/one peak per run/);
  });

  it('two single runs apart by what identical runs differ by on a busy host (17 %) are never a regression', () => {
    // Very steady seconds on each side: a batch-means interval alone would call 17 % significant. The
    // run-to-run spread (RUN_TO_RUN_SPREAD) is in the error of a single run, so it is not.
    const series = (level: number): number[] => Array.from({ length: 3 }, (_, i) => level * (1 + (i - 1) / 500));
    const one = (level: number, p99: number): StoredCell => {
      const c = cell({ rps: level, p99Us: p99 });
      return { ...c, load: { goodputMean: level, perSecondGood: series(level) } as unknown as StoredCell['load'] };
    };
    const moved = compare([one(1000, 2000)], [one(830, 2600)]);
    expect(metric(moved, 'goodput').verdict).toBe('inconclusive');
    // A single run's p99 is not tested at all: its run-to-run noise was never measured.
    expect(metric(moved, 'p99').verdict).toBe('inconclusive');
    expect(metric(moved, 'p99').reason).toMatch(/^one repetition on a side: .*add repetitions$/);
    expect(moved.gateFailed).toBe(false);
    // 8× slower (the integration test's change) is still caught.
    const slow = compare([one(1000, 2000)], [one(125, 16000)]);
    expect(metric(slow, 'goodput').verdict).toBe('regressed');
    expect(slow.gateFailed).toBe(true);
  });

  it('verification cells never count, and configurations in one run only are listed apart', () => {
    const verify = side([10, 11, 12], P99, PEAK).map((x) => ({ ...x, config: { ...x.config, phase: 'verify' as const } }));
    const b = [...side(STEADY, P99, PEAK), ...side(STEADY, P99, PEAK, [], 'json')];
    const c = [...side(STEADY, P99, PEAK), ...verify];
    const r = compare(b, c);
    expect(r.configurations).toHaveLength(1);
    expect(metric(r, 'goodput').verdict).toBe('unchanged');
    expect(r.onlyInBaseline).toEqual(['json cluster×1 1000m/256MB c20']);
  });

  it('Holm: the same raw evidence regresses alone but not among many configurations', () => {
    // Three repetitions per side, a 13 % drop with some spread: raw p ≈ 0.003, so ×3 (one configuration's three
    // metrics) stays below 5 % and ×18 (six configurations) does not.
    const drop = (app: string) =>
      [side([1000, 1030, 1010], P99, PEAK, [], app), side([870, 905, 880], P99, PEAK, [], app)] as const;
    const alone = compare(...drop('hello'));
    expect(metric(alone, 'goodput').verdict).toBe('regressed');
    const apps = ['a', 'b', 'c', 'd', 'e', 'f'];
    const many = compare(apps.flatMap((a) => drop(a)[0]), apps.flatMap((a) => drop(a)[1]));
    expect(many.configurations).toHaveLength(6);
    expect(many.configurations.every((x) => x.metrics[0]!.verdict !== 'regressed')).toBe(true);
    expect(many.configurations[0]!.metrics[0]!.p!).toBeGreaterThan(metric(alone, 'goodput').p!);
  });

  it('refuses a threshold outside (0, 100)', () => {
    expect(() => compare(side(STEADY, P99, PEAK), side(STEADY, P99, PEAK), { thresholdPct: 0 })).toThrow(/threshold/);
  });
});
