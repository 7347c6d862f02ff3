// Cells at once: a pool of K workers, each taking the next cell in matrix order. K comes from the
// provider (nodes free for a target, each with another node for its load); this machine runs one
// cell at a time (K = 1: the old sequential loop, in the same order). Docker-free, so unit-tested.
import type { Provider, TargetSpec } from '../providers/provider.ts';

/** How many cells run at once: the provider's concurrency, at least 1, at most the cells there are. */
export async function poolSize(provider: Pick<Provider, 'concurrency'> | undefined, cells: number): Promise<number> {
  const k = provider?.concurrency ? await provider.concurrency().catch(() => 1) : 1;
  return Math.max(1, Math.min(Number.isFinite(k) ? Math.floor(k) : 1, cells));
}

/** Where slot `slot` of `k` puts its targets (each slot its own node), or nothing to ask. */
export function slotPlacement(
  provider: Pick<Provider, 'placement'> | undefined,
  slot: number,
  k: number,
): TargetSpec['placement'] | undefined {
  return provider?.placement?.(slot, k);
}

/**
 * Runs `work` on every item, at most `k` at once, items taken in order; results by item index.
 * Once `signal` aborts no new item starts (running ones get the signal themselves). An item that
 * throws stops the others from taking more, and the first error is thrown after all have settled.
 */
export async function runPool<T, R>(
  items: readonly T[],
  k: number,
  work: (item: T, slot: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  let failed: { e: unknown } | undefined;
  const worker = async (slot: number): Promise<void> => {
    while (!signal?.aborted && !failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i]!, slot);
      } catch (e) {
        failed ??= { e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, k) }, (_, slot) => worker(slot)));
  if (failed) throw failed.e;
  return results;
}

/** Time left for the cells not finished, each its seconds plus the overhead, `k` of them at once. */
export function etaSec(secondsLeft: readonly number[], overheadSec: number, k: number): number {
  return secondsLeft.reduce((s, x) => s + x + overheadSec, 0) / Math.max(1, k);
}
