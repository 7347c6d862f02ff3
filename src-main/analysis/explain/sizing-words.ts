// The sentences about memory and CPU: the peak and where it came from, memory per worker, the limit
// and what raised it, the memory caps of the matrix, the CPU request and throttling, and the method.
import { causeSentence } from './answer-causes.ts';
import { fmtMargin, fmtMb, fmtPct } from '../../common/format.ts';
import { cpuLabel, memLabel, pairLabel } from '../../common/resource-labels.ts';
import { joinAnd } from '../../common/text.ts';
import { MAX_ERROR_PCT } from '../../common/thresholds.ts';
import { freshNeedText } from '../size/fresh-need.ts';
import { loadLabel, workloadLabel } from '../decide/group.ts';
import { limitFromPeak, MEMORY_HEADROOM, MEMORY_LIMIT_RULE, MEMORY_ROUND_MB } from '../size/memory.ts';
import { onWhat, who, whoContext, type WhoContext } from '../names.ts';
import { cpuSentence } from './cpu-words.ts';
import type {
  ConfigurationSummary,
  MemoryCap,
  MemoryOutcome,
  PeakSource,
  Recommendation,
  SearchAnswer,
  SearchConfig,
  SearchMemory,
  Sizing,
  Slo,
} from '../types.ts';

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

/** How each memory cap went, in a word or two (the UI's and the HTML report's labels). */
export const MEMORY_OUTCOME_WORDS: Record<MemoryOutcome, string> = {
  ok: 'clean',
  oom: 'OOM-killed',
  restarts: 'restarts',
  errors: 'errors',
  'gc-pressure': 'GC pressure',
  latency: 'latency penalty',
  'no-result': 'no result',
  undecided: 'undecided',
  misses: 'misses the objective',
};

