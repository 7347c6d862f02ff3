import type { StatsSummary } from '../model/types.ts';

/**
 * The share of the enforcement periods a cgroup was busy in (the kernel counts only those) that it ran out of its
 * quota in; undefined where the periods were not counted or fewer than `minPeriods`.
 */
export function throttledShare(
  s: Pick<StatsSummary, 'throttledPeriods' | 'cpuPeriods'>,
  minPeriods = 1,
): number | undefined {
  const periods = s.cpuPeriods ?? 0;
  return periods >= minPeriods && periods > 0 ? s.throttledPeriods / periods : undefined;
}
