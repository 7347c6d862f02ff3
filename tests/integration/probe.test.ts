// The runtime probe through the real engine on this machine's Docker, real load and a real SQLite
// history: every process of a `cluster ×2` and a `pm2 ×2` cell and of a user's project folder
// reports, second by second, with its role; the probe is on by default and `"probe": false` records
// nothing and leaves the container's NODE_OPTIONS alone. What the reports say about the runtime
// (busy loops, throttling, GC) is proved in probe-causes.test.ts.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeSummary } from '../../src-main/analysis/explain/causes.ts';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL } from '../../src-main/docker/labels.ts';
import { PROBE_SCRIPT } from '../../src-main/docker/launch.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import type { ProbeSecond } from '../../src-main/model/probe.ts';
import { Store } from '../../src-main/store/index.ts';
import { ROOT, tempDir } from '../helpers/cli.ts';
import { twoCellMatrix, withBaseImageAndReaper } from '../helpers/docker.ts';
import { describeCell, expectReadings } from '../helpers/process-readings.ts';
import { causeCells } from '../helpers/probe-cells.ts';

withBaseImageAndReaper();

let store: Store;
beforeAll(() => {
  store = Store.open(path.join(tempDir(), 'h.db'));
});
afterAll(() => store?.close());

const matrix = (over: Record<string, unknown>): Record<string, unknown> =>
  twoCellMatrix({ name: 'probe', workers: [2], cpuMillicores: [1000], memoryMb: [256], durationSec: 5, ...over });

/**
 * The environment each cell's container was created with, read while the cell measures (its first
 * stored second): the container is removed once the cell ends. By the run's label, as a target
 * started ahead (while the cell before it was torn down) had no cell id yet; the one before it is
 * removed before a load starts, so the run's one running container is this cell's.
 */
function containerEnvs(): { onEvent: (e: RunEvent) => void; envOf: (cellId: number) => Promise<string[]> } {
  const envs = new Map<number, Promise<string[]>>();
  const read = async (runId: number, cellId: number): Promise<string[]> => {
    const filters = JSON.stringify({ label: [`${LABEL.run}=${runId}`], status: ['running'] });
    const running = await docker().listContainers({ filters });
    if (running.length !== 1) throw new Error(`cell ${cellId}: ${running.length} running containers of the run`);
    return (await docker().getContainer(running[0]!.Id).inspect()).Config.Env ?? [];
  };
  return {
    onEvent: (e) => {
      if (e.type !== 'sample' || envs.has(e.cellId)) return;
      const env = read(e.runId, e.cellId);
      env.catch(() => undefined); // awaited (and failed) by envOf
      envs.set(e.cellId, env);
    },
    envOf: (cellId) => envs.get(cellId) ?? Promise.reject(new Error(`cell ${cellId} stored no second`)),
  };
}

const nodeOptions = (env: string[]): string | undefined =>
  env.find((v) => v.startsWith('NODE_OPTIONS='))?.slice('NODE_OPTIONS='.length);

/**
 * Every process reported every measured second, placed in [0, measured) once each; a report may
 * straddle the first or the last second's edge, so one of them may go to its neighbour.
 */
function expectEverySecond(seconds: ProbeSecond[], pid: number, measured: number, what: string): void {
  const ts = seconds.filter((s) => s.pid === pid && !s.warmup).map((s) => s.t);
  expect(new Set(ts).size, `${what}: one report per second, got t = ${ts.join(',')}`).toBe(ts.length);
  expect(
    ts.every((t) => t >= 0 && t < measured),
    `${what}: t = ${ts.join(',')}`,
  ).toBe(true);
  expect(ts.length, `${what}: t = ${ts.join(',')} of ${measured} measured seconds`).toBeGreaterThanOrEqual(
    measured - 1,
  );
}

