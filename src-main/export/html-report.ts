// One self-contained HTML file to share a run: the answer first, then the evidence. No script, no
// external resource; everything that comes from data (names are user input) is escaped. The tables,
// charts and sections are built in html-tables.ts, html-charts.ts, html-sizing.ts and html-method.ts.
import { describeSlo, searchConfigLabel } from '../analysis/index.ts';
import type { Recommendation } from '../analysis/index.ts';
import { STATE_WORDS } from '../analysis/explain/headline.ts';
import { appLines } from '../apps/describe.ts';
import { routesSection } from './html-routes.ts';
import { fmtDuration, fmtLocalTime, fmtNum } from '../common/format.ts';
import { recommendedDeployOf } from '../deploy/from-cell.ts';
import { deploySnippet, nothingToDeploy, SNIPPET_KINDS, type SnippetKind } from '../deploy/snippets.ts';
import type { RunDetail } from '../model/stored.ts';
import type { Sample } from '../model/types.ts';
import type { ProbeSecond } from '../model/probe.ts';
import { answerChartHtml } from './html-answer-chart.ts';
import { stabilityCharts, summaryCharts } from './html-charts.ts';
import { methodSection } from './html-method.ts';
import { runtimeSection } from './html-probe.ts';
import { esc, section, table, td, th } from './html-parts.ts';
import { sizingSection } from './html-sizing.ts';
import { costsSection } from './html-costs.ts';
import { baselineSection, type ReportBaseline } from './html-baseline.ts';
import { CSS } from './html-style.ts';
import { cellsTable, configurationsTable, hostTable, winnersTable } from './html-tables.ts';
import { runtimeSeenSection } from './html-runtime-seen.ts';

/** A stored time as the CLI shows it: this machine's local time with its offset from UTC. */
const timeText = (iso: string | null): string => (iso ? fmtLocalTime(iso) : '—');

/** The headline first, with its state as a badge: confident, equivalent or undecided. */
function headlineHtml(rec: Recommendation): string {
  const h = rec.headline;
  if (!h) return '';
  const badge = `<span class="state state-${h.state}">${esc(STATE_WORDS[h.state])}</span>`;
  return `<p class="headline" data-state="${h.state}">${badge} ${esc(h.text)}</p>`;
}

const SNIPPET_TITLES: Record<SnippetKind, string> = {
  pm2: 'PM2 (ecosystem.config.js)',
  kubernetes: 'Kubernetes (container spec)',
  compose: 'Docker Compose (service)',
};

/**
 * The configuration the answer deploys (deploy/from-cell.ts recommendedDeployOf: an auto-size run's
 * found configuration, else the cheapest meeting the objective, else the first pair's knee) as PM2,
 * Kubernetes and Compose snippets; or, for a search that found none, plainly that there is nothing to deploy.
 */
function deploySection(rec: Recommendation, run: RunDetail): string {
  // With the run's stored verification: each snippet says what was verified, or that it was not.
  const input = recommendedDeployOf(run, rec);
  if (!input) {
    return rec.search
      ? section('deploy', 'Deploy it', `<p data-nothing-to-deploy>${esc(nothingToDeploy(rec))}</p>`)
      : '';
  }
  const blocks = SNIPPET_KINDS.map(
    (k) =>
      `<h3>${esc(SNIPPET_TITLES[k])}</h3><pre class="snippet" data-kind="${k}">${esc(deploySnippet(k, input))}</pre>`,
  );
  const intro =
    `<p>The recommended configuration — ${esc(input.provenance.pick)} — ready to paste. The same text ` +
    `comes from <code>rightsize report ${run.id} --emit pm2|kubernetes|compose</code>.</p>`;
  return section('deploy', 'Deploy it', `${intro}${blocks.join('')}`);
}

const STEP_OUTCOMES: Record<string, string> = {
  meets: 'meets',
  misses: 'misses',
  undecided: 'undecided',
  failed: 'failed',
};

/** An auto-size run: the objective, what the search found, and the path it took, cell by cell. */
function searchSection(run: RunDetail, rec: Recommendation): string {
  const s = rec.search;
  const trace = run.search;
  if (!s || !trace) return '';
  const numberOf = new Map(run.cells.map((c) => [c.id, c.config.index + 1]));
  const rows = trace.steps.map(
    (st, i) =>
      `<tr>${[
        td(String(i + 1), true),
        td(numberOf.has(st.cellId) ? String(numberOf.get(st.cellId)) : '—', true),
        td(esc(searchConfigLabel(st))),
        td(esc(st.reason)),
        td(`<b>${esc(STEP_OUTCOMES[st.outcome] ?? st.outcome)}</b>`),
        td(esc(st.detail)),
      ].join('')}</tr>`,
  );
  const head = ['step', 'cell', 'configuration', 'why', 'outcome', 'what was measured'].map((h, i) => th(h, i < 2));
  const found = s.found ? `<p>Found: <b>${esc(searchConfigLabel(s.found))}</b>.</p>` : '';
  const status =
    `<p>Objective: ${esc(s.objective)} (constant rate, ${fmtNum(s.rate)} req/s). Status: <b>${esc(s.status)}</b>; ` +
    `${s.cells} cells instead of the ${fmtNum(s.gridCells)} of a full grid over the same bounds.</p>`;
  return section(
    'search',
    'The search',
    `${status}${found}${table(head, rows, 'steps')}`,
    ` data-status="${esc(s.status)}"`,
  );
}

