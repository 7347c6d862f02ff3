// A replicated cell's targets as one: readings summed (CPU against the whole cap), readiness and
// removal of all, the first exit ends it, OOM if any; the probe's union with pids set apart; where
// replicas go on one machine; and the per-replica readings through the real SQLite store.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coresNeeded, planReplicaPlacement, replicaCoresProblem } from '../../src-main/docker/replica-placement.ts';
import { REPLICA_PID_STRIDE, replicaReadings, samplersFor, unionProbes } from '../../src-main/engine/replica-readings.ts';
import type { CellProbe } from '../../src-main/model/probe.ts';
import type { ReplicaReading } from '../../src-main/model/replicas.ts';
import type { CellConfig, CellResult, ExitInfo } from '../../src-main/model/types.ts';
import type { ProvisionedTarget, StatsReading } from '../../src-main/providers/provider.ts';
import { ReadingSum, replicaSet, startReplicas, sumExits, sumReadings } from '../../src-main/providers/replica-set.ts';
import { Store } from '../../src-main/store/index.ts';

const reading = (atMs: number, cpuNs: number, memBytes: number, over: Partial<StatsReading> = {}): StatsReading => ({
  atMs,
  cpuNs,
  memBytes,
  memLimitBytes: 128 << 20,
  throttledPeriods: 0,
  throttledNs: 0,
  ...over,
});

/** A target that does what it is told: its readings pushed by the test, its exit resolved by it. */
class FakeTarget {
  removed = 0;
  readers: ((r: StatsReading) => void)[] = [];
  exit!: (code: number) => void;
  readonly exited = new Promise<number>((r) => (this.exit = r));
  constructor(
    readonly id: string,
    readonly node: string | undefined,
    private readonly info: ExitInfo,
    private readonly readyMs: number,
    readonly log: string,
  ) {}
  target(): ProvisionedTarget {
    return {
      id: this.id,
      address: { host: `10.0.0.${this.id}`, port: 3000 },
      ...(this.node ? { node: this.node } : {}),
      exited: this.exited,
      stats: async (on) => {
        this.readers.push(on);
        return () => void (this.readers = this.readers.filter((r) => r !== on));
      },
      memoryPeak: () => 50 << 20,
      processMemory: async () => ({
        ok: true,
        atMs: 1,
        processes: [{ pid: Number(this.id) * 100, ppid: 0, command: 'node', rssBytes: 1, hwmBytes: 1 }],
      }),
      waitReady: async () => ({ ms: this.readyMs }),
      logTail: async () => this.log,
      exitInfo: async () => this.info,
      remove: async () => void this.removed++,
    };
  }
  push(r: StatsReading): void {
    for (const on of this.readers) on(r);
  }
}

const ok: ExitInfo = { oomKilled: false, exitCode: null, restarts: 0 };

const cfg = {
  index: 0,
  repetition: 1,
  app: 'json',
  mode: 'cluster',
  workers: 1,
  cpuMillis: 500,
  memoryMb: 128,
  replicas: 2,
  load: { model: 'closed', connections: 9 },
  durationSec: 3,
  warmupSec: 1,
} as CellConfig;


describe('readings of a replica set', () => {
  it('sums counters and memory, at the readings’ mean instant', () => {
    const s = sumReadings([
      reading(1000, 5e8, 40e6, { throttledPeriods: 2, throttledNs: 1e6, memPeakBytes: 60e6, cfsPeriods: 10 }),
      reading(1010, 3e8, 30e6, { throttledPeriods: 1, throttledNs: 2e6, memPeakBytes: 50e6, cfsPeriods: 10 }),
    ]);
    expect(s).toEqual({
      atMs: 1005,
      cpuNs: 8e8,
      memBytes: 70e6,
      memLimitBytes: 2 * (128 << 20),
      throttledPeriods: 3,
      throttledNs: 3e6,
      memPeakBytes: 110e6,
      cfsPeriods: 20,
    });
    // A peak only one replica has is no total peak.
    expect(sumReadings([reading(0, 0, 0, { memPeakBytes: 1 }), reading(0, 0, 0)]).memPeakBytes).toBeUndefined();
  });

  it('gives a sum once every replica has sent a new reading', () => {
    const out: StatsReading[] = [];
    const sum = new ReadingSum(2, (r) => out.push(r));
    sum.add(0, reading(1000, 1, 1));
    sum.add(0, reading(2000, 2, 1)); // replica 1 still silent: nothing yet
    expect(out).toHaveLength(0);
    sum.add(1, reading(2000, 10, 1));
    expect(out.map((r) => r.cpuNs)).toEqual([12]);
    sum.add(1, reading(3000, 20, 1));
    sum.add(0, reading(3000, 3, 1));
    expect(out.map((r) => r.cpuNs)).toEqual([12, 23]);
  });

  it("exits: OOM if any replica's, its code, restarts summed", () => {
    expect(sumExits([ok, { oomKilled: true, exitCode: 137, restarts: 1 }, { ...ok, restarts: 2 }])).toEqual({
      oomKilled: true,
      exitCode: 137,
      restarts: 3,
    });
    expect(sumExits([ok, ok])).toEqual(ok);
    expect(sumExits([ok, { oomKilled: false, exitCode: 1, restarts: 0 }]).exitCode).toBe(1);
  });

  it('CPU of the totals reads against the whole cap, each replica against its own', async () => {
    const a = new FakeTarget('1', undefined, ok, 10, '');
    const b = new FakeTarget('2', undefined, ok, 10, '');
    const set = replicaSet([a.target(), b.target()]);
    const { total, parts } = samplersFor(set, 500);
    await total.start();
    // Replica 1 uses 0.5 cores (all its 500m), replica 2 0.25 cores.
    for (const [t, i] of [[0, 0], [1000, 1], [2000, 2]] as const) {
      a.push(reading(t, i * 5e8, 40e6));
      b.push(reading(t, i * 2.5e8, 30e6));
    }
    total.stop();
    expect(a.readers).toHaveLength(0); // one stream per replica, stopped with the totals
    expect(total.seconds.map((s) => Math.round(s.cpuPct))).toEqual([75, 75]);
    expect(total.seconds[0]!.memBytes).toBe(70e6);
    expect(parts!.map((p) => Math.round(p.seconds[0]!.cpuPct))).toEqual([100, 50]);
    expect(total.memoryPeak()).toEqual({ bytes: 100 << 20, source: 'cgroup' });
  });
});