describe('the runtime probe in real cells (on by default)', () => {
  it('hears the primary or PM2 daemon and both workers of a cluster ×2 and a pm2 ×2 cell, every second', async () => {
    const watch = containerEnvs();
    // With a warm-up: its seconds are kept too, below t = 0.
    const outcome = await runMatrix(matrix({ modes: ['cluster', 'pm2'], warmupSec: 1 }), { store, onEvent: watch.onEvent });
    expect(outcome.cells.map((c) => [c.config.mode, c.status])).toEqual([
      ['cluster', 'ok'],
      ['pm2', 'ok'],
    ]);
    const run = store.getRun(outcome.runId)!;
    for (const [i, cell] of run.cells.entries()) {
      const mode = cell.config.mode;
      const result = outcome.cells[i]!;
      expect(cell.config.probe).toBe(true);
      expect(nodeOptions(await watch.envOf(cell.id))).toBe(`--require ${PROBE_SCRIPT}`);
      const probe = store.getProbe(cell.id)!;
      expect(probe, `${mode}: ${JSON.stringify(result.probe)}`).toMatchObject({ attached: 3, expected: 3 });
      expect(probe.note).toBeUndefined();
      expect(result.probe).not.toHaveProperty('seconds'); // stored apart, not in the result or its event
      expect(result.probe!.processes).toEqual(probe.processes);
      // Each process's resident memory from /proc beside the cgroup's peak, with its role.
      describeCell(`hello ${mode} ×2`, result);
      expectReadings(result, [mode === 'cluster' ? 'primary' : 'pm2-daemon', 'worker', 'worker']);
      if (mode === 'pm2') expect(result.stats!.processes![0]!.command).toMatch(/launchers\/pm2\.js start/);

      const head = mode === 'cluster' ? 'primary' : 'pm2-daemon';
      const [headPid, ...others] = probe.processes.filter((p) => p.role === head).map((p) => p.pid);
      expect(others, `${mode}: one ${head}`).toEqual([]);
      const workers = probe.processes.filter((p) => p.role === 'worker').map((p) => p.pid);
      expect(new Set(workers).size, `${mode}: two distinct worker pids`).toBe(2);
      expect(workers).not.toContain(headPid);

      const seconds = store.getProbeSeconds(cell.id);
      // The roles are right: each worker is a child of the primary, or of PM2's daemon.
      for (const s of seconds.filter((x) => x.role === 'worker'))
        expect(s.ppid, `${mode} worker ${s.pid}`).toBe(headPid);
      const measured = result.load!.measuredSec;
      for (const p of probe.processes) expectEverySecond(seconds, p.pid, measured, `${mode} ${p.role} ${p.pid}`);
      expect(seconds.some((s) => s.warmup && s.t < 0)).toBe(true); // warm-up seconds kept, below t = 0
      expect(store.getRunProbeSeconds(outcome.runId).get(cell.id)).toEqual(seconds);

      // What the answer reads: both workers, each with its seconds, their loops busy some of the time.
      const summary = runtimeSummary(causeCells(store, outcome.runId).filter((c) => c.config.mode === mode))!;
      expect(summary.perWorker.map((w) => w.role)).toEqual(['worker', 'worker']);
      expect(summary.perWorker.flatMap((w) => w.pids).sort()).toEqual([...workers].sort());
      for (const w of summary.perWorker) expect(w.seconds).toBeGreaterThanOrEqual(measured - 1);
      expect(summary.elu).toBeGreaterThan(0.05);
      expect(summary.ctxPerSec).toBeGreaterThan(0);
    }
  });

  it("hears a user's project folder app's processes, its own NODE_OPTIONS kept", async () => {
    const db = store;
    db.addUserApp('plain-api', {
      name: 'plain-api',
      source: { kind: 'folder', dir: path.join(ROOT, 'tests/fixtures/probe-folder-app'), entry: 'server.js' },
      port: 8080,
      health: '/health',
      // Its own option: the probe's preload is appended to it, never in its place.
      env: { NODE_OPTIONS: '--max-old-space-size=96' },
    });
    const watch = containerEnvs();
    const outcome = await runMatrix(matrix({ apps: ['plain-api'], modes: ['cluster'] }), {
      store,
      onEvent: watch.onEvent,
    });
    expect(outcome.cells.map((c) => [c.status, c.failure])).toEqual([['ok', undefined]]);
    const cell = store.getRun(outcome.runId)!.cells[0]!;
    expect(nodeOptions(await watch.envOf(cell.id))).toBe(`--max-old-space-size=96 --require ${PROBE_SCRIPT}`);
    const probe = store.getProbe(cell.id)!;
    expect(probe, JSON.stringify(probe)).toMatchObject({ attached: 3, expected: 3 });
    expect(probe.processes.map((p) => p.role).sort()).toEqual(['primary', 'worker', 'worker']);
    const seconds = store.getProbeSeconds(cell.id);
    const measured = outcome.cells[0]!.load!.measuredSec;
    for (const p of probe.processes) expectEverySecond(seconds, p.pid, measured, `plain-api ${p.role} ${p.pid}`);
    // The app's option reached every process with the probe in it: V8's heap limit is near 96 MB
    // (old space plus the young generation), far below the ~260 MB this cap gives by default.
    for (const s of seconds) expect(s.heapLimitBytes / 2 ** 20, `pid ${s.pid}`).toBeLessThan(140);
    expect(runtimeSummary(causeCells(store, outcome.runId))!.perWorker).toHaveLength(2);
  });

  it('records nothing with "probe": false, and the container gets no preload', async () => {
    const watch = containerEnvs();
    const off = await runMatrix(matrix({ modes: ['cluster'], probe: false }), { store, onEvent: watch.onEvent });
    expect(off.cells.map((c) => c.status)).toEqual(['ok']);
    const cell = store.getRun(off.runId)!.cells[0]!;
    expect(cell.config.probe).toBeUndefined();
    expect(off.cells[0]!.probe).toBeUndefined();
    expect(store.getProbe(cell.id)).toBeUndefined();
    expect(store.getProbeSeconds(cell.id)).toEqual([]);
    expect(store.getRunProbeSeconds(off.runId).get(cell.id) ?? []).toEqual([]);
    const env = await watch.envOf(cell.id);
    expect(env.some((v) => v.startsWith('PORT='))).toBe(true); // the container's real environment was read
    expect(nodeOptions(env) ?? '').not.toContain('probe');
    expect(runtimeSummary(causeCells(store, off.runId))).toBeNull();
  });
});
