// The sentences about memory and CPU: the peak and where it came from, memory per worker, the limit
// and what raised it, the memory caps of the matrix, the CPU request and throttling, and the method.
import { fmtMargin, fmtMb, fmtNum, fmtPct } from '../common/format.ts';
import { cpuLabel, memLabel, pairLabel } from '../common/resource-labels.ts';
import { joinAnd } from '../common/text.ts';
import { freshNeedText } from './fresh-need.ts';
import { loadLabel, MAX_ERROR_PCT, workloadLabel } from './group.ts';
import { limitFromPeak, MEMORY_HEADROOM, MEMORY_LIMIT_RULE, MEMORY_ROUND_MB } from './memory.ts';
import { who } from './phrases.ts';
import { describeSlo } from './slo.ts';
import type { ConfigurationSummary, MemoryCap, PeakSource, Recommendation, Sizing, Slo } from './types.ts';

/** Where a peak came from, in words. */
export const PEAK_SOURCE_WORDS: Record<PeakSource, string> = {
  cgroup: "the cgroup's own peak, page cache included",
  samples:
    'the highest 1 Hz reading, page cache included: the engine reported no peak of its own, so a short ' +
    'spike may be missed',
  legacy: 'the highest 1 Hz reading after warmup: this run predates peak recording, so a short spike may be missed',
  mixed: "the cgroup's own peak where recorded, else the highest 1 Hz reading",
};

/** "38 ± 6 MB per worker (slope of peak memory over 1, 2 and 4 workers, 95 % CI)". */
export function perWorkerText(s: Sizing): string {
  const w = s.memory.perWorker;
  if (!w) return `no memory per worker: ${s.memory.perWorkerNote}`;
  const over = `slope of peak memory over ${joinAnd(w.workerCounts.map(String))} workers`;
  return w.halfWidth === null
    ? `${fmtMb(w.bytesPerWorker)} per worker (${over}; two points, so no interval)`
    : `${fmtMb(w.bytesPerWorker).replace(' MB', '')} ± ${fmtMb(w.halfWidth)} per worker (${over}, ${w.points} ` +
        'repetitions, 95 % CI)';
}

/** "limit = peak × 1.25, rounded up to 32 MB" and what raised it, in words. */
export function limitText(s: Sizing): string {
  const m = s.memory;
  if (m.limitMb === null) return 'no memory limit: no peak was recorded';
  // What the rule multiplied: the fresh need where the run measured the processes, else the peak.
  const rss = m.fresh?.measure === 'rss';
  const basis = rss ? m.fresh!.bytes : m.peakBytes!;
  const rule =
    `${rss ? "the processes' resident memory" : 'peak'} × ${MEMORY_HEADROOM}, rounded up to a multiple of ` +
    `${MEMORY_ROUND_MB} MB`;
  return m.limitFrom === 'matrix'
    ? `${memLabel(m.limitMb)}: ${rule} would be ${memLabel(limitFromPeak(basis))}, but ` +
        `${memLabel(m.failedAtMb!)} failed in the matrix, so the smallest clean cap above it`
    : `${memLabel(m.limitMb)} (${rule})`;
}

const capPhrase = (c: MemoryCap): string => `at ${memLabel(c.memoryMb)}: ${c.detail}`;

/** The memory and CPU sentences of one recommended configuration. */
export function sizingSentences(
  s: Sizing,
  byKey: Map<string, ConfigurationSummary>,
  slo: Slo | null,
  marginPct: number,
  withContext: boolean,
): string[] {
  const c = byKey.get(s.key)!;
  const context = withContext ? ` (${workloadLabel(c.app, c.requestSet)}, ${loadLabel(c.load)})` : '';
  const name = `${who(c)} on ${pairLabel(c.cpuMillis, c.memoryMb)}${context}`;
  const m = s.memory;
  const out: string[] = [];
  if (m.peakBytes !== null) {
    const reps = m.repetitions > 1 ? `, the highest of ${m.repetitions} repetitions` : '';
    const fresh = m.fresh?.measure === 'rss' ? ` A fresh deployment needs ${freshNeedText(m.fresh)}.` : '';
    out.push(
      `Memory for ${name}: peak ${fmtMb(m.peakBytes)} (${PEAK_SOURCE_WORDS[m.peakSource!]}${reps}; ` +
        `${fmtPct(m.peakShareOfCap! * 100)} of its cap); ${perWorkerText(s)}.${fresh} Recommended memory ` +
        `limit: ${limitText(s)}.`,
    );
  } else {
    out.push(`Memory for ${name}: no peak was recorded, so there is no recommended limit.`);
  }
  const below = m.smallestCleanMb === null ? m.caps : m.caps.filter((x) => x.memoryMb < m.smallestCleanMb!);
  if (m.caps.length <= 1) {
    out.push(`The matrix tried only ${memLabel(c.memoryMb)} for it, so nothing shows how much less would do.`);
  } else if (m.smallestCleanMb !== null) {
    const fails = below.filter((x) => x.outcome !== 'ok' && x.outcome !== 'no-result');
    const then = fails.length
      ? `; ${fails.map(capPhrase).join('; ')}`
      : m.smallestCleanMb === m.caps[0]!.memoryMb
        ? ', the smallest cap tried'
        : '';
    out.push(
      'In the matrix it ran without OOM kills, restarts or a latency penalty down to ' +
        `${memLabel(m.smallestCleanMb)}${then}.`,
    );
  } else {
    out.push(`It did not run clean at any memory cap tried: ${m.caps.map(capPhrase).join('; ')}.`);
  }
  const tooSmall = below.filter((x) => x.outcome === 'oom' || x.outcome === 'restarts');
  if (tooSmall.length)
    out.push(
      `${joinAnd(tooSmall.map((x) => memLabel(x.memoryMb)))} ${tooSmall.length === 1 ? 'is' : 'are'} ` +
        `clearly too small for ${who(c)}.`,
    );
  const gc = m.caps.filter((x) => x.outcome === 'gc-pressure');
  if (gc.length)
    out.push(
      `GC pressure at ${joinAnd(gc.map((x) => memLabel(x.memoryMb)))}: throughput was lost at a tighter cap ` +
        'with no OOM kill, so the garbage collector, not the CPU, held it back.',
    );
  if (
    m.limitMb !== null &&
    m.limitMb > c.memoryMb &&
    m.fresh?.measure !== 'rss' &&
    m.caps.some((x) => x.memoryMb === c.memoryMb && x.outcome === 'ok')
  ) {
    out.push(
      `The limit is above the ${memLabel(c.memoryMb)} it ran clean at: the peak counts page cache, which ` +
        'the kernel reclaims before an OOM kill, so the clean run is the firmer evidence and the limit errs on ' +
        'the generous side.',
    );
  }
  out.push(cpuSentence(s, c, slo, marginPct));
  return out;
}

