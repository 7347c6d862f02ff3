// The words of a cell skipped because its app's first cell failed at start in a way every cell of
// it would repeat (engine/run/same-failure.ts): written by the run, read back by the answer.

/** How a skipped cell's failure reads: `cell` is the number the user sees (index + 1). */
export const skippedFailure = (cell: number, reason: string): string =>
  `skipped: same failure as cell ${cell} (${reason})`;

/** The cell number a skipped cell's failure names, or undefined for any other failure. */
export function skippedAfter(failure: string | null | undefined): number | undefined {
  const m = /^skipped: same failure as cell (\d+)/.exec(failure ?? '');
  return m ? Number(m[1]) : undefined;
}
