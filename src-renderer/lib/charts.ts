import { Chart, registerables, type ChartConfiguration, type ChartDataset } from 'chart.js';
import type { Sample } from '../../src-main/contract/api.ts';

Chart.register(...registerables);

/** Distinct, colour-blind-friendly series colours (Okabe–Ito). */
const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];
const colour = (i: number): string => PALETTE[i % PALETTE.length]!;

export type XY = { x: number; y: number | null };
export type LineSet = ChartDataset<'line', XY[]>;

export function lineSet(label: string, data: XY[], i: number, extra: Partial<LineSet> = {}): LineSet {
  return { label, data, borderColor: colour(i), backgroundColor: colour(i), pointRadius: 2, borderWidth: 2, tension: 0, spanGaps: true, ...extra };
}

/** The per-second datasets of one cell (x = second, from 1, after `offset` warm-up seconds), with fixed labels and colours; views pick and title them. */
export function sampleSets(samples: Sample[], offset = 0): { p50: LineSet; p99: LineSet; max: LineSet; rps: LineSet; cpu: LineSet; memory: LineSet; throttled: LineSet } {
  const points = (f: (s: Sample) => number | null): XY[] => samples.map((s) => ({ x: offset + s.t + 1, y: f(s) }));
  return {
    p50: lineSet('p50', points((s) => s.p50Us / 1000), 0),
    p99: lineSet('p99', points((s) => s.p99Us / 1000), 1),
    max: lineSet('max', points((s) => s.maxUs / 1000), 3),
    rps: lineSet('req/s', points((s) => s.rps), 0),
    cpu: lineSet('CPU % of cap', points((s) => s.cpuPct), 2),
    memory: lineSet('memory', points((s) => (s.memBytes === null ? null : s.memBytes / 2 ** 20)), 4),
    // CFS periods in which the cap stopped the container: beside CPU, on an axis of its own (a count, not a %).
    throttled: lineSet('throttled periods', points((s) => s.throttledPeriods), 3, { yAxisID: 'y2', borderDash: [4, 3] }),
  };
}

/** A dependency's readings beside a cell's samples (model DependencyReading: one entry per sample, null where none). */
interface DependencySeries {
  name: string;
  measured?: ({ cpuPct: number } | null)[];
}

/**
 * One cell's throughput and CPU per second: req/s on the left axis, CPU % of the cap on its own
 * right axis (on one axis the CPU line lay flat at zero under thousands of req/s). The warm-up
 * seconds, when the stored result has them, come first in grey, and a dashed line marks where
 * measuring began.
 */
export function cellThroughputConfig(title: string, samples: Sample[], warmupRps: number[] = [], dependencies: readonly DependencySeries[] = []): ChartConfiguration<'line', XY[]> {
  const w = warmupRps.length;
  const rps = lineSet('req/s', samples.map((s) => ({ x: w + s.t + 1, y: s.rps })), 0, { yAxisID: 'y' });
  const cpu = lineSet('CPU % of cap', samples.map((s) => ({ x: w + s.t + 1, y: s.cpuPct })), 2, { yAxisID: 'y2' });
  const sets: LineSet[] = [rps, cpu];
  // Each dependency's CPU beside the app's, on the same axis (each against its own cap): who was at its limit.
  dependencies.forEach((d, k) => {
    const points = samples.flatMap((s, i) => (d.measured?.[i] ? [{ x: w + s.t + 1, y: d.measured[i]!.cpuPct }] : []));
    if (points.length) sets.push(lineSet(`${d.name} CPU % of its cap`, points, 4 + k, { yAxisID: 'y2', borderDash: [2, 2] }));
  });
  // Throttling beside CPU, where the cap held the container back in some second (a third axis: a count of periods).
  const throttled = samples.some((s) => (s.throttledPeriods ?? 0) > 0);
  if (throttled) sets.push(lineSet('throttled periods', samples.map((s) => ({ x: w + s.t + 1, y: s.throttledPeriods })), 3, { yAxisID: 'y3', borderDash: [4, 3] }));
  if (w > 0) {
    sets.push(lineSet('req/s during warm-up', warmupRps.map((y, i) => ({ x: i + 1, y })), 7, { yAxisID: 'y', borderColor: '#9a9aa3', backgroundColor: '#9a9aa3', borderDash: [3, 3] }));
    const top = Math.max(1, ...warmupRps, ...samples.map((s) => s.rps));
    sets.push(lineSet('warm-up ended', [{ x: w + 0.5, y: 0 }, { x: w + 0.5, y: top }], 3, { yAxisID: 'y', pointRadius: 0, borderWidth: 1.5, borderDash: [6, 4] }));
  }
  const config = lineConfig(title, w > 0 ? 'time (s, from the end of start-up)' : 'time (s)', 'requests per second', sets, { yMin: 0, xMin: 0, y2: { title: 'CPU (% of its cap)', min: 0 } });
  if (throttled) config.options!.scales!['y3'] = { type: 'linear', position: 'right', min: 0, title: { display: true, text: 'throttled CFS periods' }, grid: { drawOnChartArea: false }, ticks: { precision: 0 } };
  return config;
}

