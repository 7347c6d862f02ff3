// A baseline comparison as the CLI prints it: the summary, one row per configuration and metric,
// what was not comparable or changed, and the reasons behind inconclusive verdicts.
import type { BaselineComparison } from '../analysis/compare/baseline.ts';
import { changeText, METRIC_WORDS, metricValue } from '../analysis/explain/baseline-words.ts';
import { fmtNum } from '../common/format.ts';
import { table } from './format.ts';

const MARK = { regressed: '✗', improved: '↑', unchanged: '=', inconclusive: '?' } as const;

export function baselineText(c: BaselineComparison): string {
  const rows = c.configurations.flatMap((conf) =>
    conf.metrics.map((m) => [
      conf.label,
      METRIC_WORDS[m.metric],
      `${MARK[m.verdict]} ${m.verdict}`,
      metricValue(m.metric, m.baseline),
      metricValue(m.metric, m.candidate),
      m.ratio === null ? '—' : changeText(m.ratio),
      m.low === null || m.high === null ? '—' : `${changeText(m.low)} to ${changeText(m.high)}`,
      m.p === null ? '—' : fmtNum(m.p, 3),
    ]),
  );
  const out = [`Baseline: ${c.summary}`];
  if (rows.length)
    out.push(
      table(
        ['configuration', 'metric', 'verdict', 'baseline', 'this run', 'change', '95 % interval', 'p (Holm)'],
        rows,
      ),
    );
  const reasons = c.configurations.flatMap((conf) =>
    conf.metrics.filter((m) => m.reason).map((m) => `  ${conf.label}, ${METRIC_WORDS[m.metric]}: ${m.reason}`),
  );
  if (reasons.length) out.push(`Why inconclusive:\n${reasons.join('\n')}`);
  const list = (title: string, xs: string[]): void => {
    if (xs.length) out.push(`${title}:\n${xs.map((x) => `  ${x}`).join('\n')}`);
  };
  list('Not comparable (verdicts shown, not gated)', c.comparability.problems);
  list('Changed since the baseline', c.comparability.changes);
  list('Noted', c.comparability.notes);
  list('Only in the baseline (not compared)', c.onlyInBaseline);
  list('Only in this run (not compared)', c.onlyInCandidate);
  return out.join('\n');
}
