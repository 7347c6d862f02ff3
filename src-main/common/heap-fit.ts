// The heap limit that fits: V8 sizes each process's heap from the whole container (or the host), so
// several processes in one box can together outgrow its limit, and the kernel kills one before V8
// collects. One rule for the trap's words (analysis/decide/traps.ts) and the snippets that set the
// flag at the limit they deploy (deploy/settings.ts). Pure.

/** A heap that fits leaves this share of the limit's remainder to V8, the rest to what a heap limit does not bound. */
const HEAP_FIT_SHARE = 0.9;
/** Below this a heap limit cannot hold a typical server: none fits. */
const MIN_FIT_HEAP_MB = 16;

/** What the probe measured besides the serving heaps (MB, per container), and how many serving processes share it. */
export interface HeapFitBasis {
  otherMb: number;
  processes: number;
}

/** `--max-old-space-size` (MB) for each serving process under a `memoryMb` limit; null: none fits. */
/**
 * …rounded down to this many MB: the rest measured differs by a megabyte between identical runs, and at 1 MB steps
 * two quick runs' snippets said 71 and 72 (BENCHMARKS.md, repeatability), as PM2's restart threshold once did.
 */
const HEAP_STEP_MB = 8;

export function heapFitMb(memoryMb: number, b: HeapFitBasis): number | null {
  const raw = ((memoryMb - b.otherMb) * HEAP_FIT_SHARE) / Math.max(1, b.processes);
  const fit = Math.floor(raw / HEAP_STEP_MB) * HEAP_STEP_MB;
  return fit >= MIN_FIT_HEAP_MB ? fit : null;
}
