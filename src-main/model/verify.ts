// What a verification cell carries: the deploy snippets it runs exactly as emitted, and the
// numbers it is judged against (deploy/verification.ts judges; engine/verify.ts runs it).

export const SNIPPET_KINDS = ['pm2', 'kubernetes', 'compose'] as const;
export type SnippetKind = (typeof SNIPPET_KINDS)[number];

/** What a verification cell carries in its config (CellConfig.verify): enough to judge and explain it alone. */
export interface VerifyDescriptor {
  /** The configuration verified (analysis configurationKey of its grid cells). */
  key: string;
  /** A short name of that configuration ("hello cluster×1 500m/48MB c20"). */
  label: string;
  /** The snippet kinds that deploy exactly these settings. */
  snippets: SnippetKind[];
  /** When the verification began (ISO): its attempts share it. */
  round: string;
  /** 1-based, within the round, for these snippets. */
  attempt: number;
  /** The plan's last attempt for these snippets (the largest clean cap): a failure here ends in the fallback. */
  final: boolean;
  /** The CPU request the snippets carry (the cell runs at the limit). */
  cpuRequestMillis: number;
  /** The heap flag the cell ran with (also in its NODE_OPTIONS); null: none. */
  heapMb: number | null;
  /** Why this limit: the first attempt's basis, or the failure it stepped up from. */
  basis: string;
  /** The matrix's numbers for the configuration, judged against. */
  expected: {
    goodput: number;
    /** Standard error and degrees of freedom of that estimate (null: no interval). */
    se: number | null;
    df: number | null;
    low: number | null;
    high: number | null;
    p99Us: number | null;
    /** The answer's limit on failed requests, percent. */
    maxErrorPct: number;
  };
  /**
   * The last measured clean setting: the cap the matrix ran the configuration clean at (no restart threshold, no heap
   * flag).
   */
  fallbackMb: number;
  /** The largest clean cap the matrix measured for it: no attempt goes above. */
  ceilingMb: number;
}
