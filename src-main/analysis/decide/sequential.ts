// Sequential decisions: between the grid's rounds of repetitions, a configuration the contest
// already shows worse than its pair's best gets no more repetitions. Looking after every round
// spends alpha, so each look uses only its increment of Lan–DeMets' Pocock-type spending function.
// Not O'Brien–Fleming's: after the first look's three repetitions Welch's test has few degrees of
// freedom, and its strict early boundary would stop almost nothing.
import type { Recommendation } from '../answer-types.ts';
import { ALPHA, MIN_VALUES_TO_BOUND } from './stats.ts';

/** A configuration out of the contest, and on what evidence. */
export interface OutOfContest {
  key: string;
  /** The pair's best, which it is shown worse than. */
  best: string;
  /** The contest's p (Holm-adjusted over the pair's rivals), at most the look's alpha. */
  p: number;
  alpha: number;
}

/** Alpha spent by information fraction t (0–1] under Pocock-type spending: α · ln(1 + (e − 1) · t), α at t = 1. */
export const pocockSpent = (t: number, alpha = ALPHA): number =>
  t <= 0 ? 0 : Math.min(alpha, alpha * Math.log(1 + (Math.E - 1) * Math.min(1, t)));

/**
 * The alpha of the look after `done` of `planned` repetitions: what spending allows by then less what earlier looks
 * could spend. Zero before a test can run (MIN_VALUES_TO_BOUND repetitions) and at the end (the contest decides): a
 * grid of 3 repetitions has no look.
 */
export function lookAlpha(done: number, planned: number, alpha = ALPHA): number {
  if (done < MIN_VALUES_TO_BOUND || done >= planned) return 0;
  // Bonferroni over the looks' increments: conservative whatever the correlation between looks.
  const before = done > MIN_VALUES_TO_BOUND ? pocockSpent((done - 1) / planned, alpha) : 0;
  return pocockSpent(done / planned, alpha) - before;
}

/**
 * Configurations clearly out of the contest at a look with this alpha: shown worse than their CPU / memory pair's best
 * (within a pair every configuration costs the same, so a worse one can be neither the pair's pick nor, across pairs,
 * cheaper than it at equal goodput). Never with an SLO: a p99 limit, not goodput, decides there.
 */
export function clearlyOut(rec: Recommendation, alpha: number): OutOfContest[] {
  if (rec.slo || !(alpha > 0)) return [];
  return rec.scopes.flatMap((s) =>
    s.rivals
      .filter((r) => r.relation === 'worse' && !r.lowerBound && r.p !== null && r.p <= alpha)
      .map((r) => ({ key: r.key, best: s.bestRps.key, p: r.p!, alpha })),
  );
}
