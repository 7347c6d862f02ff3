import { describe, expect, it } from 'vitest';
import {
  confidenceInterval, cv, mean, NO_INTERVAL_NOTE, parseSlo, recommend, stddev, studentTCdf, tQuantile, type Recommendation,
} from '../../src-main/analysis/index.ts';
import { formatRecommendation, parseMarginOption, parseSloOption } from '../../src-main/cli/commands/report.ts';
import type { Flag } from '../../src-main/model/types.ts';
import { cell, HOST, reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 96 % of the time' };
const scope = (rec: Recommendation, cpu = 1000, mem = 256) => rec.scopes.find((s) => s.cpuMillis === cpu && s.memoryMb === mem)!;
const config = (rec: Recommendation, workers: number, cpu = 1000, mem = 256) =>
  rec.configurations.find((c) => c.workers === workers && c.cpuMillis === cpu && c.memoryMb === mem)!;

describe('statistics', () => {
  it('t quantiles match the published table', () => {
    expect(tQuantile(0.975, 1)).toBeCloseTo(12.706, 3);
    expect(tQuantile(0.975, 2)).toBeCloseTo(4.303, 3);
    expect(tQuantile(0.975, 4)).toBeCloseTo(2.776, 3);
    expect(tQuantile(0.975, 9)).toBeCloseTo(2.262, 3);
    expect(tQuantile(0.975, 30)).toBeCloseTo(2.042, 3);
    expect(tQuantile(0.995, 5)).toBeCloseTo(4.032, 3);
    expect(tQuantile(0.95, 10)).toBeCloseTo(1.812, 3);
    expect(tQuantile(0.975, 1e6)).toBeCloseTo(1.96, 2);
    expect(tQuantile(0.025, 2)).toBeCloseTo(-4.303, 3);
    expect(studentTCdf(0, 7)).toBe(0.5);
    expect(() => tQuantile(1, 3)).toThrow(/0 < p < 1/);
  });

  it('mean, sample standard deviation, CV and the 95 % interval', () => {
    expect(mean([10, 12, 14])).toBe(12);
    expect(stddev([10, 12, 14])).toBe(2);
    expect(stddev([5])).toBeNull();
    expect(cv([10, 12, 14])).toBeCloseTo(1 / 6, 12);
    const ci = confidenceInterval([10, 12, 14])!;
    expect(ci.halfWidth).toBeCloseTo((4.302653 * 2) / Math.sqrt(3), 5);
    expect(ci.low).toBeCloseTo(12 - ci.halfWidth, 12);
    expect(confidenceInterval([7])).toBeNull();
  });
});

describe('recommend: throughput', () => {
  it('names a clear winner when the test puts every other significantly below it', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [10000, 10100, 9900]),
      ...reps({ workers: 2 }, [20000, 20200, 19800]),
      ...reps({ workers: 4 }, [15000, 15100, 14900]),
    ]));
    const s = scope(rec);
    expect(s.bestRps.workers).toBe(2);
    expect(s.state).toBe('confident');
    expect(s.notDistinguishableRps).toEqual([]);
    expect(s.rivals.every((r) => r.relation === 'worse' && r.p! <= 0.05 && r.within === null)).toBe(true);
    expect(s.clearlyBelowRps.map((k) => rec.configurations.find((c) => c.key === k)!.workers).sort()).toEqual([1, 4]);
    // The 95 % interval is taken on a log scale: mean × e^(∓t·se/mean), halfWidth half its width.
    const h = (tQuantile(0.975, 2) * (200 / Math.sqrt(3))) / 20000;
    expect(s.bestRps.rps!.ci!.halfWidth).toBeCloseTo(20000 * Math.sinh(h), 9);
    expect(s.bestRps.rps!.ci!.low).toBeCloseTo(20000 * Math.exp(-h), 9);
    expect(s.bestRps.rps!.ci!.high).toBeCloseTo(20000 * Math.exp(h), 9);
    expect(rec.words).toContain('On 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (20,000 ± 497 req/s, n = 3).');
    expect(rec.words).toContain("Welch's t-test puts every other configuration here significantly below it (Holm-corrected, 5 %).");
    expect(rec.words).toContain('More workers only cost throughput: 4 cluster workers were significantly slower.');
    expect(rec.words).toContain('Fewer workers were significantly more than 5 % below it, so it is also the knee.');
    expect(rec.words.at(-1)).toBe(rec.method);
  });

  it('reports what the test cannot separate as not distinguishable', () => {
    const rec = recommend(run([
      ...reps({ workers: 2 }, [15000, 15100, 14900]),
      ...reps({ workers: 4 }, [20400, 21400, 19400]),
      ...reps({ workers: 8 }, [20000, 19000, 21000]),
    ]));
    const s = scope(rec);
    expect(s.bestRps.workers).toBe(4);
    expect(s.state).toBe('undecided');
    expect(s.notDistinguishableRps).toEqual([config(rec, 8).key]);
    expect(rec.words).toContain("4 and 8 cluster workers are not distinguishable on throughput (Welch's t-test, Holm-corrected, 5 %).");
  });

  it('breaks an exact tie towards fewer workers, and says the test cannot separate them', () => {
    // Three repetitions each: an interval needs 3 or more.
    const rec = recommend(run([...reps({ workers: 4 }, [1000, 1010, 1020]), ...reps({ workers: 2 }, [1000, 1010, 1020])]));
    const s = scope(rec);
    expect(s.bestRps.workers).toBe(2);
    expect(s.rivals).toEqual([expect.objectContaining({ relation: 'equivalent', within: 'shown-within' })]);
    // Shown within ±5 % by two one-sided tests: equivalent, and the cheaper (fewer workers) is the pick.
    expect(s.state).toBe('equivalent');
    expect(s.knee.workers).toBe(2);
    expect(rec.words).toContain("2 and 4 cluster workers are shown within 5 % of the best throughput (one-sided Welch's t-tests, Holm-corrected, 5 %): equivalent, so the cheapest is the pick.");
  });

  it('finds the knee: the fewest workers not significantly below the best minus the margin', () => {
    const cells = [
      ...reps({ workers: 1 }, [9450, 9550, 9500]), // exactly 5 % below 10,000
      ...reps({ workers: 2 }, [10000, 10100, 9900]),
      ...reps({ workers: 4 }, [9700, 9800, 9900]),
    ];
    const rec = recommend(run(cells));
    expect(scope(rec).knee.workers).toBe(1);
    // Exactly on the floor: the test cannot put it below, nor show it above.
    expect(scope(rec).kneeEvidence).toBe('not-below');
    expect(rec.words).toContain(
      '1 cluster worker (1 per CPU) was the knee (9,500 req/s): not significantly more than 5 % below the best, but not shown within 5 % either, so this is weak.',
    );
    const tight = recommend(run(cells), { marginPct: 1.5 });
    expect(scope(tight).knee.workers).toBe(2);
    expect(tight.words).toContain('Fewer workers were significantly more than 1.5 % below it, so it is also the knee.');
  });

  it('gives the lowest p99 with its interval in the units of format.ts', () => {
    const rec = recommend(run([
      ...reps({ workers: 1 }, [9000, 9100, 8900], [1790, 1850, 1730]),
      ...reps({ workers: 2 }, [10000, 10100, 9900], [2500, 2600, 2400]),
    ]));
    expect(scope(rec).lowestP99.workers).toBe(1);
    expect(rec.words).toContain('Lowest p99: 1 cluster worker (1.79 ms ± 0.15, n = 3).');
  });

  it('computes workers per CPU for each winner', () => {
    const rec = recommend(run([
      ...reps({ workers: 4, cpu: 500 }, [100, 101, 102]),
      ...reps({ workers: 4, cpu: 2000 }, [400, 401, 402]),
      ...reps({ workers: 3, cpu: 1500 }, [300, 301, 302]),
    ]));
    expect(scope(rec, 500).bestRps.workersPerCpu).toBe(8);
    expect(scope(rec, 2000).bestRps.workersPerCpu).toBe(2);
    expect(scope(rec, 1500).bestRps.workersPerCpu).toBe(2);
    // Three pairs: each pair's own words answer "if you are given" it; the answer's decision spans them.
    expect(rec.decisions!.map((d) => d.pairs)).toEqual([3]);
    expect(rec.words).toContain('If you are given 0.5 CPU / 256 MB, only 4 cluster workers (8 per CPU) were measured: 101 ± 2 req/s, n = 3; p99 1.00 ms ± 0.00, n = 3.');
  });

  it('compares modes in one CPU / memory pair and names them', () => {
    const rec = recommend(run([
      ...reps({ mode: 'single', workers: 1 }, [9000, 9050, 8950]),
      ...reps({ mode: 'cluster', workers: 2 }, [12000, 12100, 11900]),
      ...reps({ mode: 'pm2', workers: 2 }, [11800, 11900, 12000]),
    ]));
    const s = scope(rec);
    expect(s.bestRps.mode).toBe('cluster');
    // PM2 adds its daemon: the lighter launcher wins an equivalence.
    expect([s.state, s.knee.mode]).toEqual(['equivalent', 'cluster']);
    expect(rec.words).toContain("2 cluster workers and 2 PM2 instances are shown within 5 % of the best throughput (one-sided Welch's t-tests, Holm-corrected, 5 %): equivalent, so the cheapest is the pick.");
    expect(rec.words).toContain('Lowest p99: a single process (1.00 ms ± 0.00, n = 3).');
  });
});

