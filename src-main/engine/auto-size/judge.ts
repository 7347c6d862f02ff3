// One configuration's cells against the objective, with proper statistics: p99 from batch means
// of the per-second p99s (consecutive seconds are autocorrelated, see analysis/decide/stats.ts; on a log
// scale, as latency is skewed) and the whole cell's p99 beside it, goodput
// from batch means of the per-second goodput, failed requests pooled. A configuration "meets" only
// when the whole 95 % interval is inside the limit, "misses" only when it is wholly outside (or the
// rate clearly was not held by the server), and is "undecided" otherwise — then the search repeats
// it. Cells the load generator, a busy host or a drifting measurement set the pace of are never
// judged as the server's.
import { fmtNum, fmtUs } from '../../common/format.ts';
import { RATE_SHORTFALL } from '../../common/thresholds.ts';
import { cellFreshNeed, cellPeak } from '../../analysis/size/memory.ts';
import { logPooledInterval, mean, pooledInterval } from '../../analysis/decide/stats.ts';
import { cellGoodput, cellGoodSeries, cellShortfall, failedAndAttempts } from '../../analysis/decide/group.ts';
import type { StoredCell } from '../../store/index.ts';
import type { Bottleneck, CellStatus, FlagKind, Sample } from '../../model/types.ts';
import type { SizeSpec, StepOutcome } from '../../model/search.ts';

/** What the judge needs of one cell. */
export interface CellEvidence {
  status: CellStatus;
  failure: string | null;
  flags: { kind: FlagKind; reason: string }[];
  /** The cell's own p99 over all its measured requests, µs. */
  p99Us: number | null;
  /** p99 of each measured second, µs, in order. */
  perSecondP99Us: number[];
  /** Goodput of each measured second, in order. */
  perSecondGood: number[];
  goodput: number | null;
  failed: number;
  attempts: number;
  /** Which side a rate shortfall was on, when there was one. */
  shortfallBy: 'server' | 'client' | null;
  /** What set its pace, as stored when it was measured (common/bottleneck.ts); null without a load result. */
  bottleneck: Bottleneck | null;
  /** Peak memory (cgroup peak where recorded), bytes. */
  peakBytes: number | null;
}

export interface Judgement {
  outcome: StepOutcome;
  /** In words: what was measured against the objective. */
  detail: string;
  /** More cells of the same configuration could decide it (an undecided interval, a tainted cell). */
  repeat: boolean;
  /**
   * Geometric mean of the per-second p99s and its 95 % interval, ms (null without judged cells or without an interval).
   */
  p99Ms: { mean: number; low: number; high: number } | null;
  /** Highest peak memory among the configuration's cells that finished, bytes. */
  peakBytes: number | null;
}

/** Why a cell is not judged as the server's: someone else set its pace (its bottleneck), or its seconds drifted. */
const PACE_TAINTS: Record<Exclude<Bottleneck, 'server'>, string> = {
  client: 'client-bound (the load generator was saturated)',
  host: 'host-busy (other processes took the cores)',
  dependency: 'dependency-bound (its database or cache was at its own cap)',
  network: 'network-bound (its responses filled the bandwidth cap)',
};
const UNSTABLE_TAINT = 'unstable (the measured seconds drifted)';

export function evidenceOf(c: StoredCell, samples: readonly Sample[]): CellEvidence {
  const [failed, attempts] = failedAndAttempts(c);
  const ok = c.status === 'ok' && c.p99Us !== null;
  return {
    status: c.status,
    failure: c.failure,
    flags: c.flags,
    p99Us: c.p99Us,
    perSecondP99Us: [...samples].sort((a, b) => a.t - b.t).map((s) => s.p99Us),
    perSecondGood: ok ? (cellGoodSeries(c, new Map([[c.id, samples]])) ?? []) : [],
    goodput: ok ? cellGoodput(c) : null,
    failed,
    attempts,
    shortfallBy: ok ? cellShortfall(c) : null,
    bottleneck: c.bottleneck,
    // What a fresh deployment needs (the larger of the cgroup peak and the processes' RSS), as the answer sizes it.
    peakBytes: cellFreshNeed(c)?.bytes ?? cellPeak(c)?.bytes ?? null,
  };
}

