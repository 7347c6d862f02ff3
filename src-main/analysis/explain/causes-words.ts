// One line of cause per decision, computed from the runtime summaries (causes.ts): why a CPU / memory
// pair's pick beat its rivals, what a tighter memory cap cost in GC, whether the server agrees that a
// cell was client-bound. Each rule below is a threshold on measured numbers (common/thresholds.ts),
// and its words give them.
// No summary (no probe seconds): no line. Nothing beyond a threshold: no line.
import { fmtMb, fmtNum, fmtPct, fmtRatio, fmtUs } from '../../common/format.ts';
import { cpuLabel, memLabel } from '../../common/resource-labels.ts';
import {
  GC_NOTABLE,
  GC_RATIO,
  IMBALANCE_MIN_ELU,
  IMBALANCE_RATIO,
  LATENCY_GROWTH,
  OFF_LOOP_ELU,
  OFF_LOOP_WAIT_RATIO,
  OVERSUBSCRIBED_ELU_DROP,
  SATURATED_ELU,
  SWITCH_RISE,
  THROTTLE_RISE,
  THROTTLED_PERIOD_SHARE,
  WAIT_RATIO,
  WAIT_RISE,
} from '../../common/thresholds.ts';
import { type RuntimeSummary, saturation, serverAgreesClientBound } from './causes.ts';
import { who } from '../names.ts';
import type { CauseKind } from '../types.ts';

export type { CauseKind };

/** One line of cause, about the configuration `key`. */
export interface CauseLine {
  kind: CauseKind;
  key: string;
  text: string;
}

const pct = (share: number): string => fmtPct(share * 100);
const times = (r: number): string => `${fmtRatio(Math.round(r * 10) / 10)}×`;
/** ELU as the probe gives it, 0–1, to two decimals at most: "0.1", "0.12". */
const eluText = (elu: number): string => fmtRatio(Math.round(elu * 100) / 100);
const loops = (s: RuntimeSummary): string => (s.perWorker.length === 1 ? 'event loop' : 'event loops');
const onCpu = (s: RuntimeSummary): string => `${who(s)} on ${cpuLabel(s.cpuMillis)}`;
const ORDINAL = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

/** "the second worker adds", "the 12th worker adds", "the 3 more workers add". */
function addedWorkers(more: RuntimeSummary, fewer: RuntimeSummary): string {
  const extra = more.workers - fewer.workers;
  if (extra > 1) return `the ${extra} more workers add`;
  return `the ${ORDINAL[more.workers - 1] ?? `${fmtNum(more.workers)}th`} worker adds`;
}

/**
 * More workers than CPUs, against a configuration with fewer: the loops busy far longer than the CPU
 * time they got (they waited their turn), or each loop busy less with throttling or involuntary
 * switches up. "2 cluster workers on 1 CPU: each event loop busy ~94 %, together 2.1× the CPU time
 * they got (1 cluster worker: 1×), so 52 % of their busy time was waiting for the CPU: the second
 * worker adds switching, not capacity"; "…: each event loop busy ~50 %, throttled in 30 % of periods,
 * 3× the involuntary context switches of 1 cluster worker: …".
 */
export function oversubscribedCause(more: RuntimeSummary, fewer: RuntimeSummary): CauseLine | null {
  if (more.workers <= fewer.workers || more.workers * 1000 <= more.cpuMillis) return null;
  const [waited, alone] = [more.busyPerCpu, fewer.busyPerCpu];
  const waits = waited !== null && alone !== null && waited >= WAIT_RATIO && waited >= alone * WAIT_RISE;
  const eachLessBusy = more.elu <= fewer.elu * OVERSUBSCRIBED_ELU_DROP;
  const throttle =
    more.throttledShare !== null &&
    more.throttledShare >= THROTTLED_PERIOD_SHARE &&
    more.throttledShare - (fewer.throttledShare ?? 0) >= THROTTLE_RISE;
  const [mine, theirs] = [more.involuntaryPerSec, fewer.involuntaryPerSec];
  const switches = mine !== null && theirs !== null && mine > 0 && mine >= theirs * SWITCH_RISE;
  if (!waits && !(eachLessBusy && (throttle || switches))) return null;
  const parts = [`each event loop busy ~${pct(more.elu)}`];
  if (waits)
    parts.push(
      `together ${times(waited!)} the CPU time they got (${who(fewer)}: ${times(alone!)}), so ` +
        `${pct(1 - 1 / waited!)} of their busy time was waiting for the CPU`,
    );
  if (throttle) parts.push(`throttled in ${pct(more.throttledShare!)} of periods`);
  if (switches)
    parts.push(
      theirs! > 0
        ? `${times(mine! / theirs!)} the involuntary context switches of ${who(fewer)}`
        : `${fmtNum(mine!)} involuntary context switches a second against none for ${who(fewer)}`,
    );
  return {
    kind: 'oversubscribed',
    key: more.key,
    text: `${onCpu(more)}: ${parts.join(', ')}: ${addedWorkers(more, fewer)} switching, not capacity`,
  };
}

