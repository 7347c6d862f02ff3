// The strategy of an auto-size search, free of Docker: it asks `measure` for one more cell of a
// configuration and gets the judge's verdict on all that configuration's cells so far. Unit tests
// drive it with constructed verdicts; run-search.ts with real cells.
//
//  1. Worker counts "around the CPU count": from the bounds, those up to ⌈max CPUs⌉ + 1 (more
//     workers than cores + 1 only adds contention); the natural count (⌈max CPUs⌉) first.
//  2. For each, bisection on the CPU cap over the bounds in steps of spec.cpuStepMillis, at the
//     memory maximum (memory must not be what fails while CPU is searched). The first worker count
//     starts at the top (can anything meet?); each later one only has to beat the cheapest so far,
//     so it starts there and is dropped at once when it clearly misses (latency only falls with
//     more CPU). Only a clear miss prunes: a worker count whose top stayed undecided is tried again
//     below, where the cheapest so far meets.
//  3. A configuration is repeated while the judge is undecided, up to MAX_TRIES cells; still
//     undecided, it counts as not meeting (the answer is then conservative) and the words say so.
//  4. The cheapest meeting configuration by the one order of cost (analysis/decide/cost-order.ts: the
//     price per hour at spec.prices, then containers, workers, CPU, memory, launcher)
//     gets its memory from its measured peak by the memory rule (analysis/size/memory.ts), verified by
//     one cell at that limit; if that misses, the answer keeps the memory it was measured with.
import { fmtMb, fmtNum } from '../../common/format.ts';
import { exactCpu, memLabel } from '../../common/resource-labels.ts';
import { limitFromPeak, MEMORY_HEADROOM, memoryStepFor } from '../../analysis/size/memory.ts';
import { costOrder } from '../../analysis/decide/cost-order.ts';
import { DEFAULT_PRICES, fmtMoney, hourlyCost } from '../../common/cost.ts';
import type { LaunchMode } from '../../model/types.ts';
import type { Judgement } from './judge.ts';
import { gridCellsOf, steps, workerCounts } from './spec.ts';
import type { SearchStatus, SearchStep, SizeSpec } from '../../model/search.ts';

/**
 * Cells one configuration may get while the judge cannot decide. Two: a second cell doubles the
 * batches the interval rests on; one still undecided after that is close to the limit, and counting
 * it as not meeting costs at most one CPU step, where a third cell would cost a step of the budget.
 */
export const MAX_TRIES = 2;

export interface Probe {
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
}

export interface SearchIO {
  /**
   * Runs one more cell of `probe` and judges all its cells so far. Any throw (cancel) stops the search with
   * SearchStopped.
   */
  measure(probe: Probe, reason: string): Promise<{ cellId: number; judgement: Judgement }>;
  /** After every cell, in order. */
  onStep(step: SearchStep): void;
}

export type Config = Probe;

export interface SearchResult {
  status: Extract<SearchStatus, 'found' | 'none' | 'undecided'>;
  found: Config | null;
  bestSoFar: Config | null;
  words: string;
}

/** Thrown when `measure` throws: the search stopped early; what it had found so far comes with it. */
export class SearchStopped extends Error {
  constructor(
    readonly reason: unknown,
    readonly bestSoFar: Config | null,
  ) {
    super(`the search stopped: ${(reason as Error)?.message ?? String(reason)}`);
    this.name = 'SearchStopped';
  }
}

class BudgetSpent extends Error {}

/** "cluster × 2 workers, 0.75 CPU, 256 MB". */
export const configLabel = (c: Config): string => {
  const shape = c.mode === 'single' ? 'single process' : `${c.mode} × ${c.workers} worker${c.workers === 1 ? '' : 's'}`;
  return `${shape}, ${exactCpu(c.cpuMillis)}, ${memLabel(c.memoryMb)}`;
};

/** The memory limit for a measured peak: the analysis rule, inside the bounds, on the search's memory steps. */
export function memoryForPeak(peakBytes: number | null, spec: Pick<SizeSpec, 'bounds' | 'memoryStepMb'>): number {
  return memoryStepFor(peakBytes, spec.bounds.memoryMb, spec.memoryStepMb);
}

interface Shape {
  mode: LaunchMode;
  workers: number;
}

