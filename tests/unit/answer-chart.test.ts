// The answer's chart data (analysis/explain/answer-chart.ts) against recommend() on constructed runs: the
// intervals are the analysis's, the pick / knee / best / lower bounds / groups are its decisions.
import { describe, expect, it } from 'vitest';
import { answerChart, panelPoints } from '../../src-main/analysis/explain/answer-chart.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import type { Flag } from '../../src-main/model/types.ts';
import type { SearchTrace } from '../../src-main/model/search.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const unstable: Flag = { kind: 'unstable', reason: 'throughput rose 30 % over the measurement' };
const hostBusy: Flag = { kind: 'host-busy', reason: 'others took 45 % of core 1' };

/**
 * Pair 1 CPU: 1 worker clean with an unstable repetition (counted, flagged) and a host-busy one (left out: four
 * undisturbed ones remain), 2 workers client-bound far above it.
 */
function fixture() {
  return run([
    ...reps({ workers: 1 }, [10000, 10100, 9950], [2000, 2100, 1900]),
    cell({ workers: 1, rps: 14000, p99Us: 5000, flags: [unstable] }),
    cell({ workers: 1, rps: 6000, p99Us: 8000, flags: [hostBusy] }),
    ...reps({ workers: 2 }, [17000, 17100, 16900]).map((c) => ({ ...c, flags: [clientBound] })),
    // Pair 2 CPUs: two equivalent configurations (within ±5 %), pm2 beside cluster.
    ...reps({ workers: 2, cpu: 2000 }, [19900, 19950, 19920]),
    ...reps({ workers: 2, cpu: 2000, mode: 'pm2' }, [20000, 20050, 19980]),
    cell({ workers: 4, cpu: 2000, status: 'oom' }),
  ]);
}

