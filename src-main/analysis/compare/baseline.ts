// A run against a baseline run: for every configuration measured in both, goodput, p99 and peak
// memory are each regressed, improved, unchanged or inconclusive. A verdict needs a test and the
// noise threshold: "regressed" is shown worse by more than the threshold (one-sided Welch on the
// log of candidate ÷ baseline against 1 ∓ threshold), Holm-adjusted over every configuration ×
// metric; "unchanged" is shown within ± the threshold by two one-sided tests (TOST). Means and
// their errors come from the answer's own rule (group.ts: repetitions, or one repetition's batch
// means), so the gate and the answer never disagree on what a configuration measured.
import type { RunDetail } from '../../model/stored.ts';
import type { StoredCell } from '../../model/stored.ts';
import type { Sample } from '../../model/types.ts';
import { parseCpuList } from '../../common/cpu-list.ts';
import { BUSY_HOST_MAX_LOST_SHARE, RUN_TO_RUN_SPREAD } from '../../common/thresholds.ts';
import { cellPeak } from '../size/fresh-need.ts';
import { groupCells } from '../decide/group.ts';
import { finishedCellsByKey } from '../size/memory.ts';
import { ALPHA, holm, summarize, type MetricStats } from '../decide/stats.ts';
import { testRatio, type RawTest, type SideValue } from '../decide/baseline-ratio.ts';
import { comparabilityOf } from '../decide/baseline-fair.ts';
import { baselineMethod, baselineSummary, blockedReason } from '../explain/baseline-words.ts';
import {
  BASELINE_METRICS,
  DEFAULT_THRESHOLD_PCT,
  type BaselineComparison,
  type BaselineMetric,
  type BaselineVerdict,
  type ConfigurationVerdict,
  type MetricVerdict,
} from '../baseline-types.ts';
import type { ConfigurationSummary } from '../types.ts';

export type * from '../baseline-types.ts';
export { BASELINE_METRICS, DEFAULT_THRESHOLD_PCT } from '../baseline-types.ts';

/** A run as one side of the comparison; `apps`: only these apps' configurations count (a named baseline per app). */
export interface BaselineSide {
  run: RunDetail;
  samples?: ReadonlyMap<number, readonly Sample[]>;
  apps?: readonly string[] | null;
}

interface SideConfig {
  summary: ConfigurationSummary;
  /** One peak per finished repetition (cellPeak, the peak the answer sizes memory from). */
  peaks: number[];
  /** The included repetitions. */
  cells: StoredCell[];
}

/**
 * How much faster than measured a host-busy configuration could have been, as a log factor: as if
 * every CPU-second other processes took on its cores had been the server's and its goodput followed
 * its CPU. Null when that could have been its whole cap (nothing bounds it) or a repetition has no reading.
 */
export function busySlack(cells: readonly StoredCell[]): number | null {
  let worst = 0;
  for (const c of cells) {
    const h = c.stats?.host;
    if (!h) {
      if (c.flags.some((f) => f.kind === 'host-busy')) return null;
      continue;
    }
    const cap = (c.config.cpuMillis / 1000) * (c.config.replicas ?? 1);
    const lost = (h.otherPct / 100) * parseCpuList(h.cores).length;
    if (!(lost < cap * BUSY_HOST_MAX_LOST_SHARE)) return null;
    worst = Math.max(worst, -Math.log(1 - lost / cap));
  }
  return worst;
}

function sideConfigs(side: BaselineSide): Map<string, SideConfig> {
  const { configurations } = groupCells(side.run.cells, side.samples);
  const finished = finishedCellsByKey(side.run.cells);
  const out = new Map<string, SideConfig>();
  for (const c of configurations) {
    if (side.apps && !side.apps.includes(c.app)) continue;
    const peaks = (finished.get(c.key) ?? []).flatMap((cell) => cellPeak(cell)?.bytes ?? []);
    const cells = side.run.cells.filter((x) => c.cellIndexes.includes(x.config.index));
    out.set(c.key, { summary: c, peaks, cells });
  }
  return out;
}

/** A side's value of one metric. Memory: the repetitions' peaks (one peak has no interval: it cannot be tested). */
function sideValue(s: SideConfig, metric: BaselineMetric): SideValue {
  const c = s.summary;
  if (metric === 'memory') return { stats: s.peaks.length ? summarize(s.peaks) : null, bound: null };
  const measured: MetricStats | null = metric === 'goodput' ? c.rps : c.p99Us;
  const stats = measured?.intervalFrom === 'batch-means' ? singleRun(measured, metric) : measured;
  // A client-bound or host-busy repetition: the server was at least this fast (goodput a lower bound,
  // its p99 counts the load generator's delays). The rule is the answer's (common/bottleneck.ts isLowerBound).
  // A busy host's goodput is sized (busySlack); a load generator's ceiling is not.
  const slack = metric === 'goodput' && c.bottleneck === 'host' ? busySlack(s.cells) : null;
  return { stats, bound: c.bottleneck, slack };
}

/**
 * One repetition: its interval (batch means of its own seconds) cannot see how far a whole run moves
 * from the next. Goodput's run-to-run spread was measured (RUN_TO_RUN_SPREAD, the repeatability
 * benchmark's largest): it is added to the error as one more independent term, so two single runs
 * that differ by what identical runs differ by are never shown apart. Nobody measured p99's: a single
 * repetition's p99 is not tested (no interval: inconclusive, "add repetitions").
 */
