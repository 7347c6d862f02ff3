// One self-contained HTML file to share a run: the answer first, then the evidence. No script, no
// external resource; everything that comes from data (names are user input) is escaped.
import {
  describeSlo,
  failedAndAttempts,
  flagPhrase,
  fmtMargin,
  fmtMb,
  fmtPct,
  fmtRatio,
  groupBy,
  p99Short,
  limitText,
  loadLabel,
  pairLabel,
  PEAK_SOURCE_WORDS,
  perWorkerText,
  sizingMethodText,
  who,
  workloadKey,
  workloadLabel,
} from '../analysis/index.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision, Sizing, Verdict } from '../analysis/index.ts';
import { appLines } from '../apps/describe.ts';
import { searchConfigLabel } from '../analysis/search-answer.ts';
import { STATE_WORDS } from '../analysis/headline.ts';
import { fmtBytes, fmtDuration, fmtLocalTime, fmtNum, fmtUs, fmtWarmup } from '../common/format.ts';
import { deploySnippet, nothingToDeploy, SNIPPET_KINDS, type SnippetKind } from '../deploy/snippets.ts';
import { recommendedDeployOf } from '../deploy/from-cell.ts';
import { HOST_BUSY_PCT } from '../engine/flags.ts';
import { UNSTABLE_ALPHA, UNSTABLE_CHANGE, WARM_SPREAD, WARM_WINDOW_SEC, warmupCapSec } from '../load/steady-state.ts';
import type { Sample } from '../model/types.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import { escapeXml as esc, lineChart, type ChartSeries } from './svg-chart.ts';

/** Stability charts are drawn for at most this many CPU / memory pairs, to keep the file readable. */
const MAX_STABILITY_CHARTS = 12;

const CSS = `
:root { color-scheme: light; }
body { margin: 0; background: #fff; color: #111; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
.meta { color: #555; margin: 0; }
.answer { background: #f4f8fc; border-left: 4px solid #0072B2; padding: 10px 16px 10px 32px; margin: 12px 0; }
.answer li { margin: 3px 0; }
.headline { font-size: 1.1em; margin: 12px 0; }
.state { display: inline-block; border-radius: 4px; padding: 1px 8px; font-weight: 600; color: #fff; }
.state-confident { background: #007a4d; } .state-equivalent { background: #0072B2; } .state-undecided { background: #b35900; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 12.5px; }
th, td { border: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, .value, .nowrap { white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.excluded td { color: #888; background: #fbf5f5; }
table.cells td { white-space: nowrap; }
table.cells tr.note td { white-space: normal; color: #444; font-size: 11.5px; border-top: none; padding-left: 24px; }
.flag { border-radius: 3px; padding: 0 4px; margin-right: 2px; background: #fff1e0; color: #7a3e00; font-size: 11.5px; -webkit-box-decoration-break: clone; box-decoration-break: clone; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
figure { margin: 0; min-width: 0; max-width: 100%; break-inside: avoid; page-break-inside: avoid; }
svg { box-sizing: border-box; max-width: 100%; height: auto; border: 1px solid #eee; }
pre { background: #f7f7f7; border: 1px solid #e5e5e5; padding: 10px; overflow-x: auto; font-size: 12px; }
.method li { margin: 4px 0; }
.muted { color: #666; }
@page { margin: 12mm; }
@media print {
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table { font-size: 10.5px; }
  table.cells { font-size: 9px; }
  table.cells td, table.cells th { white-space: normal; padding: 2px 3px; }
  tr { break-inside: avoid; page-break-inside: avoid; }
  .answer { background: none; }
}`;

const td = (s: string, num = false): string => `<td${num ? ' class="num"' : ''}>${s}</td>`;
const th = (s: string, num = false): string => `<th${num ? ' class="num"' : ''}>${s}</th>`;
const flagsHtml = (kinds: { kind: string; title: string }[]): string =>
  kinds.map((f) => `<span class="flag" title="${esc(f.title)}">${esc(f.kind)}</span>`).join(' ');