describe('recommend: one repetition', () => {
  it('without a per-second series has no interval, says so, and compares means only', () => {
    const rec = recommend(run([cell({ workers: 1, rps: 24000 }), cell({ workers: 2, rps: 25309 })]));
    const best = scope(rec).bestRps;
    expect(best.workers).toBe(2);
    expect(best.rps!.ci).toBeNull();
    expect(best.rps!.cv).toBeNull();
    expect(best.notes).toEqual([NO_INTERVAL_NOTE]);
    expect(best.intervalFrom).toBeNull();
    expect(scope(rec).state).toBe('undecided');
    expect(scope(rec).rivals).toEqual([expect.objectContaining({ p: null, within: null })]);
    expect(scope(rec).knee.workers).toBe(2); // 24,000 < 95 % of 25,309 on the means
    const near = recommend(run([cell({ workers: 1, rps: 24500 }), cell({ workers: 2, rps: 25309 })]));
    expect([scope(near).knee.workers, scope(near).kneeEvidence]).toEqual([1, 'means']);
    expect(near.words).toContain('1 cluster worker (1 per CPU) was within 5 % of it on the means, with no interval (24,500 req/s): the knee.');
    expect(rec.words).toContain('On 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (25,309 req/s, a single sample).');
    expect(rec.words).toContain('These are single samples with no per-second series: means compared, with no test.');
    expect(rec.words).toContain('Every configuration ran once: with no per-second series there is no interval at all, only means; run 3 or more repetitions ("repetitions": 3) for the honest interval.');
  });
});

