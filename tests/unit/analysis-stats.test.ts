// The statistics behind the answer, on constructed data: batch means of per-second series (ramp,
// step, stable, autocorrelated), Welch's t-test and Holm's correction, the knee by test, goodput,
// who may be picked, constant-rate attribution and the words of a cancelled run.
import { describe, expect, it } from 'vitest';
import {
  batchMeans, estimateOf, holm, MAX_ERROR_PCT, mean, ONE_REPETITION_NOTE, recommend, stddev, studentTCdf, summarizeOne, tQuantile, welch,
  type Recommendation,
} from '../../src-main/analysis/index.ts';
import type { Flag, LoadResult, Sample } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const scope = (rec: Recommendation) => rec.scopes[0]!;
const config = (rec: Recommendation, workers: number) => rec.configurations.find((c) => c.workers === workers)!;
const configByKey = (rec: Recommendation, key: string) => rec.configurations.find((c) => c.key === key)!;
const keysToWorkers = (rec: Recommendation, keys: string[]) => keys.map((k) => rec.configurations.find((c) => c.key === k)!.workers).sort((a, b) => a - b);

/** A stored cell with a load result (what the engine stores now), over the fixture's flat metrics. */
function withLoad(c: StoredCell, l: Partial<LoadResult>): StoredCell {
  const rps = c.rpsMean ?? 0;
  const load: LoadResult = {
    model: c.config.load.model, connections: c.config.load.connections, measuredSec: 10, requests: c.requests ?? 0, bytes: 0, rpsMean: rps, rpsStddev: 1,
    bytesPerSec: 0, latencyUs: { p50: 300, p75: 400, p90: 500, p97_5: 800, p99: 1000, p99_9: 1500, max: 2000, mean: 350, stddev: 100 },
    latencyFrom: 'send', statusCounts: {}, errors: c.errors ?? 0, timeouts: 0, non2xx: c.non2xx ?? 0, clientElu: 0.3, clientBound: false, ...l,
  };
  return { ...c, load };
}