// One repetition can still have an interval (batch means of its own seconds): say which kind it is.
const rpsCell = (c: ConfigurationSummary): string =>
  c.rps!.ci
    ? `${fmtNum(c.rps!.mean)} ± ` +
      `${fmtNum(c.rps!.ci.halfWidth)}${c.rps!.intervalFrom === 'batch-means' ? ' (n = 1, batch means)' : ''}`
    : `${fmtNum(c.rps!.mean)} (n = 1)`;
const p99Cell = (c: ConfigurationSummary): string => p99Short(c);
/** A stored time as the CLI shows it: this machine's local time with its offset from UTC. */
const timeText = (iso: string | null): string => (iso ? fmtLocalTime(iso) : '—');

function verdictText(v: Verdict, others: number): string {
  switch (v) {
    case 'clear':
      return 'clear (Welch’s t-test, Holm-corrected)';
    case 'not-distinguishable':
      return `not distinguishable from ${others} other${others === 1 ? '' : 's'}`;
    case 'single-sample':
      return 'no interval: means only';
    case 'bottlenecked':
      return 'not confident: the load generator or the host set the pace';
    case 'only-one':
      return 'only configuration';
  }
}

/** A winner in one cell: who, the value with its interval, and how sure. */
const pickCell = (who_: string, value: string, verdict: string): string =>
  td(`${esc(who_)}<br><span class="value">${value}</span><br><span class="muted">${esc(verdict)}</span>`);

/** The headline first, with its state as a badge: confident, equivalent or undecided. */
function headlineHtml(rec: Recommendation): string {
  const h = rec.headline;
  if (!h) return '';
  return (
    `<p class="headline" data-state="${h.state}"><span class="state ` +
    `state-${h.state}">${esc(STATE_WORDS[h.state])}</span> ${esc(h.text)}</p>`
  );
}