describe('recommend: exclusions', () => {
  it('leaves failed, OOM-killed, cancelled and interrupted cells out of the aggregates and says why', () => {
    const rec = recommend(run([
      cell({ mode: 'pm2', workers: 16, cpu: 500, mem: 512, rps: 3000 }),
      cell({ mode: 'pm2', workers: 16, cpu: 500, mem: 512, status: 'oom' }),
      cell({ mode: 'pm2', workers: 16, cpu: 500, mem: 512, rps: 3200 }),
      cell({ mode: 'pm2', workers: 2, cpu: 500, mem: 512, status: 'failed', failure: 'the app did not become ready in 30 s\nlog tail: …' }),
      cell({ mode: 'pm2', workers: 4, cpu: 500, mem: 512, status: 'cancelled' }),
      cell({ mode: 'pm2', workers: 8, cpu: 500, mem: 512, status: 'interrupted' }),
    ]));
    const pm16 = config(rec, 16, 500, 512);
    expect(pm16.n).toBe(2);
    expect(pm16.rps!.mean).toBe(3100);
    expect(pm16.excluded.map((e) => e.reason)).toEqual(['OOM-killed']);
    expect(rec.exclusions.map((e) => e.text)).toEqual([
      'hello pm2×16 500m/512MB c20 rep2: OOM-killed, excluded',
      'hello pm2×2 500m/512MB c20: failed (the app did not become ready in 30 s), excluded',
      'hello pm2×4 500m/512MB c20: cancelled, excluded',
      'hello pm2×8 500m/512MB c20: interrupted (the process running it stopped), excluded',
    ]);
    expect(config(rec, 2, 500, 512).n).toBe(0);
    // An OOM kill in any repetition disqualifies the configuration: nothing on that pair may be picked.
    expect(pm16.disqualified).toEqual(['OOM-killed']);
    expect(rec.scopes).toEqual([]);
    expect(rec.undecided.map((u) => u.setAside)).toEqual([[{ key: pm16.key, reason: 'OOM-killed' }]]);
    expect(rec.words).toContain('On 0.5 CPU / 512 MB, no configuration qualifies to be picked: 16 PM2 instances (OOM-killed).');
    expect(rec.run.cellsExcluded).toBe(4);
    expect(rec.words).toContain('hello pm2×16 500m/512MB c20 rep2: OOM-killed, excluded.');
    expect(rec.words.at(-1)).toBe(rec.method);
  });

  it('has nothing to recommend when no cell has results', () => {
    const rec = recommend(run([cell({ status: 'failed', failure: 'image build failed' })], { status: 'failed' }));
    expect(rec.scopes).toEqual([]);
    expect(rec.words).toEqual([
      'Run 1 is failed and no cell of it finished with results: there is nothing to recommend.',
      'hello cluster×1 1000m/256MB c20: failed (image build failed), excluded.',
    ]);
  });
});

