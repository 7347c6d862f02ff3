// What a configuration's memory reached: a cell's peak (and where it came from), and what a fresh
// deployment needs once the pages of the image's files that earlier containers cached are counted.
import { fmtMb } from '../common/format.ts';
import type { StoredCell } from '../model/stored.ts';
import type { PeakSource } from './types.ts';

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
        ? `; the cgroup's peak, ${fmtMb(f.cgroupPeakBytes)}, leaves out the image's files that earlier ` +
          'containers had already cached'
        : '';
    return `${head.replace(/\)$/, '')}${n})${peak}`;
  }
  if (f.rssBytes !== null)
    return `${head} (the processes' resident memory, file-backed pages counted once, was ${fmtMb(f.rssBytes)})`;
  return (
    `${head} (process memory ${f.notMeasured ?? 'not measured'}; a fresh deployment may need more: pages of ` +
    `the image's files already cached by earlier containers are charged elsewhere)`
  );
}