/**
 * Event loops mostly idle while requests wait: the work queues outside the loop. "pbkdf2: event
 * loops mostly idle (ELU 0.1) while latency grows (p99 12 ms → 40 ms): the work queues outside the
 * event loop (libuv pool, UV_THREADPOOL_SIZE=1)".
 */
export function offLoopCause(s: RuntimeSummary): CauseLine | null {
  if (s.p99Us === null || s.perWorker.some((w) => w.elu >= OFF_LOOP_ELU)) return null;
  const g = s.p99Growth;
  const grows = g !== null && g.fromUs > 0 && g.toUs >= g.fromUs * LATENCY_GROWTH;
  const waits = s.delayP99Ms > 0 && s.p99Us >= s.delayP99Ms * 1000 * OFF_LOOP_WAIT_RATIO;
  if (!grows && !waits) return null;
  const cpu = s.cpuPct === null ? '' : `, CPU at ${fmtPct(s.cpuPct)} of the cap`;
  const latency = grows
    ? `latency grows (p99 ${fmtUs(g!.fromUs)} → ${fmtUs(g!.toUs)})`
    : `requests wait (p99 ${fmtUs(s.p99Us)} against ${fmtUs(s.delayP99Ms * 1000)} of event-loop delay)`;
  const pool = s.threadpool === null ? 'UV_THREADPOOL_SIZE unset: 4 threads' : `UV_THREADPOOL_SIZE=${s.threadpool}`;
  return {
    kind: 'off-loop',
    key: s.key,
    text:
      `${s.app}: ${loops(s)} mostly idle (ELU ${eluText(s.elu)}${cpu}) while ${latency}: ` +
      `the work queues outside the event loop (libuv pool, ${pool})`,
  };
}

/** The busiest worker's heap against its limit: "heap up to 92 % of its 120 MB limit". */
function heapWords(s: RuntimeSummary): string {
  const w = s.perWorker.reduce((a, b) => (b.heapUsedPeakBytes > a.heapUsedPeakBytes ? b : a));
  return w.heapLimitBytes > 0
    ? `heap up to ${pct(w.heapUsedPeakBytes / w.heapLimitBytes)} of its ${fmtMb(w.heapLimitBytes)} limit`
    : `heap up to ${fmtMb(w.heapUsedPeakBytes)}`;
}

/**
 * GC pauses are timed on the wall clock: a pause the CFS quota cut into counts its throttled time too, so a
 * throttled configuration's GC share reads high, and the line says so.
 */
const gcClock = (s: RuntimeSummary): string =>
  s.throttled ? '; the container was throttled, and a pause counts the time it was held off the CPU too' : '';

/** A configuration's own GC share, when notable: "at 256 MB, GC took 12 % of the time (heap up to …)". */
export function gcCause(s: RuntimeSummary): CauseLine | null {
  if (s.gcShare < GC_NOTABLE) return null;
  return {
    kind: 'gc-pressure',
    key: s.key,
    text: `at ${memLabel(s.memoryMb)}, GC took ${pct(s.gcShare)} of the time (${heapWords(s)}${gcClock(s)})`,
  };
}

/**
 * The memory caps of one configuration (same everything but the memory cap): the tighter cap with the
 * most GC against the largest cap. "at 128 MB, GC took 18 % of the time against 3 % at 512 MB".
 */
export function memoryCapCause(caps: readonly (RuntimeSummary | null)[]): CauseLine | null {
  const known = caps.filter((c): c is RuntimeSummary => c !== null).sort((a, b) => a.memoryMb - b.memoryMb);
  const largest = known[known.length - 1];
  if (!largest || known.length < 2) return null;
  const worst = known.slice(0, -1).reduce((a, b) => (b.gcShare > a.gcShare ? b : a));
  if (worst.gcShare < GC_NOTABLE || worst.gcShare < largest.gcShare * GC_RATIO) return null;
  return {
    kind: 'gc-pressure',
    key: worst.key,
    text:
      `at ${memLabel(worst.memoryMb)}, GC took ${pct(worst.gcShare)} of the time against ` +
      `${pct(largest.gcShare)} at ${memLabel(largest.memoryMb)} (${heapWords(worst)}${gcClock(worst)})`,
  };
}

