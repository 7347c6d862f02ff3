// Auto-size against a real app with a known shape, through the built CLI: pbkdf2 spends one hash of
// CPU per request (apps/pbkdf2), and the rate is set so that it needs ~0.4 CPU — 250m cannot hold it
// (its queue grows without bound), 500m runs at ~80 % of its cap, 750m and 1000m comfortably. With a
// p99 limit of 1 s the cheapest cap that meets is 500m or, when the host's noise pushes 500m's p99
// past the limit or leaves it undecided twice (then counted as not meeting, on purpose), 750m. Real
// Docker, real autocannon, a real SQLite file.
import { pbkdf2Sync, randomBytes } from 'node:crypto';
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

/**
 * The rate that needs ~0.4 of a core on this host now. A hash took 2 ms on a fast hour of this VM and
 * 4 ms on a slow one (and 5.5 ms in a CI run where a fixed 200 req/s missed at 1000m): a fixed rate
 * makes the test's known shape depend on the hour. The hash is the app's own (apps/pbkdf2: 5000 ×
 * sha512), timed on the host's cores, which the container's cgroup only caps.
 */
function rateForHalfACore(): { rate: number; hashMs: number } {
  const salt = randomBytes(16);
  const hash = () => pbkdf2Sync('correct horse battery staple', salt, 5000, 64, 'sha512');
  for (let i = 0; i < 10; i++) hash();
  // A whole second of hashes, not a burst: 31 in a row read 3.5 and 5.7 ms a minute apart.
  const ms: number[] = [];
  const until = performance.now() + 1000;
  while (performance.now() < until) {
    const t = performance.now();
    hash();
    ms.push(performance.now() - t);
  }
  const hashMs = ms.sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;
  // 0.4 core ÷ a hash, in tens: 250m then falls short by ≥ 1.6× and 1000m has 2.5× to spare.
  // (5000: the app's PBKDF2_ITERATIONS default, which the size command does not change.)
  return { rate: Math.min(300, Math.max(40, Math.round(400 / hashMs / 10) * 10)), hashMs };
}

describe('rightsize size', () => {
  it('finds the cheapest CPU cap of a CPU-bound app by bisection, stores every cell, and leaves nothing running', async () => {
    const db = path.join(tempDir(), 'history.db');
    // Each search at the rate of the host's speed just before it; the result says which rate it ran.
    const size = async () => {
      const { rate, hashMs } = rateForHalfACore();
      console.log(`a pbkdf2 hash takes ${hashMs.toFixed(2)} ms on this host now: ${rate} req/s`);
      return { rate, ...(await cli(['--db', db, '--json', 'size', '--app', 'pbkdf2', '--slo', 'p99<=1s,errors<=0.1%', '--rate', String(rate), '--cpu', '250-1000', '--cpu-step', '250', '--workers', '1-1', '--memory', '256-256', '--duration', '5', '--warmup', '0', '--max-cells', '6'])) };
    };
    type Out = { schemaVersion: number; runId: number; status: string; search: SearchTrace; cells: StoredCell[] };
    let r = await size();
    // A host that stalls mid-search can still leave the top short of the rate (CI once: the load
    // thread saturated at 155 req/s of 200; once the cell's own seconds drifted), and the search then
    // rightly answers "none shown to meet" (exit 99). Only when the product said so — no top cell
    // met, and one of them is flagged client-bound or unstable — is the search run once more.
    if (r.code === 99) {
      const first = JSON.parse(r.stdout) as Out;
      const stalled =
        first.search.steps.every((s) => s.cpuMillis !== 1000 || s.outcome !== 'meets') &&
        first.cells.some((c) => c.config.cpuMillis === 1000 && c.flags.some((f) => f.kind === 'client-bound' || f.kind === 'unstable'));
      expect(stalled, `exit 99 without a flagged stall at the top:\n${r.stderr}`).toBe(true);
      console.log(`note: the host stalled the load at the top (flagged); the search runs once more:\n${r.stderr}`);
      r = await size();
    }
    expect(r.code, r.stderr).toBe(0);
    const { rate } = r;
    const out = JSON.parse(r.stdout) as Out;
    expect(out.schemaVersion).toBe(1);
    expect(out.status).toBe('completed');
    const t = out.search;
    console.log(`the path at ${rate} req/s: ${t.steps.map((s) => `${s.cpuMillis}m ${s.outcome}`).join(', ')}`);
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
        expect(c.config.load).toEqual({ model: 'rate', rate, connections: rate }); // rate × p99 limit in flight at most
        expect(store.getSamples(c.id).length).toBeGreaterThan(0);
      }
    } finally {
      store.close();
    }
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);

    // The run is an ordinary run to the history commands.
    const shown = await cli(['--db', db, 'show', String(out.runId)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`\\n1\\s+pbkdf2\\s+cluster\\s+1\\s+1000m\\s+256 MB\\s+${rate} rps\\s+[\\d →]+ s\\s+ok`)); // warm-up used, then status
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
