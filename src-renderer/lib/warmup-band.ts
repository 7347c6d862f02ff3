// A shaded band over a line chart's first seconds: warm-up, drawn but not measured. Registered once
// for every chart and idle unless a chart's options carry `plugins.warmupBand.until` (in x units),
// because the Chart component rebuilds from options and data only.
import { Chart, type ChartConfiguration, type Plugin } from 'chart.js';
import type { XY } from './charts.ts';

export interface WarmupBand {
  /** The band spans x from its start to this value (the last warm-up second + 0.5). */
  until: number;
}

/** The band a chart's options carry, if any. */
export const bandOf = (options: { plugins?: unknown } | undefined): WarmupBand | undefined =>
  (options?.plugins as Record<string, unknown> | undefined)?.['warmupBand'] as WarmupBand | undefined;

const plugin: Plugin = {
  id: 'warmupBand',
  beforeDatasetsDraw(chart) {
    const band = bandOf(chart.options);
    const x = chart.scales['x'];
    if (!band || !(band.until > 0) || !x) return;
    const { top, bottom, left, right } = chart.chartArea;
    const end = Math.min(right, Math.max(left, x.getPixelForValue(band.until)));
    const ctx = chart.ctx;
    ctx.save();
    ctx.fillStyle = 'rgba(150, 150, 160, 0.18)';
    ctx.fillRect(left, top, end - left, bottom - top);
    ctx.fillStyle = 'rgba(110, 110, 120, 0.9)';
    ctx.font = '11px system-ui, sans-serif';
    if (end - left > 50) ctx.fillText('warm-up', left + 4, top + 12);
    ctx.restore();
  },
};
Chart.register(plugin);

/** The band for `seconds` warm-up seconds drawn at x = 1…seconds; null when there were none. */
export const warmupBand = (seconds: number): WarmupBand | null => (seconds > 0 ? { until: seconds + 0.5 } : null);

/** The config with the band (or without, as it came). */
export function withBand(
  config: ChartConfiguration<'line', XY[]>,
  band: WarmupBand | null,
): ChartConfiguration<'line', XY[]> {
  if (!band) return config;
  const plugins = { ...(config.options?.plugins ?? {}), warmupBand: band } as NonNullable<
    NonNullable<typeof config.options>['plugins']
  >;
  return { ...config, options: { ...config.options, plugins } };
}
