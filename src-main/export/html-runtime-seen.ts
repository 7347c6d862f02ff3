// The report's "What Node.js saw in the box": each configuration's serving processes' readings at
// start (the answer's runtime), and every container trap in full (the answer's traps).
import { runtimeFields } from '../common/runtime-words.ts';
import type { Recommendation } from '../analysis/index.ts';
import { esc, section, table, td, th } from './html-parts.ts';

export function runtimeSeenSection(rec: Recommendation): string {
  const seen = (rec.runtime ?? []).filter((s) => s.server);
  const traps = rec.traps ?? [];
  if (!seen.length && !traps.length) return '';
  const label = new Map(rec.configurations.map((c) => [c.key, c.label]));
  const heads = seen.length ? runtimeFields(seen[0]!.server!).map(([k]) => k) : [];
  const rows = seen.map(
    (s) =>
      `<tr>${td(esc(label.get(s.key) ?? s.key))}${runtimeFields(s.server!)
        .map(([, v]) => td(esc(v)))
        .join('')}</tr>`,
  );
  const list = traps.length
    ? `<ul>${traps.map((t) => `<li>${esc(t.text)}</li>`).join('')}</ul>`
    : '<p class="muted">No container trap: every reading matched its cell’s caps.</p>';
  const tableHtml = rows.length ? table([th('configuration'), ...heads.map((h) => th(esc(h)))], rows) : '';
  return section('runtime-seen', 'What Node.js saw in the box', `${tableHtml}${list}`);
}