/** A line chart with a title, a legend and both axes labelled with units: readable on its own, also as a PNG. */
export function lineConfig(title: string, xTitle: string, yTitle: string, datasets: LineSet[], opts: { yMin?: number; xMin?: number; y2?: { title: string; min?: number } } = {}): ChartConfiguration<'line', XY[]> {
  return {
    type: 'line',
    data: { datasets },
    options: {
      animation: false, // live charts update every second; animation would lag and cost CPU
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      normalized: true,
      interaction: { mode: 'nearest', intersect: false },
      // A line swatch keeps a dashed series dashed in the legend (a dashed box border read as a zigzag).
      plugins: { title: { display: true, text: title }, legend: { display: true, position: 'bottom', labels: { usePointStyle: true, pointStyle: 'line', pointStyleWidth: 32 } } },
      scales: {
        // Seconds and worker counts are whole numbers: no "1.10 s" ticks.
        x: { type: 'linear', title: { display: true, text: xTitle }, ticks: { precision: 0 }, ...(opts.xMin !== undefined ? { min: opts.xMin } : {}) },
        y: { type: 'linear', title: { display: true, text: yTitle }, ...(opts.yMin !== undefined ? { min: opts.yMin } : {}) },
        ...(opts.y2
          ? { y2: { type: 'linear' as const, position: 'right' as const, title: { display: true, text: opts.y2.title }, grid: { drawOnChartArea: false }, ...(opts.y2.min !== undefined ? { min: opts.y2.min } : {}) } }
          : {}),
      },
    },
  };
}

export type LineOptions = NonNullable<ChartConfiguration<'line', XY[]>['options']>;

/**
 * Our plain options with text and grid colours for a theme. Works on the options we built, never
 * on chart.options (Chart.js wraps that in resolver proxies that do not survive copying).
 */
export function themed(options: LineOptions, dark: boolean): LineOptions {
  const text = dark ? '#e7e8ec' : '#1c1d21';
  const grid = dark ? 'rgba(255,255,255,0.12)' : 'rgba(0,0,0,0.1)';
  const scales = Object.fromEntries(
    Object.entries(options.scales ?? {}).map(([k, sc]) => [k, { ...sc, ticks: { ...sc?.ticks, color: text }, title: { ...(sc as { title?: object })?.title, color: text }, grid: { ...sc?.grid, color: grid } }]),
  );
  return { ...options, color: text, plugins: { ...options.plugins, title: { ...options.plugins?.title, color: text } }, scales } as LineOptions;
}

/** The chart as a PNG (base64, no prefix): light colours on an opaque white background, whatever the theme. */
export function chartPng(chart: Chart<'line', XY[]>, options: LineOptions, dark: boolean): string {
  const src = chart.canvas;
  chart.options = themed(options, false);
  chart.update('none');
  const out = document.createElement('canvas');
  out.width = src.width;
  out.height = src.height;
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, out.width, out.height);
  ctx.drawImage(src, 0, 0);
  chart.options = themed(options, dark);
  chart.update('none');
  return out.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
}

/**
 * Several charts side by side as one PNG (base64, no prefix): each drawn light on an opaque white
 * background, whatever the theme, then put back as it was. `options` are the plain options each was built from.
 */
export function chartsPng(charts: { chart: Chart<'line', XY[]>; options: LineOptions }[], dark: boolean): string {
  for (const c of charts) {
    c.chart.options = themed(c.options, false);
    c.chart.update('none');
  }
  const gap = 16;
  const out = document.createElement('canvas');
  out.width = charts.reduce((w, c) => w + c.chart.canvas.width, 0) + gap * Math.max(0, charts.length - 1);
  out.height = Math.max(1, ...charts.map((c) => c.chart.canvas.height));
  const ctx = out.getContext('2d')!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, out.width, out.height);
  let x = 0;
  for (const c of charts) {
    ctx.drawImage(c.chart.canvas, x, 0);
    x += c.chart.canvas.width + gap;
    c.chart.options = themed(c.options, dark);
    c.chart.update('none');
  }
  return out.toDataURL('image/png').replace(/^data:image\/png;base64,/, '');
}

export { Chart };