/**
 * The answer: the objective, the headline, the answer as a chart, at most four short bullets, and the
 * reasoning and methods collapsed behind "How this was decided" (every sentence of the words is there).
 */
function answerSection(rec: Recommendation, run: RunDetail): string {
  const slo = rec.search
    ? `<p>Objective of the auto-size search: ${esc(rec.search.objective)}.</p>`
    : rec.slo
      ? `<p>Service-level objective: ${esc(describeSlo(rec.slo))}.</p>`
      : '';
  const li = (w: string): string => `<li>${esc(w)}</li>`;
  const summary = rec.summary.length ? `<ul class="answer summary">${rec.summary.map(li).join('')}</ul>` : '';
  // A method the words do not already end with (memory and CPU) is said under its own title.
  const methods = rec.methods
    .filter((m) => !rec.words.some((w) => w.endsWith(m.text)))
    .map((m) => `<p><b>${esc(m.title)}.</b> ${esc(m.text)}</p>`)
    .join('');
  const details =
    '<details class="how"><summary>How this was decided</summary>' +
    `<ul class="reasoning">${rec.words.map(li).join('')}</ul>${methods}</details>`;
  return section(
    'answer',
    'The answer',
    `${slo}${headlineHtml(rec)}${answerChartHtml(rec, run.cells)}${summary}${details}`,
  );
}

/** What ± means in the winners table. */
const WINNERS_NOTE =
  '<p class="muted">Each pair’s own pick answers “if you are given this CPU and memory”; the answer deploys the ' +
  'one configuration named above. ± is half the width of the 95 % confidence interval of the mean goodput, ' +
  'taken on a log scale so it never reaches zero: over 3 or more repetitions (Student’s t), or for a single ' +
  'repetition from batch means of its own seconds (weaker: it cannot see run-to-run variation).</p>';

/** `probe`: the run's runtime probe seconds by cell id (store.getRunProbeSeconds); none: no runtime section. */
export function htmlReport(
  run: RunDetail,
  samples: Map<number, Sample[]>,
  rec: Recommendation,
  probe: Map<number, ProbeSecond[]> = new Map(),
  /** The verdicts against the baseline the run was compared with (export/baseline-of.ts reportBaseline). */
  baseline?: ReportBaseline,
): string {
  const title = `Rightsize report: ${run.name}`;
  const meta = [
    `Run ${run.id}`,
    ...(run.preset ? [`preset ${run.preset}`] : []),
    run.status,
    `started ${timeText(run.startedAt)}`,
    `took ${fmtDuration(run.durationSec)}`,
    `${run.cells.length} of ${run.cellsTotal} cells, ${rec.run.cellsExcluded} excluded`,
  ]
    .map(esc)
    .join(' · ');
  const error = run.error ? `<p class="meta">Error: ${esc(run.error)}</p>` : '';
  const sections = [
    `<header><h1>${esc(title)}</h1><p class="meta">${meta}</p>${error}</header>`,
    answerSection(rec, run),
    baselineSection(baseline),
    searchSection(run, rec),
    // An auto-size run's answer is its search's: a knee table over the cells it ran would contradict it.
    rec.scopes.length && !rec.search
      ? section('winners', 'If you are given one CPU / memory pair', `${winnersTable(rec)}${WINNERS_NOTE}`)
      : '',
    sizingSection(rec),
    costsSection(rec),
    deploySection(rec, run),
    rec.scopes.length ? section('charts', 'Throughput and p99 by worker count', summaryCharts(rec)) : '',
    stabilityCharts(run, samples, rec.scopes),
    runtimeSection(run, samples, probe),
    runtimeSeenSection(rec),
    rec.configurations.length
      ? section('configurations', 'Configurations (repetitions aggregated)', configurationsTable(rec))
      : '',
    section('cells', 'Cells', run.cells.length ? cellsTable(run.cells) : '<p>No cells.</p>'),
    routesSection(run),
    userApps(run.apps),
    section('matrix', 'Matrix', `<pre>${esc(JSON.stringify(run.matrix, null, 2) ?? 'null')}</pre>`),
    section('host', 'Host', hostTable(run)),
    methodSection(run, rec),
    `<footer><p class="muted">Rightsize ${esc(run.host.rightsizeVersion)} · numbers per cell match ` +
      `<code>rightsize export ${run.id} --csv</code>.</p></footer>`,
  ];
  const head =
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(title)}</title><style>${CSS}</style></head>`;
  return `<!doctype html>\n<html lang="en">${head}<body><main>${sections.join('\n')}</main></body></html>\n`;
}

/** The user's own apps as the run used them (its stored copy): what was built or started, and what it was sent. */
function userApps(apps: unknown[]): string {
  const lines = appLines(apps);
  return lines.length
    ? section('apps', 'Your apps, as run', `<ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`)
    : '';
}
