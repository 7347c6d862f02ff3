// The answer as a picture in the HTML report: the chart the UI draws with Chart.js, drawn here as
// inline SVG from the same data (analysis/explain/answer-chart.ts): per CPU / memory pair, goodput and p99
// by workers, each estimate with its 95 % interval, every repetition faint, excluded ones hollow,
// lower bounds with an upward arrow and "≥", the pick ringed, the knee marked, contenders banded.
import { answerChart, panelPoints } from '../analysis/explain/answer-chart.ts';
import type { AnswerChartPanel, AnswerChartPoint, ChartEstimate } from '../analysis/explain/answer-chart.ts';
import type { Recommendation } from '../analysis/index.ts';
import { fmtNum } from '../common/format.ts';
import type { StoredCell } from '../model/stored.ts';
import { escapeXml as esc, niceTicks, svgLegend, type LegendEntry } from './svg-chart.ts';

type Metric = 'rps' | 'p99';

/** One colour per launch mode (Okabe–Ito, as the UI). */
const MODE_COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7'];
const KNEE = '#009E73';
const BAND = '#E69F00';
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif';
const [WIDTH, PLOT_HEIGHT, LEFT, TOP] = [540, 340, 80, 62];
/** Most pairs drawn: the answer stays readable; the tables below hold every configuration. */
const MAX_PAIRS = 6;

const n1 = (v: number): string => v.toFixed(1);
const estOf = (p: AnswerChartPoint, m: Metric): ChartEstimate | null => (m === 'rps' ? p.rps : p.p99Ms);
const repOf = (r: { rps: number | null; p99Ms: number | null }, m: Metric): number | null =>
  m === 'rps' ? r.rps : r.p99Ms;

const circle = (x: number, y: number, r: number, attrs: string): string =>
  `<circle cx="${n1(x)}" cy="${n1(y)}" r="${r}" ${attrs}/>`;
const diamond = (x: number, y: number, r: number, attrs: string): string =>
  `<path d="M${n1(x)} ${n1(y - r)}L${n1(x + r)} ${n1(y)}L${n1(x)} ${n1(y + r)}L${n1(x - r)} ${n1(y)}Z" ${attrs}/>`;
const arrowUp = (x: number, y: number, colour: string): string =>
  `<path d="M${n1(x)} ${n1(y)}V${n1(y - 16)}" stroke="${colour}" stroke-width="1.5"/>` +
  `<path d="M${n1(x - 5)} ${n1(y - 13)}L${n1(x)} ${n1(y - 21)}L${n1(x + 5)} ${n1(y - 13)}Z" fill="${colour}"/>`;

/** What the contenders' band says. */
const groupWords = (p: AnswerChartPanel): string =>
  p.state === 'equivalent' ? `equivalent: within ${fmtNum(p.marginPct, 0)} % of the best` : 'undecided between these';

function legendOf(panel: AnswerChartPanel, metric: Metric): LegendEntry[] {
  const pts = panelPoints(panel);
  const out: LegendEntry[] = panel.series.flatMap((s, i) => {
    const c = MODE_COLOURS[i % MODE_COLOURS.length]!;
    return [
      {
        name: `${s.name}: mean, 95 % interval`,
        swatch: (x: number, y: number) =>
          `<path d="M${x} ${y}H${x + 30}M${x + 15} ${y - 7}V${y + 7}" stroke="${c}" stroke-width="2"/>` +
          circle(x + 15, y, 3.5, `fill="${c}"`),
      },
      {
        name: `${s.name}: each repetition`,
        swatch: (x: number, y: number) => circle(x + 15, y, 2.5, `fill="${c}" fill-opacity="0.35"`),
      },
    ];
  });
  const add = (on: boolean, name: string, swatch: LegendEntry['swatch']): void =>
    void (on && out.push({ name, swatch }));
  add(
    pts.some((p) => p.excluded.some((r) => repOf(r, metric) !== null)),
    'excluded repetition',
    (x, y) => circle(x + 15, y, 4, 'fill="none" stroke="#8a8a8a" stroke-width="1.5"'),
  );
  add(
    pts.some((p) => p.pick),
    'the pick',
    (x, y) => circle(x + 15, y, 7, 'fill="none" stroke="#111" stroke-width="2.5"'),
  );
  add(
    pts.some((p) => p.knee),
    `knee: cheapest within ${fmtNum(panel.marginPct, 0)} % of the best`,
    (x, y) => diamond(x + 15, y, 7, `fill="none" stroke="${KNEE}" stroke-width="2"`),
  );
  add(
    pts.some((p) => p.leading),
    'leading contender (no pick)',
    (x, y) => diamond(x + 15, y, 7, `fill="none" stroke="${KNEE}" stroke-width="2"`),
  );
  const bound = '≥ lower bound (client-bound, dependency-bound, network-bound or host-busy)';
  add(metric === 'rps' && pts.some((p) => p.lowerBound), bound, (x, y) => arrowUp(x + 15, y + 9, '#555'));
  add(
    panel.group.length > 1,
    groupWords(panel),
    (x, y) =>
      `<rect x="${x + 4}" y="${y - 6}" width="22" height="12" fill="${BAND}" fill-opacity="0.16" ` +
      `stroke="${BAND}" stroke-dasharray="4 3"/>`,
  );
  return out;
}

