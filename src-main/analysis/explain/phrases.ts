// The phrases every sentence of the answer shares: who ran ("2 cluster workers"), its numbers with
// their intervals, its flags and caveats. How sure a pick is, is the answer's state (headline.ts).
import { fmtNum, fmtPct, fmtUs, fmtUsPm } from '../../common/format.ts';
import { joinAnd } from '../../common/text.ts';
import type { FlagKind } from '../../model/types.ts';
import { RUN_TO_RUN_SPREAD, SPREAD_OVER_INTERVAL } from '../../common/thresholds.ts';
import type { ConfigurationSummary, FlagSummary } from '../types.ts';
import { isLowerBound } from '../../common/bottleneck.ts';

/** "was" for one process or worker, "were" for more. */
export const be = (cs: ConfigurationSummary[]): string =>
  cs.length === 1 && (cs[0]!.mode === 'single' || cs[0]!.workers === 1) ? 'was' : 'were';

/** "8,010 req/s", "≥ 8,010 req/s" where it is a lower bound: a goodput named beside a configuration. */
export const goodputShort = (c: ConfigurationSummary): string =>
  `${isLowerBound(c) ? '≥ ' : ''}${fmtNum(c.rps!.mean)} req/s`;

/** "25,309 ± 812 req/s, n = 3", "25,309 ± 812 req/s, one run, batch means" or "25,309 req/s, a single sample". */
export function rpsText(c: ConfigurationSummary): string {
  const r = c.rps!;
  if (!r.ci)
    return `${fmtNum(r.mean)} req/s, ${r.n > 1 ? `n = ${r.n}, too few repetitions to bound` : 'a single sample'}`;
  return (
    `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)} req/s, ` +
    `${r.intervalFrom === 'batch-means' ? 'one run, batch means' : `n = ${r.n}`}`
  );
}

/**
 * A table cell's goodput: "25,309 ± 812" (over repetitions, or one run's batch means: the sentence says which, as
 * p99Short's cell does not), "25,309 (n = 2, too few to bound)" or "25,309 (n = 1)".
 */
export function rpsShort(c: ConfigurationSummary): string {
  const r = c.rps!;
  if (!r.ci) return `${fmtNum(r.mean)} (n = ${r.n}${r.n > 1 ? ', too few to bound' : ''})`;
  return `${fmtNum(r.mean)} ± ${fmtNum(r.ci.halfWidth)}`;
}

/**
 * A table cell's p99: "2.1 ms ± 0.3", "2.1 ms (1.9–2.4)" (one run: both ends, in the mean's unit when they share it) or
 * "2.1 ms (n = 1)".
 */
export function p99Short(c: ConfigurationSummary): string {
  const p = c.p99Us!;
  if (!p.ci) return `${fmtUs(p.mean)} (n = ${p.n}${p.n > 1 ? ', too few to bound' : ''})`;
  // From one run the interval is taken on a log scale: asymmetric, so both ends are given.
  if (p.intervalFrom === 'batch-means') {
    const [low, high] = [fmtUs(p.ci.low), fmtUs(p.ci.high)];
    const unit = (t: string): string => t.split(' ')[1] ?? '';
    // One unit for all three where they share it: narrow enough for a table column.
    const same = unit(low) === unit(high) && unit(high) === unit(fmtUs(p.mean));
    return same ? `${fmtUs(p.mean)} (${low.split(' ')[0]}–${high.split(' ')[0]})` : `${fmtUs(p.mean)} (${low}–${high})`;
  }
  return fmtUsPm(p.mean, p.ci.halfWidth);
}

/**
 * "2.1 ms ± 0.3, n = 3", "2.1 ms (1.9 ms–2.4 ms), one run, batch means of its per-second p99s" or "2.1 ms, a single
 * sample".
 */
export function p99Text(c: ConfigurationSummary): string {
  const p = c.p99Us!;
  if (!p.ci) return `${fmtUs(p.mean)}, ${p.n > 1 ? `n = ${p.n}, too few repetitions to bound` : 'a single sample'}`;
  return (
    `${p99Short(c)}, ` +
    `${p.intervalFrom === 'batch-means' ? 'one run, batch means of its per-second p99s' : `n = ${p.n}`}`
  );
}

