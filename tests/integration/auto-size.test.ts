// Auto-size against a real app with a known shape, through the built CLI: pbkdf2 spends ~2 ms of CPU
// per request (apps/pbkdf2), so 200 req/s needs ~0.4 CPU — 250m cannot hold the rate (its queue
// grows without bound), 500m runs at ~80 % of its cap, 750m and 1000m comfortably. With a p99 limit
// of 1 s the cheapest cap that meets is 500m; 750m is the answer only if a busy host leaves 500m
// undecided twice (then counted as not meeting, on purpose). Real Docker, real autocannon, a real
// SQLite file.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import type { SearchTrace } from '../../src-main/model/search.ts';
import { Store, type StoredCell } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

describe('rightsize size', () => {
  it('finds the cheapest CPU cap of a CPU-bound app by bisection, stores every cell, and leaves nothing running', async () => {
    const db = path.join(tempDir(), 'history.db');
    const size = () => cli(['--db', db, '--json', 'size', '--app', 'pbkdf2', '--slo', 'p99<=1s,errors<=0.1%', '--rate', '200', '--cpu', '250-1000', '--cpu-step', '250', '--workers', '1-1', '--memory', '256-256', '--duration', '6', '--warmup', '1', '--max-cells', '6']);
    type Out = { schemaVersion: number; runId: number; status: string; search: SearchTrace; cells: StoredCell[] };
    let r = await size();
    // A host stalled so hard that the load thread itself fell behind at the top (CI once: 155 req/s of
    // 200, the thread saturated before its connections filled) leaves the top undecided twice, and
    // the search then rightly answers "undecided" (exit 99). Only when the product said so — every top
    // cell undecided and one of them flagged client-bound — is the search run once more.
    if (r.code === 99) {
      const first = JSON.parse(r.stdout) as Out;
      const stalled =
        first.search.steps.every((s) => s.cpuMillis !== 1000 || s.outcome === 'undecided') &&
        first.cells.some((c) => c.config.cpuMillis === 1000 && c.load?.clientBound === true);
      expect(stalled, `exit 99 without a flagged stall at the top:\n${r.stderr}`).toBe(true);
      console.log(`note: the host stalled the load at the top (flagged client-bound); the search runs once more:\n${r.stderr}`);
      r = await size();
    }
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Out;
    expect(out.schemaVersion).toBe(1);
    expect(out.status).toBe('completed');
    const t = out.search;
    expect(t.status).toBe('found');
    expect(t.found).toMatchObject({ mode: 'cluster', workers: 1, memoryMb: 256 });
    // The known shape: a quarter core cannot hold 200 req/s of pbkdf2, a whole core can; where between
    // the cheapest fit falls moves with the host's noise (500m or 750m in five runs), so the test holds
    // the search to its contract instead: every cheaper cap it measured did not meet.
    expect([500, 750, 1000]).toContain(t.found!.cpuMillis);
    expect(t.steps.filter((s) => s.cpuMillis < t.found!.cpuMillis).every((s) => s.outcome !== 'meets')).toBe(true);
    expect(t.gridCells).toBe(4);
    // The path: the top first, then bisection; 250m never meets (it cannot hold 200 req/s). A busy
    // host can leave the top undecided (CI did once): the search repeats it, and it then meets.
    expect(t.steps[0]!.cpuMillis).toBe(1000);
    expect(t.steps.find((s) => s.cpuMillis === 1000 && s.outcome !== 'undecided')?.outcome).toBe('meets');
    expect(t.steps.filter((s) => s.cpuMillis === 250).every((s) => s.outcome !== 'meets')).toBe(true);
    expect(t.steps.find((s) => s.cpuMillis === t.found!.cpuMillis && s.outcome === 'meets')).toBeDefined();
    expect(r.stderr).toMatch(/why: the most CPU the bounds allow/); // steps printed as they happen

    // Every step is a stored cell of the run, in order, and the run carries the spec and the trace.
    const store = Store.open(db);
    try {
      const run = store.getRun(out.runId)!;
      expect(run.search).toEqual(t);
      expect(run.cells.map((c) => c.id)).toEqual(t.steps.map((s) => s.cellId));
      expect(run.cellsTotal).toBe(t.steps.length);
      expect(run.matrix).toEqual(t.spec);
      for (const [i, c] of run.cells.entries()) {
        const s = t.steps[i]!;
        expect([c.config.mode, c.config.workers, c.config.cpuMillis, c.config.memoryMb]).toEqual([s.mode, s.workers, s.cpuMillis, s.memoryMb]);
        expect(c.config.load).toEqual({ model: 'rate', rate: 200, connections: 200 }); // rate × p99 limit in flight at most
        expect(store.getSamples(c.id).length).toBeGreaterThan(0);
      }
    } finally {
      store.close();
    }
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);

    // The run is an ordinary run to the history commands.
    const shown = await cli(['--db', db, 'show', String(out.runId)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/\n1\s+pbkdf2\s+cluster\s+1\s+1000m\s+256 MB\s+200 rps\s+[\d →]+ s\s+ok/); // warm-up used, then status
    expect(shown.stdout).toContain(`The path (${t.steps.length} cells; a full grid over the same bounds: 4):`);
  }, 300_000); // twice, if the host stalls the first search (above)

  it('refuses bad input with every problem named and starts nothing', async () => {
    const db = path.join(tempDir(), 'history.db');
    const r = await cli(['--db', db, 'size', '--app', 'pbkdf', '--slo', 'p99<=50ms,errors<=0.1%', '--rate', '200', '--cpu', '100-64000', '--duration', '2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown app "pbkdf"\. Did you mean "pbkdf2"/);
    expect(r.stderr).toMatch(/64000m is more than this host's/);
    expect(r.stderr).toMatch(/--duration: 2 is not a whole number of seconds from 5/); // the option typed, not the field
    const store = Store.open(db);
    try {
      expect(store.listRuns().total).toBe(0);
    } finally {
      store.close();
    }
  }, 30_000);
});
