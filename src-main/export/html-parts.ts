// The pieces every table and section of the HTML report is built from. Everything that comes from
// data goes through esc (names are user input).
import { p99Short, rpsShort } from '../analysis/index.ts';
import type { ConfigurationSummary, ScopeDecision } from '../analysis/index.ts';
import { fmtNum } from '../common/format.ts';
import { escapeXml as esc } from './svg-chart.ts';

export { esc };

export const td = (s: string, num = false): string => `<td${num ? ' class="num"' : ''}>${s}</td>`;
export const th = (s: string, num = false): string => `<th${num ? ' class="num"' : ''}>${s}</th>`;

/** A table with its head row; `cls` its class, where it has one. */
export const table = (head: string[], rows: string[], cls?: string): string =>
  `<table${cls ? ` class="${cls}"` : ''}><thead><tr>${head.join('')}</tr></thead>` +
  `<tbody>${rows.join('')}</tbody></table>`;

export const flagsHtml = (kinds: { kind: string; title: string }[]): string =>
  kinds.map((f) => `<span class="flag" title="${esc(f.title)}">${esc(f.kind)}</span>`).join(' ');

/** A line in grey under a cell's value. */
export const muted = (s: string): string => `<span class="muted">${s}</span>`;

export const rpsCell = (c: ConfigurationSummary): string => rpsShort(c);

export const p99Cell = (c: ConfigurationSummary): string => p99Short(c);

/**
 * Under the best goodput: what the contest left beside it — the answer's state is said once, with its pick
 * (winnersTable) — read from the contest's rivals and contenders, never tested again.
 */
export function contestNote(s: ScopeDecision): string {
  if (s.rivals.length === 0) return 'only candidate';
  const others = s.notDistinguishableRps.length;
  if (others === 0) return 'every other shown below it (Welch’s t-test, Holm-corrected)';
  const why =
    s.state === 'undecided' && !s.settleable
      ? ': a lower bound stands in the way'
      : s.rivals.some((r) => r.p === null)
        ? '; some without an interval: means only'
        : '';
  return `${others} other${others === 1 ? '' : 's'} still in the running${why}`;
}

/** Under the lowest p99: how its comparison with the others went (latency, not the answer's state). */
export function p99Note(s: ScopeDecision): string {
  if (s.p99Tests.length === 0) return 'only candidate';
  const others = s.notDistinguishableP99.length;
  if (others) return `not distinguishable from ${others} other${others === 1 ? '' : 's'}`;
  if (s.p99Tests.some((t) => t.test === null)) return 'no interval: means only';
  return 'significantly the lowest (Welch’s t-test, Holm-corrected)';
}

/** A winner in one cell: who, the value with its interval, and a note under it. */
export const pickCell = (who: string, value: string, verdict: string): string =>
  td(`${esc(who)}<br><span class="value">${value}</span><br>${muted(esc(verdict))}`);

/** `<section id="…"><h2>title</h2>…</section>`; `attrs` (with its leading space) go on the section. */
export const section = (id: string, title: string, body: string, attrs = ''): string =>
  `<section id="${id}"${attrs}><h2>${title}</h2>${body}</section>`;