/**
 * How much weaker one repetition's interval is: its typical relative width (median over the
 * configurations that ran once) against the run-to-run spread the repeatability benchmark measured.
 */
export function singleRunWeakness(single: readonly ConfigurationSummary[]): string {
  const widths = single
    .filter((c) => c.rps?.ci && c.rps.mean > 0)
    .map((c) => (2 * c.rps!.ci!.halfWidth) / c.rps!.mean)
    .sort((a, b) => a - b);
  const spread =
    `back-to-back runs of one configuration differed by up to ${fmtPct(RUN_TO_RUN_SPREAD * 100)} in goodput ` +
    '(the repeatability benchmark)';
  if (!widths.length) return `${spread}, and that is the uncertainty these numbers carry`;
  const width = widths[Math.floor(widths.length / 2)]!;
  const ratio = RUN_TO_RUN_SPREAD / width;
  return ratio > SPREAD_OVER_INTERVAL
    ? `${spread}, while a single run's interval is ${fmtPct(width * 100)} wide: about ` +
        `${fmtNum(ratio, ratio < 10 ? 1 : 0)} times narrower than the variation it cannot see, so a difference ` +
        `below ${fmtPct(RUN_TO_RUN_SPREAD * 100)} is not settled by one run`
    : `${spread}, about as wide as a single run's interval here (${fmtPct(width * 100)}), but that interval ` +
        'does not include it';
}

const FLAG_WORDS: Record<FlagKind, string> = {
  'client-bound': 'the load generator may have set the pace, so the server may be faster than measured',
  'oom-killed': 'a process hit the memory cap and was killed',
  errors: 'requests failed',
  throttled: 'the CPU cap, not the app, set the pace',
  restarts: 'worker processes were replaced',
  unstable: 'throughput drifted or stepped during the measured seconds, so its mean is not a steady state',
  'host-busy': 'other processes on the host took CPU from the target or the load generator',
  'dependency-bound':
    'a dependency (its database or cache) at its own CPU cap set the pace, so the server may be faster',
  'network-bound':
    'the responses filled the bandwidth cap, so the network set the pace: the server may be faster, and more CPU ' +
    'or workers would not serve more',
  'uneven-share': 'the replicas did not get an even share of the load, so the cell is not the topology it names',
  'mix-off': 'the requests sent strayed from the weights of the mix, so the cell did not measure the traffic it names',
};

/** Said instead of "the server may be faster" where every connection was waiting on the server. */
const CLIENT_BOUND_BUT_SERVER =
  'a load thread was busy too, but every connection was waiting on the server, so the server set the pace';

/**
 * "client-bound in 2 of 3 repetitions — the load generator may have set the pace… (busy 95 %)".
 * With `shortfallBy` 'server' a client-bound flag never claims the server may be faster.
 */
export function flagPhrase(f: FlagSummary, shortfallBy: ConfigurationSummary['shortfallBy'] = null): string {
  const where = f.of === 1 ? '' : ` in ${f.cells} of ${f.of} repetitions`;
  const words = f.kind === 'client-bound' && shortfallBy === 'server' ? CLIENT_BOUND_BUT_SERVER : FLAG_WORDS[f.kind];
  return `${f.kind}${where} — ${words}${f.reasons[0] ? ` (${f.reasons[0]})` : ''}`;
}

/** Flags and excluded repetitions of a configuration someone may act on. */
export function caveats(c: ConfigurationSummary): string[] {
  const out = c.flags.map((f) => flagPhrase(f, c.shortfallBy));
  if (c.excluded.length) {
    const reasons = joinAnd([...new Set(c.excluded.map((e) => e.reason))]);
    out.push(
      `${c.excluded.length} of its ${c.excluded.length + c.n} repetitions ` +
        `${c.excluded.length === 1 ? 'was' : 'were'} excluded (${reasons})`,
    );
  }
  return out;
}
