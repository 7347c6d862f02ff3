// Memory in the answer: the peak a configuration reached, what each worker adds, the limit to
// deploy with, and what the matrix's memory caps showed (OOM kills, restarts, GC pressure). Pure
// functions of a stored run's cells and the grouped configurations.
import { fmtNum } from '../common/format.ts';
import type { StoredCell } from '../model/stored.ts';
import { configurationKey, MAX_ERROR_PCT, memLabel } from './group.ts';
import { ALPHA, estimateOf, holm, mean, summarize, tQuantile, welch, type MetricStats } from './stats.ts';
import type { ConfigurationSummary, MemoryCap, MemoryOutcome, MemorySizing, PeakSource, WorkerSlope } from './types.ts';

/** The recommended limit is the peak times this… */
export const MEMORY_HEADROOM = 1.25;
/** …rounded up to a multiple of this many MB (MiB, as Docker's `--memory 256m` and Kubernetes' `256Mi` count). */
export const MEMORY_ROUND_MB = 32;
/** The rule in words, as the answer states it. */
export const MEMORY_LIMIT_RULE = `limit = what a fresh deployment needs (the larger of the cgroup's peak and the processes' resident memory, file-backed pages counted once) × ${MEMORY_HEADROOM} rounded up to a multiple of ${MEMORY_ROUND_MB} MB, raised to the smallest clean cap when the matrix saw a cap at or above that fail`;

const MIB = 1024 * 1024;

/** Bytes as the caps are written: "182 MB" (MiB, like "256 MB" of a cap); one decimal below 10. */
export const fmtMb = (bytes: number): string => `${fmtNum(bytes / MIB, Math.abs(bytes) < 10 * MIB ? 1 : 0)} MB`;

/**
 * peak × MEMORY_HEADROOM, rounded up to MEMORY_ROUND_MB (MB). The peak: what a fresh deployment needs
 * (FreshNeed.bytes), or a cgroup peak where that is all there is.
 */
export function limitFromPeak(peakBytes: number): number {
  return Math.max(MEMORY_ROUND_MB, Math.ceil((peakBytes * MEMORY_HEADROOM) / MIB / MEMORY_ROUND_MB) * MEMORY_ROUND_MB);
}

/**
 * A cell's peak memory and its source. New cells carry the cgroup's own peak (page cache included,
 * over the container's whole life); older ones only the highest 1 Hz reading after warmup without
 * inactive page cache ('legacy'), which can miss a short spike.
 */
export function cellPeak(c: StoredCell): { bytes: number; source: Exclude<PeakSource, 'mixed'> } | null {
  const s = c.stats;
  if (s?.memPeakBytes !== undefined && s.memPeakBytes > 0)
    return { bytes: s.memPeakBytes, source: s.memPeakSource ?? 'samples' };
  const legacy = s?.memMaxBytes ?? c.memMaxBytes;
  return legacy != null && legacy > 0 ? { bytes: legacy, source: 'legacy' } : null;
}

/** Which measure set what a fresh deployment needs: the cgroup's peak, or the processes' resident memory. */
export type FreshMeasure = 'cgroup' | 'rss';

