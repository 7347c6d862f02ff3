// The HTML report's tables of evidence: the winners of each CPU / memory pair, the configurations
// (repetitions aggregated), every cell, and the host.
import { linkText } from '../common/labels.ts';
import { reasonsText } from '../common/failure-reason.ts';
import { envWords } from '../common/env-name.ts';
import { failedAndAttempts, flagPhrase, fmtMargin, fmtPct, fmtRatio, who } from '../analysis/index.ts';
import type { Recommendation } from '../analysis/index.ts';
import { STATE_WORDS } from '../analysis/explain/headline.ts';
import { fmtBytes, fmtNum, fmtUs, cellWarmupText } from '../common/format.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import { contestNote, esc, flagsHtml, p99Cell, p99Note, pickCell, rpsCell, table, td, th } from './html-parts.ts';

export function winnersTable(rec: Recommendation): string {
  const multi = new Set(rec.scopes.map((s) => s.context)).size > 1;
  const margin = fmtMargin(rec.marginPct);
  const rows = rec.scopes.map((s) => {
    const b = s.bestRps;
    const kneeRps = `${s.lowerBounds.includes(s.knee.key) ? '≥ ' : ''}${fmtNum(s.knee.rps!.mean)} req/s`;
    const flagged = [...new Set([b, s.knee, s.lowestP99])].flatMap((c) =>
      c.flags.map((f) => ({ kind: `${f.kind} (${who(c)})`, title: flagPhrase(f) })),
    );
    return `<tr>${[
      td(esc(s.label)),
      ...(multi ? [td(esc(s.context))] : []),
      pickCell(who(b), `${rpsCell(b)} req/s`, contestNote(s)),
      td(fmtRatio(b.workersPerCpu), true),
      pickCell(who(s.knee), kneeRps, `${fmtRatio(s.knee.workersPerCpu)} per CPU · ${STATE_WORDS[s.state]}`),
      pickCell(who(s.lowestP99), p99Cell(s.lowestP99), p99Note(s)),
      td(flagsHtml(flagged)),
    ].join('')}</tr>`;
  });
  const head = [
    th('CPU / memory'),
    ...(multi ? [th('workload, load')] : []),
    th('best throughput (95 % CI)'),
    th('workers per CPU', true),
    th(`knee (within ${margin} %)`),
    th('lowest p99 (95 % CI)'),
    th('flags'),
  ];
  return table(head, rows, 'winners');
}

export function configurationsTable(rec: Recommendation): string {
  const rows = rec.configurations.map((c) => {
    if (c.n === 0) {
      const reasons = [...new Set(c.excluded.map((e) => e.reason))].join('; ');
      return (
        `<tr class="excluded">${td(esc(c.label))}${td('0', true)}` +
        `<td colspan="7">every repetition excluded: ${esc(reasons)}</td></tr>`
      );
    }
    const notes = [
      ...(c.noisy ? ['noisy'] : []),
      ...c.notes,
      ...(c.excluded.length ? [`${c.excluded.length} excluded`] : []),
    ];
    return `<tr>${[
      td(esc(c.label)),
      td(String(c.n), true),
      td(rpsCell(c), true),
      td(c.rps!.cv === null ? '—' : fmtPct(c.rps!.cv * 100), true),
      td(p99Cell(c), true),
      td(fmtPct(c.errorPct!), true),
      td(fmtRatio(c.workersPerCpu), true),
      td(
        flagsHtml(
          c.flags.map((f) => ({ kind: f.of > 1 ? `${f.kind} ${f.cells}/${f.of}` : f.kind, title: flagPhrase(f) })),
        ),
      ),
      td(esc(notes.join('; '))),
    ].join('')}</tr>`;
  });
  const head = [
    th('configuration'),
    th('n', true),
    th('req/s (95 % CI)', true),
    th('CV req/s', true),
    th('p99 (95 % CI)', true),
    th('errors', true),
    th('workers per CPU', true),
    th('flags'),
    th('notes'),
  ];
  return table(head, rows);
}

const CELL_COLUMNS = 18;

/** "db (postgres:16) 63 % of its 1 CPU cap, up to 45 MB; cache …": each dependency over the measured seconds. */
function dependencyWords(c: StoredCell): string {
  return c
    .dependencies!.map((d) =>
      d.stats
        ? `${d.name} (${d.image}) ${Math.round(d.stats.cpuPctMean)} % of its ${d.cpuMillis / 1000} CPU cap, ` +
          `up to ${fmtBytes(d.stats.memMaxBytes)}`
        : `${d.name} (${d.image}) not measured`,
    )
    .join('; ');
}