/** One worker with most of the work: "2 cluster workers: the busiest event loop busy 80 %, the least 20 %: …". */
export function imbalanceCause(s: RuntimeSummary): CauseLine | null {
  const im = s.imbalance;
  if (!im || im.busiestElu < IMBALANCE_MIN_ELU || im.busiestElu < im.leastElu * IMBALANCE_RATIO) return null;
  const why = s.mode === 'cluster' || s.mode === 'pm2' ? ': cluster scheduling spread the connections unevenly' : '';
  return {
    kind: 'imbalance',
    key: s.key,
    text:
      `${who(s)}: the busiest event loop busy ${pct(im.busiestElu)}, the least ${pct(im.leastElu)}, so one ` +
      `worker had ${pct(im.busiestShare)} of all event-loop busy time${why}`,
  };
}

/** What held the server at its ceiling: busy loops, a throttled container, with CPU where measured. */
function ceilingWords(s: RuntimeSummary): string {
  const parts = [`${loops(s)} busy ${pct(s.elu)}`];
  if (s.throttledShare !== null) parts.push(`throttled in ${pct(s.throttledShare)} of periods`);
  else if (s.throttled) parts.push('throttled');
  if (s.cpuPct !== null) parts.push(`CPU at ${fmtPct(s.cpuPct)} of the cap`);
  return parts.join(', ');
}

/** The server at its ceiling: "1 cluster worker on 1 CPU: event loop busy 97 %, CPU at 99 % of the cap: …". */
export function saturatedCause(s: RuntimeSummary): CauseLine | null {
  const sat = saturation(s);
  if (!sat.saturated) return null;
  const verdict = sat.busyLoops ? 'the server was saturated' : 'the CPU cap held the server back';
  return { kind: 'saturated', key: s.key, text: `${onCpu(s)}: ${ceilingWords(s)}: ${verdict}` };
}

/**
 * A cell flagged client-bound, checked from the server side: every event loop with headroom agrees
 * (the load generator set the pace); the server at its ceiling too does not (both were saturated).
 */
export function clientBoundCause(s: RuntimeSummary | null): CauseLine | null {
  const agrees = serverAgreesClientBound(s);
  if (!s || !s.clientBound || agrees === null) return null;
  const thread =
    s.clientElu === null ? 'a load thread was at its ceiling' : `a load thread was busy ${pct(s.clientElu)}`;
  if (agrees) {
    const busiest = s.perWorker[0]!.elu;
    return {
      kind: 'client-bound',
      key: s.key,
      text:
        `client-bound: ${thread} while every event loop had headroom (the busiest ${pct(busiest)}, below ` +
        `${pct(SATURATED_ELU)}): the load generator set the pace, so the server may be faster`,
    };
  }
  return {
    kind: 'not-client-bound',
    key: s.key,
    text:
      `not client-bound: ${thread}, but the server was at its ceiling too (${ceilingWords(s)}): both were ` +
      'saturated, so the goodput is about what the server gives',
  };
}

/**
 * The one line of cause for a CPU / memory pair's pick against its rivals, the first that holds:
 * the client-bound check of the pick; a rival oversubscribed beyond the pick (the one with the fewest
 * workers); the pick's work off the loop; its GC; uneven workers (the pick's, else a rival's); the
 * pick saturated. null: no probe seconds for the pick, or nothing stands out.
 */
export function pairCause(pick: RuntimeSummary | null, rivals: readonly (RuntimeSummary | null)[]): CauseLine | null {
  if (!pick) return null;
  const others = rivals.filter((r): r is RuntimeSummary => r !== null && r.key !== pick.key);
  const over = others
    .filter((r) => r.workers > pick.workers)
    .sort((a, b) => a.workers - b.workers)
    .map((r) => oversubscribedCause(r, pick));
  return (
    clientBoundCause(pick) ??
    over.find((l) => l !== null) ??
    offLoopCause(pick) ??
    gcCause(pick) ??
    [pick, ...others].map(imbalanceCause).find((l) => l !== null) ??
    saturatedCause(pick)
  );
}