/**
 * What a fresh deployment of a configuration needs, and the per-process figures PM2's
 * `max_memory_restart` and V8's `--max-old-space-size` are set from. Bytes; the highest over the
 * repetitions that recorded each.
 *
 * Why not the cgroup's peak alone: a page is charged to the cgroup that first touched it, so the
 * node binary and libraries that earlier containers of the same image already read are charged
 * elsewhere, and a warm machine's peak leaves them out (hello: 11 MB single, 27 MB cluster ×2,
 * 46 MB pm2 ×2). A fresh pod reads them itself and is charged for them: on a fresh node binary
 * (never cached) hello single did not come up within 12 s under a 32 MB cap (the limit its 11 MB
 * peak gave) nor cluster ×2 under 48 MB nor pm2 ×2 under 64 MB (the limit its 46 MB peak gave) —
 * thrashing on the binary's pages, thousands of major faults, no OOM kill — and came up promptly
 * from 64, 64-80 and 96 MB (pm2 ×2 at 80 MB: after 2-10 s of thrashing).
 *
 * Which resident figure: RSS with file-backed pages counted once — Σ per process max(RssAnon,
 * VmHWM − RssFile) + the largest RssFile (engine/process-memory.ts). Summed RSS counts the
 * ~35-40 MB of node binary and libraries once per process although a pod holds those pages once
 * (hello cluster ×2: 137 MB summed against 64 MB once, and 64 MB is where it ran); summed PSS divides shared pages
 * among
 * every process mapping them, other containers and the host included, so on a warm machine it
 * undercounts (55 MB; in a fresh pod, where only its own processes share them, PSS equals the
 * counted-once figure: 63.5 against 63.4 MB). Counted once, with the headroom, the limits came out
 * at 64 (single), 96 (cluster ×2) and 128 MB (pm2 ×2), each where a fresh pod came up promptly;
 * summed RSS would have asked for 64, 192 and 224 MB.
 *
 * There is no heap figure: the V8 heap cannot be told apart from other anonymous memory from
 * outside the process; `processMaxAnonBytes` (heap, stacks, malloc) bounds it from above.
 */
export interface FreshNeed {
  /** What a fresh deployment needs: the larger of `cgroupPeakBytes` and `rssBytes`. */
  bytes: number;
  /** Which of the two it is ('cgroup' also where process memory was not measured). */
  measure: FreshMeasure;
  /** The configuration's peak as cellPeak gives it (cgroup high-water mark, or older cells' highest reading). */
  cgroupPeakBytes: number | null;
  /** The processes' resident memory, file-backed pages counted once; null where not measured. */
  rssBytes: number | null;
  /** Each process's RSS high-water mark summed, as `ps` and PM2 show them (shared pages counted in every process). */
  rssSummedBytes: number | null;
  /** The processes' PSS summed (an undercount on a warm machine; see above). */
  pssBytes: number | null;
  /**
   * The largest RSS high-water mark of one serving process (a worker; the primary where there is none): what PM2's
   * `max_memory_restart` is checked against, per process.
   */
  processMaxRssBytes: number | null;
  /**
   * The largest anonymous resident memory of one serving process: heap, stacks and allocations, file-backed pages left
   * out.
   */
  processMaxAnonBytes: number | null;
  /** The PM2 daemon's own RSS (pm2 mode): in the limit, never checked by `max_memory_restart`. */
  pm2DaemonRssBytes: number | null;
  /** Processes in the repetition with the most resident memory. */
  processes: number | null;
  /** Repetitions with process readings, of all those with a peak or readings. */
  measuredRepetitions: number;
  repetitions: number;
  /** Why process memory is missing ("not measured: …"), null when every repetition has it. */
  notMeasured: string | null;
}

const maxOf = (xs: readonly (number | null | undefined)[]): number | null => {
  const v = xs.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return v.length ? Math.max(...v) : null;
};

/** One cell's fresh need (see FreshNeed); null without a peak or process readings. */
export function cellFreshNeed(c: StoredCell): FreshNeed | null {
  return freshNeed([c]);
}

/**
 * What a fresh deployment of the configuration these cells repeat needs (see FreshNeed); null when none has a peak or
 * process readings.
 */
