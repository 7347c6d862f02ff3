// The HTML report's "Runtime (probe)" section: per configuration, what each serving process did
// while measured (analysis/explain/causes.ts runtimeSummaries, the numbers the cause lines are read from),
// and the event-loop utilization of each worker over time in the configuration's first probed cell.
import { runtimeSummaries, type RuntimeSummary, type WorkerRuntime } from '../analysis/explain/causes.ts';
import { configurationKey } from '../analysis/decide/group.ts';
import { fmtMb, fmtNum, fmtPct } from '../common/format.ts';
import { cellLabel } from '../common/labels.ts';
import { othersNote, probeProcesses } from '../common/probe-series.ts';
import type { ProbeSecond } from '../model/probe.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import type { Sample } from '../model/types.ts';
import { esc, section, table, td, th } from './html-parts.ts';
import { lineChart } from './svg-chart.ts';

/** Configurations shown at most, to keep the file readable (as the stability charts). */
const MAX_CONFIGURATIONS = 12;

const measured = <T extends { warmup?: true }>(xs: readonly T[]): T[] => xs.filter((x) => !x.warmup);

function workerRow(w: WorkerRuntime, i: number, s: RuntimeSummary): string {
  const name =
    s.perWorker.length > 1
      ? `worker ${i + 1}${i === 0 ? ' (busiest)' : ''}`
      : w.role === 'single'
        ? 'process'
        : 'worker';
  const heap = `${fmtMb(w.heapUsedPeakBytes)} of ${fmtMb(w.heapLimitBytes)}`;
  return `<tr data-worker="${i + 1}">${[
    td(esc(name)),
    td(fmtNum(w.elu, 2), true),
    td(`${fmtNum(w.delayP99Ms, 1)} ms`, true),
    td(fmtPct(100 * w.gcShare), true),
    td(heap, true),
    td(fmtMb(w.rssPeakBytes), true),
  ].join('')}</tr>`;
}

/** One line over the whole configuration: its container's CPU, throttling and context switches. */
function containerLine(s: RuntimeSummary): string {
  const parts = [
    `${s.cells} repetition${s.cells === 1 ? '' : 's'} with probe data`,
    ...(s.cpuPct !== null ? [`CPU ${fmtPct(s.cpuPct)} of its cap`] : []),
    ...(s.throttledShare !== null ? [`throttled in ${fmtPct(100 * s.throttledShare)} of CFS periods`] : []),
    ...(s.ctxPerSec !== null
      ? [`${fmtNum(s.ctxPerSec)} context switches/s (${fmtNum(s.involuntaryPerSec)} involuntary)`]
      : []),
  ];
  return `<p class="muted">${esc(parts.join(' · '))}.</p>`;
}

/** ELU of each serving process of one cell, second by second; warm-up seconds before 0. */
function eluChart(cell: StoredCell, seconds: readonly ProbeSecond[]): string {
  const { serving, others } = probeProcesses(seconds, cell.config.mode);
  if (!serving.length) return '';
  const warm = seconds.some((s) => s.warmup);
  const chart = lineChart({
    title: `Event-loop utilization per worker — cell ${cell.config.index + 1}`,
    xLabel: warm ? 'seconds from the start of measurement (warm-up before 0)' : 'seconds of measurement',
    yLabel: 'event-loop utilization (0–1)',
    series: serving.map((p) => ({ name: p.label, points: p.seconds.map((s) => ({ x: s.t, y: s.elu })) })),
    xScale: 'linear',
    ...(warm ? { markers: [{ x: -0.5, label: 'warm-up ended' }] } : {}),
    height: 300,
  });
  const note = othersNote(others);
  return `<figure>${chart}</figure>${note ? `<p class="muted">${esc(note)}</p>` : ''}`;
}

/**
 * Per configuration with probe seconds: its serving processes' mean ELU, event-loop delay p99, GC
 * share, heap peak against the heap limit and RSS peak (measured seconds; repetitions merged by rank,
 * busiest first), and one ELU chart. '' when no cell of the run has probe seconds and none asked for
 * the probe; a note when the probe was on but nothing reported.
 */
export function runtimeSection(
  run: RunDetail,
  samples: Map<number, Sample[]>,
  probe: Map<number, ProbeSecond[]>,
): string {
  const probed = run.cells.filter((c) => c.status === 'ok' && (probe.get(c.id)?.length ?? 0) > 0);
  const summaries = runtimeSummaries(
    probed.map((c) => ({
      config: c.config,
      samples: measured(samples.get(c.id) ?? []),
      probe: measured(probe.get(c.id)!),
      stats: c.stats,
      load: c.load,
      flags: c.flags,
    })),
  );
  if (!summaries.size) {
    if (!run.cells.some((c) => c.config.probe)) return '';
    const none = '<p data-probe-none>The runtime probe was on, but no cell that finished has probe seconds.</p>';
    return section('runtime', 'Runtime (probe)', none);
  }
  const head = ['serving process', 'mean ELU', 'event-loop delay p99', 'GC share', 'heap peak of limit', 'RSS peak'];
  const blocks = [...summaries.values()].slice(0, MAX_CONFIGURATIONS).map((s) => {
    const first = probed.find((c) => c.config.phase !== 'verify' && configurationKey(c.config) === s.key)!;
    const { phase: _phase, ...config } = first.config; // a settling repetition is the same configuration
    const title = cellLabel({ ...config, repetition: 0 });
    return (
      `<div class="runtime" data-configuration="${esc(s.key)}"><h3>${esc(title)}</h3>${containerLine(s)}` +
      `${table(
        head.map((h, i) => th(h, i > 0)),
        s.perWorker.map((w, i) => workerRow(w, i, s)),
        'runtime-workers',
      )}${eluChart(first, probe.get(first.id)!)}</div>`
    );
  });
  const more =
    summaries.size > MAX_CONFIGURATIONS
      ? `<p class="muted">First ${MAX_CONFIGURATIONS} of ${summaries.size} configurations.</p>`
      : '';
  const intro =
    '<p class="muted">Inside each Node.js process, over the measured seconds: event-loop utilization (ELU, ' +
    '1 = never idle), the event loop’s delay p99 (mean of each second’s), the share of time in GC pauses, and ' +
    'the highest heap and RSS. With repetitions, workers are ranked busiest first in each and merged by rank.</p>';
  return section('runtime', 'Runtime (probe)', `${intro}${blocks.join('')}${more}`);
}