/** Deterministic noise: mulberry32 + Box–Muller. */
function gaussian(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

describe('batch means of a per-second series', () => {
  it('cuts ⌊√n⌋-second batches and leaves out the earliest remainder', () => {
    const series = [100, 1, 2, 3, 4, 5, 6, 7, 8, 9]; // n = 10: batches of 3, the first second left out
    expect(batchMeans(series)).toEqual({ batchSize: 3, means: [2, 5, 8] });
    expect(batchMeans([5])).toBeNull();
    expect(batchMeans([5, 7])).toEqual({ batchSize: 1, means: [5, 7] });
  });

  it('a stable series gives a narrow interval, a ramp and a step a wide one', () => {
    const noise = gaussian(7);
    const stable = Array.from({ length: 25 }, () => 10000 + 50 * noise());
    const ramp = Array.from({ length: 25 }, (_, i) => 9000 + 80 * i); // +2,000 req/s over the cell
    const step = Array.from({ length: 25 }, (_, i) => (i < 12 ? 6000 : 10000)); // slow first seconds
    const s = summarizeOne(mean(stable), stable);
    const r = summarizeOne(mean(ramp), ramp);
    const st = summarizeOne(mean(step), step);
    expect([s.intervalFrom, s.df, r.df]).toEqual(['batch-means', 4, 4]); // 25 s: five 5-second batches
    expect(s.ci!.halfWidth).toBeLessThan(100);
    expect(s.ci!.low).toBeLessThan(10000);
    expect(s.ci!.high).toBeGreaterThan(10000);
    // Drift widens the interval of its own cell, so a drifting cell cannot look surely better.
    expect(r.ci!.halfWidth).toBeGreaterThan(10 * s.ci!.halfWidth);
    expect(st.ci!.halfWidth).toBeGreaterThan(1000);
    expect(summarizeOne(1000, null)).toMatchObject({ ci: null, se: null, intervalFrom: null });
  });

  it('is wider than treating autocorrelated seconds as independent', () => {
    // AR(1) with φ = 0.8: each second carries most of the one before.
    const noise = gaussian(42);
    const series: number[] = [];
    let x = 0;
    for (let i = 0; i < 64; i++) series.push(10000 + (x = 0.8 * x + 100 * noise()));
    const naiveSe = stddev(series)! / Math.sqrt(series.length);
    const bm = summarizeOne(mean(series), series);
    expect(bm.se!).toBeGreaterThan(1.5 * naiveSe);
  });
});

describe("Welch's t-test and Holm's correction", () => {
  it('gives p = 0.05 exactly where t is the 97.5 % quantile of the Welch–Satterthwaite df', () => {
    // Equal standard errors and df 4 each: Welch's df is 8.
    const q = tQuantile(0.975, 8);
    const t = welch({ mean: 10 + q * Math.SQRT2, se: 1, df: 4 }, { mean: 10, se: 1, df: 4 });
    expect(t.df).toBeCloseTo(8, 12);
    expect(t.t).toBeCloseTo(q, 12);
    expect(t.p).toBeCloseTo(0.05, 10);
    expect(t.pAbove).toBeCloseTo(0.025, 10);
    expect(t.pBelow).toBeCloseTo(0.975, 10);
    // Unequal: df between the smaller df and the sum.
    const u = welch({ mean: 5, se: 3, df: 2 }, { mean: 0, se: 1, df: 9 });
    expect(u.df).toBeGreaterThan(2);
    expect(u.df).toBeLessThan(11);
    expect(u.p).toBeCloseTo(2 * (1 - studentTCdf(5 / Math.sqrt(10), u.df)), 12);
    // Against a share of b: a − 0.95·b.
    expect(welch({ mean: 95, se: 1, df: 4 }, { mean: 100, se: 1, df: 4 }, 0.95).diff).toBeCloseTo(0, 12);
  });

  it('handles spreads of exactly zero', () => {
    expect(welch({ mean: 5, se: 0, df: 2 }, { mean: 5, se: 0, df: 2 }).p).toBe(1);
    expect(welch({ mean: 6, se: 0, df: 2 }, { mean: 5, se: 0, df: 2 })).toMatchObject({ p: 0, pAbove: 0, pBelow: 1 });
    expect(welch({ mean: 6, se: 0, df: 2 }, { mean: 5, se: 1, df: 3 }).df).toBeCloseTo(3, 12);
  });

  it('adjusts p-values step-down, in input order', () => {
    expect(holm([0.01, 0.04, 0.03])).toEqual([0.03, 0.06, 0.06]);
    expect(holm([0.5, 0.001])).toEqual([0.5, 0.002]);
    expect(holm([0.6, 0.7])).toEqual([1, 1]); // capped at 1, and never below an earlier step
    expect(holm([])).toEqual([]);
  });

  it('a best picked among many needs the correction: three separate p < 0.05 are not enough', () => {
    const others = [965, 975, 985];
    const one = recommend(run([...reps({ workers: 1 }, [990, 1000, 1010]), ...reps({ workers: 2 }, others)]));
    expect(scope(one).rivals[0]).toMatchObject({ relation: 'worse', within: null });
    expect(scope(one).rivals[0]!.p).toBeLessThan(0.05);
    expect(scope(one).state).toBe('confident');

    const many = recommend(run([
      ...reps({ workers: 1 }, [990, 1000, 1010]),
      ...reps({ workers: 2 }, others),
      ...reps({ workers: 4 }, others),
      ...reps({ workers: 8 }, others),
    ]));
    const s = scope(many);
    expect(s.bestRps.workers).toBe(1);
    const best = estimateOf(s.bestRps.rps!)!;
    for (const r of s.rivals) {
      // Each alone is shown below the best; corrected over the three, none is.
      const c = many.configurations.find((x) => x.key === r.key)!;
      expect(welch(estimateOf(c.rps!)!, best).pBelow).toBeLessThan(0.05);
      expect(r.relation).toBe('undecided');
      expect(r.p!).toBeGreaterThan(0.05);
    }
    expect(s.state).toBe('undecided');
    expect(keysToWorkers(many, s.notDistinguishableRps)).toEqual([2, 4, 8]);
  });

  it('separates configurations whose intervals overlap when the test can', () => {
    // 95 % intervals of the means overlap (±373 each around 10,000 and 10,500) yet the costlier one is significantly slower.
    const rec = recommend(run([...reps({ workers: 2 }, [9850, 10000, 10150]), ...reps({ workers: 1 }, [10350, 10500, 10650])]));
    const [a, b] = [config(rec, 2).rps!.ci!, config(rec, 1).rps!.ci!];
    expect(a.high).toBeGreaterThan(b.low);
    expect(scope(rec).state).toBe('confident');
  });
});

describe('the knee, by the test', () => {
  const best = [10000, 10100, 9900];

  it('is shown within the margin when the test places it above best − margin', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [9900, 9910, 9890]), ...reps({ workers: 2 }, best)]));
    expect([scope(rec).knee.workers, scope(rec).kneeEvidence]).toEqual([1, 'shown-within']);
    expect(rec.words).toContain('1 cluster worker (1 per CPU) was within 5 % of it by the test (9,900 req/s): the knee.');
  });

  it('counts a mean below the floor as the knee when the test cannot put it below', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [8600, 9400, 10000]), ...reps({ workers: 2 }, best)]));
    expect(config(rec, 1).rps!.mean).toBeLessThan(9500);
    expect([scope(rec).knee.workers, scope(rec).kneeEvidence]).toEqual([1, 'not-below']);
  });

  it('passes over fewer workers that are significantly below', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [9000, 9010, 8990]), ...reps({ workers: 2 }, best), ...reps({ workers: 4 }, [9950, 10000, 10050])]));
    expect(scope(rec).knee.workers).toBe(2);
  });
});

