// CPU in the answer: the smallest CPU cap that meets the objective (with an SLO) or holds the
// throughput (without), from the matrix's CPU dimension, and the throttling seen at the cap.
import { fmtNum, fmtUs } from '../../common/format.ts';
import { throttledShare } from '../../common/throttled-share.ts';
import type { StoredCell } from '../../model/stored.ts';
import { decideCpuCaps } from '../decide/decide.ts';
import { sameBut } from '../decide/group.ts';
import { checkSlo } from '../decide/slo.ts';
import { mean } from '../decide/stats.ts';
import type { ConfigurationSummary, CpuCap, CpuSizing, Slo, SloCheck } from '../types.ts';

/** …only in the CPU cap (same workload, load, mode, workers and memory cap). */
export const sameButCpu = (a: ConfigurationSummary, c: ConfigurationSummary): boolean => sameBut('cpuMillis', a, c);

function missText(k: SloCheck): string {
  switch (k.criterion) {
    case 'p99':
      return `p99 ${fmtUs(k.value * 1000)} over the ${fmtNum(k.limit, k.limit % 1 ? 2 : 0)} ms limit`;
    case 'rps':
      return `${fmtNum(k.value)} req/s, short of ${fmtNum(k.limit)}`;
    case 'errors':
      return `${fmtNum(k.value, 2)} % of requests failed, above ${fmtNum(k.limit, 2)} %`;
  }
}

/**
 * Throttling at a configuration's own cap over its finished repetitions: CPU use as a share of the
 * cap, throttled ms per measured second, and the share of CFS periods throttled where the cells
 * recorded the period count (older cells did not).
 */
export function throttling(
  cells: readonly StoredCell[],
): Pick<CpuSizing, 'cpuPctOfCap' | 'throttledMsPerSec' | 'throttledShare'> {
  const withStats = cells.filter((c) => c.stats && c.load && c.load.measuredSec > 0);
  if (withStats.length === 0) return { cpuPctOfCap: null, throttledMsPerSec: null, throttledShare: null };
  const shares = withStats.flatMap((c) => throttledShare(c.stats!) ?? []);
  return {
    cpuPctOfCap: mean(withStats.map((c) => c.stats!.cpuPctMean)),
    throttledMsPerSec: mean(withStats.map((c) => c.stats!.throttledMs / c.load!.measuredSec)),
    throttledShare: shares.length ? mean(shares) : null,
  };
}

/**
 * The CPU dimension for `c`. With an SLO: the smallest cap whose means meet every limit. Without:
 * the smallest cap within the margin of the best goodput over the caps, as the contest judges it
 * (decide/decide.ts decideCpuCaps: the knee's test, Holm-corrected over the caps, across CPU caps
 * instead of worker counts); this reads that judgement and tests nothing itself. Disqualified caps
 * (errors, OOM) never qualify.
 */
export function cpuSizing(
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
  cells: Map<string, StoredCell[]>,
  marginPct: number,
  slo: Slo | null,
): CpuSizing {
  const family = all
    .filter((a) => sameButCpu(a, c) && a.n > 0 && a.rps && a.p99Us)
    .sort((a, b) => a.cpuMillis - b.cpuMillis);
  const decided = decideCpuCaps(
    family.filter((a) => a.disqualified.length === 0),
    marginPct,
  );
  const best = decided?.best;
  let evidence: CpuSizing['evidence'] = null;
  const caps: CpuCap[] = family.map((a) => {
    const ok = a.disqualified.length === 0;
    const checks = slo ? checkSlo(a, slo) : null;
    const meetsSlo = checks ? ok && checks.every((k) => k.ok) : null;
    // The contest's margin judgement of this cap against the best (the best is within by definition).
    const within = a === best || decided?.rivals.find((r) => r.key === a.key)?.within != null;
    const m = best && ok ? { within, means: !a.rps!.ci || !best.rps!.ci } : null;
    if (m && a !== best && !slo) evidence = m.means || evidence === 'means' ? 'means' : 'test';
    const miss = !ok
      ? a.disqualified.join(', ')
      : checks && !meetsSlo
        ? checks
            .filter((k) => !k.ok)
            .map(missText)
            .join(', ')
        : !slo && m && !m.within
          ? `goodput ${fmtNum(a.rps!.mean)} req/s, significantly ` +
            (a.cpuMillis > best!.cpuMillis
              ? `below the best (${fmtNum(best!.rps!.mean)} req/s) with more CPU`
              : `more than ${fmtNum(marginPct, marginPct % 1 ? 1 : 0)} % below the best ` +
                `(${fmtNum(best!.rps!.mean)} req/s)`)
          : null;
    return {
      cpuMillis: a.cpuMillis,
      meetsSlo,
      holdsThroughput: m ? m.within : ok ? null : false,
      rps: a.rps!.mean,
      p99Us: a.p99Us!.mean,
      miss,
    };
  });
  const fits = (x: CpuCap): boolean => (slo ? x.meetsSlo === true : x.holdsThroughput === true);
  const request = caps.find(fits) ?? null;
  const below = request ? (caps.filter((x) => x.cpuMillis < request.cpuMillis && !fits(x)).pop() ?? null) : null;
  return {
    requestMillis: request?.cpuMillis ?? null,
    basis: slo ? 'slo' : 'throughput',
    evidence: slo ? null : family.length > 1 ? (evidence ?? 'test') : null,
    caps,
    failedAtMillis: below?.cpuMillis ?? null,
    ...throttling(cells.get(c.key) ?? []),
  };
}