describe('answerChart', () => {
  it('draws each configuration at its estimate with the analysis interval, repetitions and exclusions', () => {
    const r = fixture();
    const rec = recommend(r);
    const panels = answerChart(rec, r.cells);
    expect(panels.map((p) => p.title)).toEqual(rec.scopes.map((s) => `${s.label} — ${s.context}`));
    const one = panelPoints(panels[0]!).find((p) => p.workers === 1)!;
    const c = rec.configurations.find((x) => x.key === one.key)!;
    expect(one.rps).toEqual({ mean: c.rps!.mean, low: c.rps!.ci!.low, high: c.rps!.ci!.high });
    expect(one.p99Ms!.mean).toBeCloseTo(c.p99Us!.mean / 1000, 9);
    expect(one.p99Ms!.low).toBeCloseTo(c.p99Us!.ci!.low / 1000, 9);
    // The unstable repetition counts: drawn with the others, in the estimate, and its configuration keeps the flag.
    expect(one.repetitions.map((x) => x.rps)).toEqual([10000, 10100, 9950, 14000]);
    expect(one.repetitions.map((x) => x.p99Ms)).toEqual([2, 2.1, 1.9, 5]);
    expect(c.rps!.mean).toBeCloseTo((10000 + 10100 + 9950 + 14000) / 4, 9);
    expect(c.flags.find((f) => f.kind === 'unstable')).toMatchObject({ cells: 1, of: 4 });
    // The host-busy repetition is drawn hollow at what it measured, with why it is out.
    expect(one.excluded).toEqual([{ cellIndex: 4, repetition: 4, rps: 6000, p99Ms: 8, reason: expect.stringMatching(/^host-busy/) }]);
  });

  it('marks the client-bound configuration as a lower bound, and the pick, knee and best as the contest decided', () => {
    const r = fixture();
    const rec = recommend(r);
    const s = rec.scopes[0]!;
    const pts = panelPoints(answerChart(rec, r.cells)[0]!);
    expect(pts.filter((p) => p.lowerBound).map((p) => p.key)).toEqual(s.lowerBounds);
    expect(pts.find((p) => p.workers === 2)!.lowerBound).toBe(true);
    expect(pts.filter((p) => p.best).map((p) => p.key)).toEqual([s.bestRps.key]);
    expect(s.state).toBe('confident');
    expect(pts.filter((p) => p.knee).map((p) => p.key)).toEqual([s.knee.key]);
    expect(pts.filter((p) => p.pick).map((p) => p.key)).toEqual([rec.headline!.key]);
    expect(answerChart(rec, r.cells)[0]!.group).toEqual([]);
  });

  it('groups equivalent contenders, keeps a pair with no pick of the answer unpicked, and shows an all-excluded one hollow', () => {
    const r = fixture();
    const rec = recommend(r);
    const s = rec.scopes[1]!;
    expect(s.state).toBe('equivalent');
    const panel = answerChart(rec, r.cells)[1]!;
    expect(panel.state).toBe('equivalent');
    expect(new Set(panel.group)).toEqual(new Set(s.contenders));
    expect(panel.series.map((x) => x.mode)).toEqual(['cluster', 'pm2']);
    const pts = panelPoints(panel);
    expect(pts.filter((p) => p.contender).map((p) => p.key).sort()).toEqual([...s.contenders].sort());
    expect(pts.filter((p) => p.knee).map((p) => p.key)).toEqual([s.knee.key]);
    expect(pts.some((p) => p.pick)).toBe(false); // the answer's pick is the first pair's
    const oom = pts.find((p) => p.workers === 4)!;
    expect(oom).toMatchObject({ rps: null, repetitions: [], excluded: [{ rps: null, reason: 'OOM-killed' }] });
  });

  it('an undecided pair names a leading contender, never a knee or a pick', () => {
    const r = run([...reps({ workers: 1 }, [9000, 10500, 9300]), ...reps({ workers: 2 }, [9500, 10400, 10000])]);
    const rec = recommend(r);
    expect(rec.scopes[0]!.state).toBe('undecided');
    const panel = answerChart(rec, r.cells)[0]!;
    const pts = panelPoints(panel);
    expect(pts.filter((p) => p.leading).map((p) => p.key)).toEqual([rec.scopes[0]!.knee.key]);
    expect(pts.some((p) => p.knee || p.pick)).toBe(false);
    expect(panel.group.length).toBe(2);
  });

  it('an auto-size run shows the found configuration as the pick, on its own pair', () => {
    const cells = [
      ...reps({ workers: 1, cpu: 500, load: { model: 'rate', rate: 2000, connections: 20 } }, [1500]),
      ...reps({ workers: 1, cpu: 1000, load: { model: 'rate', rate: 2000, connections: 20 } }, [2000, 2000]),
    ];
    const base = run(cells);
    const found = { mode: 'cluster' as const, workers: 1, cpuMillis: 1000, memoryMb: 256 };
    const search = {
      spec: { app: 'hello', rate: 2000, connections: 20, slo: { p99Ms: 50, maxErrorPct: 1 }, bounds: { memoryMb: { min: 128, max: 512 } } },
      status: 'found', found, steps: [], words: 'found', gridCells: 40,
    } as unknown as SearchTrace;
    const r = { ...base, search };
    const rec = recommend(r);
    expect(rec.search?.foundKey).toBeTruthy();
    const panels = answerChart(rec, r.cells);
    expect(panels).toHaveLength(1);
    expect(panels[0]!.state).toBeNull();
    const pts = panelPoints(panels[0]!);
    expect(pts.filter((p) => p.pick).map((p) => p.key)).toEqual([rec.search!.foundKey]);
    expect(pts.some((p) => p.knee || p.leading || p.contender)).toBe(false);
  });
});

describe('answerChart with replicas', () => {
  it('draws each topology as its own series, named by what sets it apart', () => {
    const replicated = (rps: number[], workers: number) =>
      reps({ workers, cpu: 500, mem: 128 }, rps).map((c) => ({ ...c, config: { ...c.config, replicas: 2 } }));
    const r = run([
      ...reps({ workers: 1, cpu: 1000, mem: 256 }, [11000, 11100, 10950]),
      ...reps({ workers: 2, cpu: 1000, mem: 256 }, [10200, 10300, 10150]),
      ...replicated([10100, 10050, 10150], 1),
      ...replicated([9100, 9150, 9050], 2),
    ]);
    const panels = answerChart(recommend(r), r.cells);
    expect(panels).toHaveLength(1); // equal totals: one scope
    expect(panels[0]!.series.map((s) => [s.name, s.points.map((p) => p.workers)])).toEqual([
      ['cluster, 1 container', [1, 2]],
      ['cluster, 2 containers', [1, 2]],
    ]);
  });

  it('names a series by its mode alone when nothing else varies', () => {
    const r = fixture();
    expect(answerChart(recommend(r), r.cells)[0]!.series.map((s) => s.name)).toEqual(['cluster']);
  });
});