describe('recommend: noise and flags', () => {
  it('flags a configuration whose req/s CV exceeds 10 %, with a suggestion that fits the run', () => {
    const cells = [...reps({ workers: 1 }, [10000, 13000, 7000]), ...reps({ workers: 2 }, [9000, 10000, 11000])];
    const rec = recommend(run(cells, { matrix: { placement: 'off' } }));
    expect(config(rec, 1).rps!.cv).toBeCloseTo(0.3, 12);
    expect(config(rec, 1).noisy).toBe(true);
    expect(config(rec, 2).rps!.cv).toBeCloseTo(0.1, 12);
    expect(config(rec, 2).noisy).toBe(false); // exactly 10 % is not above it
    expect(rec.noise).toHaveLength(1);
    expect(rec.words).toContain(
      'hello cluster×1 1000m/256MB c20 is noisy: its req/s varied by 30 % (coefficient of variation) over 3 repetitions; try longer cells (now 10 s), more repetitions (now 3) or core placement ("placement": "auto").',
    );
    const auto = recommend(run(cells, { matrix: { placement: 'auto' }, host: { ...HOST, cores: 1 } }));
    expect(auto.noise[0]!.suggestion).toBe('try longer cells (now 10 s) or more repetitions (now 3); core placement was already on, so look for other load on the machine too');
    // What the run recorded, not a guess from the host: a host-busy repetition points at the host.
    // The host-busy repetition is left out (two undisturbed ones remain), and still points at the host.
    const busy = [cell({ workers: 1, rps: 10000, flags: [{ kind: 'host-busy', reason: 'others took 40 % of core 1' }] }), ...reps({ workers: 1 }, [13000, 7000])];
    expect(recommend(run(busy)).noise[0]!.suggestion).toBe(
      'try longer cells (now 10 s), more repetitions (now 2) or a quieter host (other processes took CPU during some repetitions: host-busy)',
    );
  });

  it('carries a client-bound flag through to the winner when every candidate was client-bound', () => {
    const rec = recommend(run([
      cell({ workers: 1, rps: 10000, flags: [clientBound] }),
      ...reps({ workers: 1 }, [10100, 9900]),
      cell({ workers: 2, rps: 20000, flags: [clientBound] }),
      cell({ workers: 2, rps: 20100, flags: [clientBound] }),
      cell({ workers: 2, rps: 19900 }),
    ]));
    expect(scope(rec).ceiling).toBe('client');
    expect(rec.words).toContain(
      'Every candidate here was client-bound: the load generator, not the server, set the ceiling, so the server may be faster than any of these numbers and the comparison says little.',
    );
    const best = scope(rec).bestRps;
    expect(best.workers).toBe(2);
    expect(best.flags).toEqual([{ kind: 'client-bound', cells: 2, of: 3, reasons: ['load thread busy 96 % of the time'] }]);
    expect(rec.words).toContain(
      'Caveat for 2 cluster workers on 1 CPU / 256 MB: client-bound in 2 of 3 repetitions — the load generator may have set the pace, so the server may be faster than measured (load thread busy 96 % of the time).',
    );
  });

  it('pools the error rate over repetitions as the errors flag counts it', () => {
    const rec = recommend(run([cell({ requests: 1000, errors: 10 }), cell({ requests: 1000, errors: 30 })]));
    expect(config(rec, 1).errorPct).toBeCloseTo((40 / 2040) * 100, 12);
  });
});