describe('goodput', () => {
  it('counts only responses with their expected status: stored goodput, or rps less the failed share for older cells', () => {
    const old = { ...cell({ workers: 1, rps: 1000, requests: 10000 }), non2xx: 2000 };
    const fresh = withLoad(cell({ workers: 2, rps: 1000, requests: 10000 }), { goodputMean: 700 });
    const rec = recommend(run([old, fresh]));
    expect(config(rec, 1).rps!.mean).toBe(800);
    expect(config(rec, 1).rpsAll).toBe(1000);
    expect(config(rec, 2).rps!.mean).toBe(700);
  });

  it('picks by goodput, not by completed responses', () => {
    const clean = cell({ workers: 1, rps: 1000, requests: 10000 });
    const failing = { ...cell({ workers: 2, rps: 1005, requests: 10000 }), non2xx: 100 }; // exactly 1 %: still allowed
    const rec = recommend(run([clean, failing]));
    expect(config(rec, 2).errorPct).toBe(MAX_ERROR_PCT);
    expect(config(rec, 2).disqualified).toEqual([]);
    expect(scope(rec).bestRps.workers).toBe(1);
  });
});

describe('who may be picked', () => {
  const unstable: Flag = { kind: 'unstable', reason: 'throughput stepped up 40 % after second 2' };
  const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };

  it('never an OOM-killed or failing configuration, and says why; an unstable one counts and keeps its flag', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [9000, 9100, 8900]),
      ...reps({ workers: 2 }, [12000, 12100, 11900]).map((c) => ({ ...c, flags: [unstable] })),
      ...reps({ workers: 4 }, [13000, 13100, 12900]).map((c) => ({ ...c, flags: [{ kind: 'oom-killed', reason: 'a worker was killed' } as Flag] })),
      ...reps({ workers: 8 }, [14000, 14100, 13900]).map((c) => ({ ...c, errors: 5000 })),
    ]));
    const s = scope(rec);
    // Every repetition of 2 workers was unstable: all of them still count, so it is judged (and wins) on them.
    expect(config(rec, 2).n).toBe(3);
    expect(config(rec, 2).disqualified).toEqual([]);
    expect(config(rec, 2).flags).toEqual([{ kind: 'unstable', cells: 3, of: 3, reasons: ['throughput stepped up 40 % after second 2'] }]);
    expect(rec.exclusions).toEqual([]);
    expect(keysToWorkers(rec, s.candidates)).toEqual([1, 2]);
    expect(s.bestRps.workers).toBe(2);
    expect(s.knee.workers).toBe(2);
    expect(s.state).toBe('confident');
    // Counted, and flagged in the words.
    expect(rec.words).toContain(
      'Caveat for 2 cluster workers on 1 CPU / 256 MB: unstable in 3 of 3 repetitions — throughput drifted or stepped during the measured seconds, so its mean is not a steady state (throughput stepped up 40 % after second 2).',
    );
    expect(config(rec, 4).disqualified).toEqual(['OOM-killed']);
    expect(config(rec, 8).disqualified).toEqual(['3.4 % of requests failed (above 1 %)']);
    expect(rec.words).toContain(
      'Not picked on 1 CPU / 256 MB: 4 cluster workers (OOM-killed); 8 cluster workers (3.4 % of requests failed (above 1 %)).',
    );
  });

  it('counts an unstable repetition with the steady ones, flagged: its spread says how sure the answer can be', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [9000, 9100, 8900]),
      // The first repetition had a slow start (its mean is low); the other two are steady and higher.
      ...reps({ workers: 2 }, [6000, 12100, 11900]).map((c, i) => (i === 0 ? { ...c, flags: [unstable] } : c)),
    ]));
    // Nothing is left out: the slow repetition is in the mean and in the (wide) interval.
    expect(rec.exclusions).toEqual([]);
    expect(config(rec, 2).n).toBe(3);
    expect(config(rec, 2).rps!.values).toEqual([6000, 12100, 11900]);
    expect(config(rec, 2).rps!.mean).toBeCloseTo(10000, 6);
    expect(config(rec, 2).flags).toEqual([{ kind: 'unstable', cells: 1, of: 3, reasons: ['throughput stepped up 40 % after second 2'] }]);
    expect(config(rec, 2).rps!.ci!.low).toBeLessThan(9000);
    // The highest mean is still the best, but the test cannot separate it: undecided, the cheaper leads.
    expect(scope(rec).bestRps.workers).toBe(2);
    expect(scope(rec).state).toBe('undecided');
    expect(scope(rec).knee.workers).toBe(1);
    expect(keysToWorkers(rec, scope(rec).contenders)).toEqual([1, 2]);
  });

  it('keeps a client-bound or host-busy configuration as a lower bound, never setting it aside', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [9000, 9100, 8900]),
      ...reps({ workers: 2 }, [10000, 10100, 9900]),
      ...reps({ workers: 4 }, [15000, 15100, 14900]).map((c) => ({ ...c, flags: [clientBound] })),
      ...reps({ workers: 8 }, [16000, 16100, 15900]).map((c) => ({ ...c, flags: [{ kind: 'host-busy', reason: 'others took 45 % of core 1' } as Flag] })),
    ]));
    const s = scope(rec);
    // The bounds are the fastest numbers measured: the clean 2 workers is not picked over them.
    expect(s.bestRps.workers).toBe(8);
    expect(s.setAside).toEqual([]);
    expect(s.ceiling).toBeNull();
    expect(s.lowerBounds.map((k) => configByKey(rec, k).workers)).toEqual([4, 8]);
    // 1 and 2 workers are shown below; 4 and 8 are bounds nothing can be shown within a margin of.
    expect(s.rivals.filter((r) => r.relation === 'worse').map((r) => configByKey(rec, r.key).workers)).toEqual([1, 2]);
    expect(s.state).toBe('undecided');
    // 4 workers' bound is below 95 % of 8 workers': it cannot lead; 8 workers does, undecided against it.
    expect(s.contenders.map((k) => configByKey(rec, k).workers)).toEqual([8, 4]);
    expect(s.settleable).toBe(false);
    expect(rec.headline!.state).toBe('undecided');
    expect(rec.headline!.text).toMatch(/^Undecided on 1 CPU \/ 256 MB between 8 cluster workers \(≥ 16,000 req\/s\) and 4 cluster workers \(≥ 15,000 req\/s\): a measured lower bound/);
    // 4 workers' bound is the load generator's: only a different experiment can decide it.
    expect(rec.headline!.text).toContain('a heavier app or request');
  });

  it('when every candidate is bottlenecked by the host or the load generator, says so', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [9000, 9100, 8900]).map((c) => ({ ...c, flags: [clientBound] })),
      ...reps({ workers: 2 }, [10000, 10100, 9900]).map((c) => ({ ...c, flags: [{ kind: 'host-busy', reason: 'others took 45 % of core 1' } as Flag] })),
    ]));
    expect(scope(rec).ceiling).toBe('host');
    expect(scope(rec).bestRps.workers).toBe(2);
    expect(rec.words).toContain('Every candidate here was client-bound, dependency-bound, network-bound or host-busy: the load generator, a dependency, the network or other processes on the host, not the server, set the ceiling.');
  });

  it('keeps disqualified configurations out of the SLO answer too, and counts an unstable one', () => {
    const rec = recommend(run([
      // The cheapest, but failing requests: never an answer to the objective.
      ...reps({ workers: 1 }, [9000, 9100]).map((c) => ({ ...c, errors: 5000 })),
      // Unstable in every repetition: counted, so it meets the objective.
      ...reps({ workers: 2 }, [5000, 5100]).map((c) => ({ ...c, flags: [unstable] })),
      ...reps({ workers: 4 }, [4000, 4100]),
    ]), {
      slo: { p99Ms: 20, minRps: 1000, maxErrorPct: 1 },
    });
    expect(config(rec, 1).disqualified).toHaveLength(1);
    expect(rec.sloOutcomes[0]!.met!.workers).toBe(2);
    expect(rec.sloOutcomes[0]!.considered).toBe(2);
    expect(rec.sloOutcomes[0]!.met!.flags.map((f) => f.kind)).toEqual(['unstable']);
  });
});