export function freshNeed(cells: readonly StoredCell[]): FreshNeed | null {
  const per = cells
    .map((c) => {
      const s = c.stats;
      const procs = s?.processes?.length ? s.processes : null;
      const serving = procs
        ? procs.some((p) => p.role === 'worker')
          ? procs.filter((p) => p.role === 'worker')
          : procs.filter((p) => p.role === 'primary')
        : [];
      return {
        peak: cellPeak(c)?.bytes ?? null,
        rss: procs ? (s!.rssSharedOncePeakBytes ?? s!.rssTotalPeakBytes ?? null) : null,
        summed: procs ? (s!.rssTotalPeakBytes ?? null) : null,
        pss: procs ? (s!.pssTotalBytes ?? null) : null,
        processMax: maxOf(serving.map((p) => p.rssPeakBytes)),
        anonMax: maxOf(serving.map((p) => p.anonPeakBytes)),
        daemon: procs ? maxOf(procs.filter((p) => p.role === 'pm2-daemon').map((p) => p.rssPeakBytes)) : null,
        count: procs ? procs.length : null,
        why: s?.processesNotMeasured ?? null,
      };
    })
    .filter((x) => x.peak !== null || x.rss !== null);
  if (per.length === 0) return null;
  const cgroupPeakBytes = maxOf(per.map((x) => x.peak));
  const rssBytes = maxOf(per.map((x) => x.rss));
  const measured = per.filter((x) => x.rss !== null);
  const top = measured.length ? measured.reduce((a, b) => (b.rss! > a.rss! ? b : a)) : null;
  const missing = per.length - measured.length;
  const why = [
    ...new Set(per.filter((x) => x.rss === null).map((x) => x.why ?? 'the cell predates process memory readings')),
  ];
  return {
    bytes: Math.max(cgroupPeakBytes ?? 0, rssBytes ?? 0),
    measure: rssBytes !== null && rssBytes > (cgroupPeakBytes ?? 0) ? 'rss' : 'cgroup',
    cgroupPeakBytes,
    rssBytes,
    rssSummedBytes: maxOf(per.map((x) => x.summed)),
    pssBytes: maxOf(per.map((x) => x.pss)),
    processMaxRssBytes: maxOf(per.map((x) => x.processMax)),
    processMaxAnonBytes: maxOf(per.map((x) => x.anonMax)),
    pm2DaemonRssBytes: maxOf(per.map((x) => x.daemon)),
    processes: top?.count ?? null,
    measuredRepetitions: measured.length,
    repetitions: per.length,
    notMeasured:
      missing === 0
        ? null
        : `not measured${per.length > 1 ? ` in ${missing} of ${per.length} repetitions` : ''}: ${why.join('; ')}`,
  };
}

/** The measure in words, for the answer and the snippets' comments. */
export const FRESH_MEASURE_WORDS: Record<FreshMeasure, string> = {
  rss: "the processes' resident memory (RSS, file-backed pages counted once)",
  cgroup: "the cgroup's peak",
};

/**
 * What a fresh deployment needs, in one phrase: "64 MB, the processes' resident memory (RSS, file-backed
 * pages counted once: 3 processes); the cgroup's peak, 27 MB, leaves out the image's files that
 * earlier containers had already cached".
 */
export function freshNeedText(f: FreshNeed): string {
  const head = `${fmtMb(f.bytes)}, ${FRESH_MEASURE_WORDS[f.measure]}`;
  if (f.measure === 'rss') {
    const n = f.processes !== null ? `: ${f.processes} process${f.processes === 1 ? '' : 'es'}` : '';
    const peak =
      f.cgroupPeakBytes !== null
        ? `; the cgroup's peak, ${fmtMb(f.cgroupPeakBytes)}, leaves out the image's files that earlier containers had already cached`
        : '';
    return `${head.replace(/\)$/, '')}${n})${peak}`;
  }
  if (f.rssBytes !== null)
    return `${head} (the processes' resident memory, file-backed pages counted once, was ${fmtMb(f.rssBytes)})`;
  return `${head} (process memory ${f.notMeasured ?? 'not measured'}; a fresh deployment may need more: pages of the image's files already cached by earlier containers are charged elsewhere)`;
}

/**
 * Cells whose memory counts: every one that finished 'ok' (an unstable repetition's memory is still real), by
 * configuration key.
 */
export function finishedCellsByKey(cells: readonly StoredCell[]): Map<string, StoredCell[]> {
  const out = new Map<string, StoredCell[]>();
  for (const c of cells) {
    // A verification cell ran under the snippet's own limits: evidence for the snippet, not for sizing.
    if (c.status !== 'ok' || c.config.phase === 'verify') continue;
    const k = configurationKey(c.config);
    const list = out.get(k);
    if (list) list.push(c);
    else out.set(k, [c]);
  }
  return out;
}

/**
 * Ordinary least squares of y on x with the slope's 95 % interval (Student's t, n − 2 df). Written
 * here rather than taken from simple-statistics, whose linearRegression gives the point estimate
 * but not the slope's standard error, which is the part that matters; stats.ts already has the t
 * distribution, and this module is bundled into the renderer. Null below two distinct x.
 */
