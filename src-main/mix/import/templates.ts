// The values a route was seen with, as a template the load generator draws from: a few values are picked
// among, a wide range of numbers is drawn uniformly, a single value stays as it is.

/** Distinct numbers picked among up to this many; more are drawn from their range. */
export const PICK_NUMBERS = 50;
/** Words (UUIDs, ids) of a path picked among: the most frequent ones. */
export const PICK_PATH_WORDS = 50;
/** Other query values picked among: the most frequent ones. */
export const PICK_QUERY_WORDS = 20;

/**
 * Text that is sent as it is and never read as a template: no spaces (which split a pick's words) and no
 * braces (which open or close one), percent-encoded as a URL would have them.
 */
export const literal = (s: string): string => s.replace(/[\s{}]/g, (c) => encodeURIComponent(c));

/** Distinct values, most frequent first (the first seen among equals). */
export function byFrequency(values: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.keys()].sort((a, b) => counts.get(b)! - counts.get(a)!);
}

/** Whole numbers without leading zeros (which a drawn number would lose), small enough to draw exactly. */
const isNumber = (v: string): boolean => /^-?(0|[1-9]\d*)$/.test(v) && Number.isSafeInteger(Number(v));

/**
 * The template for one place (a path segment, a query value) from the values seen there. Empty values are
 * left out of a pick: its words cannot be empty.
 */
export function valueTemplate(values: readonly string[], maxWords: number): string {
  const all = byFrequency(values.map(literal));
  const distinct = all.length > 1 ? all.filter((v) => v !== '') : all;
  if (distinct.length <= 1) return distinct[0] ?? '';
  if (distinct.every(isNumber)) {
    if (distinct.length <= PICK_NUMBERS) return `{{pick ${distinct.join(' ')}}}`;
    // A loop, not Math.min(...ns): a spread of 100,000 values overflows the stack.
    let [min, max] = [Infinity, -Infinity];
    for (const n of distinct.map(Number)) [min, max] = [Math.min(min, n), Math.max(max, n)];
    return `{{int ${min} ${max}}}`;
  }
  return `{{pick ${distinct.slice(0, maxWords).join(' ')}}}`;
}
