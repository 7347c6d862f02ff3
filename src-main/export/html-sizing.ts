// The HTML report's Memory and CPU section: for the recommended configurations and every knee, the
// peak, memory per worker, the limit, what each memory cap did, the CPU request and throttling.
import { fmtMb, fmtPct, limitText, PEAK_SOURCE_WORDS, perWorkerText, sizingMethodText } from '../analysis/index.ts';
import type { Recommendation, Sizing } from '../analysis/index.ts';
import { fmtNum } from '../common/format.ts';
import { exactCpu } from '../common/resource-labels.ts';
import { esc, muted, section, table, td, th } from './html-parts.ts';
import { MEMORY_OUTCOME_WORDS } from '../analysis/explain/sizing-words.ts';

// The outcome labels the answer's words use (one source).
const OUTCOME_WORDS = MEMORY_OUTCOME_WORDS;

const PEAK_SOURCE_SHORT: Record<NonNullable<Sizing['memory']['peakSource']>, string> = {
  cgroup: 'cgroup peak',
  samples: 'highest reading',
  legacy: 'highest reading (older run)',
  mixed: 'cgroup peak / readings',
};

/** The peak and, under it, where it came from (in full in the title). */
function peakCell(m: Sizing['memory']): string {
  if (m.peakBytes === null) return '—';
  const source = `<span class="muted" title="${esc(PEAK_SOURCE_WORDS[m.peakSource!])}">`;
  return `${fmtMb(m.peakBytes)}<br>${source}${esc(PEAK_SOURCE_SHORT[m.peakSource!])}</span>`;
}

/** Each memory cap in a word or two (its detail in the title), and the cap that was clearly too small. */
function memoryCapsCell(m: Sizing['memory']): string {
  const caps = m.caps
    .map(
      (c) => `<span class="nowrap" title="${esc(c.detail)}">${c.memoryMb} MB: ${esc(OUTCOME_WORDS[c.outcome])}</span>`,
    )
    .join('<br>');
  const tooSmall = m.failedAtMb !== null && (m.failedOutcome === 'oom' || m.failedOutcome === 'restarts');
  return `${caps}${tooSmall ? `<br><b>${m.failedAtMb} MB is clearly too small</b>` : ''}`;
}

/** The CPU request, and under it each CPU cap in a few words; what it missed by is in the title. */
function cpuCell(u: Sizing['cpu']): string {
  const verdict = (c: (typeof u.caps)[number]): string =>
    u.basis === 'slo' ? (c.meetsSlo ? 'meets' : 'misses') : c.holdsThroughput ? 'holds' : 'below';
  const cap = (c: (typeof u.caps)[number]): string =>
    `<span class="nowrap"${c.miss ? ` title="${esc(c.miss)}"` : ''}>` +
    `${esc(exactCpu(c.cpuMillis))}: ${fmtNum(c.rps)} req/s, ${verdict(c)}</span>`;
  const caps = u.caps.length > 1 ? `<br>${muted(u.caps.map(cap).join('<br>'))}` : '';
  const request = u.requestMillis === null ? (u.caps.length > 1 ? 'none tried' : '—') : esc(exactCpu(u.requestMillis));
  return `${request}${caps}`;
}

/** Throttled ms per second at the configuration's own cap, and how much of the cap it used. */
function throttleCell(u: Sizing['cpu']): string {
  const ms = u.throttledMsPerSec;
  if (ms === null) return '—';
  const share = u.throttledShare === null ? '' : ` (${fmtPct(u.throttledShare * 100)} of periods)`;
  return `${fmtNum(ms, ms < 10 ? 1 : 0)} ms/s${share}<br>${muted(`${fmtPct(u.cpuPctOfCap!)} of the cap used`)}`;
}

/**
 * The memory and CPU sizing of the recommended configurations and every knee: peak, per worker, limit, the caps'
 * evidence, the CPU request and throttling.
 */
export function sizingSection(rec: Recommendation): string {
  const shown = (rec.sizing ?? []).filter((x) => x.roles.length > 0);
  if (shown.length === 0) return '';
  const rows = shown.map((x) => {
    const m = x.memory;
    return `<tr data-key="${esc(x.key)}"${m.limitMb === null ? '' : ` data-limit-mb="${m.limitMb}"`}>${[
      td(`${esc(x.label)}<br>${muted(esc(x.roles.join('; ')))}`),
      td(peakCell(m), true),
      td(esc(m.perWorker ? perWorkerText(x).replace(/ \(.*$/, '') : '—'), true),
      td(esc(limitText(x))),
      td(memoryCapsCell(m)),
      td(cpuCell(x.cpu)),
      td(throttleCell(x.cpu), true),
    ].join('')}</tr>`;
  });
  const head = [
    th('configuration'),
    th('peak memory', true),
    th('per worker', true),
    th('recommended limit'),
    th('memory caps in the matrix'),
    th(rec.slo ? 'CPU that meets the objective' : 'CPU that holds the throughput'),
    th('throttling at its cap', true),
  ];
  // The method folded away, as on the answer page: the table is the answer, this is how it was made.
  const text = sizingMethodText(rec.marginPct).replace(/^How memory and CPU were sized: /, '');
  const method =
    '<details class="how"><summary>How memory and CPU were sized</summary>' +
    `<p class="muted">${esc(text)}</p></details>`;
  return section('sizing', 'Memory and CPU', `${table(head, rows, 'sizing')}${method}`);
}