/** One panel (goodput or p99) of one pair as an SVG chart with its title, axes, units and legend. */
export function answerPanelSvg(panel: AnswerChartPanel, metric: Metric): string {
  const right = WIDTH - 20;
  const bottom = PLOT_HEIGHT - 50;
  const legend = svgLegend(legendOf(panel, metric), 16, 0, WIDTH - 32);
  const height = PLOT_HEIGHT + legend.height;
  const pts = panelPoints(panel);
  const values = pts.flatMap((p) => {
    const e = estOf(p, metric);
    return [e?.high ?? e?.mean ?? 0, ...[...p.repetitions, ...p.excluded].map((r) => repOf(r, metric) ?? 0)];
  });
  const ticks = niceTicks(Math.max(...values, 0));
  const yMax = ticks[ticks.length - 1]!;
  const yPos = (v: number): number => bottom - (Math.max(0, v) / yMax) * (bottom - TOP);
  const slot = (right - LEFT) / Math.max(1, panel.workers.length);
  const spread = Math.min(16, slot / (2 * panel.series.length + 2));
  const xPos = (mi: number, workers: number): number =>
    LEFT + (panel.workers.indexOf(workers) + 0.5) * slot + (mi - (panel.series.length - 1) / 2) * spread;
  const title = metric === 'rps' ? 'Goodput by workers' : 'p99 latency by workers';
  const yTitle =
    metric === 'rps' ? 'goodput (req/s, mean and 95 % interval)' : 'p99 latency (ms, mean and 95 % interval)';
  const step = ticks[1]! - ticks[0]!;
  const decimals = step >= 1 ? 0 : Math.ceil(-Math.log10(step));
  const parts: string[] = [
    `<svg viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" class="answer-chart" ` +
      `data-metric="${metric}" aria-label="${esc(`${title} — ${panel.title}`)}" font-family="${FONT}" font-size="12">`,
    `<title>${esc(`${title} — ${panel.title}`)}</title>`,
    `<rect x="0" y="0" width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="22" font-size="15" font-weight="600" fill="#111">${esc(title)}</text>`,
    `<text x="16" y="40" fill="#444">${esc(panel.title)}</text>`,
  ];
  for (const t of ticks) {
    const y = n1(yPos(t));
    parts.push(
      `<line x1="${LEFT}" y1="${y}" x2="${right}" y2="${y}" stroke="${t === 0 ? '#333' : '#e3e3e3'}"/>`,
      `<text x="${LEFT - 8}" y="${y}" dy="4" text-anchor="end" fill="#333">${fmtNum(t, decimals)}</text>`,
    );
  }
  parts.push(`<line x1="${LEFT}" y1="${TOP}" x2="${LEFT}" y2="${bottom}" stroke="#333"/>`);
  panel.workers.forEach((w, i) => {
    const x = n1(LEFT + (i + 0.5) * slot);
    parts.push(
      `<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 5}" stroke="#333"/>`,
      `<text x="${x}" y="${bottom + 18}" text-anchor="middle" fill="#333">${w}</text>`,
    );
  });
  parts.push(
    `<text x="${n1((LEFT + right) / 2)}" y="${bottom + 38}" text-anchor="middle" fill="#111">` +
      'workers (processes serving requests)</text>',
    `<text transform="translate(16 ${n1((TOP + bottom) / 2)}) rotate(-90)" text-anchor="middle" dy="4" ` +
      `fill="#111">${esc(yTitle)}</text>`,
  );
  // The contenders still in the running, banded together behind their points.
  const members = panel.series.flatMap((s, mi) =>
    s.points.filter((p) => panel.group.includes(p.key) && estOf(p, metric)).map((p) => ({ p, x: xPos(mi, p.workers) })),
  );
  if (members.length > 1) {
    const xs = members.map((m) => m.x);
    const ys = members.flatMap(({ p }) => {
      const e = estOf(p, metric)!;
      return [yPos(e.high ?? e.mean), yPos(e.low ?? e.mean)];
    });
    // Kept inside the plot: a wide interval would carry the band (and its words) over the axis.
    const [l, r] = [Math.max(LEFT, Math.min(...xs) - 16), Math.min(right, Math.max(...xs) + 16)];
    const [t, b] = [Math.max(TOP, Math.min(...ys) - 10), Math.min(bottom, Math.max(...ys) + 10)];
    parts.push(
      `<g class="group"><rect x="${n1(l)}" y="${n1(t)}" width="${n1(r - l)}" height="${n1(b - t)}" fill="${BAND}" ` +
        `fill-opacity="0.16" stroke="${BAND}" stroke-dasharray="4 3"/>` +
        `<text x="${n1(l + 4)}" y="${n1(b - 5)}" font-size="11" fill="#7a4b00">${esc(groupWords(panel))}</text></g>`,
    );
  }
  panel.series.forEach((s, mi) => {
    const c = MODE_COLOURS[mi % MODE_COLOURS.length]!;
    const drawn = s.points.filter((p) => estOf(p, metric));
    if (drawn.length > 1) {
      const line = drawn.map((p) => `${n1(xPos(mi, p.workers))},${n1(yPos(estOf(p, metric)!.mean))}`).join(' ');
      parts.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${line}"/>`);
    }
    for (const p of s.points) parts.push(pointSvg(p, metric, xPos(mi, p.workers), yPos, c));
  });
  parts.push(`<g transform="translate(0 ${PLOT_HEIGHT - 4})">${legend.svg}</g>`, '</svg>');
  return parts.join('');
}