interface Candidate {
  shape: Shape;
  idx: number;
  judgement: Judgement;
  /** The highest CPU cap that did not meet, and what it showed. */
  below: { cpuMillis: number; judgement: Judgement } | null;
}

const MODE_SEQ: LaunchMode[] = ['single', 'cluster', 'pm2', 'image'];

/**
 * The configurations to try, in order: per mode (lightest first), the natural worker count, then the others up to
 * ⌈CPUs⌉ + 1, fewest first.
 */
export function shapesOf(spec: SizeSpec): { shapes: Shape[]; skipped: number[] } {
  const natural = Math.max(1, Math.ceil(spec.bounds.cpuMillis.max / 1000));
  const shapes: Shape[] = [];
  const skipped = new Set<number>();
  for (const mode of [...spec.bounds.modes].sort((a, b) => MODE_SEQ.indexOf(a) - MODE_SEQ.indexOf(b))) {
    const all = workerCounts(spec, mode);
    let ws = all.filter((w) => w <= natural + 1);
    if (ws.length === 0) ws = [all[0]!];
    for (const w of all) if (!ws.includes(w)) skipped.add(w);
    const first = ws.reduce((best, w) => (Math.abs(w - natural) < Math.abs(best - natural) ? w : best), ws[0]!);
    shapes.push({ mode, workers: first }, ...ws.filter((w) => w !== first).map((workers) => ({ mode, workers })));
  }
  return { shapes, skipped: [...skipped].sort((a, b) => a - b) };
}

/** Dollars an hour for a configuration at the spec's prices (the example defaults when it has none). */
export const priceOf = (spec: SizeSpec, c: { cpuMillis: number; memoryMb: number }): number =>
  hourlyCost(c, spec.prices ?? DEFAULT_PRICES);

type Ranked = Config & { p99Us?: { mean: number } | null };

/**
 * The search's order of cost: the one order (analysis/decide/cost-order.ts) at the spec's prices, the example
 * prices when it has none; at an equal cost the lower p99.
 */
export function searchOrder(spec: SizeSpec): (a: Ranked, b: Ranked) => number {
  const order = costOrder(spec.prices ?? DEFAULT_PRICES);
  return (a, b) => order(a, b) || (a.p99Us?.mean ?? 0) - (b.p99Us?.mean ?? 0);
}

