// The auto-size strategy on constructed verdicts (no Docker): a fake "world" says which
// configurations meet; the search must name the same cheapest one a full grid would, in far fewer
// cells, and say why at every step.
import { describe, expect, it } from 'vitest';
import type { Judgement } from '../../src-main/engine/auto-size/judge.ts';
import { MAX_TRIES, memoryForPeak, searchCheapest, SearchStopped, shapesOf, type Probe } from '../../src-main/engine/auto-size/search.ts';
import { gridCellsOf, steps, validateSizeSpec, workerCounts } from '../../src-main/engine/auto-size/spec.ts';
import type { SearchStep, SizeSpec } from '../../src-main/model/search.ts';
import { costOrder } from '../../src-main/analysis/decide/cost-order.ts';

const byCost = costOrder();

const HOST = { cores: 2, memoryMb: 4096, apps: ['pbkdf2', 'hello'] };
function spec(over: Record<string, unknown> = {}): SizeSpec {
  const v = validateSizeSpec({ app: 'pbkdf2', slo: { p99Ms: 50 }, rate: 200, ...over }, HOST);
  if (!v.ok) throw new Error(JSON.stringify(v.problems));
  return v.spec;
}

type World = (p: Probe, nth: number) => Partial<Judgement> & { outcome: Judgement['outcome'] };
const MB = 2 ** 20;

/** Runs the search against a world; returns the result, the steps and the probes in order. */
async function run(s: SizeSpec, world: World) {
  const steps: SearchStep[] = [];
  const probes: Probe[] = [];
  const seen = new Map<string, number>();
  const result = await searchCheapest(s, {
    measure: async (p) => {
      probes.push(p);
      const k = JSON.stringify(p);
      const nth = (seen.get(k) ?? 0) + 1;
      seen.set(k, nth);
      const w = world(p, nth);
      return { cellId: probes.length, judgement: { detail: `${w.outcome} at ${p.cpuMillis}m`, repeat: w.outcome === 'undecided', p99Ms: null, peakBytes: 70 * MB, ...w } };
    },
    onStep: (step) => steps.push(step),
  });
  return { result, steps, probes };
}

/** Meets at or above a CPU need per worker count (latency falls with CPU), at any memory ≥ minMem. */
const threshold = (need: Record<number, number>, minMem = 0): World => (p) => ({ outcome: p.cpuMillis >= (need[p.workers] ?? Infinity) && p.memoryMb >= minMem ? 'meets' : 'misses' });

/** The cheapest meeting configuration of the full grid, by the answer's own ordering (memory from the same rule). */
function gridAnswer(s: SizeSpec, meets: (p: Probe) => boolean): Probe | null {
  const all: Probe[] = [];
  for (const mode of s.bounds.modes) for (const workers of workerCounts(s, mode)) for (const cpuMillis of steps(s.bounds.cpuMillis.min, s.bounds.cpuMillis.max, s.cpuStepMillis)) all.push({ mode, workers, cpuMillis, memoryMb: memoryForPeak(70 * MB, s) });
  return all.filter(meets).sort(byCost)[0] ?? null;
}

