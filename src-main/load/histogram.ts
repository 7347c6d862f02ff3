import * as hdr from 'hdr-histogram-js';
import type { LatencySummary } from '../model/types.ts';

/** Latency histogram in microseconds, 1 µs to 2 minutes at 3 significant digits: lossless percentiles. */
export type LatencyHistogram = hdr.Histogram;

export function newHistogram(): LatencyHistogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export function recordUs(h: LatencyHistogram, us: number): void {
  // Clamp instead of throwing: a 2-minute response is already a failed cell, and 0 µs cannot be stored.
  h.recordValue(Math.min(120_000_000, Math.max(1, Math.round(us))));
}

export function summarize(h: LatencyHistogram): LatencySummary {
  if (h.totalCount === 0) return { p50: 0, p75: 0, p90: 0, p97_5: 0, p99: 0, p99_9: 0, max: 0, mean: 0, stddev: 0 };
  const p = (q: number): number => h.getValueAtPercentile(q);
  return {
    p50: p(50),
    p75: p(75),
    p90: p(90),
    p97_5: p(97.5),
    p99: p(99),
    p99_9: p(99.9),
    max: h.maxValue,
    mean: h.mean,
    stddev: h.stdDeviation,
  };
}

/** A histogram as text for another thread: hdr-histogram-js's compressed encoding, lossless. */
export function encodeHistogram(h: LatencyHistogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** Adds an encoded histogram's counts to `into`: merging threads' histograms loses nothing. */
export function addEncoded(into: LatencyHistogram, encoded: string): void {
  into.add(hdr.decodeFromCompressedBase64(encoded));
}
