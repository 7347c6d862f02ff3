// A replicated cell on this machine's engine, through the real cell runner: `json` as 2 containers
// (cluster ×1, 500m and 128 MB each), the load spread over them per connection by the load threads,
// each container's measured share of the responses, its own readings and probe, the cell's totals,
// the result through a real SQLite history, and every container removed at the end.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL } from '../../src-main/docker/labels.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import { REPLICA_PID_STRIDE } from '../../src-main/engine/replica-readings.ts';
import type { CellConfig } from '../../src-main/model/types.ts';
import { localProvider } from '../../src-main/providers/local/provider.ts';
import { Store } from '../../src-main/store/index.ts';
import { tempDir } from '../helpers/cli.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

const MB = 2 ** 20;
let engine: EngineInfo;
let store: Store;
beforeAll(async () => {
  engine = await requireDocker();
  store = Store.open(path.join(tempDir(), 'replicas.db'));
});
afterAll(() => store?.close());

const cfg: CellConfig = {
  index: 0,
  repetition: 1,
  app: 'json',
  mode: 'cluster',
  workers: 1,
  cpuMillis: 500,
  memoryMb: 128,
  replicas: 2,
  load: { model: 'closed', connections: 8 },
  durationSec: 3,
  warmupSec: 0,
  env: {},
  probe: true,
};

/** The run's containers, running or not (by its run label: nothing else carries this run id). */
const containersOf = async (runId: number): Promise<{ Id: string; State: string }[]> =>
  docker().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.run}=${runId}`] }) });

describe('a replicated cell on this machine', () => {
  it('json × 2 replicas: both containers get a measured share within 10 % of even, all removed after', async () => {
    const { app, image } = await imageFor('json');
    const runId = store.createRun({
      name: 'replicas',
      matrix: { replicas: [2] },
      host: { hostname: 'h', platform: 'linux', arch: 'x64', cpuModel: 'x', cores: 2, memoryBytes: 1, nodeVersion: 'v20', dockerVersion: '27', cgroupVersion: '2', appVersions: {}, rightsizeVersion: '0' },
      ownerSession: 'h:1:1',
      cellsTotal: 1,
    });
    const cellId = store.startCell(runId, cfg);
    const warnings: string[] = [];
    let during: Promise<{ Id: string; State: string }[]> | undefined;
    const r = await runCell(cfg, {
      app,
      image,
      provider: localProvider(engine),
      placement: true,
      timeoutSec: 10,
      runId,
      cellId,
      onWarning: (w) => warnings.push(w),
      onSample: () => void (during ??= containersOf(runId)),
    });
    store.finishCell(cellId, r);
    if (r.probe) store.addProbe(cellId, r.probe); // as the session stores it: both replicas' pids apart
    const running = await during!;
    console.log(
      `json ×2 replicas: ${r.load?.rpsMean.toFixed(0)} req/s in all, shares ` +
        `${r.replicas?.map((x) => `${(x.share * 100).toFixed(1)} % (${x.requests})`).join(' / ')}; ` +
        `CPU ${r.stats?.cpuPctMean.toFixed(0)} % of 1000m, each ${r.replicas?.map((x) => x.stats?.cpuPctMean.toFixed(0)).join(' / ')} % of 500m`,
    );
    expect(r.status, r.failure).toBe('ok');
    expect(running.filter((c) => c.State === 'running')).toHaveLength(2);
    // Both replicas served, each within 10 % of an even share, counted by the load threads per connection.
    const reps = r.replicas!;
    expect(reps.map((x) => x.index)).toEqual([0, 1]);
    expect(reps.map((x) => x.connections)).toEqual([4, 4]);
    expect(reps[0]!.requests + reps[1]!.requests).toBe(r.load!.requests);
    for (const x of reps) {
      expect(x.requests).toBeGreaterThan(0);
      expect(Math.abs(x.share - 0.5) / 0.5).toBeLessThan(0.1);
      // Each replica's own readings: its cap, its CPU against its own 500m, its processes heard.
      expect(x.stats!.memLimitBytes).toBe(128 * MB);
      expect(x.stats!.cpuPctMean).toBeGreaterThan(0);
      expect(x.exit!.oomKilled).toBe(false);
      expect(x.ranOn).toEqual({ target: 'local', kind: 'local' });
      expect(x.probe!.attached).toBe(2); // the cluster primary and its worker
      expect(x.probe!.expected).toBe(2);
    }
    expect(r.flags.map((f) => f.kind)).not.toContain('uneven-share');
    // The cell's totals: memory caps summed, CPU against the whole 1000m (between the replicas' own).
    expect(r.stats!.memLimitBytes).toBe(256 * MB);
    const [a, b] = reps.map((x) => x.stats!.cpuPctMean);
    expect(r.stats!.cpuPctMean).toBeGreaterThan(Math.min(a!, b!) - 15);
    expect(r.stats!.cpuPctMean).toBeLessThan(Math.max(a!, b!) + 15);
    // The cell's probe: every process of both replicas, replica 2's pids set apart.
    expect(r.probe!.attached).toBe(4);
    expect(r.probe!.processes.filter((p) => p.pid > REPLICA_PID_STRIDE)).toHaveLength(2);
    // Process memory from both containers (host pids), two processes each.
    expect(r.stats!.processes!.map((p) => p.role).sort()).toEqual(['primary', 'primary', 'worker', 'worker']);
    // This 2-core host: both replicas on core 0, the load on core 1, and it says so.
    if (engine.cpus === 2) expect(warnings.join('\n')).toContain('replicas share core 0');
    // Stored and read back.
    const stored = store.getRun(runId)!.cells[0]!;
    expect(stored.replicas).toEqual(reps);
    expect(stored.config.replicas).toBe(2);
    expect(stored.stats?.memLimitBytes).toBe(256 * MB);
    expect(store.getRunProbeSeconds(runId).get(cellId)?.length).toBeGreaterThan(0);
    // Nothing of the cell is left.
    expect(await containersOf(runId)).toEqual([]);
  }, 120_000);
});