describe('a constant rate that was missed', () => {
  const rate = { model: 'rate' as const, rate: 1000, connections: 10 };
  const busy: Flag = { kind: 'client-bound', reason: 'load thread busy 95 %' };

  it('is put on the side that was the bottleneck, and never calls a saturated server faster', () => {
    const rec = recommend(run([
      ...reps({ workers: 4, load: rate }, [995, 998]),
      // The server was saturated although a load thread was busy too.
      ...reps({ workers: 1, load: rate, flags: [busy] }, [700, 710]).map((c) => withLoad(c, { shortfallBy: 'server', clientBound: true })),
      ...reps({ workers: 2, load: rate, flags: [busy] }, [800, 810]).map((c) => withLoad(c, { shortfallBy: 'client', clientBound: true })),
    ]));
    expect(config(rec, 1).shortfallBy).toBe('server');
    expect(config(rec, 2).shortfallBy).toBe('client');
    expect(rec.words).toContain('1 cluster worker fell short of the rate with every connection waiting on the server: the server was saturated.');
    expect(rec.words).toContain(
      '2 cluster workers fell short of the rate because a load thread was saturated: the load generator fell behind, so the server may be faster than measured.',
    );
    const aboutOne = rec.words.filter((w) => w.includes('1 cluster worker'));
    expect(aboutOne.join(' ')).not.toMatch(/server may be faster/);
  });

  it('reads the side as stored, never from the latency: none recorded, none said', () => {
    // Both would fill their 10 connections by Little's law (20 ms × 1,000 req/s = 20 in flight): the store's migration
    // 11 recorded that once for cells stored before the load side did (tests/unit/bottleneck.test.ts); the answer
    // reads only what is stored.
    const recorded = reps({ workers: 1, load: rate }, [700, 710]).map((c) => withLoad({ ...c, meanUs: 20000 }, { shortfallBy: 'server' }));
    const unrecorded = reps({ workers: 2, load: rate }, [800, 810]).map((c) => ({ ...c, meanUs: 20000 }));
    const rec = recommend(run([...recorded, ...unrecorded]));
    expect(config(rec, 1).shortfallBy).toBe('server');
    expect(config(rec, 2).shortfallBy).toBeNull();
  });
});

