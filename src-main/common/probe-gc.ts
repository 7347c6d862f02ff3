// The probe listens for GC pauses only part of each second (launchers/probe.js: each pause it hears
// costs the process a callback), so a GC share is the pauses over the time it listened, never over
// the second. One rule, used by the analysis, the charts and the CSV.
import type { ProbeSecond } from '../model/probe.ts';

type GcSecond = Pick<ProbeSecond, 'gcMs' | 'gcWindowMs' | 'ms'>;

/** How long of this second the probe listened for GC, ms (a record without a window listened the whole second). */
export const gcWindowOf = (s: GcSecond): number => s.gcWindowMs ?? s.ms ?? 1000;

/** Share of time in GC pauses, 0–1, over the seconds' listening windows; null when it listened to none. */
export function gcShareOf(seconds: readonly GcSecond[]): number | null {
  let ms = 0;
  let window = 0;
  for (const s of seconds) {
    ms += s.gcMs;
    window += gcWindowOf(s);
  }
  return window > 0 ? Math.min(1, ms / window) : null;
}
