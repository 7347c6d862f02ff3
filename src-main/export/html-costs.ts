// The HTML report's Costs section: the prices the run is costed at and where they came from, the
// cheapest against its runner-up (the answer's line), and every configuration's cost per hour, per
// million requests with its interval (≤ where the goodput is a lower bound) and at the objective's rate.
import type { Recommendation } from '../analysis/index.ts';
import { atRateText, costText, fmtMoney, pricesSourceText, pricesText } from '../common/cost.ts';
import { fmtNum } from '../common/format.ts';
import { esc, muted, section, table, td, th } from './html-parts.ts';

export function costsSection(rec: Recommendation): string {
  const c = rec.costs;
  if (!c || c.configurations.length === 0) return '';
  const withRate = c.rate !== null;
  const withSlo = c.configurations.some((k) => k.meets !== null);
  const cheapest = new Set(c.cheapest.filter((x) => x.state === 'decided').map((x) => x.cheapest));
  const rows = [...c.configurations]
    .sort((a, b) => (a.perMillion ?? Infinity) - (b.perMillion ?? Infinity))
    .map(
      (k) =>
        `<tr data-key="${esc(k.key)}"${cheapest.has(k.key) ? ' data-cheapest' : ''}>${[
          td(esc(k.label) + (cheapest.has(k.key) ? ` ${muted('cheapest')}` : '')),
          td(esc(fmtMoney(k.hourly)), true),
          td(esc(costText(k)), true),
          ...(withRate ? [td(esc(atRateText(k)), true)] : []),
          ...(withSlo ? [td(k.meets ? 'yes' : 'no')] : []),
        ].join('')}</tr>`,
    );
  const head = [
    th('configuration'),
    th('per hour', true),
    th('per million requests (95 % interval)', true),
    ...(withRate ? [th(`at the objective's ${fmtNum(c.rate!)} req/s`, true)] : []),
    ...(withSlo ? [th('meets the objective')] : []),
  ];
  const lines = c.cheapest.map((x) => `<p class="cost-line">${esc(x.text)}</p>`).join('');
  const how =
    '<details class="how"><summary>How costs are computed</summary><p class="muted">' +
    esc(
      'Per hour: replicas × (CPU cap in vCPUs × the vCPU-hour price + memory limit in GB × the GB-hour price + ' +
        'the replica-hour price). Per million requests: that ÷ (goodput × 3600) × 1,000,000, at the answer’s ' +
        'own goodput estimate; its interval is the goodput’s 95 % interval turned around. A client-bound or ' +
        'host-busy goodput is a lower bound, so its cost is an upper bound (≤). At an objective’s rate: ' +
        '⌈rate ÷ goodput⌉ copies (a part of a copy is a whole copy). The cheapest is named only when a ' +
        'one-sided Welch test (Holm-corrected, 5 %) shows it costs less per million than every other.',
    ) +
    '</p></details>';
  return section(
    'costs',
    'Costs',
    `<p>At ${esc(pricesText(c.prices))}: ${esc(pricesSourceText(c.source))}.</p>${lines}` +
      `${table(head, rows, 'costs')}${how}`,
  );
}