describe('where an interval comes from', () => {
  const seconds = (m: number): number[] => Array.from({ length: 16 }, (_, i) => m + (i % 2 ? 40 : -40));

  it('with one repetition: batch means of its stored seconds, said in the notes and the words', () => {
    const rec = recommend(run([
      withLoad(cell({ workers: 1, rps: 9000 }), { goodputMean: 9000, perSecondGood: seconds(9000) }),
      withLoad(cell({ workers: 2, rps: 10000 }), { goodputMean: 10000, perSecondGood: seconds(10000) }),
    ]));
    const best = scope(rec).bestRps;
    expect(best.intervalFrom).toBe('batch-means');
    expect(best.rps!.df).toBe(3); // 16 s: four 4-second batches
    expect(best.notes).toEqual([ONE_REPETITION_NOTE]);
    expect(scope(rec).state).toBe('confident');
    expect(rec.words).toContain('On 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (10,000 ± 0 req/s, one run, batch means).');
    expect(rec.words.some((w) => w.startsWith("Every configuration ran once: a single run's interval comes from its own seconds (batch means)"))).toBe(true);
  });

  it('for older cells, from the stored samples (goodput: responses less unexpected statuses)', () => {
    const r = run([cell({ workers: 1, rps: 9000 }), cell({ workers: 2, rps: 10000 })]);
    const sample = (t: number, rps: number): Sample => ({ t, rps, bytes: 0, errors: 0, timeouts: 0, non2xx: 100, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1, cpuPct: null, memBytes: null, throttledPeriods: null });
    const samples = new Map(r.cells.map((c) => [c.id, seconds(c.rpsMean!).map((v, i) => sample(i, v + 100))]));
    const rec = recommend(r, { samples });
    expect(config(rec, 2).intervalFrom).toBe('batch-means');
    expect(recommend(r).configurations.every((c) => c.intervalFrom === null)).toBe(true);
  });

  it('with repetitions: their spread, whatever the seconds say', () => {
    const rec = recommend(run(reps({ workers: 1 }, [9000, 9500, 10000]).map((c) => withLoad(c, { perSecondGood: seconds(c.rpsMean!), goodputMean: c.rpsMean! }))));
    expect(config(rec, 1).intervalFrom).toBe('repetitions');
    // A 95 % interval on the log scale: mean × e^(∓t·se/mean), asymmetric; halfWidth is half its width.
    const h = (tQuantile(0.975, 2) * (500 / Math.sqrt(3))) / 9500;
    const ci = config(rec, 1).rps!.ci!;
    expect(ci.low).toBeCloseTo(9500 * Math.exp(-h), 9);
    expect(ci.high).toBeCloseTo(9500 * Math.exp(h), 9);
    expect(ci.halfWidth).toBeCloseTo((ci.high - ci.low) / 2, 9);
    expect(9500 - ci.low).toBeLessThan(ci.high - 9500);
  });

  it('the method paragraph names the interval sources, the test, Holm and goodput', () => {
    const rec = recommend(run(reps({ workers: 1 }, [9000, 9500])));
    for (const part of ['goodput', 'repetitions', 'batch means', 'autocorrelated', 'Welch', 'Holm-corrected at 5 %', 'within 5 % of the best', 'lower bound', 'confident', 'equivalent', 'undecided', 'more than 1 % failed']) {
      expect(rec.method).toContain(part);
    }
    expect(rec.words.at(-1)).toBe(rec.method);
  });
});

