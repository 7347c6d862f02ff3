// What a configuration's memory reached: a cell's peak (and where it came from), and what a fresh
// deployment needs once the pages of the image's files that earlier containers cached are counted.
import { fmtMb } from '../../common/format.ts';
import type { StoredCell } from '../../model/stored.ts';
import type { FreshMeasure, FreshNeed, PeakSource } from '../types.ts';

export type { FreshMeasure, FreshNeed };

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