export function leastSquares(
  points: readonly { x: number; y: number }[],
): { slope: number; intercept: number; halfWidth: number | null; n: number } | null {
  const n = points.length;
  if (n < 2 || new Set(points.map((p) => p.x)).size < 2) return null;
  const mx = mean(points.map((p) => p.x));
  const my = mean(points.map((p) => p.y));
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  if (n === 2) return { slope, intercept, halfWidth: null, n };
  const sse = points.reduce((a, p) => a + (p.y - intercept - slope * p.x) ** 2, 0);
  const se = Math.sqrt(sse / (n - 2) / sxx);
  return { slope, intercept, halfWidth: tQuantile(0.975, n - 2) * se, n };
}

/** Configurations that differ from `c` only in the worker count (same workload, load, mode, CPU and memory cap). */
const sameButWorkers = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.scopeKey === c.scopeKey && a.mode === c.mode;
/** …only in the memory cap. */
export const sameButMemory = (a: ConfigurationSummary, c: ConfigurationSummary): boolean =>
  a.app === c.app &&
  a.requestSet === c.requestSet &&
  JSON.stringify(a.load) === JSON.stringify(c.load) &&
  a.mode === c.mode &&
  a.workers === c.workers &&
  a.cpuMillis === c.cpuMillis;

/**
 * Memory per worker for `c`: the slope of every repetition's peak against its worker count, at c's mode, CPU and memory
 * cap.
 */
export function perWorkerSlope(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
): { slope: WorkerSlope | null; note: string | null } {
  if (c.mode === 'single') return { slope: null, note: 'a single process: no workers to add' };
  const family = all.filter((a) => sameButWorkers(a, c));
  const points = family.flatMap((a) =>
    (cells.get(a.key) ?? []).flatMap((cell) => {
      const p = cellPeak(cell);
      return p ? [{ x: a.workers, y: p.bytes }] : [];
    }),
  );
  const counts = [...new Set(points.map((p) => p.x))].sort((x, y) => x - y);
  if (counts.length < 2) {
    return {
      slope: null,
      note: `the matrix ran only ${counts.length ? `${counts[0]} worker${counts[0] === 1 ? '' : 's'}` : 'this'} in ${c.mode} mode at this CPU and memory cap, so there is no slope`,
    };
  }
  const fit = leastSquares(points)!;
  return {
    slope: {
      bytesPerWorker: fit.slope,
      halfWidth: fit.halfWidth,
      baseBytes: fit.intercept,
      points: fit.n,
      workerCounts: counts,
      memoryMb: c.memoryMb,
      cpuMillis: c.cpuMillis,
    },
    note: null,
  };
}

/** "in 2 of 3 repetitions", "in its one repetition". */
const inReps = (k: number, n: number): string => (n === 1 ? 'in its one repetition' : `in ${k} of ${n} repetitions`);

/** What ended a cap's repetitions, before any test: an OOM kill, restarts, failed requests or nothing finished. */
function hardOutcome(a: ConfigurationSummary): { outcome: MemoryOutcome; detail: string } | null {
  const all = a.n + a.excluded.length;
  const oom =
    a.excluded.filter((e) => e.status === 'oom').length + (a.flags.find((f) => f.kind === 'oom-killed')?.cells ?? 0);
  if (oom > 0) return { outcome: 'oom', detail: `OOM-killed ${inReps(oom, all)}` };
  const restarts = a.flags.find((f) => f.kind === 'restarts');
  if (restarts) return { outcome: 'restarts', detail: `workers replaced ${inReps(restarts.cells, a.n)}` };
  if (a.errorPct !== null && a.errorPct > MAX_ERROR_PCT)
    return { outcome: 'errors', detail: `${fmtNum(a.errorPct, a.errorPct < 10 ? 1 : 0)} % of requests failed` };
  if (a.n === 0 || !a.rps || !a.p99Us)
    return {
      outcome: 'no-result',
      detail: `no repetition finished (${[...new Set(a.excluded.map((e) => e.reason))].join('; ') || 'not run'})`,
    };
  return null;
}

/**
 * One-sided Welch test that `x` is worse than `ref` by more than the margin: goodput below
 * (1 − m) × ref, or p99 above (1 + m) × ref. Means only, when a side has no interval.
 */
