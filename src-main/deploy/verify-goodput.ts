// A verification cell's goodput against the matrix's: non-inferiority by one-sided Welch tests, and
// the words for it computed from the numbers (above, below, within), so no note can say "within 5 %"
// of a value 36 % above.
import { ALPHA, estimateOf, summarizeOne, welch } from '../analysis/decide/stats.ts';
import { fmtNum } from '../common/format.ts';
import { VERIFY_GOODPUT_SHARE } from '../common/thresholds.ts';
import type { LoadResult } from '../model/types.ts';
import type { VerifyDescriptor } from '../model/verify.ts';

// Goodput passes only if shown above VERIFY_GOODPUT_SHARE of the matrix's estimate; shown below it
// fails; neither is not judged.
const SHARE_PCT = `${fmtNum(VERIFY_GOODPUT_SHARE * 100)} %`;
const pWords = (p: number): string => `one-sided p ${p < 0.001 ? '< 0.001' : fmtNum(p, 3)}`;

/**
 * How goodput was judged against the floor (VERIFY_GOODPUT_SHARE of the matrix's estimate): shown above or below it by
 * the one-sided tests, not judged where neither is shown (an interval too wide), or on the means where a side has no
 * interval.
 */
export type GoodputVerdict = 'shown-above' | 'shown-below' | 'not-judged' | 'means-above' | 'means-below';

/** A 95 % interval as printed: never below zero (goodput is positive). */
export interface GoodputInterval {
  low: number;
  high: number;
}

export interface GoodputCheck {
  /** The matrix's estimate, and the floor: VERIFY_GOODPUT_SHARE of it. */
  expected: number;
  floor: number;
  verdict: GoodputVerdict;
  /** One-sided p-values of "above the floor" and "below the floor" (null: means only). */
  pAbove: number | null;
  pBelow: number | null;
  /** The mean is below the floor. */
  belowShare: boolean;
  /** Goodput fails the attempt: shown below the floor by the test (never on the means alone). */
  failed: boolean;
  /** This cell's interval and the matrix's (null: none). */
  interval: GoodputInterval | null;
  expectedInterval: GoodputInterval | null;
}

/** "36 % above the matrix's 4,987", "2 % below it", "within 1 % of …": from the ratio itself, never the margin. */
export function comparedWords(value: number, reference: number, what: string): string {
  if (!(reference > 0)) return `against ${what}`; // no ratio to a zero estimate
  const diffPct = (value / reference - 1) * 100;
  if (Math.abs(diffPct) < 1) return `within 1 % of ${what}`;
  return `${fmtNum(Math.abs(diffPct))} % ${diffPct > 0 ? 'above' : 'below'} ${what}`;
}

/** "5,900–7,700": an interval as printed, its low end clamped at zero. */
export const intervalWords = (iv: GoodputInterval): string =>
  `${fmtNum(Math.max(0, iv.low))}–${fmtNum(Math.max(0, iv.high))}`;

const intervalOf = (low: number | null | undefined, high: number | null | undefined): GoodputInterval | null =>
  low == null || high == null ? null : { low: Math.max(0, low), high: Math.max(0, high) };

/**
 * Goodput against the floor. With intervals on both sides, non-inferiority: shown above it (pAbove ≤ ALPHA) passes,
 * shown below it (pBelow ≤ ALPHA) fails, neither is not judged. Without, the means decide, and say so.
 */
export function judgeGoodput(load: LoadResult, e: VerifyDescriptor['expected']): GoodputCheck {
  const goodput = load.goodputMean ?? load.rpsMean;
  const mine = summarizeOne(goodput, load.perSecondGood?.length ? load.perSecondGood : (load.perSecondRps ?? null));
  const a = estimateOf(mine);
  const b = e.se !== null && e.df !== null ? { mean: e.goodput, se: e.se, df: e.df } : null;
  const floor = VERIFY_GOODPUT_SHARE * e.goodput;
  const belowShare = goodput < floor;
  const t = a && b ? welch(a, b, VERIFY_GOODPUT_SHARE) : null;
  const verdict: GoodputVerdict = !t
    ? belowShare
      ? 'means-below'
      : 'means-above'
    : t.pAbove <= ALPHA
      ? 'shown-above'
      : t.pBelow <= ALPHA
        ? 'shown-below'
        : 'not-judged';
  return {
    expected: e.goodput,
    floor,
    verdict,
    pAbove: t?.pAbove ?? null,
    pBelow: t?.pBelow ?? null,
    belowShare,
    // Means alone decide nothing: a noisy second can put them on either side of the floor.
    failed: verdict === 'shown-below',
    interval: intervalOf(mine.ci?.low, mine.ci?.high),
    expectedInterval: intervalOf(e.low, e.high),
  };
}

/**
 * The reason a goodput failure gives: "goodput 20,000 req/s, below 95 % of the matrix's 24,200 (one-sided p …), 17 %
 * below it".
 */
export function goodputReason(goodput: number, g: GoodputCheck): string {
  const how = g.pBelow !== null ? ` (${pWords(g.pBelow)})` : ' on the means (no interval to test)';
  return (
    `goodput ${fmtNum(goodput)} req/s, below ${SHARE_PCT} of the matrix's ${fmtNum(g.expected)}${how}, ` +
    comparedWords(goodput, g.expected, 'it')
  );
}

/**
 * What an attempt's goodput was and how it was judged, in words computed from its numbers: "goodput 24,000 req/s
 * (within 1 % of the matrix's 24,200, shown above 95 % of it: one-sided p 0.018)".
 */
export function goodputWords(j: { goodput: number | null; goodputCheck: GoodputCheck | null }): string {
  const g = j.goodputCheck;
  if (j.goodput === null) return 'goodput unknown';
  if (!g) return `goodput ${fmtNum(j.goodput)} req/s`;
  const compared = comparedWords(j.goodput, g.expected, `the matrix's ${fmtNum(g.expected)}`);
  return `goodput ${fmtNum(j.goodput)} req/s (${compared}${judgedWords(g)})`;
}

/** How the goodput was judged, after its comparison: ", shown above 95 % of it: one-sided p 0.018". */
function judgedWords(g: GoodputCheck): string {
  switch (g.verdict) {
    case 'shown-above':
      return `, shown above ${SHARE_PCT} of it: ${pWords(g.pAbove!)}`;
    case 'shown-below':
      return `, shown below ${SHARE_PCT} of it: ${pWords(g.pBelow!)}`;
    case 'means-above':
    case 'means-below':
      return (
        `, ${g.verdict === 'means-above' ? 'above' : 'below'} ${SHARE_PCT} of it on the means; goodput not judged: ` +
        'no interval to test'
      );
    case 'not-judged':
      return `; goodput not judged: the interval is too wide${notJudgedDetail(g)}`;
  }
}

/** " — this cell 5,900–7,700 req/s, the matrix 3,100–6,900, against a floor of 4,738". */
function notJudgedDetail(g: GoodputCheck): string {
  const parts = [
    ...(g.interval ? [`this cell ${intervalWords(g.interval)} req/s`] : []),
    ...(g.expectedInterval ? [`the matrix ${intervalWords(g.expectedInterval)}`] : []),
  ];
  return parts.length ? ` — ${parts.join(', ')}, against a floor of ${fmtNum(g.floor)}` : '';
}
