// A small SVG line chart for reports: no library, no script, prints as drawn. The markup is meant to
// be inlined in HTML (no xmlns, which the HTML parser does not need).
import { fmtNum } from '../common/format.ts';

export interface ChartPoint {
  x: number;
  y: number;
  /** Optional interval drawn as an error bar. */
  low?: number;
  high?: number;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
}

export interface LineChartOptions {
  title: string;
  /** With units, e.g. "workers", "seconds". */
  xLabel: string;
  /** With units, e.g. "req/s", "p99 (ms)". */
  yLabel: string;
  series: ChartSeries[];
  /**
   * 'category' spaces the distinct x values evenly (worker counts 1, 2, 4, 8); 'linear' is proportional. Default
   * 'category'.
   */
  xScale?: 'category' | 'linear';
  /** Vertical lines with a label at the top, e.g. where warm-up ended (linear x only). */
  markers?: { x: number; label: string }[];
  width?: number;
  height?: number;
}

/** Escapes text for HTML and XML content and attribute values. */
export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies. */
const COLORS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#8C6D1F'];
/** Past the palette, lines also differ by dash so they stay apart in print. */
const DASHES = ['', '6 3', '2 3'];
const FONT = 'system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif';
const LEGEND_ROW = 20;
/** Wider than the average glyph of 12 px system-ui, so an estimated width never clips a name. */
const CHAR_PX = 7;
const SWATCH = 30;

/** One legend entry: its name and its swatch, drawn centred on (x + 15, y). */
export interface LegendEntry {
  name: string;
  swatch: (x: number, y: number) => string;
}

/**
 * The legend under a chart, entries flowing left to right in rows that wrap at `width`: a name is
 * never cut (a long one takes a row of its own). Returns the markup and the height it takes.
 */
export function svgLegend(
  entries: LegendEntry[],
  left: number,
  top: number,
  width: number,
): { svg: string; height: number } {
  const parts: string[] = [];
  let [x, row] = [left, 0];
  for (const e of entries) {
    const w = SWATCH + 6 + e.name.length * CHAR_PX + 18;
    if (x > left && x + w > left + width) [x, row] = [left, row + 1];
    const y = top + row * LEGEND_ROW + 8;
    parts.push(e.swatch(x, y), `<text x="${x + SWATCH + 6}" y="${y}" dy="4" fill="#111">${escapeXml(e.name)}</text>`);
    x += w;
  }
  return { svg: `<g class="legend">${parts.join('')}</g>`, height: entries.length ? (row + 1) * LEGEND_ROW + 4 : 0 };
}