function penaltyTest(
  x: MetricStats,
  ref: MetricStats,
  marginPct: number,
  lowerIsWorse: boolean,
): { p: number | null; worse: boolean } {
  const share = lowerIsWorse ? 1 - marginPct / 100 : 1 + marginPct / 100;
  const a = estimateOf(x);
  const b = estimateOf(ref);
  if (!a || !b) return { p: null, worse: lowerIsWorse ? x.mean < ref.mean * share : x.mean > ref.mean * share };
  const t = welch(a, b, share);
  // With a test, `worse` is decided on the Holm-adjusted p by the caller.
  return { p: lowerIsWorse ? t.pBelow : t.pAbove, worse: false };
}

/**
 * The memory dimension of the matrix for `c`: each cap tried for the same workload, load, mode,
 * workers and CPU, judged against the largest cap that ran clean. A tighter cap that lost goodput or
 * p99 beyond the margin, significantly (one-sided Welch, Holm-adjusted over the caps tested), with no
 * OOM kill or restart, shows GC pressure (goodput) or a latency penalty (p99).
 */
export function memoryCaps(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
  marginPct: number,
): {
  caps: MemoryCap[];
  referenceMb: number | null;
  smallestCleanMb: number | null;
  failedAtMb: number | null;
  failedOutcome: MemoryOutcome | null;
} {
  const family = all.filter((a) => sameButMemory(a, c)).sort((a, b) => a.memoryMb - b.memoryMb);
  const hard = family.map(hardOutcome);
  const refIndex = hard
    .map((h, i) => (h === null ? i : -1))
    .filter((i) => i >= 0)
    .pop();
  const ref = refIndex === undefined ? undefined : family[refIndex]!;
  // Tests against the reference for every clean cap below it, Holm-adjusted per metric over those caps.
  const tested = family.map((a, i) => (ref && hard[i] === null && a !== ref ? i : -1)).filter((i) => i >= 0);
  const rpsTests = tested.map((i) => penaltyTest(family[i]!.rps!, ref!.rps!, marginPct, true));
  const p99Tests = tested.map((i) => penaltyTest(family[i]!.p99Us!, ref!.p99Us!, marginPct, false));
  const adjust = (ts: { p: number | null }[]): (number | null)[] => {
    const withP = ts.map((t, i) => (t.p === null ? -1 : i)).filter((i) => i >= 0);
    const adj = holm(withP.map((i) => ts[i]!.p!));
    return ts.map((_, i) => (withP.includes(i) ? adj[withP.indexOf(i)]! : null));
  };
  const rpsP = adjust(rpsTests);
  const p99P = adjust(p99Tests);
  const caps: MemoryCap[] = family.map((a, i) => {
    const peaks = (cells.get(a.key) ?? []).map(cellPeak).filter((p) => p !== null);
    const peakBytes = peaks.length ? Math.max(...peaks.map((p) => p.bytes)) : null;
    const h = hard[i];
    if (h)
      return {
        memoryMb: a.memoryMb,
        outcome: h.outcome,
        detail: h.detail,
        peakBytes,
        rpsRatio: null,
        p99Ratio: null,
        pRps: null,
        pP99: null,
      };
    if (a === ref)
      return {
        memoryMb: a.memoryMb,
        outcome: 'ok',
        detail: family.length > 1 ? 'the largest clean cap: the reference' : 'ran clean',
        peakBytes,
        rpsRatio: null,
        p99Ratio: null,
        pRps: null,
        pP99: null,
      };
    const j = tested.indexOf(i);
    // Ratios stay finite (the HTTP transport's JSON has no Infinity): none against a zero reference.
    const rpsRatio = ref!.rps!.mean > 0 ? a.rps!.mean / ref!.rps!.mean : null;
    const p99Ratio = ref!.p99Us!.mean > 0 ? a.p99Us!.mean / ref!.p99Us!.mean : null;
    const pRps = rpsP[j]!;
    const pP99 = p99P[j]!;
    // A bound (client-bound, host-busy) below the reference says nothing of GC pressure: the server was at least that
    // fast.
    const rpsWorse = a.bottleneck !== null ? false : pRps !== null ? pRps <= ALPHA : rpsTests[j]!.worse;
    const p99Worse = pP99 !== null ? pP99 <= ALPHA : p99Tests[j]!.worse;
    const how = (p: number | null): string =>
      p === null ? 'on the means, no interval' : `Holm-adjusted p ${p < 0.001 ? '< 0.001' : fmtNum(p, 3)}`;
    const refName = memLabel(ref!.memoryMb);
    const base = { memoryMb: a.memoryMb, peakBytes, rpsRatio, p99Ratio, pRps, pP99 };
    if (rpsWorse)
      return {
        ...base,
        outcome: 'gc-pressure',
        detail: `goodput ${fmtNum((1 - (rpsRatio ?? 1)) * 100, 0)} % below ${refName} with no OOM kill or restart (${how(pRps)})`,
      };
    if (p99Worse)
      return {
        ...base,
        outcome: 'latency',
        detail: `p99 ${fmtNum(((p99Ratio ?? 1) - 1) * 100, 0)} % above ${refName} (${how(pP99)})`,
      };
    return {
      ...base,
      outcome: 'ok',
      detail: `no significant loss against ${refName} beyond ${fmtNum(marginPct, marginPct % 1 ? 1 : 0)} %`,
    };
  });
  // Walk down from the largest cap while it ran clean: the boundary is where it first did not.
  let smallestCleanMb: number | null = null;
  let failed: MemoryCap | null = null;
  for (const cap of [...caps].reverse()) {
    // nothing finished there (cancelled, failed to start): no evidence either way
    if (cap.outcome === 'no-result') continue;
    if (cap.outcome === 'ok') smallestCleanMb = cap.memoryMb;
    else {
      failed = cap;
      break;
    }
  }
  return {
    caps,
    referenceMb: ref?.memoryMb ?? null,
    smallestCleanMb,
    failedAtMb: failed?.memoryMb ?? null,
    failedOutcome: failed?.outcome ?? null,
  };
}