/** "limit = peak × 1.25, rounded up to 32 MB" and what raised it, in words. */
export function limitText(s: Sizing): string {
  const m = s.memory;
  if (m.limitMb === null) return 'no memory limit: no peak was recorded';
  if (m.limitFrom === 'search' && m.search) return searchLimitText(m.limitMb, m.search);
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

/**
 * How an auto-size search came to the limit: the rule's number from the need it measured, and the
 * check at that number — the one source of every memory number the search's answer states.
 */
export function searchLimitText(limitMb: number, x: SearchMemory): string {
  const limit = memLabel(limitMb);
  const max = memLabel(x.boundsMaxMb);
  if (x.basisBytes === null || x.ruleMb === null)
    return `${limit}, the bounds' maximum: no peak was recorded at ${max}, so no smaller limit could be derived`;
  const basis =
    x.basisMeasure === 'rss'
      ? `what a fresh deployment needs at ${max} (the processes' resident memory), ${fmtMb(x.basisBytes)},`
      : `the peak at ${max}, ${fmtMb(x.basisBytes)},`;
  const step = x.stepMb ?? x.ruleMb;
  const rule =
    `${basis} × ${MEMORY_HEADROOM}, rounded up to a multiple of ${MEMORY_ROUND_MB} MB, is ${memLabel(x.ruleMb)}` +
    (step === x.ruleMb ? '' : `; the search's memory step at or above that is ${memLabel(step)}`);
  const cells = x.check ? `${x.check.cells} cell${x.check.cells === 1 ? '' : 's'}` : '';
  switch (x.reason) {
    case 'verified':
      return `${limit}: ${rule}, and ${cells} at ${limit} met the objective`;
    case 'check-undecided':
      return (
        `${limit}, the bounds' maximum: ${rule}, but the check at ${memLabel(step)} was undecided after ${cells}, ` +
        `so the search kept the ${max} it measured with`
      );
    case 'check-missed':
      return (
        `${limit}, the bounds' maximum: ${rule}, but at ${memLabel(step)} it did not meet the objective ` +
        `(${x.check!.outcome}), so the search kept the ${max} it measured with`
      );
    case 'not-below':
      return `${limit}, the bounds' maximum: ${rule}, not below it`;
    case 'not-checked':
    case 'no-peak':
      return (
        `${limit}, the bounds' maximum: ${rule}, but the budget ran out before ${memLabel(step)} could be ` +
        `checked, so the search kept the ${max} it measured with`
      );
  }
}

/** What the configurations of c's scope differ in, so its name says it ("1 container × …" beside replicas). */
const scopeContext = (c: ConfigurationSummary, byKey: Map<string, ConfigurationSummary>): WhoContext =>
  whoContext([...byKey.values()].filter((x) => x.scopeKey === c.scopeKey));

const PER_CONTAINER = 'per container';
const SPLIT_PROCESSES = (n: number): string =>
  `The processes' memory is read for the ${n} containers together: one container's is their even share, ` +
  "the image's files counted in each.";

/** How a replica's peak was had: "the largest replica's: " or "the total ÷ 2, no reading per replica: ". */
function replicaPeakFrom(s: Sizing): string {
  const r = s.memory.replicas;
  if (!r) return '';
  return r.from === 'replicas'
    ? "the largest replica's: "
    : `the ${r.count} containers' total ÷ ${r.count}, as no reading per replica was recorded: `;
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
  const ctx = scopeContext(c, byKey);
  return [...memorySentences(s, c, withContext, ctx), cpuSentence(s, c, slo, marginPct, ctx)];
}

/** The memory sentences of one recommended configuration of a matrix run: peak, limit, the caps' evidence. */
function memorySentences(s: Sizing, c: ConfigurationSummary, withContext: boolean, ctx?: WhoContext): string[] {
  const context = withContext ? ` (${workloadLabel(c.app, c.requestSet)}, ${loadLabel(c.load)})` : '';
  const name = `${who(c, ctx)} on ${onWhat(c)}${context}`;
  const m = s.memory;
  const r = m.replicas;
  const out: string[] = [];
  if (m.peakBytes !== null) {
    const reps = m.repetitions > 1 ? `, the highest of ${m.repetitions} repetitions` : '';
    // With replicas the fresh need is one container's: "67 MB per container, the processes' …".
    const need = m.fresh ? freshNeedText(m.fresh).replace(/^([^,]+),/, r ? `$1 ${PER_CONTAINER},` : '$1,') : '';
    const fresh =
      m.fresh?.measure === 'rss' ? ` A fresh deployment needs ${need}.${r ? ` ${SPLIT_PROCESSES(r.count)}` : ''}` : '';
    out.push(
      `Memory for ${name}: peak ${fmtMb(m.peakBytes)}${r ? ` ${PER_CONTAINER}` : ''} (${replicaPeakFrom(s)}` +
        `${PEAK_SOURCE_WORDS[m.peakSource!]}${reps}; ${fmtPct(m.peakShareOfCap! * 100)} of its cap)` +
        `${r?.totalPeakBytes ? `, ${fmtMb(r.totalPeakBytes)} for the ${r.count} together` : ''}; ` +
        `${perWorkerText(s)}.${fresh} Recommended memory limit: ${limitText(s)}` +
        `${r?.limitTotalMb ? ` ${PER_CONTAINER}, ${memLabel(r.limitTotalMb)} for the ${r.count} in total` : ''}.`,
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
        `clearly too small for ${who(c, ctx)}.`,
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
  return out;
}

/** How memory and CPU are judged, in one paragraph (the HTML report's method and docs/answer.md quote it). */
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
    "The deployed configuration's CPU request is the cap it was measured under and picked at, and every other " +
    'cap tried for it is said as an alternative; for any other configuration it is the smallest CPU cap that ' +
    `meets the objective, or without one that the contest keeps within ${fmtMargin(marginPct)} % of the best ` +
    "goodput over the CPU caps (not shown below it by one-sided Welch's t-tests, Holm-corrected); throttling " +
    'is the time the CFS quota held the cap back.'
  );
}

/** The memory and CPU sentences of the recommended configurations (part of `explain`'s words). */
export function recommendedSizingSentences(
  rec: Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>,
): string[] {
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1;
  const sized = (rec.sizing ?? []).filter((x) => x.recommended);
  return sized.flatMap((x) => sizingSentences(x, byKey, rec.slo, rec.marginPct, withContext || sized.length > 1));
}

/**
 * Which of the words are about memory and CPU (the sizing sentences and how they were judged): the
 * UI shows them with the sizing evidence, below the table, so that the answer's first screen stays short.
 */
export function sizingWordsOf(rec: Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>): string[] {
  if (rec.run.cellsIncluded === 0) return [];
  const method = (rec.sizing ?? []).some((x) => x.recommended) ? [sizingMethodText(rec.marginPct)] : [];
  // The runtime probe's memory readings of the picks stand with the sizing (they are also in the words).
  const measured = rec.causes.filter((c) => c.kind === 'memory').map(causeSentence);
  return [...recommendedSizingSentences(rec), ...measured, ...method];
}

/** What the answer's sizing words are made from (recommend()'s Recommendation before its words). */
type SizingInput = Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>;

/** The memory of an auto-size run's found configuration: its peak and the limit the search set, in one sentence. */
export function searchMemoryWords(found: SearchConfig, memoryFrom: SearchAnswer['memoryFrom'], sized?: Sizing): string {
  const m = sized?.memory;
  if (!sized || !m || m.limitFrom !== 'search' || !m.search) {
    // No cell of it finished, so nothing was sized: the search's memory as it set it.
    return memoryFrom === 'peak'
      ? `Memory for it: limit ${memLabel(found.memoryMb)}, from the measured peak by the memory rule, verified by a ` +
          'cell at that limit.'
      : `Memory for it: limit ${memLabel(found.memoryMb)}, the bounds' maximum, the most it was measured with.`;
  }
  const peak =
    m.peakBytes === null
      ? ''
      : `peak ${fmtMb(m.peakBytes)} at ${memLabel(found.memoryMb)} (${PEAK_SOURCE_WORDS[m.peakSource!]}); ` +
        `${perWorkerText(sized)}. `;
  return `Memory for it: ${peak}Recommended memory limit: ${limitText(sized)}.`;
}

/** One sizing statement, short, and how its number was derived (a reader shows the statement, folds the method). */
export interface SizingPart {
  /** "Memory: limit 256 MB per container". */
  statement: string;
  /** How the number was derived, in full. */
  method: string;
}

/** Each recommended configuration's memory and CPU as {statement, method}: the same numbers as the words. */
export function sizingParts(rec: SizingInput): SizingPart[] {
  if (rec.run.cellsIncluded === 0) return [];
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const sized = (rec.sizing ?? []).filter((x) => x.recommended);
  const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1 || sized.length > 1;
  return sized.flatMap((x) => {
    const c = byKey.get(x.key)!;
    const of = sized.length > 1 ? ` (${x.label})` : '';
    const limit = x.memory.limitMb;
    const s = rec.search?.found && rec.search.foundKey === x.key ? rec.search : null;
    const memory: SizingPart = {
      statement:
        limit === null
          ? `Memory${of}: no limit (no peak was recorded)`
          : `Memory${of}: limit ${memLabel(limit)} per container` +
            (x.memory.replicas ? `, ${memLabel(limit * x.memory.replicas.count)} for ${x.memory.replicas.count}` : ''),
      method: s
        ? searchMemoryWords(s.found!, s.memoryFrom, x)
        : memorySentences(x, c, withContext, scopeContext(c, byKey)).join(' '),
    };
    return [memory, cpuPart(x, c, of, rec, s, scopeContext(c, byKey))];
  });
}

function cpuPart(
  x: Sizing,
  c: ConfigurationSummary,
  of: string,
  rec: SizingInput,
  s: SearchAnswer | null,
  ctx: WhoContext,
): SizingPart {
  const r = Math.max(1, c.replicas ?? 1);
  const forAll = (m: number): string => (r >= 2 ? `, ${cpuLabel(m * r)} for ${r}` : '');
  const u = x.cpu;
  if (s && u.searched) {
    const failed = u.caps.find((k) => k.cpuMillis === u.failedAtMillis);
    const lowest = u.caps[0]?.cpuMillis === u.requestMillis;
    return {
      statement: `CPU${of}: request = limit = ${cpuLabel(u.requestMillis!)} per container${forAll(u.requestMillis!)}`,
      method:
        `CPU: ${cpuLabel(u.requestMillis!)} is the smallest CPU cap the search found meeting ${s.objective} for ` +
        `${who(c)}${s.evidence ? ` (${s.evidence})` : ''}` +
        (failed
          ? `; at ${cpuLabel(failed.cpuMillis)}: ${failed.miss}.`
          : lowest
            ? '; it was the lowest cap tried.'
            : '.'),
    };
  }
  const statement =
    u.basis === 'pick'
      ? `CPU${of}: request = limit = ${cpuLabel(c.cpuMillis)} per container${forAll(c.cpuMillis)}, the cap it was ` +
        'measured under and picked at'
      : u.caps.length <= 1
        ? `CPU${of}: only ${cpuLabel(c.cpuMillis)} was tried`
        : u.requestMillis === null
          ? `CPU${of}: no request (no CPU cap tried ${rec.slo ? 'meets the objective' : 'holds the throughput'})`
          : `CPU${of}: request ${cpuLabel(u.requestMillis)} per container${forAll(u.requestMillis)}`;
  return { statement, method: cpuSentence(x, c, rec.slo, rec.marginPct, ctx) };
}
