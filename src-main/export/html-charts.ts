// The HTML report's charts: throughput and p99 against workers for each workload and load, and
// each second's throughput of the best configurations (drift, warm-up left-overs, noise).
import { groupBy, loadLabel, workloadKey, workloadLabel } from '../analysis/index.ts';
import { pairLabel } from '../common/resource-labels.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision } from '../analysis/index.ts';
import type { RunDetail } from '../model/stored.ts';
import type { Sample } from '../model/types.ts';
import { esc, section } from './html-parts.ts';
import { lineChart, type ChartSeries } from './svg-chart.ts';

/** Stability charts are drawn for at most this many CPU / memory pairs, to keep the file readable. */
const MAX_STABILITY_CHARTS = 12;
/**
 * Two charts per workload and load: req/s and p99 against workers, one line per CPU / memory pair (and mode, when
 * several).
 */
export function summaryCharts(rec: Recommendation): string {
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
      const heading = many ? `<h3>${esc(context)}</h3>` : '';
      return `${heading}<div class="charts"><figure>${rps}</figure><figure>${p99}</figure></div>`;
    })
    .join('');
}

/**
 * Req/s of every second of the best configuration's repetitions: shows drift, warm-up left-overs and
 * noise. Measurement starts at 0 for every repetition; the warm-up seconds (where stored) come
 * before it, each repetition's as long as it took, and a line marks where warm-up ended.
 */
export function stabilityCharts(run: RunDetail, samples: Map<number, Sample[]>, scopes: ScopeDecision[]): string {
  const charts = scopes.slice(0, MAX_STABILITY_CHARTS).flatMap((s) => {
    let warmups = 0;
    const series = s.bestRps.cellIndexes.flatMap((idx) => {
      const cell = run.cells.find((c) => c.config.index === idx);
      const ss = cell ? samples.get(cell.id) : undefined;
      if (!ss?.length) return [];
      const warm = cell!.load?.warmupPerSecondRps ?? [];
      if (warm.length) warmups++;
      const used = cell!.load?.warmupUsedSec;
      const name = `repetition ${cell!.config.repetition + 1}${used !== undefined ? ` (warm-up ${used} s)` : ''}`;
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
  return section(
    'stability',
    'Stability of the best configurations',
    `<div class="charts">${charts.join('')}</div>${more}`,
  );
}
