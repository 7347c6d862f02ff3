// One metric of one configuration, baseline against candidate: the ratio of means with its
// interval, and the three one-sided tests the verdict rests on. Everything is on the log scale
// (the ratio's logarithm is a difference of logs; each side's log-scale error is its relative
// error, the delta method), so Welch's test from stats.ts is the one test used.
import type { BoundPace } from '../../model/types.ts';
import { CONFIDENCE, tQuantile, welch, type Estimate, type MetricStats } from './stats.ts';

/** A side's number as the test sees it. */
export interface SideValue {
  /** The mean and its uncertainty: repetitions, or one repetition's batch means (the answer's rule, stats.ts). */
  stats: MetricStats | null;
  /**
   * Its true value is at least as good as measured (goodput of a client-bound or host-busy
   * configuration is a lower bound; its p99 includes the load generator's own delays). null when clean.
   */
  bound: BoundPace | null;
  /**
   * For a bound that can be sized (host-busy goodput): how far above the measurement the true value
   * can be at most, as a log factor; null when unbounded (client-bound: nothing says how much faster).
   */
  slack?: number | null;
}

/** The raw (unadjusted) one-sided p-values, and the effect. */
export interface RawTest {
  ratio: number | null;
  low: number | null;
  high: number | null;
  /** Shown worse than the threshold allows; null when the test cannot run (no interval, or a bound forbids it). */
  pWorse: number | null;
  pBetter: number | null;
  /** Two one-sided tests: shown within ± threshold. */
  pEquivalent: number | null;
  /** Why a test could not run, when none could. */
  blocked: string | null;
}

const logEstimate = (m: MetricStats): Estimate | null =>
  m.se === null || m.df === null || !(m.mean > 0) ? null : { mean: Math.log(m.mean), se: m.se / m.mean, df: m.df };

/**
 * The tests of candidate ÷ baseline against 1 ∓ threshold. `higherIsBetter`: goodput (worse is a
 * ratio below 1 − t); otherwise p99 and memory (worse is above 1 + t). A bound's true value is at
 * least as good as measured: an unbounded one (no slack) is never shown worse as a candidate nor
 * beaten as a baseline; a sized one (slack) is taken at the far end of its range for those tests.
 * Nothing is shown within a margin of a bound.
 */
export function testRatio(base: SideValue, cand: SideValue, thresholdPct: number, higherIsBetter: boolean): RawTest {
  const none = { ratio: null, low: null, high: null, pWorse: null, pBetter: null, pEquivalent: null };
  const [b, c] = [base.stats, cand.stats];
  if (!b || !c || !(b.mean > 0) || !(c.mean > 0)) return { ...none, blocked: 'no value on one side' };
  const ratio = c.mean / b.mean;
  const [eb, ec] = [logEstimate(b), logEstimate(c)];
  if (!eb || !ec) return { ...none, ratio, blocked: 'no interval' };
  // How far each side's true value can lie beyond its measurement (in its favour): 0 for an estimate.
  const reach = (v: SideValue): number | null => (v.bound ? (v.slack ?? null) : 0);
  const [rb, rc] = [reach(base), reach(cand)];
  if (rb === null && rc === null) return { ...none, ratio, blocked: 'both bounds' };
  const t = thresholdPct / 100;
  // Welch of (log c − shift) against log b: the difference of logs minus the log of the bound tested.
  // `up` moves a bounded side to the far end of its range: a candidate at its best when tested worse,
  // a baseline at its best when the candidate is tested better.
  const sign = higherIsBetter ? 1 : -1;
  const vs = (shift: number, up: 'cand' | 'base' | null = null) =>
    welch(
      { ...ec, mean: ec.mean - Math.log(shift) + (up === 'cand' ? sign * (rc ?? 0) : 0) },
      { ...eb, mean: eb.mean + (up === 'base' ? sign * (rb ?? 0) : 0) },
    );
  const below = (shift: number, up: 'cand' | 'base' | null = null): number => vs(shift, up).pBelow;
  const above = (shift: number, up: 'cand' | 'base' | null = null): number => vs(shift, up).pAbove;
  const plain = vs(1);
  const se = Math.sqrt(ec.se ** 2 + eb.se ** 2);
  const half = se === 0 ? 0 : tQuantile(1 - (1 - CONFIDENCE) / 2, plain.df) * se;
  const lr = Math.log(ratio);
  const worse = higherIsBetter ? below(1 - t, 'cand') : above(1 + t, 'cand');
  const better = higherIsBetter ? above(1 + t, 'base') : below(1 - t, 'base');
  return {
    ratio,
    low: Math.exp(lr - half),
    high: Math.exp(lr + half),
    pWorse: rc === null ? null : worse,
    pBetter: rb === null ? null : better,
    pEquivalent: base.bound || cand.bound ? null : Math.max(above(1 - t), below(1 + t)),
    blocked: null,
  };
}
