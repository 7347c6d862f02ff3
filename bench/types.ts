/** What every benchmark returns, so `npm run bench` can print, compare and store results uniformly. */
export interface BenchResult {
  name: string;
  rows: {
    op: string;
    medianMs: number;
    minMs: number;
    maxMs: number;
    /** The budget for the median; absent for rows that are only reported. */
    targetMs?: number;
  }[];
}