/** Round tick values from 0 to at least `max`: steps of 1, 2 or 5 × 10^k. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * mag >= raw) ?? 10) * mag;
  const ticks: number[] = [];
  for (let i = 0; ; i++) {
    const v = Number((i * step).toPrecision(12));
    ticks.push(v);
    if (v >= max) return ticks;
  }
}

const n1 = (v: number): string => v.toFixed(1);

export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? 720;
  const series = o.series.filter((s) => s.points.length > 0);
  const top = 44;
  const left = 76;
  const right = width - 24;
  // The legend goes under the x-axis title, as many rows as its names need: nothing is clipped.
  const legend = svgLegend(
    series.map((s, i) => {
      const color = COLORS[i % COLORS.length]!;
      const dash = DASHES[Math.floor(i / COLORS.length) % DASHES.length]!;
      return {
        name: s.name,
        swatch: (x: number, y: number): string =>
          `<line x1="${x}" y1="${y}" x2="${x + SWATCH}" y2="${y}" stroke="${color}" stroke-width="2"` +
          `${dash ? ` stroke-dasharray="${dash}"` : ''}/>` +
          `<circle cx="${x + SWATCH / 2}" cy="${y}" r="3.5" fill="${color}"/>`,
      };
    }),
    left,
    0,
    right - left,
  );
  // The chart keeps its height; the plot gives the legend its rows (down to a readable minimum).
  const height = Math.max(o.height ?? 360, 240 + legend.height);
  const plotHeight = height - legend.height;
  const bottom = plotHeight - 56;
  const plotW = right - left;
  const parts: string[] = [
    `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" ` +
      `aria-label="${escapeXml(o.title)}" font-family="${FONT}" font-size="12">`,
    `<title>${escapeXml(o.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="24" font-size="15" font-weight="600" fill="#111">${escapeXml(o.title)}</text>`,
  ];
  if (series.length === 0) {
    parts.push(
      `<text x="${n1((left + right) / 2)}" y="${n1((top + bottom) / 2)}" text-anchor="middle" ` +
        'fill="#666">no data</text></svg>',
    );
    return parts.join('');
  }

  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort((a, b) => a - b);
  const linear = (o.xScale ?? 'category') === 'linear';
  const markers = linear ? (o.markers ?? []) : [];
  const xMin = Math.min(xs[0]!, ...markers.map((m) => m.x));
  const xMax = Math.max(xs[xs.length - 1]!, ...markers.map((m) => m.x));
  const xPos =
    (o.xScale ?? 'category') === 'category'
      ? (x: number): number => left + ((xs.indexOf(x) + 0.5) * plotW) / xs.length
      : (x: number): number => (xMax === xMin ? (left + right) / 2 : left + ((x - xMin) / (xMax - xMin)) * plotW);
  const ticks = niceTicks(Math.max(...series.flatMap((s) => s.points.map((p) => Math.max(p.y, p.high ?? p.y)))));
  const yMax = ticks[ticks.length - 1]!;
  const yPos = (y: number): number => bottom - (y / yMax) * (bottom - top);
  const step = ticks[1]! - ticks[0]!;
  const decimals = step >= 1 ? 0 : Math.ceil(-Math.log10(step));

  // Grid and y axis.
  for (const t of ticks) {
    const y = n1(yPos(t));
    parts.push(
      `<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="${t === 0 ? '#333' : '#e3e3e3'}" ` +
        'stroke-width="1"/>',
    );
    parts.push(`<text x="${left - 8}" y="${y}" dy="4" text-anchor="end" fill="#333">${fmtNum(t, decimals)}</text>`);
  }
  parts.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${bottom}" stroke="#333" stroke-width="1"/>`);
  // X ticks: every category, or at most ~10 labels on a linear axis.
  const every = (o.xScale ?? 'category') === 'category' ? 1 : Math.ceil(xs.length / 10);
  xs.forEach((x, i) => {
    if (i % every !== 0 && i !== xs.length - 1) return;
    const px = n1(xPos(x));
    parts.push(`<line x1="${px}" y1="${bottom}" x2="${px}" y2="${bottom + 5}" stroke="#333"/>`);
    parts.push(
      `<text x="${px}" y="${bottom + 18}" text-anchor="middle" ` +
        `fill="#333">${fmtNum(x, Number.isInteger(x) ? 0 : 1)}</text>`,
    );
  });
  for (const m of markers) {
    const px = n1(xPos(m.x));
    parts.push(
      `<g class="marker"><line x1="${px}" y1="${top - 4}" x2="${px}" y2="${bottom}" stroke="#555" ` +
        'stroke-width="1" stroke-dasharray="4 3"/>',
    );
    parts.push(
      `<text x="${px}" y="${top - 8}" text-anchor="middle" font-size="11" fill="#333">${escapeXml(m.label)}</text></g>`,
    );
  }
  parts.push(
    `<text x="${n1((left + right) / 2)}" y="${plotHeight - 14}" text-anchor="middle" ` +
      `fill="#111">${escapeXml(o.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(18 ${n1((top + bottom) / 2)}) rotate(-90)" text-anchor="middle" ` +
      `fill="#111">${escapeXml(o.yLabel)}</text>`,
  );

  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const dash = DASHES[Math.floor(i / COLORS.length) % DASHES.length]!;
    const dashAttr = dash ? ` stroke-dasharray="${dash}"` : '';
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    parts.push(`<g><title>${escapeXml(s.name)}</title>`);
    if (pts.length > 1) {
      parts.push(
        `<polyline fill="none" stroke="${color}" stroke-width="2"${dashAttr} ` +
          `points="${pts.map((p) => `${n1(xPos(p.x))},${n1(yPos(p.y))}`).join(' ')}"/>`,
      );
    }
    for (const p of pts) {
      const px = xPos(p.x);
      if (p.low !== undefined && p.high !== undefined) {
        const [y1, y2] = [n1(yPos(Math.max(0, p.low))), n1(yPos(p.high))];
        parts.push(
          `<path d="M${n1(px)} ${y1}V${y2}M${n1(px - 4)} ${y1}H${n1(px + 4)}M${n1(px - 4)} ` +
            `${y2}H${n1(px + 4)}" stroke="${color}" stroke-width="1.2" fill="none"/>`,
        );
      }
      if (pts.length <= 60) parts.push(`<circle cx="${n1(px)}" cy="${n1(yPos(p.y))}" r="3.5" fill="${color}"/>`);
    }
    parts.push('</g>');
  });
  parts.push(`<g transform="translate(0 ${plotHeight - 4})">${legend.svg}</g>`, '</svg>');
  return parts.join('');
}