/** Mean of batch means pooled over cells, with its interval: analysis/decide/stats.ts, shared with the answer. */
export { pooledInterval };

const ms = (us: number): string => fmtUs(us);
const pct = (x: number): string => `${Number(x.toFixed(x < 1 ? 2 : 1))} %`;

/** The verdict on one configuration from all its cells so far. */
export function judge(cells: readonly CellEvidence[], spec: Pick<SizeSpec, 'slo' | 'rate' | 'bounds'>): Judgement {
  const peaks = cells.map((c) => c.peakBytes).filter((b): b is number => b !== null);
  const peakBytes = peaks.length ? Math.max(...peaks) : null;
  const base = { p99Ms: null, peakBytes };
  const last = cells[cells.length - 1];
  if (!last) throw new Error('judge: no cells');
  const finished = cells.filter((c) => c.status === 'ok' && c.p99Us !== null);
  const taintOf = (c: CellEvidence): string | null => {
    if (c.bottleneck === 'client') return PACE_TAINTS.client;
    // A server that fell short of the rate was saturated: its drift is its own growing queue, the server's result.
    if (c.flags.some((f) => f.kind === 'unstable') && c.shortfallBy !== 'server') return UNSTABLE_TAINT;
    return c.bottleneck === 'host' ? PACE_TAINTS.host : null;
  };
  const clean = finished.filter((c) => taintOf(c) === null);
  const setAside = finished.length - clean.length;
  const asideNote = setAside
    ? `; ${setAside} cell(s) set aside: ` +
      `${[...new Set(finished.map(taintOf).filter(Boolean))].join(', ')} — not ranked as clean`
    : '';

  if (finished.length === 0) {
    if (last.status === 'oom')
      return {
        ...base,
        outcome: 'misses',
        repeat: false,
        detail: `OOM-killed: ${firstLine(last.failure) ?? 'the memory cap is too small'}`,
      };
    if (last.status === 'failed')
      return {
        ...base,
        outcome: 'failed',
        repeat: false,
        detail: `the cell failed (${firstLine(last.failure) ?? 'no reason given'}): treated as not meeting`,
      };
    return { ...base, outcome: 'failed', repeat: false, detail: `the cell ended ${last.status}` };
  }
  if (clean.length) {
    const v = verdict(clean, spec, peakBytes);
    return { ...v, detail: `${v.detail}${asideNote}` };
  }
  // Only cells someone else set the pace of. Contention (a busy host, a saturated load generator)
  // can only have added latency and taken throughput, so a configuration that meets even then
  // meets; a miss may be the contention's, so it is repeated, and counted as not meeting if it stays.
  const unstable = finished.some((c) => c.flags.some((f) => f.kind === 'unstable'));
  const v = verdict(finished, spec, peakBytes);
  const taints = [...new Set(finished.map(taintOf).filter(Boolean))].join(', ');
  if (v.outcome === 'meets' && !unstable)
    return {
      ...v,
      detail:
        `${v.detail}; measured under ${taints}: ` + 'contention can only have raised latency, so it meets all the same',
    };
  const seems = v.outcome === 'meets' ? 'would meet' : v.outcome === 'misses' ? 'seems to miss' : 'unclear';
  // The detail says what was measured; whether the search repeats it is the search's step to say
  // (its reason), never a progress verb in the verdict, which ends up in the answer's words.
  return {
    ...v,
    outcome: 'undecided',
    repeat: true,
    detail: `${seems} (${v.detail}), but under ${taints}: not judged as the server's`,
  };
}

