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
export function heapFitMb(memoryMb: number, b: HeapFitBasis): number | null {
  const fit = Math.floor(((memoryMb - b.otherMb) * HEAP_FIT_SHARE) / Math.max(1, b.processes));
  return fit >= MIN_FIT_HEAP_MB ? fit : null;
}