function winnersTable(rec: Recommendation): string {
  const multi = new Set(rec.scopes.map((s) => s.context)).size > 1;
  const margin = fmtMargin(rec.marginPct);
  const rows = rec.scopes.map((s) => {
    const b = s.bestRps;
    return `<tr>${[
      td(esc(s.label)),
      ...(multi ? [td(esc(s.context))] : []),
      pickCell(who(b), `${rpsCell(b)} req/s`, verdictText(s.rpsVerdict, s.notDistinguishableRps.length)),
      td(fmtRatio(b.workersPerCpu), true),
      pickCell(
        who(s.knee),
        `${s.lowerBounds.includes(s.knee.key) ? '≥ ' : ''}${fmtNum(s.knee.rps!.mean)} req/s`,
        `${fmtRatio(s.knee.workersPerCpu)} per CPU · ${STATE_WORDS[s.state]}`,
      ),
      pickCell(who(s.lowestP99), p99Cell(s.lowestP99), verdictText(s.p99Verdict, s.notDistinguishableP99.length)),
      td(
        flagsHtml(
          [...new Set([b, s.knee, s.lowestP99])].flatMap((c) =>
            c.flags.map((f) => ({ kind: `${f.kind} (${who(c)})`, title: flagPhrase(f) })),
          ),
        ),
      ),
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
  return `<table class="winners"><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function configurationsTable(rec: Recommendation): string {
  const rows = rec.configurations.map((c) => {
    if (c.n === 0) {
      return (
        `<tr class="excluded">${td(esc(c.label))}${td('0', true)}<td colspan="7">every repetition excluded: ` +
        `${esc([...new Set(c.excluded.map((e) => e.reason))].join('; '))}</td></tr>`
      );
    }
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
      td(
        esc(
          [
            ...(c.noisy ? ['noisy'] : []),
            ...c.notes,
            ...(c.excluded.length ? [`${c.excluded.length} excluded`] : []),
          ].join('; '),
        ),
      ),
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
  return `<table><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const CELL_COLUMNS = 18;

/** The warm-up a cell used: "4 s", or "1 → 4 s" when it went on past the configured one; "—" when not known. */
const warmupText = (c: StoredCell): string => fmtWarmup(c.config.warmupSec, c.load?.warmupUsedSec, Boolean(c.load));

/** The reasons behind a cell's flags and its failure, on a full-width row under it: too long for a column. */
function cellNote(c: StoredCell): string {
  const lines = [
    ...c.flags.map((f) => `<b>${esc(f.kind)}</b>: ${esc(f.reason)}`),
    ...(c.failure ? [`<b>${esc(c.status)}</b>: ${esc(c.failure.split('\n')[0]!)}`] : []),
  ];
  return lines.length
    ? `<tr class="note${c.status === 'ok' ? '' : ' excluded'}"><td ` +
        `colspan="${CELL_COLUMNS}">${lines.join('<br>')}</td></tr>`
    : '';
}

/** Every cell, failed ones included. data-* hold the exact stored values, the same the CSV export writes. */
function cellsTable(cells: StoredCell[]): string {
  const rows = cells.map((c) => {
    const k = c.config;
    const load =
      k.load.model === 'closed'
        ? `${k.load.connections} conn`
        : `${fmtNum(k.load.rate)} req/s, ${k.load.connections} conn`;
    const [failed] = failedAndAttempts(c);
    const data = `data-cell-index="${k.index}"${c.rpsMean === null ? '' : ` data-rps="${c.rpsMean}"`}${c.p99Us === null ? '' : ` data-p99-us="${c.p99Us}"`}`;
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
      td(warmupText(c), true),
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
  return `<table class="cells"><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/**
 * Two charts per workload and load: req/s and p99 against workers, one line per CPU / memory pair (and mode, when
 * several).
 */
function summaryCharts(rec: Recommendation): string {
  const groups = groupBy(
    rec.configurations.filter((x) => x.n > 0),
    (c) => `${workloadKey(c)} ${loadLabel(c.load)}`,
  );
  const many = groups.size > 1;
  return [...groups.values()]
    .map((cs) => {
      const f = cs[0]!;
      const context = `${workloadLabel(f.app, f.requestSet)}, ${loadLabel(f.load)}`;
      const modes = new Set(cs.map((c) => c.mode)).size > 1;
      const lines = groupBy(cs, (c) => `${pairLabel(c.cpuMillis, c.memoryMb)}${modes ? ` ${c.mode}` : ''}`);
      const series = (y: (c: ConfigurationSummary) => { y: number; low?: number; high?: number }): ChartSeries[] =>
        [...lines].map(([name, xs]) => ({ name, points: xs.map((c) => ({ x: c.workers, ...y(c) })) }));
      const maxP99 = Math.max(...cs.map((c) => c.p99Us!.ci?.high ?? c.p99Us!.mean));
      const [scale, unit] = maxP99 >= 1000 ? [1000, 'ms'] : [1, 'µs'];
      const rps = lineChart({
        title: `Throughput by workers${many ? ` — ${context}` : ''}`,
        xLabel: 'workers (processes serving requests)',
        yLabel: 'req/s (mean, 95 % CI)',
        series: series((c) => ({ y: c.rps!.mean, ...(c.rps!.ci ? { low: c.rps!.ci.low, high: c.rps!.ci.high } : {}) })),
      });
      const p99 = lineChart({
        title: `p99 latency by workers${many ? ` — ${context}` : ''}`,
        xLabel: 'workers (processes serving requests)',
        yLabel: `p99 latency (${unit}, mean, 95 % CI)`,
        series: series((c) => ({
          y: c.p99Us!.mean / scale,
          ...(c.p99Us!.ci ? { low: c.p99Us!.ci.low / scale, high: c.p99Us!.ci.high / scale } : {}),
        })),
      });
      return (
        `${many ? `<h3>${esc(context)}</h3>` : ''}<div ` +
        `class="charts"><figure>${rps}</figure><figure>${p99}</figure></div>`
      );
    })
    .join('');
}

/**
 * Req/s of every second of the best configuration's repetitions: shows drift, warm-up left-overs and
 * noise. Measurement starts at 0 for every repetition; the warm-up seconds (where stored) come
 * before it, each repetition's as long as it took, and a line marks where warm-up ended.
 */
function stabilityCharts(run: RunDetail, samples: Map<number, Sample[]>, scopes: ScopeDecision[]): string {
  const charts = scopes.slice(0, MAX_STABILITY_CHARTS).flatMap((s) => {
    let warmups = 0;
    const series = s.bestRps.cellIndexes.flatMap((idx) => {
      const cell = run.cells.find((c) => c.config.index === idx);
      const ss = cell ? samples.get(cell.id) : undefined;
      if (!ss?.length) return [];
      const warm = cell!.load?.warmupPerSecondRps ?? [];
      if (warm.length) warmups++;
      const name =
        'repetition ' +
        `${cell!.config.repetition + 1}${cell!.load?.warmupUsedSec !== undefined ? ` (warm-up ${cell!.load.warmupUsedSec} s)` : ''}`;
      return [
        {
          name,
          points: [...warm.map((y, i) => ({ x: i - warm.length, y })), ...ss.map((p) => ({ x: p.t, y: p.rps }))],
        },
      ];
    });
    if (series.length === 0) return [];
    const title = `Req/s each second — ${s.bestRps.label}`;
    const chart = warmups
      ? lineChart({
          title,
          xLabel: 'seconds from the start of measurement (warm-up before 0)',
          yLabel: 'req/s',
          series,
          xScale: 'linear',
          markers: [{ x: -0.5, label: 'warm-up ended' }],
        })
      : lineChart({
          title,
          xLabel: 'seconds of measurement (warm-up excluded)',
          yLabel: 'req/s',
          series,
          xScale: 'linear',
        });
    return [`<figure>${chart}</figure>`];
  });
  if (charts.length === 0) return '';
  const more =
    scopes.length > MAX_STABILITY_CHARTS
      ? `<p class="muted">First ${MAX_STABILITY_CHARTS} of ${scopes.length} CPU / memory pairs.</p>`
      : '';
  return (
    '<section id="stability"><h2>Stability of the best configurations</h2><div ' +
    `class="charts">${charts.join('')}</div>${more}</section>`
  );
}

function hostTable(run: RunDetail): string {
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

/** How the warm-up adapts, with this run's cap. */
function adaptiveText(warmupSec: number | undefined): string {
  if (warmupSec === 0) return 'A warm-up of 0 s is taken as asked: measurement starts at once.';
  const cap =
    warmupSec === undefined
      ? 'three times the configured warm-up and at least 10 s more'
      : `${warmupCapSec(warmupSec)} s (three times the configured warm-up and at least 10 s more)`;
  return (
    `The configured warm-up is a minimum: it goes on until the last ${WARM_WINDOW_SEC} seconds of throughput ` +
    `span no more than ${Math.round(WARM_SPREAD * 100)} % of their mean (no ramp, no step), for at most ${cap}.`
  );
}

function methodSection(run: RunDetail, rec: Recommendation): string {
  const first = run.cells[0]?.config;
  const placement = (run.matrix as { placement?: unknown } | null)?.placement === 'off' ? 'off' : 'auto';
  const timing = first
    ? ` In this run each cell measured ${first.durationSec} s after a ${first.warmupSec} s warm-up that is ` +
      'excluded from every number.'
    : '';
  const items = [
    '<b>Containers and caps.</b> Each cell runs in a fresh Docker container. The CPU cap is Docker’s ' +
      '<code>NanoCpus</code> (1000 millicores = one core of CFS quota); memory is capped with swap disabled ' +
      '(<code>MemorySwap = Memory</code>). Worker counts are passed explicitly, because inside a capped ' +
      'container <code>os.cpus()</code> still reports every host core.',
    '<b>Placement.</b> With cores to spare, the container is pinned to its own cores and the load generator ' +
      'to another, so they do not compete; when the host cannot keep them apart, the run says so and results ' +
      `are pessimistic. This run: placement <code>${placement}</code>.`,
    '<b>Addressing.</b> On Linux the load goes straight to the container’s bridge IP: a published port goes ' +
      'through docker-proxy, which halved hello-world throughput in our measurements. Docker Desktop and ' +
      'remote engines fall back to a published port.',
    '<b>Latency.</b> autocannon’s HTTP clients run in a worker thread; Rightsize records latency in its own ' +
      'HDR histogram with microsecond resolution. Closed loop (N connections, each sending as soon as the ' +
      'previous answer arrives) measures from the actual send and finds peak throughput. Constant rate paces ' +
      'each connection to its own schedule and measures from the <em>intended</em> send time, so a stalled ' +
      'server shows up as latency instead of a silently lower rate (coordinated omission).',
    '<b>Warm-up.</b> The first seconds of each cell warm the JIT and the connections and are not ' +
      `measured.${timing} ${adaptiveText(first?.warmupSec)} The warm-up each cell used is in the cells table ` +
      'and the CSV (<code>warmup_used_s</code>).',
    '<b>Steady state.</b> The measured seconds of every cell are tested for a drift (least-squares trend, ' +
      't-test) and a level shift (the strongest stretch of seconds against the rest, Bonferroni-corrected over ' +
      `every cut), each at p &lt; ${UNSTABLE_ALPHA}. A cell whose throughput moved by ` +
      `${Math.round(UNSTABLE_CHANGE * 100)} % or more that way is flagged <code>unstable</code>, with what ` +
      'moved and by how much: its mean does not describe one steady state.',
    '<b>Host contention.</b> On Linux, CPU time on the cores the target and the load ran on is read from ' +
      '<code>/proc/stat</code> every second; the target’s own (its container’s accounting) and Rightsize’s ' +
      '(its threads on those cores) are subtracted. What remains — other processes, a browser drawing the UI, ' +
      `hypervisor steal — flags a cell <code>host-busy</code> when it exceeds ${HOST_BUSY_PCT} % of those ` +
      `cores over the measurement, or ${2 * HOST_BUSY_PCT} % in two seconds or more. Daemons (dockerd, ` +
      'containerd) take 1–3 % during a normal cell.',
    '<b>Flags.</b> <code>unstable</code> and <code>host-busy</code> as above. <code>client-bound</code>: a ' +
      'load thread was busy ≥ 90 % of the time — the load generator, not the server, may have set the pace. A ' +
      'constant-rate cell that got less than 95 % of its rate is put on the side that was the bottleneck: the ' +
      'server when every connection was waiting on it, the client when a load thread was saturated. ' +
      '<code>oom-killed</code> (from Docker’s OOM events, so a killed worker is caught even when its primary ' +
      'survives), <code>errors</code>, <code>throttled</code> (CPU quota throttling more than 5 % of the ' +
      'time), <code>restarts</code> (workers replaced or recycled).',
    // The analysis states its own method, so the report and the answer can never disagree on it.
    `<b>The answer.</b> ${esc(rec.method.replace(/^How this was decided: /, ''))} Cells that failed, were ` +
      `OOM-killed, cancelled or interrupted are left out and listed; cancelled cells' partial seconds are ` +
      'never a result.',
    '<b>Limits.</b> One machine runs both the target and the load generator: on a small host the ' +
      'generator’s ceiling caps what can be measured (the <code>client-bound</code> flag says when). A single ' +
      'repetition is one sample; use repetitions and a shuffled order before trusting a difference of a few ' +
      'percent. Results describe this host’s CPU, kernel and Docker, not the production machine. cgroup v1 and ' +
      'v2 report memory slightly differently. Loopback networking hides what a real network adds.',
  ];
  return (
    '<section id="method"><h2>How this was measured, and its limits</h2><ul ' +
    `class="method">${items.map((i) => `<li>${i}</li>`).join('')}</ul></section>`
  );
}

const OUTCOME_WORDS: Record<Sizing['memory']['caps'][number]['outcome'], string> = {
  ok: 'clean',
  oom: 'OOM-killed',
  restarts: 'restarts',
  errors: 'errors',
  'gc-pressure': 'GC pressure',
  latency: 'latency penalty',
  'no-result': 'no result',
};
const PEAK_SOURCE_SHORT: Record<NonNullable<Sizing['memory']['peakSource']>, string> = {
  cgroup: 'cgroup peak',
  samples: 'highest reading',
  legacy: 'highest reading (older run)',
  mixed: 'cgroup peak / readings',
};
const cpuText = (millis: number): string =>
  `${fmtNum(millis / 1000, millis % 1000 === 0 ? 0 : millis % 100 === 0 ? 1 : 2)} CPU`;

/**
 * The memory and CPU sizing of the recommended configurations and every knee: peak, per worker, limit, the caps'
 * evidence, the CPU request and throttling.
 */
function sizingSection(rec: Recommendation): string {
  const shown = (rec.sizing ?? []).filter((x) => x.roles.length > 0);
  if (shown.length === 0) return '';
  const rows = shown.map((x) => {
    const m = x.memory;
    const u = x.cpu;
    const caps = m.caps
      .map(
        (c) =>
          `<span class="nowrap" title="${esc(c.detail)}">${c.memoryMb} MB: ${esc(OUTCOME_WORDS[c.outcome])}</span>`,
      )
      .join('<br>');
    // Each CPU cap in a few words; what it missed by is in the title (and in the answer's words).
    const verdict = (c: (typeof u.caps)[number]): string =>
      u.basis === 'slo' ? (c.meetsSlo ? 'meets' : 'misses') : c.holdsThroughput ? 'holds' : 'below';
    const cpuCaps =
      u.caps.length > 1
        ? '<br><span ' +
          `class="muted">${u.caps.map((c) => `<span class="nowrap"${c.miss ? ` title="${esc(c.miss)}"` : ''}>${esc(cpuText(c.cpuMillis))}: ${fmtNum(c.rps)} req/s, ${verdict(c)}</span>`).join('<br>')}</span>`
        : '';
    const ms = u.throttledMsPerSec;
    const thr =
      ms === null
        ? '—'
        : `${fmtNum(ms, ms < 10 ? 1 : 0)} ` +
          `ms/s${u.throttledShare === null ? '' : ` (${fmtPct(u.throttledShare * 100)} of periods)`}<br><span ` +
          `class="muted">${fmtPct(u.cpuPctOfCap!)} of the cap used</span>`;
    return `<tr data-key="${esc(x.key)}"${m.limitMb === null ? '' : ` data-limit-mb="${m.limitMb}"`}>${[
      td(`${esc(x.label)}<br><span class="muted">${esc(x.roles.join('; '))}</span>`),
      td(
        m.peakBytes === null
          ? '—'
          : `${fmtMb(m.peakBytes)}<br><span class="muted" ` +
              `title="${esc(PEAK_SOURCE_WORDS[m.peakSource!])}">${esc(PEAK_SOURCE_SHORT[m.peakSource!])}</span>`,
        true,
      ),
      td(esc(m.perWorker ? perWorkerText(x).replace(/ \(.*$/, '') : '—'), true),
      td(esc(limitText(x))),
      td(
        `${caps}${m.failedAtMb !== null && (m.failedOutcome === 'oom' || m.failedOutcome === 'restarts') ? `<br><b>${m.failedAtMb} MB is clearly too small</b>` : ''}`,
      ),
      td(
        `${u.requestMillis === null ? (u.caps.length > 1 ? 'none tried' : '—') : esc(cpuText(u.requestMillis))}${cpuCaps}`,
      ),
      td(thr, true),
    ].join('')}</tr>`;
  });
  const head = [
    th('configuration'),
    th('peak memory', true),
    th('per worker', true),
    th('recommended limit'),
    th('memory caps in the matrix'),
    th(rec.slo ? 'CPU that meets the objective' : 'CPU that holds the throughput'),
    th('throttling at its cap', true),
  ];
  return (
    '<section id="sizing"><h2>Memory and CPU</h2><table ' +
    `class="sizing"><thead><tr>${head.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table><p ` +
    `class="muted">${esc(sizingMethodText(rec.marginPct))}</p></section>`
  );
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
  const runId = run.id;
  // With the run's stored verification: each snippet says what was verified, or that it was not.
  const input = recommendedDeployOf(run, rec);
  if (!input) {
    return rec.search
      ? `<section id="deploy"><h2>Deploy it</h2><p data-nothing-to-deploy>${esc(nothingToDeploy(rec))}</p></section>`
      : '';
  }
  const blocks = SNIPPET_KINDS.map(
    (k) =>
      `<h3>${esc(SNIPPET_TITLES[k])}</h3><pre class="snippet" data-kind="${k}">${esc(deploySnippet(k, input))}</pre>`,
  );
  return (
    `<section id="deploy"><h2>Deploy it</h2><p>The recommended configuration — ${esc(input.provenance.pick)} ` +
    `— ready to paste. The same text comes from <code>rightsize report ${runId} --emit ` +
    `pm2|kubernetes|compose</code>.</p>${blocks.join('')}</section>`
  );
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
  const found = s.found ? `<p>Found: <b>${esc(searchConfigLabel(s.found))}</b>.</p>` : '';
  return (
    `<section id="search" data-status="${esc(s.status)}"><h2>The search</h2><p>Objective: ${esc(s.objective)} ` +
    `(constant rate, ${fmtNum(s.rate)} req/s). Status: <b>${esc(s.status)}</b>; ${s.cells} cells instead of ` +
    `the ${fmtNum(s.gridCells)} of a full grid over the same bounds.</p>${found}<table ` +
    `class="steps"><thead><tr>${[th('step', true), th('cell', true), th('configuration'), th('why'), th('outcome'), th('what was measured')].join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></section>`
  );
}

export function htmlReport(run: RunDetail, samples: Map<number, Sample[]>, rec: Recommendation): string {
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
  const slo = rec.search
    ? `<p>Objective of the auto-size search: ${esc(rec.search.objective)}.</p>`
    : rec.slo
      ? `<p>Service-level objective: ${esc(describeSlo(rec.slo))}.</p>`
      : '';
  const sections = [
    `<header><h1>${esc(title)}</h1><p ` +
      `class="meta">${meta}</p>${run.error ? `<p class="meta">Error: ${esc(run.error)}</p>` : ''}</header>`,
    `<section id="answer"><h2>The answer</h2>${slo}${headlineHtml(rec)}<ul ` +
      `class="answer">${rec.words.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>`,
    searchSection(run, rec),
    // An auto-size run's answer is its search's: a knee table over the cells it ran would contradict it.
    rec.scopes.length && !rec.search
      ? `<section id="winners"><h2>Winners per CPU / memory pair</h2>${winnersTable(rec)}<p class="muted">± ` +
        'is the half-width of the 95 % confidence interval of the mean goodput: over repetitions (Student’s ' +
        't), or for a single repetition from batch means of its own seconds (weaker: it cannot see run-to-run ' +
        'variation).</p></section>'
      : '',
    sizingSection(rec),
    deploySection(rec, run),
    rec.scopes.length
      ? `<section id="charts"><h2>Throughput and p99 by worker count</h2>${summaryCharts(rec)}</section>`
      : '',
    stabilityCharts(run, samples, rec.scopes),
    rec.configurations.length
      ? '<section id="configurations"><h2>Configurations (repetitions ' +
        `aggregated)</h2>${configurationsTable(rec)}</section>`
      : '',
    `<section id="cells"><h2>Cells</h2>${run.cells.length ? cellsTable(run.cells) : '<p>No cells.</p>'}</section>`,
    userApps(run.apps),
    `<section id="matrix"><h2>Matrix</h2><pre>${esc(JSON.stringify(run.matrix, null, 2) ?? 'null')}</pre></section>`,
    `<section id="host"><h2>Host</h2>${hostTable(run)}</section>`,
    methodSection(run, rec),
    `<footer><p class="muted">Rightsize ${esc(run.host.rightsizeVersion)} · numbers per cell match ` +
      `<code>rightsize export ${run.id} --csv</code>.</p></footer>`,
  ];
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    'content="width=device-width, ' +
    `initial-scale=1"><title>${esc(title)}</title><style>${CSS}</style></head><body><main>${sections.join('\n')}</main></body></html>\n`
  );
}

/** The user's own apps as the run used them (its stored copy): what was built or started, and what it was sent. */
function userApps(apps: unknown[]): string {
  const lines = appLines(apps);
  return lines.length
    ? '<section id="apps"><h2>Your apps, as ' +
        `run</h2><ul>${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul></section>`
    : '';
}