/** The verdict on cells taken at face value. */
function verdict(
  clean: readonly CellEvidence[],
  spec: Pick<SizeSpec, 'slo' | 'rate'>,
  peakBytes: number | null,
): Judgement {
  const failed = clean.reduce((s, c) => s + c.failed, 0);
  const attempts = clean.reduce((s, c) => s + c.attempts, 0);
  const errorPct = attempts > 0 ? (failed / attempts) * 100 : failed > 0 ? 100 : 0;
  // Per-second p99s are positive and right-skewed (one GC pause makes one second ten times worse):
  // the interval is taken on their logarithms, so it is asymmetric and never below zero (a geometric mean).
  const p99 = logPooledInterval(clean.map((c) => c.perSecondP99Us));
  const good = pooledInterval(clean.map((c) => c.perSecondGood));
  const wholeP99Us = mean(clean.map((c) => c.p99Us!));
  const goodMean = mean(clean.map((c) => c.goodput ?? 0));
  const floor = RATE_SHORTFALL * spec.rate;
  const limitUs = spec.slo.p99Ms * 1000;
  const limitText = fmtNum(spec.slo.p99Ms, spec.slo.p99Ms % 1 === 0 ? 0 : 2);
  const p99Ms = p99 ? { mean: p99.mean / 1000, low: p99.low / 1000, high: p99.high / 1000 } : null;
  const j = { p99Ms, peakBytes };
  const n = clean.length > 1 ? ` over ${clean.length} cells` : '';
  const p99Text = p99
    ? `per-second p99 ${ms(p99.low)}–${ms(p99.high)} ` +
      `(95 % interval of their geometric mean, ${p99.batches} batches${n}), whole-cell p99 ${ms(wholeP99Us)}`
    : `p99 ${ms(wholeP99Us)} (too few seconds for an interval)`;
  const rateText = `${fmtNum(goodMean)} of ${fmtNum(spec.rate)} req/s`;
  const shortBy = clean.some((c) => c.shortfallBy === 'server')
    ? 'server'
    : clean.some((c) => c.shortfallBy === 'client')
      ? 'client'
      : null;

  if (errorPct > spec.slo.maxErrorPct) {
    return {
      ...j,
      outcome: 'misses',
      repeat: false,
      detail: `${pct(errorPct)} of requests failed > ${pct(spec.slo.maxErrorPct)}; ${p99Text}, ${rateText}`,
    };
  }
  if (goodMean < floor) {
    if (shortBy === 'client')
      return {
        ...j,
        outcome: 'undecided',
        repeat: true,
        detail: `the load generator, not the server, fell short of the rate (${rateText}): not judged`,
      };
    if (!good || good.high < floor)
      return {
        ...j,
        outcome: 'misses',
        repeat: false,
        detail: `could not hold the rate: ${rateText} (< ${Math.round(RATE_SHORTFALL * 100)} %); ${p99Text}`,
      };
  }
  if (p99 && p99.low > limitUs)
    return {
      ...j,
      outcome: 'misses',
      repeat: false,
      detail: `${p99Text} > ${limitText} ms limit; ${rateText}`,
    };
  if (!p99 && wholeP99Us > limitUs)
    return {
      ...j,
      outcome: 'misses',
      repeat: false,
      detail: `${p99Text} > ${limitText} ms limit; ${rateText}`,
    };
  if (p99 && p99.high <= limitUs && wholeP99Us <= limitUs && goodMean >= floor) {
    return {
      ...j,
      outcome: 'meets',
      repeat: false,
      detail: `${p99Text} ≤ ${limitText} ms; ${rateText}, ${pct(errorPct)} failed`,
    };
  }
  const why =
    goodMean < floor
      ? `the rate interval straddles ${fmtNum(floor)} req/s (${rateText})`
      : `${p99Text}: the interval reaches across the ${limitText} ms limit`;
  return { ...j, outcome: 'undecided', repeat: true, detail: `${why}` };
}

const firstLine = (s: string | null): string | null => s?.split('\n')[0]?.trim() || null;
