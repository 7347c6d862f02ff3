// The HTML report's baseline section: the verdicts the run was gated on (worked out again from the
// baseline stored with it), or why they cannot be shown (a baseline run deleted since).
import type { BaselineComparison } from '../analysis/compare/baseline.ts';
import { changeText, METRIC_WORDS, metricValue } from '../analysis/explain/baseline-words.ts';
import { fmtNum } from '../common/format.ts';
import { esc, section, table, td, th } from './html-parts.ts';

/** What the report shows: the comparison, or a sentence why there is none; undefined: the run was not compared. */
export type ReportBaseline = { comparison: BaselineComparison } | { problem: string } | undefined;

const list = (title: string, xs: string[]): string =>
  xs.length ? `<p><b>${esc(title)}:</b></p><ul>${xs.map((x) => `<li>${esc(x)}</li>`).join('')}</ul>` : '';

export function baselineSection(b: ReportBaseline): string {
  if (!b) return '';
  if ('problem' in b) return section('baseline', 'Against the baseline', `<p>${esc(b.problem)}</p>`);
  const c = b.comparison;
  const rows = c.configurations.flatMap((conf) =>
    conf.metrics.map(
      (m) =>
        `<tr>${td(esc(conf.label))}${td(esc(METRIC_WORDS[m.metric]))}` +
        `${td(`<span class="verdict ${m.verdict}" title="${esc(m.reason ?? '')}">${m.verdict}</span>`)}` +
        `${td(esc(metricValue(m.metric, m.baseline)), true)}${td(esc(metricValue(m.metric, m.candidate)), true)}` +
        `${td(m.ratio === null ? '—' : esc(changeText(m.ratio)), true)}` +
        `${td(m.low === null || m.high === null ? '—' : esc(`${changeText(m.low)} to ${changeText(m.high)}`))}` +
        `${td(m.p === null ? '—' : fmtNum(m.p, 3), true)}</tr>`,
    ),
  );
  const head = ['configuration', 'metric', 'verdict', 'baseline', 'this run', 'change', '95 % interval', 'p (Holm)'];
  const reasons = c.configurations.flatMap((conf) =>
    conf.metrics.filter((m) => m.reason).map((m) => `${conf.label}, ${METRIC_WORDS[m.metric]}: ${m.reason}`),
  );
  const body =
    `<p><b>${esc(c.summary)}</b></p>` +
    (rows.length
      ? table(
          head.map((h, i) => th(h, i >= 3 && i !== 6)),
          rows,
        )
      : '') +
    list('Why inconclusive', reasons) +
    list('Not comparable (verdicts shown, not gated)', c.comparability.problems) +
    list('Changed since the baseline', c.comparability.changes) +
    list('Noted', c.comparability.notes) +
    list('Only in the baseline (not compared)', c.onlyInBaseline) +
    list('Only in this run (not compared)', c.onlyInCandidate) +
    `<details><summary>How the verdicts are reached</summary>${c.method.map((m) => `<p>${esc(m)}</p>`).join('')}` +
    '</details>';
  return section('baseline', 'Against the baseline', `${STYLE}${body}`);
}

// The badges' colours, with the section: the report's stylesheet stays as it is.
const STYLE =
  '<style>.verdict{padding:0 6px;border-radius:8px;border:1px solid #888}' +
  '.verdict.regressed{color:#b00020;border-color:#b00020;font-weight:600}.verdict.improved{color:#1a7f37;' +
  'border-color:#1a7f37}.verdict.inconclusive{color:#9a6700;border-color:#9a6700}</style>';
