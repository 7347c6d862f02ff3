// The answer's chart in Chart.js: one panel (goodput or p99) of one CPU / memory pair, from the
// analysis's own chart data (src-main/analysis/explain/answer-chart.ts, sent in the answer's view).
// Chart.js draws the points; a small plugin draws what it has no element for: the 95 % error bars,
// the "≥" lower-bound arrows, the labels of the pick and the knee, and the band grouping the
// contenders still in the running.
import type { ChartConfiguration, Plugin } from 'chart.js';
import type { AnswerChartPanel, AnswerChartPoint, ChartEstimate } from '../../src-main/contract/api.ts';
import { fmtNum } from '../../src-main/contract/present.ts';
import { lineSet, type LineSet, type XY } from './charts.ts';

export type AnswerMetric = 'rps' | 'p99';

/** Okabe–Ito, as the other charts; one colour per launch mode. */
const MODE_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7'];
const BAND = 'rgba(230,159,0,0.16)';
const BAND_EDGE = 'rgba(230,159,0,0.9)';

const faint = (hex: string): string => `${hex}59`; // ~35 % opacity

interface Mark {
  x: number;
  est: ChartEstimate;
  colour: string;
  point: AnswerChartPoint;
}

const valueOf = (p: AnswerChartPoint, m: AnswerMetric): ChartEstimate | null => (m === 'rps' ? p.rps : p.p99Ms);

/** Where a point sits on x: its worker count's slot, shifted a little per launch mode so modes do not overlap. */
function xOf(panel: AnswerChartPanel, modeIndex: number, workers: number): number {
  const spread = 0.14;
  return panel.workers.indexOf(workers) + (modeIndex - (panel.series.length - 1) / 2) * spread;
}

/** A legend-only entry (no data): its swatch explains a mark the plugin draws. */
const legendOnly = (label: string, extra: Partial<LineSet>): LineSet =>
  lineSet(label, [], 0, { showLine: false, pointRadius: 6, ...extra });

/** The marks drawn over Chart.js's points: error bars, lower-bound arrows, labels, the contenders' band. */
function answerMarks(marks: Mark[], metric: AnswerMetric, group: Set<string>, groupWords: string): Plugin<'line'> {
  return {
    id: 'answerMarks',
    beforeDatasetsDraw(chart) {
      const members = marks.filter((m) => group.has(m.point.key));
      if (members.length < 2) return;
      const { x, y } = chart.scales as unknown as Record<'x' | 'y', { getPixelForValue(v: number): number }>;
      const xs = members.map((m) => x.getPixelForValue(m.x));
      const ys = members.flatMap((m) => [y.getPixelForValue(m.est.high ?? m.est.mean), y.getPixelForValue(m.est.low ?? m.est.mean)]);
      // Kept inside the plot: a wide interval would carry the band (and its words) over the axis and legend.
      const area = chart.chartArea;
      const left = Math.max(area.left, Math.min(...xs) - 16);
      const right = Math.min(area.right, Math.max(...xs) + 16);
      const top = Math.max(area.top, Math.min(...ys) - 10);
      const bottom = Math.min(area.bottom, Math.max(...ys) + 10);
      const ctx = chart.ctx;
      ctx.save();
      ctx.fillStyle = BAND;
      ctx.strokeStyle = BAND_EDGE;
      ctx.setLineDash([4, 3]);
      ctx.fillRect(left, top, right - left, bottom - top);
      ctx.strokeRect(left, top, right - left, bottom - top);
      ctx.setLineDash([]);
      ctx.fillStyle = String(chart.options.color ?? '#1c1d21');
      ctx.font = '11px system-ui, sans-serif';
      ctx.textAlign = 'left';
      ctx.fillText(groupWords, left + 4, bottom - 5); // inside the band's foot: the pick's label is above it
      ctx.restore();
    },
    afterDatasetsDraw(chart) {
      const { x, y } = chart.scales as unknown as Record<'x' | 'y', { getPixelForValue(v: number): number }>;
      const ctx = chart.ctx;
      ctx.save();
      ctx.font = '600 11px system-ui, sans-serif';
      for (const m of marks) {
        const px = x.getPixelForValue(m.x);
        const py = y.getPixelForValue(m.est.mean);
        ctx.strokeStyle = m.colour;
        ctx.lineWidth = 1.5;
        if (m.est.low !== null && m.est.high !== null) {
          const [lo, hi] = [y.getPixelForValue(Math.max(0, m.est.low)), y.getPixelForValue(m.est.high)];
          ctx.beginPath();
          ctx.moveTo(px, lo);
          ctx.lineTo(px, hi);
          for (const yy of [lo, hi]) {
            ctx.moveTo(px - 5, yy);
            ctx.lineTo(px + 5, yy);
          }
          ctx.stroke();
        }
        let top = y.getPixelForValue(m.est.high ?? m.est.mean) - 6;
        // A lower bound: the server was at least this fast, so an arrow points up from the point, with "≥".
        if (metric === 'rps' && m.point.lowerBound) {
          ctx.fillStyle = m.colour;
          ctx.beginPath();
          ctx.moveTo(px + 9, py);
          ctx.lineTo(px + 9, py - 18);
          ctx.stroke();
          ctx.beginPath();
          ctx.moveTo(px + 4, py - 14);
          ctx.lineTo(px + 9, py - 22);
          ctx.lineTo(px + 14, py - 14);
          ctx.closePath();
          ctx.fill();
          ctx.textAlign = 'right';
          ctx.fillText('≥', px - 12, py + 4);
          top = Math.min(top, py - 26);
        }
        const words = [m.point.pick ? 'pick' : '', m.point.knee && !m.point.pick ? 'knee' : '', m.point.leading ? 'leading' : '']
          .filter(Boolean)
          .join(' · ');
        if (words) {
          ctx.fillStyle = String(chart.options.color ?? '#1c1d21');
          ctx.textAlign = 'center';
          ctx.fillText(words, px, top - 8);
        }
      }
      ctx.restore();
    },
  };
}

