// The runtime probe through the real engine on this machine's Docker: a `cluster ×2` and a `pm2 ×2`
// cell report every process (the primary or PM2's daemon, and each worker) for every second of the
// load, stored by cell; without `"probe": true` (the default) stores none and leaves NODE_OPTIONS alone.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { requireDocker, twoCellMatrix } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

const matrix = (over: Record<string, unknown>): Record<string, unknown> =>
  twoCellMatrix({ name: 'probe', workers: [2], cpuMillicores: [1000], memoryMb: [256], ...over });

describe('the runtime probe in real cells', () => {
  it('stores every process of a cluster ×2 and a pm2 ×2 cell, second by second, and nothing without "probe": true', async () => {
    const store = Store.open(path.join(tempDir(), 'h.db'));
    const outcome = await runMatrix(matrix({ modes: ['cluster', 'pm2'], probe: true }), { store });
    expect(outcome.cells.map((c) => [c.config.mode, c.status])).toEqual([
      ['cluster', 'ok'],
      ['pm2', 'ok'],
    ]);
    const run = store.getRun(outcome.runId)!;
    for (const [i, cell] of run.cells.entries()) {
      const result = outcome.cells[i]!;
      const probe = store.getProbe(cell.id)!;
      expect(probe, `${cell.config.mode}: ${JSON.stringify(result.probe)}`).toMatchObject({ attached: 3, expected: 3 });
      expect(probe.note).toBeUndefined();
      expect(result.probe).not.toHaveProperty('seconds'); // stored apart, not in the result or its event
      const seconds = store.getProbeSeconds(cell.id);
      const roles = new Map(seconds.map((s) => [s.pid, s.role]));
      const head = cell.config.mode === 'cluster' ? 'primary' : 'pm2-daemon';
      expect([...roles.values()].sort()).toEqual([head, 'worker', 'worker'].sort());
      const measured = result.load!.measuredSec;
      for (const pid of roles.keys()) {
        const ts = seconds.filter((s) => s.pid === pid && !s.warmup).map((s) => s.t);
        // Every measured second of every process, give or take the edge seconds a report can straddle.
        expect(ts.length, `${cell.config.mode} pid ${pid}: ${ts.join(',')}`).toBeGreaterThanOrEqual(measured - 1);
        expect(Math.max(...ts)).toBeLessThan(measured);
      }
      expect(seconds.some((s) => s.warmup && s.t < 0)).toBe(true);
      // The workers served the load: their event loops were busy some of the time.
      expect(seconds.filter((s) => s.role === 'worker' && !s.warmup).some((s) => s.elu > 0.05)).toBe(true);
      expect(store.getRunProbeSeconds(outcome.runId).get(cell.id)).toEqual(seconds);
    }

    const off = await runMatrix(matrix({ modes: ['cluster'] }), { store }); // off by default
    expect(off.cells.map((c) => c.status)).toEqual(['ok']);
    const offCell = store.getRun(off.runId)!.cells[0]!;
    expect(off.cells[0]!.probe).toBeUndefined();
    expect(store.getProbe(offCell.id)).toBeUndefined();
    expect(store.getProbeSeconds(offCell.id)).toEqual([]);
    store.close();
  }, 180_000);
});
