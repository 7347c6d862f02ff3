// The report's per-route section for a run whose app sent a mix: the mix as written, and each cell's
// routes as the load side counted them (share against the weights, goodput, p50, p99).
import { fmtNum, fmtUs } from '../common/format.ts';
import { mixLines } from '../mix/describe.ts';
import { SHARE_TOLERANCE_PP } from '../mix/routes.ts';
import { runMixes } from '../mix/run-mixes.ts';
import type { MixEntry } from '../model/requests.ts';
import type { RunDetail } from '../model/stored.ts';
import { esc, section, table, td, th } from './html-parts.ts';

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** '' when no cell ran a mix of several routes. */
export function routesSection(run: RunDetail): string {
  const cells = run.cells.filter((c) => c.load?.routes?.length);
  if (!cells.length) return '';
  const list = (mix: MixEntry[]): string =>
    mixLines(mix)
      .map((l) => `<li>${esc(l)}</li>`)
      .join('');
  const mixHtml = runMixes(run)
    .map(({ who, mix }) => `<p>${esc(who)}:</p><ul>${list(mix)}</ul>`)
    .join('');
  const rows = cells.flatMap((c) =>
    c.load!.routes!.map((r) => {
      const off = Math.abs(r.share - r.expectedShare) * 100 > SHARE_TOLERANCE_PP;
      return (
        `<tr${off ? ' class="off"' : ''}>` +
        td(String(c.config.index + 1), true) +
        td(esc(r.route)) +
        td(`${pct(r.share)} <span class="muted">(asks ${pct(r.expectedShare)})</span>${off ? ' ⚠' : ''}`, true) +
        td(fmtNum(r.goodputMean), true) +
        td(fmtUs(r.p50Us), true) +
        td(fmtUs(r.p99Us), true) +
        '</tr>'
      );
    }),
  );
  const head = [th('cell', true), th('route'), th('share of requests', true), th('goodput req/s', true)];
  return section(
    'routes',
    'Routes of the mix',
    `${mixHtml}${table([...head, th('p50', true), th('p99', true)], rows, 'routes')}` +
      `<p class="muted">Counted by the load side, per request; ⚠ marks a share off its weight by more than ` +
      `${SHARE_TOLERANCE_PP} percentage points.</p>`,
  );
}