/** The title of a panel: the pair, the workload, and what is drawn. */
export function panelTitle(panel: AnswerChartPanel, metric: AnswerMetric): string {
  return `${metric === 'rps' ? 'Goodput' : 'p99 latency'} by workers — ${panel.title}`;
}

/** What the contenders' band says. */
export function groupWords(panel: AnswerChartPanel): string {
  return panel.state === 'equivalent' ? `equivalent: within ${fmtNum(panel.marginPct, 0)} % of the best` : 'undecided between these';
}

/** One panel of one pair as a Chart.js line chart (x = worker slot, labelled with the worker count). */
export function answerPanelConfig(panel: AnswerChartPanel, metric: AnswerMetric): { config: ChartConfiguration<'line', XY[]>; plugin: Plugin<'line'> } {
  const sets: LineSet[] = [];
  const marks: Mark[] = [];
  const excluded: XY[] = [];
  const picks: XY[] = [];
  const knees: XY[] = [];
  const rep = (r: { rps: number | null; p99Ms: number | null }): number | null => (metric === 'rps' ? r.rps : r.p99Ms);
  panel.series.forEach((s, mi) => {
    const colour = MODE_COLOURS[mi % MODE_COLOURS.length]!;
    const estimates: XY[] = [];
    const repetitions: XY[] = [];
    for (const p of s.points) {
      const x = xOf(panel, mi, p.workers);
      const est = valueOf(p, metric);
      if (est) {
        estimates.push({ x, y: est.mean });
        marks.push({ x, est, colour, point: p });
        if (p.pick) picks.push({ x, y: est.mean });
        if (p.knee || p.leading) knees.push({ x, y: est.mean });
      }
      for (const r of p.repetitions) if (rep(r) !== null) repetitions.push({ x: x - 0.05, y: rep(r) });
      for (const r of p.excluded) if (rep(r) !== null) excluded.push({ x: x + 0.05, y: rep(r) });
    }
    sets.push(lineSet(`${s.name}: mean, 95 % interval`, estimates, mi, { borderColor: colour, backgroundColor: colour, pointRadius: 4 }));
    sets.push(lineSet(`${s.name}: each repetition`, repetitions, mi, { showLine: false, borderColor: faint(colour), backgroundColor: faint(colour), pointRadius: 2.5 }));
  });
  if (excluded.length) sets.push(lineSet('excluded repetition', excluded, 0, { showLine: false, pointRadius: 4, borderWidth: 1.5, borderColor: '#8a8a8a', backgroundColor: 'rgba(0,0,0,0)' }));
  if (picks.length) sets.push(lineSet('the pick', picks, 0, { showLine: false, pointRadius: 10, borderWidth: 2.5, borderColor: '#111111', backgroundColor: 'rgba(0,0,0,0)' }));
  const undecided = panel.state === 'undecided';
  if (knees.length) {
    const label = undecided ? 'leading contender (no pick)' : `knee: cheapest within ${fmtNum(panel.marginPct, 0)} % of the best`;
    sets.push(lineSet(label, knees, 0, { showLine: false, pointStyle: 'rectRot', pointRadius: 8, borderWidth: 2, borderColor: '#009E73', backgroundColor: 'rgba(0,0,0,0)' }));
  }
  if (metric === 'rps' && marks.some((m) => m.point.lowerBound)) sets.push(legendOnly('≥ lower bound (client-bound, dependency-bound, network-bound or host-busy)', { pointStyle: 'triangle', borderColor: '#555555', backgroundColor: '#555555' }));
  if (panel.group.length > 1) sets.push(legendOnly(groupWords(panel), { pointStyle: 'rect', borderColor: BAND_EDGE, backgroundColor: BAND }));
  const workers = panel.workers;
  // Chart.js scales to its points only: the error bars' tops and the marks above them need room too.
  const tops = [...marks.map((m) => m.est.high ?? m.est.mean), ...sets.flatMap((d) => d.data.map((p) => p.y ?? 0))];
  const suggestedMax = Math.max(0, ...tops) * 1.12;
  const config: ChartConfiguration<'line', XY[]> = {
    type: 'line',
    data: { datasets: sets },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      parsing: false,
      layout: { padding: { top: 8 } },
      interaction: { mode: 'nearest', intersect: true },
      plugins: {
        title: { display: true, text: panelTitle(panel, metric) },
        legend: { display: true, position: 'bottom', labels: { usePointStyle: true, boxHeight: 8 } },
      },
      scales: {
        x: {
          type: 'linear',
          min: -0.6,
          max: workers.length - 0.4,
          title: { display: true, text: 'workers (processes serving requests)' },
          afterBuildTicks: (axis) => void (axis.ticks = workers.map((_, i) => ({ value: i }))),
          ticks: { callback: (v) => (Number.isInteger(v) ? String(workers[Number(v)] ?? '') : '') },
        },
        y: { type: 'linear', min: 0, suggestedMax, title: { display: true, text: metric === 'rps' ? 'goodput (req/s, mean and 95 % interval)' : 'p99 latency (ms, mean and 95 % interval)' } },
      },
    },
  };
  return { config, plugin: answerMarks(marks, metric, new Set(panel.group), groupWords(panel)) };
}
