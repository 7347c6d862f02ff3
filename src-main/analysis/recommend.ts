import { planPlacement } from '../docker/placement.ts';
import type { RunDetail } from '../store/index.ts';
import { cpuLabel, groupBy, groupCells, loadLabel, MODE_ORDER, pairLabel, workloadLabel } from './group.ts';
import { sloOutcomes } from './slo.ts';
import { overlaps, type MetricStats } from './stats.ts';
import type { ConfigurationSummary, NoiseNote, Recommendation, RecommendOptions, ScopeDecision, Verdict } from './types.ts';
import { explain } from './words.ts';

export const DEFAULT_MARGIN_PCT = 5;

interface Comparison {
  verdict: Verdict;
  overlapping: string[];
  /** Others whose interval lies wholly on the worse side. */
  clearlyWorse: string[];
}

/** How `winner` stands against the others on one metric: only 95 % intervals can separate them. */
function compare(winner: ConfigurationSummary, others: ConfigurationSummary[], metric: (c: ConfigurationSummary) => MetricStats, higherIsBetter: boolean): Comparison {
  if (others.length === 0) return { verdict: 'only-one', overlapping: [], clearlyWorse: [] };
  const w = metric(winner).ci;
  const overlapping: string[] = [];
  const clearlyWorse: string[] = [];
  let unknown = 0;
  for (const o of others) {
    const ci = metric(o).ci;
    if (!w || !ci) unknown++;
    else if (overlaps(w, ci)) overlapping.push(o.key);
    else if (higherIsBetter ? ci.high < w.low : ci.low > w.high) clearlyWorse.push(o.key);
  }
  const verdict: Verdict = !w ? 'single-sample' : overlapping.length ? 'not-distinguishable' : unknown ? 'single-sample' : 'clear';
  return { verdict, overlapping, clearlyWorse };
}

const rpsOf = (c: ConfigurationSummary): MetricStats => c.rps!;
const p99Of = (c: ConfigurationSummary): MetricStats => c.p99Us!;

function decideScope(cs: ConfigurationSummary[], marginPct: number, label: string, context: string): ScopeDecision {
  // Exact ties go to the cheaper configuration: fewer workers, then the lighter launcher.
  const cheaper = (a: ConfigurationSummary, b: ConfigurationSummary): number => a.workers - b.workers || MODE_ORDER[a.mode] - MODE_ORDER[b.mode];
  const bestRps = [...cs].sort((a, b) => b.rps!.mean - a.rps!.mean || cheaper(a, b))[0]!;
  const floor = bestRps.rps!.mean * (1 - marginPct / 100);
  const knee = cs.filter((c) => c.rps!.mean >= floor).sort((a, b) => a.workers - b.workers || b.rps!.mean - a.rps!.mean || cheaper(a, b))[0]!;
  const lowestP99 = [...cs].sort((a, b) => a.p99Us!.mean - b.p99Us!.mean || cheaper(a, b))[0]!;
  const rps = compare(bestRps, cs.filter((c) => c !== bestRps), rpsOf, true);
  const p99 = compare(lowestP99, cs.filter((c) => c !== lowestP99), p99Of, false);
  const first = cs[0]!;
  return {
    key: first.scopeKey,
    label,
    context,
    app: first.app,
    requestSet: first.requestSet,
    load: first.load,
    cpuMillis: first.cpuMillis,
    memoryMb: first.memoryMb,
    configurations: cs.map((c) => c.key),
    bestRps,
    knee,
    lowestP99,
    rpsVerdict: rps.verdict,
    p99Verdict: p99.verdict,
    notDistinguishableRps: rps.overlapping,
    notDistinguishableP99: p99.overlapping,
    clearlyBelowRps: rps.clearlyWorse,
  };
}

/** One decision per scope (workload × load × CPU × memory) that has any included repetition. */
export function decideScopes(configurations: ConfigurationSummary[], marginPct: number): ScopeDecision[] {
  const byScope = groupBy(configurations.filter((x) => x.n > 0), (c) => c.scopeKey);
  return [...byScope.values()].map((cs) => {
    const f = cs[0]!;
    return decideScope(cs, marginPct, pairLabel(f.cpuMillis, f.memoryMb), `${workloadLabel(f.app, f.requestSet)}, ${loadLabel(f.load)}`);
  });
}

/** What to change when repetitions disagree, from what the run actually did. */
export function noiseNotes(configurations: ConfigurationSummary[], run: RunDetail): NoiseNote[] {
  const placement = (run.matrix as { placement?: unknown } | null)?.placement === 'off' ? 'off' : 'auto';
  return configurations
    .filter((c) => c.noisy && c.rps?.cv != null)
    .map((c) => {
      const durationSec = run.cells.find((x) => x.config.index === c.cellIndexes[0])?.config.durationSec;
      const tries = [`longer cells${durationSec ? ` (now ${durationSec} s)` : ''}`, `more repetitions (now ${c.n})`];
      const crowded = planPlacement(c.cpuMillis, run.host.cores, true).warning !== undefined;
      if (placement === 'off') tries.push('core placement ("placement": "auto")');
      else if (crowded) tries.push(`a host with more cores (this one cannot keep the load generator off a ${cpuLabel(c.cpuMillis)} container's cores)`);
      const last = tries.pop()!;
      const tail = placement === 'auto' && !crowded ? '; core placement was already on, so look for other load on the machine too' : '';
      return { key: c.key, label: c.label, cv: c.rps!.cv!, n: c.n, suggestion: `try ${tries.join(', ')} or ${last}${tail}` };
    });
}

/** The sizing answer for a stored run: aggregates, decisions per CPU / memory pair, the SLO, and the words. */
export function recommend(run: RunDetail, options: RecommendOptions = {}): Recommendation {
  const marginPct = options.marginPct ?? DEFAULT_MARGIN_PCT;
  if (!(marginPct >= 0 && marginPct < 100)) throw new Error(`The margin must be a percentage from 0 to below 100, got ${marginPct}.`);
  const { configurations, exclusions } = groupCells(run.cells);
  const cellsIncluded = configurations.reduce((a, c) => a + c.n, 0);
  const base: Omit<Recommendation, 'words'> = {
    run: { id: run.id, name: run.name, status: run.status, cellsTotal: run.cellsTotal, cellsIncluded, cellsExcluded: exclusions.length },
    marginPct,
    slo: options.slo ?? null,
    configurations,
    scopes: decideScopes(configurations, marginPct),
    sloOutcomes: options.slo ? sloOutcomes(configurations, options.slo) : [],
    exclusions,
    noise: noiseNotes(configurations, run),
  };
  return { ...base, words: explain(base) };
}