describe('a cancelled run', () => {
  it('counts only cells that finished with results, and never contradicts itself', () => {
    // The cancelled cell measured a few seconds before it stopped: not a result.
    const cancelled = { ...cell({ workers: 2, status: 'cancelled' }), rpsMean: 29, p99Us: 713, clientBound: true };
    const rec = recommend(run([cell({ workers: 1, rps: 9000 }), cancelled], { status: 'cancelled' }));
    expect(rec.words[0]).toBe('Run 1 is cancelled: 1 of 2 cells finished with results; this answer covers only those.');
    expect(rec.words.some((w) => w.startsWith('No cell'))).toBe(false);
    expect(config(rec, 2).n).toBe(0);
    expect(config(rec, 2).rps).toBeNull();
    expect(scope(rec).configurations).toEqual([config(rec, 1).key]);
    expect(rec.words.join(' ')).not.toContain('29');

    const none = recommend(run([{ ...cancelled }], { status: 'cancelled' }));
    expect(none.words).toEqual(['Run 1 is cancelled and no cell of it finished with results: there is nothing to recommend.', 'hello cluster×2 1000m/256MB c20: cancelled, excluded.']);
  });
});

describe('a pick next to a configuration the load generator held back', () => {
  const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };

  it('uses the bound as one: a faster client-bound configuration beats a slower clean one with confidence', () => {
    // As measured on this 2-core box (issue 21): 1 worker hit the load thread's ceiling and still beat 2 workers.
    const rec = recommend(run([
      ...reps({ workers: 1 }, [77500, 76800, 76700], [750, 760, 740]).map((c) => ({ ...c, flags: [clientBound] })),
      ...reps({ workers: 2 }, [72700, 72900, 72650], [2350, 2300, 2400]),
    ]));
    const s = scope(rec);
    expect(s.bestRps.workers).toBe(1);
    expect(s.knee.workers).toBe(1);
    expect(s.state).toBe('confident');
    expect(s.setAside).toEqual([]);
    expect(s.rivals[0]).toMatchObject({ relation: 'worse' }); // the bound beat the estimate; the words say it is a bound
    expect(rec.headline).toMatchObject({ state: 'confident', key: config(rec, 1).key });
    expect(rec.headline!.text).toMatch(/^Pick: 1 cluster worker on 1 CPU \/ 256 MB — confident: its goodput \(≥ 77,000 req\/s\) is significantly above every other/);
    expect(rec.words.join(' ')).toContain('1 cluster worker was client-bound or host-busy: its goodput (≥ 77,000 req/s) is a lower bound');
  });

  it('never picks a configuration worse on both goodput and p99 than a bounded one', () => {
    for (let seed = 0; seed < 20; seed++) {
      const jitter = (x: number, i: number): number => x * (1 + (((seed * 7 + i * 13) % 11) - 5) / 500);
      const rec = recommend(run([
        ...reps({ workers: 1 }, [77000, 77100, 76900].map(jitter), [750, 760, 740]).map((c) => ({ ...c, flags: [clientBound] })),
        ...reps({ workers: 2 }, [72700, 72800, 72600].map(jitter), [2350, 2300, 2400]),
      ]));
      expect(scope(rec).knee.workers).toBe(1);
    }
  });

  it('is undecided when every candidate is held back, and says what would decide it', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [62000, 63000, 61500]).map((c) => ({ ...c, flags: [clientBound] })),
      ...reps({ workers: 2 }, [50000, 50500, 49800]).map((c) => ({ ...c, flags: [clientBound] })),
    ]));
    const s = scope(rec);
    expect(s.ceiling).toBe('client');
    expect(s.rivals[0]).toMatchObject({ relation: 'undecided', blockedBy: 'bound' });
    // 2 workers' number is a bound too: it may be faster than 1 worker's; more repetitions cannot tell.
    expect(s.state).toBe('undecided');
    expect(s.settleable).toBe(false);
    expect(s.decideBy.join(' ')).toContain('a smaller CPU cap, more load threads');
    expect(rec.headline!.text).not.toMatch(/^Pick/);
  });

  it('stays confident when nothing was held back', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [40000, 40500, 39800]), ...reps({ workers: 2 }, [50000, 50500, 49800])]));
    expect(scope(rec).state).toBe('confident');
  });
});
