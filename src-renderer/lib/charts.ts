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

/** The per-second datasets of one cell (x = second, from 1), with fixed labels and colours; views pick and title them. */
export function sampleSets(samples: Sample[]): { p50: LineSet; p99: LineSet; max: LineSet; rps: LineSet; cpu: LineSet; memory: LineSet } {
  const points = (f: (s: Sample) => number | null): XY[] => samples.map((s) => ({ x: s.t + 1, y: f(s) }));
  return {
    p50: lineSet('p50', points((s) => s.p50Us / 1000), 0),
    p99: lineSet('p99', points((s) => s.p99Us / 1000), 1),
    max: lineSet('max', points((s) => s.maxUs / 1000), 3),
    rps: lineSet('req/s', points((s) => s.rps), 0),
    cpu: lineSet('CPU % of cap', points((s) => s.cpuPct), 2),
    memory: lineSet('memory', points((s) => (s.memBytes === null ? null : s.memBytes / 2 ** 20)), 4),
  };
}

/** A line chart with a title, a legend and both axes labelled with units: readable on its own, also as a PNG. */
export function lineConfig(title: string, xTitle: string, yTitle: string, datasets: LineSet[], opts: { yMin?: number } = {}): ChartConfiguration<'line', XY[]> {
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
      plugins: { title: { display: true, text: title }, legend: { display: true, position: 'bottom' } },
      scales: {
        // Seconds and worker counts are whole numbers: no "1.10 s" ticks.
        x: { type: 'linear', title: { display: true, text: xTitle }, ticks: { precision: 0 } },
        y: { type: 'linear', title: { display: true, text: yTitle }, ...(opts.yMin !== undefined ? { min: opts.yMin } : {}) },
      },
    },
  };
}

type LineOptions = NonNullable<ChartConfiguration<'line', XY[]>['options']>;

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

export { Chart };
