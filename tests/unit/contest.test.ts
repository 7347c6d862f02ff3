// The answer's three states on constructed data: lower-bound best against a clean runner-up, equivalence
// within the margin, undecided with the contenders named, and the cheaper pick among equivalents.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { contest } from '../../src-main/analysis/decide/contest.ts';
import type { Flag } from '../../src-main/model/types.ts';
import type { Recommendation } from '../../src-main/analysis/index.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const bound = <T extends { flags: Flag[] }>(cs: T[]): T[] => cs.map((c) => ({ ...c, flags: [clientBound] }));
const scope = (rec: Recommendation) => rec.scopes[0]!;
const workersOf = (rec: Recommendation, keys: string[]): number[] => keys.map((k) => rec.configurations.find((c) => c.key === k)!.workers);

describe('the contest: three states', () => {
  it('confident: the best is separated from every rival; a costlier one shown below is simply worse', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9950]), ...reps({ workers: 2 }, [8000, 8100, 7950])]));
    expect(scope(rec)).toMatchObject({ state: 'confident', settleable: false, decideBy: [] });
    expect(scope(rec).knee.workers).toBe(1);
    expect(scope(rec).rivals).toEqual([expect.objectContaining({ relation: 'worse', lowerBound: false })]);
    expect(rec.headline!.text).toMatch(/^Pick: 1 cluster worker on 1 CPU \/ 256 MB — confident/);
  });

  it('equivalent: two within ±5 % by two one-sided tests; the cheaper (fewer workers) is picked whichever measured higher', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [9900, 9950, 9920]), ...reps({ workers: 2 }, [10000, 10050, 10020])]));
    const s = scope(rec);
    expect(s.bestRps.workers).toBe(2);
    expect(s.state).toBe('equivalent');
    expect(s.knee.workers).toBe(1);
    expect(workersOf(rec, s.contenders)).toEqual([1, 2]);
    expect(rec.headline).toMatchObject({ state: 'equivalent', key: s.knee.key });
    expect(rec.headline!.text).toContain('1 cluster worker and 2 cluster workers are shown within 5 % of the best goodput');
  });

  it('undecided: neither separated nor within the margin; names the contenders and says more repetitions would decide it', () => {
    // Wide intervals around a 4 % gap: the test can tell neither.
    const rec = recommend(run([...reps({ workers: 1 }, [9000, 10500, 9300]), ...reps({ workers: 2 }, [9500, 10400, 10000])]));
    const s = scope(rec);
    expect(s.state).toBe('undecided');
    expect(s.settleable).toBe(true);
    expect(workersOf(rec, s.contenders).sort()).toEqual([1, 2]);
    expect(s.decideBy.join(' ')).toContain('more repetitions of the contenders');
    expect(rec.headline!.text).toMatch(/^Undecided on 1 CPU \/ 256 MB between/);
    expect(rec.headline!.text).not.toContain('Pick');
  });

  it('a lower-bound best beats a clean runner-up it is significantly above; a lower-bound runner-up blocks with the remedy', () => {
    const a = recommend(run([...bound(reps({ workers: 1 }, [77000, 77100, 76900])), ...reps({ workers: 2 }, [72700, 72800, 72600])]));
    expect(scope(a)).toMatchObject({ state: 'confident' });
    expect(scope(a).knee.workers).toBe(1);
    const b = recommend(run([...reps({ workers: 1 }, [77000, 77100, 76900]), ...bound(reps({ workers: 2 }, [72700, 72800, 72600]))]));
    // 2 workers' 72,700 is only a floor: it may be faster than 1 worker, and no test can say it is not.
    expect(scope(b)).toMatchObject({ state: 'undecided', settleable: false });
    expect(scope(b).rivals[0]).toMatchObject({ relation: 'undecided', lowerBound: true, blockedBy: 'bound' });
    expect(scope(b).decideBy.join(' ')).toContain('a heavier app');
  });

  it('a cheaper lower-bound rival shown above the floor of a clean best is good enough: it is the pick', () => {
    const rec = recommend(run([...bound(reps({ workers: 1 }, [9900, 9950, 9920])), ...reps({ workers: 2 }, [10000, 10050, 10020])]));
    expect(scope(rec).state).toBe('equivalent');
    expect(scope(rec).knee.workers).toBe(1);
    expect(scope(rec).rivals[0]).toMatchObject({ relation: 'good-enough', lowerBound: true });
  });

  it('never picks a configuration that measured worse on both goodput and p99 than a bounded one', () => {
    const rec = recommend(run([
      ...bound(reps({ workers: 1 }, [77003, 77100, 76950], [750, 760, 740])),
      ...reps({ workers: 2 }, [72754, 72900, 72600], [2350, 2300, 2400]),
    ]));
    expect(scope(rec).knee.workers).toBe(1);
    expect(scope(rec).lowestP99.workers).toBe(1);
    expect(scope(rec).setAside).toEqual([]);
  });

  it('a host-busy repetition is left out where two undisturbed ones remain; a host-busy bound can be settled by repetition', () => {
    const busy: Flag = { kind: 'host-busy', reason: 'others took 40 % of core 1' };
    const rec = recommend(run([
      ...reps({ workers: 1 }, [11800, 10900, 11700]),
      ...reps({ workers: 2 }, [11600, 7800, 7100]).map((c, i) => (i === 0 ? c : { ...c, flags: [busy] })),
    ]));
    // 2 workers has one undisturbed repetition: its host-busy ones stay, as a lower bound that more repetitions can replace.
    expect(rec.configurations.find((c) => c.workers === 2)!.bottleneck).toBe('host');
    expect(scope(rec)).toMatchObject({ state: 'undecided', settleable: true });
    expect(scope(rec).decideBy.join(' ')).toContain('on a quieter host');
    const more = recommend(run([
      ...reps({ workers: 1 }, [11800, 10900, 11700]),
      ...reps({ workers: 2 }, [11600, 7800, 11500, 11650]).map((c, i) => (i === 1 ? { ...c, flags: [busy] } : c)),
    ]));
    const two = more.configurations.find((c) => c.workers === 2)!;
    expect([two.n, two.bottleneck]).toEqual([3, null]);
    expect(two.excluded[0]!.reason).toMatch(/^host-busy \(others took 40 % of core 1\), with 3 undisturbed repetitions/);
  });

  it('with one candidate, confident, nothing to separate', () => {
    const c = contest([], 5);
    expect(c).toBeNull();
    const rec = recommend(run(reps({ workers: 1 }, [9000, 9100, 9050])));
    expect(scope(rec).state).toBe('confident');
    expect(rec.headline!.text).toContain('the only configuration that qualified');
  });
});