/** MemorySizing with what a fresh deployment needs (the limit's base). */
export type MemorySizingWithFresh = MemorySizing & { fresh: FreshNeed | null };

/**
 * Peak, memory per worker, the recommended limit and the memory caps' evidence for one
 * configuration. The limit is taken from what a fresh deployment needs (`fresh`): the peak where
 * the cells carry no process readings (older runs, targets whose processes are not visible here).
 */
export function memorySizing(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
  marginPct: number,
): MemorySizingWithFresh {
  const own = cells.get(c.key) ?? [];
  const peaks = own.map(cellPeak).filter((p) => p !== null);
  const fresh = freshNeed(own);
  const sources = new Set(peaks.map((p) => p.source));
  const peakBytes = peaks.length ? Math.max(...peaks.map((p) => p.bytes)) : null;
  const summary = peaks.length ? summarize(peaks.map((p) => p.bytes)) : null;
  const { slope, note } = perWorkerSlope(c, all, cells);
  const caps = memoryCaps(c, all, cells, marginPct);
  const need = fresh?.bytes ?? peakBytes;
  let limitMb = need === null ? null : limitFromPeak(need);
  let limitFrom: MemorySizing['limitFrom'] = limitMb === null ? null : 'peak';
  // The rule's value is not enough where the matrix saw a cap that large fail: take the smallest clean one above it.
  if (limitMb !== null && caps.failedAtMb !== null && caps.failedAtMb >= limitMb && caps.smallestCleanMb !== null) {
    limitMb = caps.smallestCleanMb;
    limitFrom = 'matrix';
  }
  return {
    peakBytes,
    peakMeanBytes: summary?.mean ?? null,
    peakHalfWidthBytes: summary?.ci?.halfWidth ?? null,
    peakSource: sources.size === 0 ? null : sources.size === 1 ? [...sources][0]! : 'mixed',
    repetitions: peaks.length,
    peakShareOfCap: peakBytes === null ? null : peakBytes / (c.memoryMb * MIB),
    perWorker: slope,
    perWorkerNote: note,
    limitMb,
    limitFrom,
    ...caps,
    fresh,
  };
}