describe('a replica set as one target', () => {
  it('is ready when all are, ends with the first, logs every replica, removes all', async () => {
    const a = new FakeTarget('1', 'node-a', ok, 120, 'listening');
    const b = new FakeTarget('2', 'node-b', { oomKilled: true, exitCode: 137, restarts: 0 }, 300, 'killed\nagain');
    const set = replicaSet([a.target(), b.target()]);
    expect(set.id).toBe('1,2');
    expect(set.node).toBe('node-a, node-b');
    expect(set.addresses).toEqual([{ host: '10.0.0.1', port: 3000 }, { host: '10.0.0.2', port: 3000 }]);
    expect(await set.waitReady({ workers: 1, deadlineMs: 1000 })).toEqual({ ms: 300 });
    expect(await set.logTail(10)).toBe('replica 1: listening\nreplica 2: killed\nreplica 2: again');
    expect((await set.exitInfo()).oomKilled).toBe(true);
    const snap = await set.processMemory!();
    expect(snap.ok && snap.processes.map((p) => p.pid)).toEqual([100, 200]);
    b.exit(137);
    expect(await set.exited).toBe(137);
    await set.remove();
    expect([a.removed, b.removed]).toEqual([1, 1]);
  });

  it('leaves nothing when one replica fails to start', async () => {
    const a = new FakeTarget('1', undefined, ok, 1, '');
    await expect(
      startReplicas(3, async (i) => {
        if (i === 2) throw new Error('no such image');
        return a.target();
      }),
    ).rejects.toThrow('no such image');
    expect(a.removed).toBe(2);
  });
});

describe('the probe of a replicated cell', () => {
  const probe = (pids: number[], note?: string): CellProbe => ({
    attached: pids.length,
    expected: 2,
    processes: pids.map((pid, i) => ({ pid, role: i === 0 ? 'primary' : 'worker' })),
    ...(note ? { note } : {}),
    seconds: pids.map((pid) => ({ pid, ppid: pid === 1 ? 0 : 1, t: 0 }) as never),
  });

  it('is the union, replica i’s pids moved by i × the stride, notes per replica', () => {
    const u = unionProbes([probe([1, 7]), probe([1, 7], 'one worker missing')]);
    expect(u.attached).toBe(4);
    expect(u.expected).toBe(4);
    expect(u.processes.map((p) => p.pid)).toEqual([1, 7, 1 + REPLICA_PID_STRIDE, 7 + REPLICA_PID_STRIDE]);
    expect(u.seconds!.map((s) => [s.pid, s.ppid])).toEqual([
      [1, 0],
      [7, 1],
      [1 + REPLICA_PID_STRIDE, 0],
      [7 + REPLICA_PID_STRIDE, 1 + REPLICA_PID_STRIDE],
    ]);
    expect(u.note).toBe('replica 2: one worker missing');
  });
});