function cpuSentence(s: Sizing, c: ConfigurationSummary, slo: Slo | null, marginPct: number): string {
  const u = s.cpu;
  const failed = u.failedAtMillis === null ? null : u.caps.find((x) => x.cpuMillis === u.failedAtMillis)!;
  let head: string;
  if (u.caps.length <= 1)
    head =
      `CPU: the matrix tried only ${cpuLabel(c.cpuMillis)} for ${who(c)} at ${memLabel(c.memoryMb)}, so ` +
      'nothing shows whether less would do.';
  else if (u.requestMillis === null) {
    head = slo
      ? `CPU: no CPU cap tried meets ${describeSlo(slo)} for ${who(c)} at ${memLabel(c.memoryMb)}.`
      : `CPU: no CPU cap tried holds the throughput for ${who(c)} at ${memLabel(c.memoryMb)}.`;
  } else {
    const what = slo
      ? `that meets ${describeSlo(slo)} for ${who(c)} at ${memLabel(c.memoryMb)} (on the means)`
      : `that holds the throughput of ${who(c)} at ${memLabel(c.memoryMb)}: not significantly more than ` +
        `${fmtMargin(marginPct)} % below the best over the CPU caps ` +
        `tried${u.evidence === 'means' ? ' (on the means, no interval)' : ''}`;
    head =
      `CPU: ${cpuLabel(u.requestMillis)} is the smallest request ` +
      `${what}${failed ? `; at ${cpuLabel(failed.cpuMillis)}: ${failed.miss}` : ''}.`;
  }
  if (u.throttledMsPerSec === null) return head;
  const share = u.throttledShare === null ? '' : ` (${fmtPct(u.throttledShare * 100)} of CFS periods)`;
  const thr =
    u.throttledMsPerSec < 0.5
      ? 'was not throttled'
      : `was throttled ${fmtNum(u.throttledMsPerSec)} ms per second${share}`;
  return `${head} At its ${cpuLabel(c.cpuMillis)} cap it used ${fmtPct(u.cpuPctOfCap!)} of the cap and ${thr}.`;
}

/** How memory and CPU are judged, in one paragraph (the HTML report's method and the README quote it). */
export function sizingMethodText(marginPct: number): string {
  return (
    "How memory and CPU were sized: peak memory is the cgroup's own high-water mark over the container's " +
    'life (cgroup v1 max_usage; v2 memory.peak where readable), page cache included, because the cap is ' +
    'charged with it; where the engine has no peak, the highest 1 Hz reading. ' +
    "The cgroup's peak misses the image's files that earlier containers already cached, which a fresh " +
    "deployment must load again, so where the run read each server process's resident memory (this machine's " +
    'engine) the limit is based on the larger of the two, file-backed pages counted once. ' +
    'Memory per worker is the least-squares slope of peak memory against the worker count at the same mode, ' +
    'CPU and memory cap, with its 95 % interval. ' +
    `The memory limit: ${MEMORY_LIMIT_RULE}. ` +
    'Across the memory caps of the matrix, a cap ran clean without an OOM kill, restarts, more than ' +
    `${MAX_ERROR_PCT} % failed requests, or goodput or p99 worse than the largest clean cap by more than ` +
    `${fmtMargin(marginPct)} % (one-sided Welch's t-test, Holm-corrected over the caps); goodput lost that ` +
    'way with no OOM kill is GC pressure. ' +
    'The CPU request is the smallest CPU cap that meets the objective, or without one that is not ' +
    `significantly more than ${fmtMargin(marginPct)} % below the best goodput over the CPU caps; throttling ` +
    'is the time the CFS quota held the cap back.'
  );
}

/** The memory and CPU sentences of the recommended configurations (part of `explain`'s words). */
export function recommendedSizingSentences(rec: Omit<Recommendation, 'words' | 'sizingWords'>): string[] {
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1;
  const sized = (rec.sizing ?? []).filter((x) => x.recommended);
  return sized.flatMap((x) => sizingSentences(x, byKey, rec.slo, rec.marginPct, withContext || sized.length > 1));
}

/**
 * Which of the words are about memory and CPU (the sizing sentences and how they were judged): the
 * UI shows them with the sizing evidence, below the table, so that the answer's first screen stays short.
 */
export function sizingWordsOf(rec: Omit<Recommendation, 'words' | 'sizingWords'>): string[] {
  if (rec.run.cellsIncluded === 0) return [];
  const method = (rec.sizing ?? []).some((x) => x.recommended) ? [sizingMethodText(rec.marginPct)] : [];
  return [...recommendedSizingSentences(rec), ...method];
}
