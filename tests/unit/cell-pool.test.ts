// The pool that runs K cells at once (engine/cell-pool.ts), with a fake Provider: K from its
// concurrency, cells taken in matrix order, never more than K at once, results by index, cancel
// stops new cells, an error stops the others taking more, and the ETA divided by K.
import { describe, expect, it } from 'vitest';
import { etaSec, poolSize, runPool, slotPlacement } from '../../src-main/engine/cell-pool.ts';
import type { Provider } from '../../src-main/providers/provider.ts';

const fake = (k: number | (() => Promise<number>), nodes = ['n1', 'n2', 'n3']): Pick<Provider, 'concurrency' | 'placement'> => ({
  concurrency: typeof k === 'number' ? async () => k : k,
  placement: (slot, of) => (of >= 2 ? { node: nodes[slot]! } : undefined),
});
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('the cell pool', () => {
  it('takes K from the provider: at least 1, at most the cells; no concurrency (this machine) or a failing one is 1', async () => {
    expect(await poolSize(undefined, 10)).toBe(1);
    expect(await poolSize({}, 10)).toBe(1);
    expect(await poolSize(fake(2), 10)).toBe(2);
    expect(await poolSize(fake(5), 3)).toBe(3);
    expect(await poolSize(fake(0), 3)).toBe(1);
    expect(await poolSize(fake(() => Promise.reject(new Error('unreachable'))), 3)).toBe(1);
    expect(slotPlacement(fake(2), 1, 2)).toEqual({ node: 'n2' });
    expect(slotPlacement(fake(2), 0, 1)).toBeUndefined();
    expect(slotPlacement(undefined, 0, 2)).toBeUndefined();
  });

  it('runs cells in order, K at once and never more, each slot its own, results by index', async () => {
    const started: number[] = [];
    const slots = new Map<number, number>();
    let now = 0;
    let most = 0;
    const out = await runPool([30, 10, 20, 10, 5], 2, async (ms, slot) => {
      started.push(ms);
      now++;
      most = Math.max(most, now);
      slots.set(started.length - 1, slot);
      await tick(ms);
      now--;
      return ms * 2;
    });
    expect(started).toEqual([30, 10, 20, 10, 5]); // taken in matrix order
    expect(most).toBe(2);
    expect(out).toEqual([60, 20, 40, 20, 10]); // by index, whatever order they finished in
    expect(new Set(slots.values())).toEqual(new Set([0, 1]));
  });

  it('K = 1 is the sequential loop: one after the other', async () => {
    const log: string[] = [];
    await runPool(['a', 'b', 'c'], 1, async (x) => {
      log.push(`start ${x}`);
      await tick(2);
      log.push(`end ${x}`);
    });
    expect(log).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('cancel stops all: no new cell starts once the signal aborts; the running ones end by themselves', async () => {
    const ac = new AbortController();
    const started: number[] = [];
    const out = await runPool([0, 1, 2, 3, 4, 5], 2, async (i) => {
      started.push(i);
      if (i === 1) ac.abort();
      await tick(5);
      return i;
    }, ac.signal);
    expect(started).toEqual([0, 1]);
    expect(out).toEqual([0, 1, undefined, undefined, undefined, undefined]);
  });

  it('an error (the run deleted under it) stops the others from taking more and is thrown once all have settled', async () => {
    const settled: number[] = [];
    const run = runPool([0, 1, 2, 3], 2, async (i) => {
      await tick(i === 0 ? 20 : 1);
      if (i === 1) throw new Error('run 7 was deleted');
      settled.push(i);
      return i;
    });
    await expect(run).rejects.toThrow('run 7 was deleted');
    expect(settled).toEqual([0]); // cell 0 ran to its end; 2 and 3 never started
  });

  it('the ETA is the cells left, each with its overhead, divided by K', () => {
    expect(etaSec([10, 10, 10, 10], 4, 1)).toBe(56);
    expect(etaSec([10, 10, 10, 10], 4, 2)).toBe(28);
    expect(etaSec([], 4, 2)).toBe(0);
  });
});