function singleRun(m: MetricStats, metric: 'goodput' | 'p99'): MetricStats {
  if (metric === 'p99' || m.se === null) return { ...m, se: null };
  return { ...m, se: Math.sqrt(m.se ** 2 + (RUN_TO_RUN_SPREAD * m.mean) ** 2) };
}

/**
 * One repetition on a side: its interval (batch means of its own seconds) cannot see run-to-run
 * variation, which the repeatability benchmark measured up to RUN_TO_RUN_SPREAD on goodput; below
 * that, a change between two single runs is not evidence, so the threshold is raised to it.
 */
const thresholdFor = (a: SideValue, b: SideValue, pct: number): number =>
  a.stats?.intervalFrom === 'batch-means' || b.stats?.intervalFrom === 'batch-means'
    ? Math.max(pct, RUN_TO_RUN_SPREAD * 100)
    : pct;

interface Pending {
  config: ConfigurationVerdict;
  metric: BaselineMetric;
  base: SideValue;
  cand: SideValue;
  test: RawTest;
  thresholdPct: number;
}

export interface CompareOptions {
  /** Percent (default 5). */
  thresholdPct?: number;
}

/** Checks a threshold as the user gave it: a message naming the option, or null when it is fine. */
export function thresholdProblem(pct: number): string | null {
  return Number.isFinite(pct) && pct > 0 && pct < 100
    ? null
    : `the threshold should be a percentage above 0 and below 100, e.g. 5 (got ${pct})`;
}

export function compareToBaseline(
  baselines: readonly BaselineSide[],
  candidate: BaselineSide,
  options: CompareOptions = {},
): BaselineComparison {
  const thresholdPct = options.thresholdPct ?? DEFAULT_THRESHOLD_PCT;
  const problem = thresholdProblem(thresholdPct);
  if (problem) throw new Error(problem);
  const base = new Map<string, SideConfig>();
  for (const b of baselines) for (const [k, v] of sideConfigs(b)) if (!base.has(k)) base.set(k, v);
  const cand = sideConfigs(candidate);
  const shared = [...cand.keys()].filter((k) => base.has(k));
  const pending: Pending[] = [];
  const configurations: ConfigurationVerdict[] = shared.map((key) => {
    const [b, c] = [base.get(key)!, cand.get(key)!];
    const config: ConfigurationVerdict = {
      key,
      label: c.summary.label,
      app: c.summary.app,
      baselineN: b.summary.n,
      candidateN: c.summary.n,
      metrics: [],
    };
    for (const metric of BASELINE_METRICS) {
      const [bv, cv] = [sideValue(b, metric), sideValue(c, metric)];
      const t = thresholdFor(bv, cv, thresholdPct);
      pending.push({
        config,
        metric,
        base: bv,
        cand: cv,
        test: testRatio(bv, cv, t, metric === 'goodput'),
        thresholdPct: t,
      });
    }
    return config;
  });
  const adjusted = (pick: (p: Pending) => number | null): Map<Pending, number> => {
    const withP = pending.filter((p) => pick(p) !== null);
    const ps = holm(withP.map((p) => pick(p)!));
    return new Map(withP.map((p, i) => [p, ps[i]!]));
  };
  const worse = adjusted((p) => p.test.pWorse);
  const better = adjusted((p) => p.test.pBetter);
  const equivalent = adjusted((p) => p.test.pEquivalent);
  for (const p of pending) p.config.metrics.push(verdictOf(p, worse.get(p), better.get(p), equivalent.get(p)));
  const counts: Record<BaselineVerdict, number> = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
  for (const c of configurations) for (const m of c.metrics) counts[m.verdict]++;
  const comparability = comparabilityOf(
    baselines.map((b) => b.run),
    candidate.run,
    shared,
  );
  const labels = (from: Map<string, SideConfig>, other: Map<string, SideConfig>): string[] =>
    [...from].filter(([k]) => !other.has(k)).map(([, v]) => v.summary.label);
  const out: Omit<BaselineComparison, 'summary' | 'method'> = {
    baselineRunIds: [...new Set(baselines.map((b) => b.run.id))],
    candidateRunId: candidate.run.id,
    thresholdPct,
    alpha: ALPHA,
    configurations,
    onlyInBaseline: labels(base, cand),
    onlyInCandidate: labels(cand, base),
    comparability,
    counts,
    gateFailed: counts.regressed > 0 && comparability.comparable,
  };
  return { ...out, method: baselineMethod(thresholdPct), summary: baselineSummary(out) };
}

/** The verdict from the Holm-adjusted p-values: regressed, improved, unchanged, else inconclusive with why. */
function verdictOf(p: Pending, pw?: number, pb?: number, pe?: number): MetricVerdict {
  const { test } = p;
  let verdict: BaselineVerdict = 'inconclusive';
  let pv: number | null = null;
  if (pw !== undefined && pw <= ALPHA) [verdict, pv] = ['regressed', pw];
  else if (pb !== undefined && pb <= ALPHA) [verdict, pv] = ['improved', pb];
  else if (pe !== undefined && pe <= ALPHA) [verdict, pv] = ['unchanged', pe];
  else {
    const tried = [pw, pb, pe].filter((x): x is number => x !== undefined);
    pv = tried.length ? Math.min(...tried) : null;
  }
  return {
    metric: p.metric,
    verdict,
    baseline: p.base.stats?.mean ?? null,
    candidate: p.cand.stats?.mean ?? null,
    ratio: test.ratio,
    low: test.low,
    high: test.high,
    p: pv,
    thresholdPct: p.thresholdPct,
    reason: verdict === 'inconclusive' ? blockedReason(p.metric, p.base, p.cand, test) : null,
  };
}