/** The reasons behind a cell's flags and its failure, on a full-width row under it: too long for a column. */
function cellNote(c: StoredCell): string {
  const settings = envWords(c.config.envSet);
  const lines = [
    ...(settings ? [`<b>settings</b>: ${esc(settings)}`] : []),
    ...(c.dependencies?.length ? [`<b>dependencies</b>: ${esc(dependencyWords(c))}`] : []),
    ...(c.load?.failureReasons ? [`<b>failed</b>${esc(reasonsText(c.load.failureReasons))}`] : []),
    ...c.flags.map((f) => `<b>${esc(f.kind)}</b>: ${esc(f.reason)}`),
    ...(c.failure ? [`<b>${esc(c.status)}</b>: ${esc(c.failure.split('\n')[0]!)}`] : []),
  ];
  if (!lines.length) return '';
  const cls = c.status === 'ok' ? 'note' : 'note excluded';
  return `<tr class="${cls}"><td colspan="${CELL_COLUMNS}">${lines.join('<br>')}</td></tr>`;
}

/** Every cell, failed ones included. data-* hold the exact stored values, the same the CSV export writes. */
export function cellsTable(cells: StoredCell[]): string {
  const rows = cells.map((c) => {
    const k = c.config;
    const load =
      (k.load.model === 'closed'
        ? `${k.load.connections} conn`
        : `${fmtNum(k.load.rate)} req/s, ${k.load.connections} conn`) + linkText(k.load);
    const [failed] = failedAndAttempts(c);
    const data =
      `data-cell-index="${k.index}"${c.rpsMean === null ? '' : ` data-rps="${c.rpsMean}"`}` +
      `${c.p99Us === null ? '' : ` data-p99-us="${c.p99Us}"`}`;
    return `<tr ${data}${c.status === 'ok' ? '' : ' class="excluded"'}>${[
      td(String(k.index + 1), true),
      td(String(k.repetition + 1), true),
      td(esc(k.app + (k.requests ? ` [${k.requests.name}]` : ''))),
      td(esc(k.mode)),
      td(String(k.workers), true),
      td(`${k.cpuMillis}m`, true),
      td(`${k.memoryMb} MB`, true),
      td(esc(load)),
      td(esc(c.status)),
      td(fmtNum(c.rpsMean), true),
      td(fmtUs(c.p50Us), true),
      td(fmtUs(c.p99Us), true),
      td(fmtUs(c.maxUs), true),
      td(c.requests === null ? '—' : fmtNum(failed), true),
      td(c.cpuPctMean === null ? '—' : `${Math.round(c.cpuPctMean)}%`, true),
      td(fmtBytes(c.memMaxBytes), true),
      td(cellWarmupText(c), true),
      td(flagsHtml(c.flags.map((f) => ({ kind: f.kind, title: f.reason })))),
    ].join('')}</tr>${cellNote(c)}`;
  });
  const head = [
    th('#', true),
    th('rep', true),
    th('app'),
    th('mode'),
    th('workers', true),
    th('cpu', true),
    th('memory', true),
    th('load'),
    th('status'),
    th('req/s', true),
    th('p50', true),
    th('p99', true),
    th('max', true),
    th('failed req.', true),
    th('cpu % of cap', true),
    th('mem max', true),
    th('warm-up', true),
    th('flags'),
  ];
  return table(head, rows, 'cells');
}

export function hostTable(run: RunDetail): string {
  const h = run.host;
  const rows: [string, string][] = [
    ['host', h.hostname],
    ['platform', `${h.platform} ${h.arch}`],
    ['CPU', `${h.cpuModel}, ${h.cores} cores`],
    ['memory', fmtBytes(h.memoryBytes)],
    ['Node.js', h.nodeVersion],
    ['Docker', h.dockerVersion ?? 'unknown'],
    ['cgroup', h.cgroupVersion ? `v${h.cgroupVersion}` : 'unknown'],
    ['Rightsize', h.rightsizeVersion],
    ...Object.entries(h.appVersions ?? {}).map(([app, v]): [string, string] => [`app ${app}`, v]),
  ];
  return `<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>`;
}