describe('recommend: SLO', () => {
  const slo = { p99Ms: 20, minRps: 8000, maxErrorPct: 1 };

  it('names the closest configuration and by how much it missed when none meets it', () => {
    const rec = recommend(run([
      ...reps({ workers: 1, cpu: 500 }, [5000, 5000], [30000, 30000]),
      ...reps({ workers: 1, cpu: 1000 }, [9000, 9000], [22000, 22000]),
      ...reps({ workers: 2, cpu: 2000 }, [12000, 12000], [25000, 25000]),
    ]), { slo });
    const o = rec.sloOutcomes[0]!;
    expect(o.met).toBeNull();
    expect(o.meeting).toBe(0);
    expect(o.closest!.cpuMillis).toBe(1000);
    expect(o.checks.find((k) => k.criterion === 'p99')!.miss).toBeCloseTo(0.1, 12);
    expect(rec.words[0]).toBe(
      'No configuration meets p99 ≤ 20 ms, ≥ 8,000 req/s, errors ≤ 1 %. Closest: 1 cluster worker on 1 CPU / 256 MB (hello cluster×1 1000m/256MB c20) — p99 22.0 ms, 10 % over the 20 ms limit.',
    );
  });

  it('picks the cheapest configuration that meets it: least CPU, then memory, then workers', () => {
    // Three repetitions each: an interval needs 3 or more, so "within the limits" is said of real intervals.
    const cells = [
      ...reps({ workers: 1, cpu: 500 }, [5000, 5000, 5000], [5000, 5000, 5000]), // too slow
      ...reps({ workers: 2, cpu: 1000, mem: 512 }, [9000, 9100, 9050]),
      ...reps({ workers: 4, cpu: 1000, mem: 256 }, [9000, 9100, 9050]),
      ...reps({ workers: 2, cpu: 1000, mem: 256 }, [9000, 9100, 9050]),
      ...reps({ workers: 1, cpu: 2000, mem: 256 }, [15000, 15100, 15050]),
    ];
    const rec = recommend(run(cells), { slo });
    const met = rec.sloOutcomes[0]!.met!;
    expect([met.cpuMillis, met.memoryMb, met.workers]).toEqual([1000, 256, 2]);
    expect(rec.sloOutcomes[0]!.meeting).toBe(4);
    expect(rec.words[0]).toBe(
      'Cheapest configuration meeting p99 ≤ 20 ms, ≥ 8,000 req/s, errors ≤ 1 %: 2 cluster workers on 1 CPU / 256 MB (p99 1.00 ms, 9,050 req/s, 0 % errors; 4 of 5 configurations meet it).',
    );
    expect(rec.words[1]).toBe('Its 95 % intervals are within the limits too.');
    // Without it, memory decides before workers.
    const rest = recommend(run(cells.filter((c) => !(c.config.workers === 2 && c.config.memoryMb === 256))), { slo });
    expect([rest.sloOutcomes[0]!.met!.memoryMb, rest.sloOutcomes[0]!.met!.workers]).toEqual([256, 4]);
  });

  // Two repetitions have no interval (MIN_VALUES_TO_BOUND = 3): every sentence says "too few repetitions to
  // bound", never that intervals are within the limits, never "a single sample", never a test.
  it('with two repetitions says too few to bound, in every sentence', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [9000, 9100], [1000, 1100]), ...reps({ workers: 2 }, [9500, 9600], [1200, 1300])]), { slo });
    expect(rec.configurations.every((c) => c.rps!.ci === null && c.p99Us!.ci === null && c.n === 2)).toBe(true);
    expect(rec.summary[0]).toBe('1 cluster worker on 1 CPU / 256 MB: 9,050 req/s, p99 1.05 ms (2 repetitions: too few repetitions to bound).');
    expect(rec.words).toContain('On 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (9,550 req/s, n = 2, too few repetitions to bound).');
    // The objective's confidence: no interval exists, so none can be within the limits.
    expect.soft(rec.words[1]).not.toBe('Its 95 % intervals are within the limits too.');
    expect.soft(rec.words[1]).toMatch(/too few repetitions to bound/);
    // p99 of two repetitions is no single sample.
    expect.soft(rec.words.find((w) => w.startsWith('Lowest p99:'))).toMatch(/^Lowest p99: 1 cluster worker \(1\.05 ms, n = 2, too few/);
    expect.soft(rec.words.join(' ')).not.toMatch(/single sample/);
    // The method paragraph: an interval over repetitions needs 3 or more of them.
    expect.soft(rec.method).not.toContain('when it ran at least twice');
  });

  it('warns when only the mean meets a limit', () => {
    // Three repetitions (an interval needs 3): 8,100 req/s on the mean, 6,146–10,675 over the interval.
    const rec = recommend(run(reps({ workers: 1 }, [9000, 7200, 8100])), { slo });
    expect(rec.configurations[0]!.rps!.ci!.low).toBeLessThan(slo.minRps);
    expect(rec.sloOutcomes[0]!.met).not.toBeNull();
    expect(rec.words[1]).toBe('It meets it on the mean only: its 95 % interval crosses the rps limit, so it may not hold.');
  });

  it('parses the SLO string and rejects what it cannot read', () => {
    expect(parseSlo('p99<=20ms,rps>=1000,errors<=1%')).toEqual({ p99Ms: 20, minRps: 1000, maxErrorPct: 1 });
    expect(parseSlo(' p99 <= 500µs , rps >= 0, err <= 0 ')).toEqual({ p99Ms: 0.5, minRps: 0, maxErrorPct: 0 });
    expect(parseSlo('errors<=0.5,p99<=1.5s,req/s>=20')).toEqual({ p99Ms: 1500, minRps: 20, maxErrorPct: 0.5 });
    expect(() => parseSlo('p99<=20ms,rps>=1000')).toThrow('The SLO needs p99, rps and errors; missing errors');
    expect(() => parseSlo('p99<=20,rps>=1,errors<=1')).toThrow('p99 needs a unit');
    expect(() => parseSlo('p99>=20ms,rps>=1,errors<=1')).toThrow('Write "p99<=…"');
    expect(() => parseSlo('p95<=20ms')).toThrow('Unknown SLO criterion "p95"');
    expect(() => parseSlo('p99<=20ms,p99<=10ms')).toThrow('"p99" appears twice');
    expect(() => parseSlo('errors<=101%,p99<=1ms,rps>=1')).toThrow('0 to 100');
    expect(() => parseSlo('')).toThrow('The SLO is empty');
    expect(() => parseSloOption('fast please')).toThrow('--slo: Cannot read "fast please"');
    expect(parseMarginOption(undefined)).toBe(5);
    expect(parseMarginOption('2.5%')).toBe(2.5);
    expect(() => parseMarginOption('100')).toThrow('--margin takes a percentage');
    expect(() => parseMarginOption('x')).toThrow('--margin takes a percentage');
  });
});