describe('auto-size search', () => {
  it('bisects the CPU cap per worker count and names the cheapest meeting configuration, memory from the peak, verified', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 2 }, memoryMb: { min: 128, max: 1024 } } });
    const { result, steps, probes } = await run(s, threshold({ 1: 625, 2: 750 }));
    expect(result.status).toBe('found');
    expect(result.found).toEqual({ mode: 'cluster', workers: 1, cpuMillis: 625, memoryMb: memoryForPeak(70 * MB, s) });
    expect(result.found!.memoryMb).toBe(128); // 70 MB × 1.25 = 87.5 → 96, inside the bounds → the lowest step ≥ it
    // The natural worker count for 2 CPUs comes first, from the top of the bounds.
    expect(probes[0]).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 2000, memoryMb: 1024 });
    // Every step is a cell, in order, with why and what.
    expect(steps.map((x) => x.cellId)).toEqual(probes.map((_, i) => i + 1));
    expect(steps[0]!.reason).toMatch(/the most CPU the bounds allow/);
    expect(steps.some((x) => /bisect the CPU cap/.test(x.reason))).toBe(true);
    expect(steps.at(-1)!.reason).toMatch(/memory from the measured peak .* verify/);
    expect(steps.at(-1)!.memoryMb).toBe(128);
    // Far fewer than the grid: 15 CPU steps × 29 memory steps × 2 worker counts.
    expect(gridCellsOf(s)).toBe(15 * 29 * 2);
    expect(probes.length).toBeLessThanOrEqual(12);
    expect(result.words).toMatch(/cluster × 1 worker, 625m CPU, 128 MB is the cheapest configuration that meets p99 ≤ 50 ms at 200 req\/s/);
    expect(result.words).toMatch(/One step less CPU \(0\.5 CPU\) does not/);
    expect(result.words).toMatch(new RegExp(`${probes.length} cells instead of the 870`));
  });

  it('prefers less CPU over fewer workers, and fewer workers at the same CPU (the answer\'s byCost)', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 3 }, memoryMb: { min: 256, max: 256 } } });
    expect((await run(s, threshold({ 1: 1000, 2: 500, 3: 750 }))).result.found).toMatchObject({ workers: 2, cpuMillis: 500 });
    expect((await run(s, threshold({ 1: 500, 2: 500, 3: 500 }))).result.found).toMatchObject({ workers: 1, cpuMillis: 500 });
  });

  it('drops a worker count at once when it misses where the cheapest so far meets', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 2 }, memoryMb: { min: 256, max: 256 } } });
    const { probes } = await run(s, threshold({ 2: 750 }));
    const one = probes.filter((p) => p.workers === 1);
    expect(one).toEqual([{ mode: 'cluster', workers: 1, cpuMillis: 750, memoryMb: 256 }]);
  });

  it('names the same cheapest configuration as the full grid, for every monotone world (exhaustive over thresholds)', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 1500 }, workers: { min: 1, max: 2 }, memoryMb: { min: 128, max: 128 } }, maxCells: 50 });
    const cpus = [...steps(250, 1500, 125), Infinity];
    let searched = 0;
    let gridded = 0;
    for (const n1 of cpus)
      for (const n2 of cpus) {
        const world = threshold({ 1: n1, 2: n2 });
        const { result, probes } = await run(s, world);
        const expected = gridAnswer(s, (p) => world(p, 1).outcome === 'meets');
        expect(result.found, `need ${n1} / ${n2}`).toEqual(expected);
        expect(result.status).toBe(expected ? 'found' : 'none');
        searched += probes.length;
        gridded += gridCellsOf(s);
      }
    expect(searched / gridded).toBeLessThan(0.5);
  });

  it('says why none meets: even the most the bounds allow misses', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 500, max: 2000 }, workers: { min: 2, max: 2 }, memoryMb: { min: 256, max: 256 } } });
    const { result, probes } = await run(s, () => ({ outcome: 'misses', detail: 'whole-cell p99 80 ms > 50 ms limit' }));
    expect(result.status).toBe('none');
    expect(probes).toHaveLength(1);
    expect(result.words).toMatch(/No configuration within the bounds meets p99 ≤ 50 ms at 200 req\/s .*: even cluster × 2 workers, 2 CPUs, 256 MB: whole-cell p99 80 ms/);
  });

  it('repeats an undecided configuration up to MAX_TRIES cells, then counts it as not meeting and says so', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 500, max: 1000 }, workers: { min: 1, max: 1 }, memoryMb: { min: 256, max: 256 } }, cpuStepMillis: 250 });
    const { result, steps } = await run(s, (p) => ({ outcome: p.cpuMillis >= 1000 ? 'meets' : p.cpuMillis === 750 ? 'undecided' : 'misses' }));
    const at750 = steps.filter((x) => x.cpuMillis === 750);
    expect(at750).toHaveLength(MAX_TRIES);
    expect(at750[1]!.reason).toMatch(/repeat 2 of at most/);
    expect(at750.at(-1)!.detail).toMatch(/undecided after 2 cell\(s\): counted as not meeting/);
    expect(result.found).toMatchObject({ cpuMillis: 1000 });
    expect(result.words).toMatch(/stayed undecided .* counted as not meeting/);
  });

  it('an undecided top does not drop a worker count: it is tried again below, where the cheapest so far meets', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 2 }, memoryMb: { min: 256, max: 256 } } });
    // 2 workers is noisy at the top (a busy host), yet meets from 500m; 1 worker needs 750m.
    const world: World = (p) => (p.workers === 2 && p.cpuMillis === 2000 ? { outcome: 'undecided' } : threshold({ 1: 750, 2: 500 })(p, 1));
    const { result, steps } = await run(s, world);
    expect(result.found).toMatchObject({ workers: 2, cpuMillis: 500 });
    expect(steps.filter((x) => x.workers === 2 && x.cpuMillis === 2000)).toHaveLength(MAX_TRIES);
    // The revisit starts below the undecided top, at the most CPU whose price still undercuts the cheapest so far.
    const revisit = steps.filter((x) => x.workers === 2 && x.cpuMillis < 2000);
    expect(revisit[0]!.cpuMillis).toBeLessThanOrEqual(750);
    expect(revisit[0]!.reason).toMatch(/can 2 worker\(s\) match 0\.75 CPU, the cheapest meeting so far/);
  });

  it('a repeat that decides ends the repeats', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 1000, max: 1000 }, workers: { min: 1, max: 1 }, memoryMb: { min: 256, max: 256 } } });
    const { result, probes } = await run(s, (_p, nth) => ({ outcome: nth === 1 ? 'undecided' : 'meets' }));
    expect(probes).toHaveLength(2);
    expect(result.status).toBe('found');
  });

  it('keeps the measured memory when the limit from the peak does not meet', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 1000, max: 1000 }, workers: { min: 1, max: 1 }, memoryMb: { min: 64, max: 512 } } });
    const { result, steps } = await run(s, threshold({ 1: 1000 }, 512));
    expect(steps.at(-1)!.memoryMb).toBe(96); // 70 MB × 1.25 → 96 on the 32 MB steps from 64
    expect(result.found).toMatchObject({ cpuMillis: 1000, memoryMb: 512 });
    expect(result.words).toMatch(/at 96 MB \(from the peak\) it did not meet \(misses\), so the answer keeps the 512 MB/);
  });

  it('stops at maxCells, undecided, with the cheapest meeting configuration so far', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 2 }, memoryMb: { min: 256, max: 256 } }, maxCells: 3 });
    const { result, probes } = await run(s, threshold({ 1: 250, 2: 250 }));
    expect(probes).toHaveLength(3);
    expect(result.status).toBe('undecided');
    expect(result.found).toBeNull();
    // The top (2000m) met, then the bisection's 1000m and 500m: the cheapest that met so far.
    expect(result.bestSoFar).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 500, memoryMb: 256 });
    expect(result.words).toMatch(/Stopped after 3 cells \(the budget, maxCells 3\)/);
  });

  it('a cancel (measure throws) stops the search with what it had', async () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 2, max: 2 }, memoryMb: { min: 256, max: 256 } } });
    let n = 0;
    const stopped = await searchCheapest(s, {
      measure: async () => {
        if (++n === 3) throw new Error('cancelled');
        return { cellId: n, judgement: { outcome: 'meets', detail: 'ok', repeat: false, p99Ms: null, peakBytes: null } };
      },
      onStep: () => {},
    }).catch((e: unknown) => e);
    expect(stopped).toBeInstanceOf(SearchStopped);
    expect((stopped as SearchStopped).bestSoFar).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 1000, memoryMb: 256 }); // 2000m, then 1000m met
  });

  it('tries worker counts around the CPU count: the natural one first, none above CPUs + 1', () => {
    const s = spec({ bounds: { cpuMillis: { min: 250, max: 2000 }, workers: { min: 1, max: 6 }, modes: ['pm2', 'cluster'] } });
    const { shapes, skipped } = shapesOf(s);
    expect(shapes).toEqual([
      { mode: 'cluster', workers: 2 }, { mode: 'cluster', workers: 1 }, { mode: 'cluster', workers: 3 },
      { mode: 'pm2', workers: 2 }, { mode: 'pm2', workers: 1 }, { mode: 'pm2', workers: 3 },
    ]);
    expect(skipped).toEqual([4, 5, 6]);
  });
});