export async function searchCheapest(spec: SizeSpec, io: SearchIO): Promise<SearchResult> {
  const cpus = steps(spec.bounds.cpuMillis.min, spec.bounds.cpuMillis.max, spec.cpuStepMillis);
  const memMax = spec.bounds.memoryMb.max;
  const order = searchOrder(spec);
  const { shapes, skipped } = shapesOf(spec);
  const p99Limit = fmtNum(spec.slo.p99Ms, spec.slo.p99Ms % 1 === 0 ? 0 : 2);
  const errorLimit = fmtNum(spec.slo.maxErrorPct, spec.slo.maxErrorPct % 1 === 0 ? 0 : 2);
  const objective = `p99 ≤ ${p99Limit} ms at ${fmtNum(spec.rate)} req/s with ≤ ${errorLimit} % errors`;
  let cells = 0;
  const undecided: Config[] = [];
  const candidates: Candidate[] = [];
  const tops: { config: Config; judgement: Judgement }[] = [];
  let best: Candidate | null = null;
  /** The cheapest configuration that has met so far, bisection finished or not: what a stopped search can offer. */
  let metSoFar: Config | null = null;
  const at = (s: Shape, idx: number, memoryMb = memMax): Config => ({ ...s, cpuMillis: cpus[idx]!, memoryMb });

  /** Cells of one configuration until the judge decides (or MAX_TRIES). */
  const decide = async (probe: Config, reason: string): Promise<Judgement> => {
    let why = reason;
    for (let tries = 1; ; tries++) {
      if (cells >= spec.maxCells) throw new BudgetSpent();
      let m;
      try {
        m = await io.measure(probe, why);
      } catch (e) {
        throw new SearchStopped(e, metSoFar);
      }
      cells++;
      const j = m.judgement;
      const final = j.outcome !== 'undecided' || !j.repeat || tries >= MAX_TRIES || cells >= spec.maxCells;
      const stillUndecided = final && j.outcome === 'undecided';
      if (stillUndecided) undecided.push(probe);
      if (j.outcome === 'meets' && (!metSoFar || order(probe, metSoFar) < 0)) metSoFar = probe;
      const detail = stillUndecided
        ? `${j.detail}; undecided after ${tries} cell(s): counted as not meeting`
        : j.detail;
      io.onStep({ cellId: m.cellId, ...probe, reason: why, outcome: j.outcome, detail });
      if (final) return j;
      why = `repeat ${tries + 1} of at most ${MAX_TRIES}: the statistics cannot decide yet`;
    }
  };

  try {
    /**
     * One worker count: its most useful top first, then bisection down from where it meets. Returns the top's verdict.
     */
    const tryShape = async (shape: Shape): Promise<{ top: number; j: Judgement } | null> => {
      // Only what could beat the cheapest so far is worth a cell (the order of cost at equal caps: workers, launcher).
      const cheaperShape = best
        ? order({ ...shape, cpuMillis: 0, memoryMb: 0 }, { ...best.shape, cpuMillis: 0, memoryMb: 0 }) < 0
        : true;
      const hi0 = best ? topFor(best, cheaperShape) : cpus.length - 1;
      if (hi0 < 0) return null;
      const top = at(shape, hi0);
      const j0 = await decide(
        top,
        best
          ? `can ${shape.workers} worker(s) match ${exactCpu(cpus[best.idx]!)}, ` +
              'the cheapest meeting so far, or do better?'
          : `the most CPU the bounds allow: can anything meet ${objective}?`,
      );
      if (j0.outcome !== 'meets') {
        tops.push({ config: top, judgement: j0 });
        return { top: hi0, j: j0 };
      }
      let lo = -1;
      let hi = hi0;
      let hiJ = j0;
      let below: Candidate['below'] = null;
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        const under = lo < 0 ? `nothing below ${cpus[hi]}m tried yet` : `${cpus[lo]}m does not meet`;
        const j = await decide(at(shape, mid), `bisect the CPU cap: ${under}, ${cpus[hi]}m meets`);
        if (j.outcome === 'meets') [hi, hiJ] = [mid, j];
        else [lo, below] = [mid, { cpuMillis: cpus[mid]!, judgement: j }];
      }
      const c: Candidate = { shape, idx: hi, judgement: hiJ, below };
      candidates.push(c);
      if (!best || better(c, best, cheaperShape)) best = c;
      return { top: hi0, j: j0 };
    };
    // Only a clear miss says that less CPU misses too; a worker count whose top stayed undecided is
    // tried again where the cheapest so far meets, once there is one below that top.
    // The top a later shape starts at: the most CPU whose price at the least memory still undercuts
    // the cheapest so far (one order of cost: the price decides, analysis/decide/cost-order.ts).
    function topFor(b: Candidate, cheaperShape: boolean): number {
      const bestPrice = priceOf(spec, at(b.shape, b.idx, memoryForPeak(b.judgement.peakBytes, spec)));
      const floor = spec.bounds.memoryMb.min;
      let i = cpus.length - 1;
      while (i >= 0 && priceOf(spec, { cpuMillis: cpus[i]!, memoryMb: floor }) > bestPrice) i--;
      return i;
    }
    function better(c: Candidate, b: Candidate, cheaperShape: boolean): boolean {
      const withMem = (x: Candidate): Config => at(x.shape, x.idx, memoryForPeak(x.judgement.peakBytes, spec));
      return order(withMem(c), withMem(b)) < 0;
    }
    const revisit: { shape: Shape; top: number }[] = [];
    for (const shape of shapes) {
      const r = await tryShape(shape);
      if (r && r.j.outcome === 'undecided') revisit.push({ shape, top: r.top });
    }
    for (const { shape, top } of revisit) {
      const b = best as Candidate | null;
      if (b && topFor(b, true) < top) await tryShape(shape);
    }
  } catch (e) {
    if (!(e instanceof BudgetSpent)) throw e;
    const so = metSoFar;
    const soFar = so
      ? `The cheapest configuration meeting ${objective} so far is ${configLabel(so)}; ` +
        'cheaper ones were not ruled out.'
      : `No configuration met ${objective} so far.`;
    return {
      status: 'undecided',
      found: null,
      bestSoFar: so,
      words:
        `Stopped after ${cells} cells (the budget, maxCells ${spec.maxCells}) before the search could finish. ` +
        `${soFar} Raise maxCells, or narrow the bounds.`,
    };
  }

  const notes: string[] = [];
  if (undecided.length)
    notes.push(
      `${undecided.length} configuration(s) stayed undecided after ${MAX_TRIES} cells ` +
        `and were counted as not meeting (${undecided.map(configLabel).join('; ')})`,
    );
  if (skipped.length) notes.push(`worker counts ${skipped.join(', ')} (more than the CPUs + 1) were not tried`);
  const tail = (extra: string[] = []): string => {
    const all = [...extra, ...notes];
    return all.length ? ` Note: ${all.join('; ')}.` : '';
  };

  if (!best) {
    const anyUndecided = tops.some((t) => t.judgement.outcome === 'undecided');
    const even = tops.map((t) => `${configLabel(t.config)}: ${t.judgement.detail}`).join('; ');
    return anyUndecided
      ? {
          status: 'undecided',
          found: null,
          bestSoFar: null,
          words: `Could not decide whether anything within the bounds meets ${objective}: ${even}.${tail()}`,
        }
      : {
          status: 'none',
          found: null,
          bestSoFar: null,
          words: `No configuration within the bounds meets ${objective}: even ${even}.${tail()}`,
        };
  }

  // The cheapest by the answer's own ordering, memory by the rule from each candidate's peak.
  const ranked = candidates
    .map((c) => ({ c, mem: memoryForPeak(c.judgement.peakBytes, spec) }))
    .sort((a, b) =>
      order(
        { ...a.c.shape, cpuMillis: cpus[a.c.idx]!, memoryMb: a.mem, p99Us: a.c.judgement.p99Ms },
        { ...b.c.shape, cpuMillis: cpus[b.c.idx]!, memoryMb: b.mem, p99Us: b.c.judgement.p99Ms },
      ),
    );
  const win = ranked[0]!;
  let found = at(win.c.shape, win.c.idx);
  const extra: string[] = [];
  const peak = win.c.judgement.peakBytes;
  // The judge's peak is what a fresh deployment needs (the larger of the cgroup peak and the processes' RSS).
  const peakText =
    peak === null
      ? 'no peak recorded'
      : `the need at ${memLabel(memMax)}, ${fmtMb(peak)}, × ${MEMORY_HEADROOM} rounded up is ` +
        `${memLabel(limitFromPeak(peak))}`;
  if (win.mem < memMax) {
    try {
      const jm = await decide(
        at(win.c.shape, win.c.idx, win.mem),
        `memory from the measured peak (${peakText}; the memory step at or above it: ${memLabel(win.mem)}): verify`,
      );
      if (jm.outcome === 'meets') found = at(win.c.shape, win.c.idx, win.mem);
      else
        extra.push(
          `at ${memLabel(win.mem)} (from the peak) it did not meet (${jm.outcome}), ` +
            `so the answer keeps the ${memLabel(memMax)} it was measured with`,
        );
    } catch (e) {
      if (!(e instanceof BudgetSpent)) throw e;
      extra.push(
        `the budget ran out before ${memLabel(win.mem)} (from the peak) could be verified, ` +
          `so the answer keeps the ${memLabel(memMax)} it was measured with`,
      );
    }
  } else if (peak !== null) extra.push(`memory stays at the bounds' ${memLabel(memMax)} (${peakText} is not below it)`);
  const below = win.c.below
    ? ` One step less CPU (${exactCpu(win.c.below.cpuMillis)}) does not: ${win.c.below.judgement.detail}.`
    : win.c.idx === 0
      ? ` It meets even at the lowest CPU cap in the bounds: lower bounds may find a cheaper one.`
      : '';
  return {
    status: 'found',
    found,
    bestSoFar: null,
    words:
      `${configLabel(found)} is the cheapest configuration that meets ${objective}` +
      ` by price, ${fmtMoney(priceOf(spec, found))} an hour` +
      ': ' +
      `${win.c.judgement.detail}.${below}` +
      // Said only when the search saved cells: repeating undecided ones can take more than a grid has configurations.
      (cells < gridCellsOf(spec)
        ? ` ${cells} cells instead of the ${fmtNum(gridCellsOf(spec))} a full grid over the same bounds would need.`
        : ` ${cells} cells.`) +
      tail(extra),
  };
}