describe('placement of replicas on one machine', () => {
  it('gives each replica cores of its own, and the load the next, where the host has them', () => {
    expect(planReplicaPlacement(1000, 2, 8, true)).toEqual({ replicaCpus: ['0', '1'], loadCpus: '2-5' });
    expect(planReplicaPlacement(1500, 2, 8, true)).toEqual({ replicaCpus: ['0-1', '2-3'], loadCpus: '4-6' });
    expect(coresNeeded({ cpuMillis: 500, replicas: 2 })).toEqual({ apart: 3, together: 2 });
    expect(coresNeeded({ cpuMillis: 1500 })).toEqual({ apart: 3, together: 3 });
  });

  it('puts them together on the cores of their total cap where it has too few, and says so', () => {
    // This 2-core machine: 2 × 500m on core 0, the load on core 1.
    expect(planReplicaPlacement(500, 2, 2, true)).toEqual({
      replicaCpus: ['0', '0'],
      loadCpus: '1',
      warning:
        'replicas share core 0: this host has 2 cores, and 2 replicas on cores of their own plus the load need 3; ' +
        "each replica still holds its 500m cap (CFS), but they share the core's caches and scheduler, " +
        'and the load runs apart on 1',
    });
    expect(planReplicaPlacement(1000, 2, 2, true).warning).toBe(
      'core placement off: 2 replicas of 1000m need 2 cores together and the load generator one more, ' +
        'but this host has 2; all share cores and results are pessimistic',
    );
    expect(planReplicaPlacement(500, 2, 2, false)).toEqual({});
    expect(planReplicaPlacement(500, 1, 4, true)).toEqual({ replicaCpus: ['0'], loadCpus: '1-2' });
  });

  it('refuses replicas whose caps add up to more than the host', () => {
    expect(replicaCoresProblem({ cpuMillis: 1500, replicas: 2 }, 2)).toBe(
      "2 replicas × 1500m is 3000m in total, more than this host's 2 cores (2000m)",
    );
    expect(replicaCoresProblem({ cpuMillis: 1000, replicas: 2 }, 2)).toBeUndefined();
    expect(replicaCoresProblem({ cpuMillis: 4000 }, 2)).toBeUndefined(); // one target: the matrix's own check
  });
});

describe('per-replica readings', () => {

  it('measured share, connections, stats, exit and probe per replica; none for a lone target', async () => {
    const a = new FakeTarget('1', 'node-a', ok, 1, '');
    const b = new FakeTarget('2', 'node-b', { ...ok, restarts: 1 }, 1, '');
    const set = replicaSet([a.target(), b.target()]);
    const stats = { cpuPctMean: 90, cpuPctMax: 99, memMeanBytes: 1, memMaxBytes: 2, memLimitBytes: 3, throttledPeriods: 0, throttledMs: 0, samples: 3 };
    const probe: CellProbe = { attached: 2, expected: 2, processes: [], seconds: [] };
    const r = await replicaReadings({
      cfg,
      target: set,
      load: { replicaRequests: [600, 400] } as never,
      stats: [stats, undefined],
      probes: [probe, probe],
      ranOn: { target: 'local', kind: 'local' },
    });
    expect(r).toEqual([
      { index: 0, requests: 600, share: 0.6, connections: 5, stats, exit: ok, ranOn: { target: 'local', kind: 'local', node: 'node-a' }, probe: { attached: 2, expected: 2, processes: [] } },
      { index: 1, requests: 400, share: 0.4, connections: 4, exit: { ...ok, restarts: 1 }, ranOn: { target: 'local', kind: 'local', node: 'node-b' }, probe: { attached: 2, expected: 2, processes: [] } },
    ]);
    expect(await replicaReadings({ cfg, target: a.target(), ranOn: { target: 'local', kind: 'local' } })).toBeUndefined();
  });
});

describe('stored', () => {
  let dir = '';
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps each replica’s reading beside the stats, and gives both back', () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rightsize-replicas-'));
    const store = Store.open(path.join(dir, 'r.db'));
    try {
      const runId = store.createRun({
        name: 'replicas',
        matrix: {},
        host: { hostname: 'h', platform: 'linux', arch: 'x64', cpuModel: 'x', cores: 2, memoryBytes: 1, nodeVersion: 'v20', dockerVersion: '27', cgroupVersion: '2', appVersions: {}, rightsizeVersion: '0' },
        ownerSession: 'h:1:1',
        cellsTotal: 2,
      });
      const stats = { cpuPctMean: 90, cpuPctMax: 99, memMeanBytes: 1, memMaxBytes: 2, memLimitBytes: 3, throttledPeriods: 0, throttledMs: 0, samples: 3 };
      const replicas: ReplicaReading[] = [
        { index: 0, requests: 500, share: 0.5, connections: 4, stats, exit: ok },
        { index: 1, requests: 500, share: 0.5, connections: 4 },
      ];
      const result = (over: Partial<CellResult>): CellResult => ({
        config: cfg,
        status: 'ok',
        flags: [],
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:05.000Z',
        ...over,
      });
      const one = store.startCell(runId, cfg);
      store.finishCell(one, result({ stats, replicas }));
      const lone = store.startCell(runId, { ...cfg, index: 1, replicas: undefined } as CellConfig);
      store.finishCell(lone, result({ stats }));
      const cells = store.getRun(runId)!.cells;
      expect(cells[0]!.stats).toEqual(stats);
      expect(cells[0]!.replicas).toEqual(replicas);
      expect(cells[0]!.config.replicas).toBe(2);
      expect(cells[1]!.stats).toEqual(stats);
      expect(cells[1]!.replicas).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
