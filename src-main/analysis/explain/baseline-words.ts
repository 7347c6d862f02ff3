// A baseline comparison in words: each metric's change with its interval, why an inconclusive one
// is inconclusive, the summary sentence and the method. Shared by the CLI, the UI and the HTML report.
import type { BoundPace } from '../../model/types.ts';
import { fmtBytes, fmtMargin, fmtNum, fmtPct, fmtUs } from '../../common/format.ts';
import { RUN_TO_RUN_SPREAD } from '../../common/thresholds.ts';
import type { RawTest, SideValue } from '../decide/baseline-ratio.ts';
import type { BaselineComparison, BaselineMetric, MetricVerdict } from '../baseline-types.ts';

export const METRIC_WORDS: Record<BaselineMetric, string> = {
  goodput: 'goodput',
  p99: 'p99 latency',
  memory: 'peak memory',
};

/** A metric's value in its unit: "1,234 req/s", "12.3 ms", "81 MB". */
export function metricValue(metric: BaselineMetric, v: number | null): string {
  if (v === null) return '—';
  if (metric === 'goodput') return `${fmtNum(v, v < 100 ? 1 : 0)} req/s`;
  return metric === 'p99' ? fmtUs(v) : fmtBytes(v);
}

/** "+12.3 %" / "−4.0 %" of a ratio. */
export const changeText = (ratio: number): string => {
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? '+' : '−'}${fmtNum(Math.abs(pct), 1)} %`;
};

/** "−23.4 % (95 % interval −25.0 to −21.7 %)" or "−23.4 % (no interval)". */
export function effectText(m: MetricVerdict): string {
  if (m.ratio === null) return 'no change measured';
  const iv =
    m.low !== null && m.high !== null ? `95 % interval ${changeText(m.low)} to ${changeText(m.high)}` : 'no interval';
  return `${changeText(m.ratio)} (${iv})`;
}

/** One metric in one line: "goodput regressed: 812 → 604 req/s, −25.6 % (95 % interval …)". */
export function metricLine(m: MetricVerdict): string {
  const values = `${metricValue(m.metric, m.baseline)} → ${metricValue(m.metric, m.candidate)}`;
  const why = m.reason ? `; ${m.reason}` : '';
  return `${METRIC_WORDS[m.metric]} ${m.verdict}: ${values}, ${effectText(m)}${why}`;
}

const boundWords = (bound: BoundPace): string =>
  bound === 'client'
    ? 'capped by the load generator'
    : bound === 'dependency'
      ? 'held back by a dependency at its cap'
      : bound === 'network'
        ? 'held back by the bandwidth cap'
        : 'held back by a busy host';

/** Why no verdict could be reached, in words. */
export function blockedReason(metric: BaselineMetric, base: SideValue, cand: SideValue, test: RawTest): string {
  if (!base.stats || !cand.stats)
    return `nothing counted in ${base.stats ? 'this run' : 'the baseline'} (every repetition excluded)`;
  if (test.blocked === 'no interval')
    return metric === 'memory'
      ? 'one peak per run on a side: add repetitions to test memory'
      : metric === 'p99'
        ? "one repetition on a side: a run's p99 moves from run to run by more than its seconds show: add repetitions"
        : 'no interval on a side (one repetition without per-second data): add repetitions';
  if (test.blocked === 'both bounds' && metric !== 'memory') {
    const same = base.bound === cand.bound;
    return same
      ? `both ${boundWords(base.bound!)}`
      : `both bounds (${boundWords(base.bound!)}, ${boundWords(cand.bound!)})`;
  }
  const bounded = cand.bound
    ? `this run was ${boundWords(cand.bound)}`
    : base.bound
      ? `the baseline was ${boundWords(base.bound)}`
      : null;
  return bounded
    ? `${bounded}: its number is only a bound, so the change could not be shown either way`
    : 'neither shown beyond the threshold nor shown within it: add repetitions';
}

/** How the verdicts were reached. */
export function baselineMethod(thresholdPct: number): string[] {
  const t = fmtMargin(thresholdPct);
  return [
    `Each configuration measured in both runs is compared on goodput, p99 latency and peak memory as the ratio ` +
      `this run ÷ baseline, with its 95 % interval (Welch's t on the logarithms; repetitions give the error, ` +
      `or one repetition's batch means of its seconds, as in the answer).`,
    `Regressed: shown worse by more than the ${t} % threshold (one-sided test at 5 %); improved: shown better ` +
      `by more than it; unchanged: shown within ± ${t} % by two one-sided tests (TOST); otherwise inconclusive.`,
    "Holm's correction runs over every configuration × metric, so one regression among many comparisons is " +
      'not luck.',
    `With one repetition on a side its interval cannot see run-to-run variation, which the repeatability ` +
      `benchmark measured up to ${fmtPct(RUN_TO_RUN_SPREAD * 100)} on goodput: the threshold is raised to that, ` +
      "and that spread is added to a single run's goodput error; a single run's p99 is not tested (its " +
      'run-to-run variation was never measured).',
    'A client-bound goodput is a lower bound: a bound in the baseline can only show this run worse, a bound in ' +
      'this run only better, and two bounds decide nothing. A host-busy goodput is bounded on both sides: at ' +
      'least as measured, at most as if every CPU-second other processes took on its cores had been the ' +
      "server's (goodput following CPU); tests take it at the end of that range least favourable to a verdict.",
    'Peak memory needs two repetitions per side to be tested.',
  ];
}

/** The sentence a reader needs first. */
export function baselineSummary(c: Omit<BaselineComparison, 'summary' | 'method'>): string {
  const n = c.configurations.length;
  const base = c.baselineRunIds.map((id) => `run ${id}`).join(', ');
  if (n === 0) return `No configuration of this run was measured in the baseline (${base}): nothing compared.`;
  const total = n * 3;
  const parts = (['regressed', 'improved', 'unchanged', 'inconclusive'] as const)
    .filter((v) => c.counts[v] > 0)
    .map((v) => `${c.counts[v]} ${v}`);
  const head =
    `Against ${base} (threshold ${fmtMargin(c.thresholdPct)} %): ${parts.join(', ')} of ${total} ` +
    `comparisons (${n} configuration${n === 1 ? '' : 's'} × 3 metrics).`;
  if (!c.comparability.comparable)
    return `${head} Not comparable — ${c.comparability.problems.join('; ')}: verdicts are shown but not gated.`;
  return c.counts.regressed > 0 ? `${head} Regressed: the gate fails.` : head;
}