/** A configuration: faint repetitions, hollow exclusions, the estimate with its error bar, and its marks. */
function pointSvg(p: AnswerChartPoint, metric: Metric, x: number, yPos: (v: number) => number, c: string): string {
  const e = estOf(p, metric);
  const out: string[] = [
    `<g class="point" data-key="${esc(p.key)}" data-workers="${p.workers}" data-mode="${p.mode}"` +
      (e ? ` data-mean="${e.mean}" data-low="${e.low ?? ''}" data-high="${e.high ?? ''}"` : '') +
      ` data-lower-bound="${p.lowerBound}" data-pick="${p.pick}" data-knee="${p.knee}" data-leading="${p.leading}"` +
      ` data-contender="${p.contender}" data-excluded="${p.excluded.length}">`,
    `<title>${esc(p.label)}${p.setAside ? ` (set aside: ${esc(p.setAside)})` : ''}</title>`,
  ];
  for (const r of p.repetitions) {
    const v = repOf(r, metric);
    if (v !== null) out.push(circle(x - 4, yPos(v), 2.5, `fill="${c}" fill-opacity="0.35" class="rep"`));
  }
  for (const r of p.excluded) {
    const v = repOf(r, metric);
    if (v !== null) out.push(circle(x + 4, yPos(v), 4, 'fill="none" stroke="#8a8a8a" stroke-width="1.5" class="excl"'));
  }
  if (e) {
    const y = yPos(e.mean);
    let top = yPos(e.high ?? e.mean) - 6;
    if (e.low !== null && e.high !== null) {
      const [lo, hi] = [n1(yPos(e.low)), n1(yPos(e.high))];
      out.push(
        `<path d="M${n1(x)} ${lo}V${hi}M${n1(x - 5)} ${lo}H${n1(x + 5)}M${n1(x - 5)} ${hi}H${n1(x + 5)}" ` +
          `stroke="${c}" stroke-width="1.5" fill="none" class="interval"/>`,
      );
    }
    out.push(circle(x, y, 4, `fill="${c}"`));
    if (metric === 'rps' && p.lowerBound) {
      out.push(
        `<g class="lower-bound">${arrowUp(x + 10, y, c)}<text x="${n1(x - 13)}" y="${n1(y)}" dy="4" ` +
          `text-anchor="end" font-weight="600" fill="${c}">≥</text></g>`,
      );
      top = Math.min(top, y - 26);
    }
    if (p.pick) out.push(circle(x, y, 10, 'fill="none" stroke="#111" stroke-width="2.5" class="pick"'));
    if (p.knee || p.leading) out.push(diamond(x, y, 8, `fill="none" stroke="${KNEE}" stroke-width="2" class="knee"`));
    const words = [p.pick ? 'pick' : '', p.knee && !p.pick ? 'knee' : '', p.leading ? 'leading' : ''].filter(Boolean);
    if (words.length) {
      out.push(
        `<text x="${n1(x)}" y="${n1(top - 6)}" text-anchor="middle" font-size="11" font-weight="600" ` +
          `fill="#111">${words.join(' · ')}</text>`,
      );
    }
  }
  out.push('</g>');
  return out.join('');
}

/** Both panels of every pair shown (the answer's pairs; a search's found pair), as figures. */
export function answerChartHtml(rec: Recommendation, cells: readonly StoredCell[]): string {
  const panels = answerChart(rec, cells);
  if (panels.length === 0) return '';
  const figures = panels
    .slice(0, MAX_PAIRS)
    .map(
      (p) =>
        `<div class="charts answer-charts" data-pair="${esc(p.key)}" data-state="${p.state ?? 'search'}">` +
        `<figure>${answerPanelSvg(p, 'rps')}</figure><figure>${answerPanelSvg(p, 'p99')}</figure></div>`,
    );
  const more =
    panels.length > MAX_PAIRS
      ? `<p class="muted">First ${MAX_PAIRS} of ${panels.length} CPU / memory pairs; every configuration is in the ` +
        'tables below.</p>'
      : '';
  return figures.join('') + more;
}