describe('recommend: several workloads and loads', () => {
  it('names the context of each pair and judges a constant rate by delivery, not throughput', () => {
    const rate = { model: 'rate' as const, rate: 1000, connections: 10 };
    const rec = recommend(run([
      ...reps({ app: 'json', workers: 1, load: rate }, [990, 995, 992], [3000, 3100, 3050]),
      ...reps({ app: 'json', workers: 2, load: rate }, [900, 910, 905], [9000, 9100, 9050]),
      ...reps({ app: 'hello', workers: 1 }, [10000, 10100, 10050]),
      ...reps({ app: 'hello', workers: 2 }, [12000, 12100, 12050]),
    ]));
    expect(rec.scopes.map((s) => s.context)).toEqual(['hello, 20 connections', 'json, a constant 1,000 req/s over 10 connections']);
    // Two workloads of one pair each: each pair's decision is its workload's answer, said "On", never "If you are given".
    expect(rec.words.some((w) => w.startsWith('If you are given'))).toBe(false);
    expect(rec.words).toContain('On 1 CPU / 256 MB (json, a constant 1,000 req/s over 10 connections), the load was a constant 1,000 req/s: 1 of 2 configurations delivered at least 95 % of it.');
    expect(rec.words).toContain('2 cluster workers fell short of the rate; the run did not record which side was the bottleneck.');
    expect(rec.words).toContain('Lowest p99: 1 cluster worker (3.05 ms ± 0.12, n = 3).');
    // An SLO is answered per workload: meeting it with hello says nothing about json.
    const withSlo = recommend(run([...reps({ app: 'json', workers: 1 }, [900, 910, 905]), ...reps({ app: 'hello', workers: 1 }, [10000, 10100, 10050])]), {
      slo: { p99Ms: 5, minRps: 1000, maxErrorPct: 100 },
    });
    expect(withSlo.sloOutcomes.map((o) => [o.app, o.met?.app ?? null, o.closest?.app ?? null])).toEqual([['hello', 'hello', null], ['json', null, 'json']]);
    expect(withSlo.words.slice(0, 3)).toEqual([
      'Cheapest configuration meeting p99 ≤ 5 ms, ≥ 1,000 req/s for hello: 1 cluster worker on 1 CPU / 256 MB (p99 1.00 ms, 10,050 req/s, 0 % errors; 1 of 1 configurations meet it).',
      'Its 95 % intervals are within the limits too.',
      'No configuration meets p99 ≤ 5 ms, ≥ 1,000 req/s for json. Closest: 1 cluster worker on 1 CPU / 256 MB (json cluster×1 1000m/256MB c20) — 905 req/s, 9.5 % short of 1,000.',
    ]);
  });
});

describe('formatRecommendation', () => {
  it('prints the headline, the summary and one row per CPU / memory pair', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9900], [900, 950, 850]), ...reps({ workers: 2 }, [20000, 20200, 19800])], { name: 'hello sizing' }));
    const text = formatRecommendation(rec);
    const lines = text.split('\n');
    expect(lines[0]).toBe('Answer for run 1 "hello sizing" (knee within 5 % of the best):');
    // The headline first, with its state; then the summary (the words are behind --explain).
    expect(lines[1]).toBe(`  ▶ CONFIDENT — ${rec.headline!.text}`);
    expect(lines[2]).toBe(`  • ${rec.summary[0]}`);
    expect(text).toContain('1 CPU / 256 MB  confident  2 cluster workers  20,000 ± 497');
    expect(text).toMatch(/2 cluster workers +2 +1 cluster worker\n/); // the lowest p99 is named in its column
    expect(text.endsWith('\n')).toBe(true);
  });
});
