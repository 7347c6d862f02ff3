// Builds stored runs by hand, so analysis and reports can be tested on exact, known numbers.
import type { CellConfig, CellLoad, CellStatus, Flag, HostFacts, LaunchMode } from '../../src-main/model/types.ts';
import type { RunDetail, StoredCell } from '../../src-main/store/index.ts';
import { cellBottleneck } from '../../src-main/common/bottleneck.ts';

export interface CellSpec {
  app?: string;
  requestSet?: string;
  mode?: LaunchMode;
  workers?: number;
  cpu?: number;
  mem?: number;
  load?: CellLoad;
  status?: CellStatus;
  failure?: string;
  rps?: number;
  p99Us?: number;
  requests?: number;
  errors?: number;
  flags?: Flag[];
}

export const HOST: HostFacts = {
  hostname: 'lab', platform: 'linux', arch: 'x64', cpuModel: 'Test CPU @ 3.0GHz', cores: 8, memoryBytes: 16 * 2 ** 30,
  nodeVersion: 'v20.19.0', dockerVersion: '27.3.1', cgroupVersion: '2', appVersions: { hello: '1.0.0' }, rightsizeVersion: '0.1.0',
};

/** One cell; index and repetition are filled in by `run`. Cells with a status other than ok have no metrics. */
export function cell(s: CellSpec): StoredCell {
  const config: CellConfig = {
    index: 0, repetition: 0, app: s.app ?? 'hello', mode: s.mode ?? 'cluster', workers: s.workers ?? 1, cpuMillis: s.cpu ?? 1000,
    memoryMb: s.mem ?? 256, load: s.load ?? { model: 'closed', connections: 20 }, durationSec: 10, warmupSec: 2, env: {},
    ...(s.requestSet ? { requests: { name: s.requestSet, requests: [{ method: 'GET', path: `/${s.requestSet}` }] } } : {}),
  };
  const status = s.status ?? 'ok';
  const ok = status === 'ok';
  const rps = ok ? (s.rps ?? 1000) : null;
  const p99 = ok ? (s.p99Us ?? 1000) : null;
  const requests = ok ? (s.requests ?? Math.round(rps! * 10)) : null;
  const c: StoredCell = {
    id: 0, runId: 1, config, status, failure: s.failure ?? null,
    rpsMean: rps, rpsStddev: ok ? 1 : null, bytesPerSec: ok ? rps! * 100 : null,
    p50Us: ok ? Math.round(p99! / 3) : null, p75Us: null, p90Us: null, p97_5Us: null, p99Us: p99, p99_9Us: null,
    maxUs: ok ? p99! * 2 : null, meanUs: null, stddevUs: null,
    requests, errors: ok ? (s.errors ?? 0) : null, timeouts: ok ? 0 : null, non2xx: ok ? 0 : null,
    clientBound: ok ? (s.flags ?? []).some((f) => f.kind === 'client-bound') : null,
    cpuPctMean: ok ? 95 : null, cpuPctMax: ok ? 100 : null, memMaxBytes: ok ? 40 * 2 ** 20 : null, memLimitBytes: ok ? config.memoryMb * 2 ** 20 : null,
    throttledMs: ok ? 0 : null, load: null, stats: null,
    exit: status === 'oom' ? { oomKilled: true, exitCode: 137, restarts: 0 } : ok ? { oomKilled: false, exitCode: null, restarts: 0 } : null,
    flags: s.flags ?? (status === 'oom' ? [{ kind: 'oom-killed', reason: `the kernel killed a process for exceeding the ${config.memoryMb} MB memory cap` }] : []),
    bottleneck: null, imageTag: null, ranOn: null, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:12.000Z',
  };
  return { ...c, bottleneck: storedBottleneck(c) };
}

/**
 * The bottleneck the engine's flags step stores with a cell, from its flags and load (common/bottleneck.ts): a
 * fixture's ok cell has measured numbers but often no load object, which counts as a load result here.
 */
export const storedBottleneck = (c: StoredCell): StoredCell['bottleneck'] =>
  cellBottleneck({ flags: c.flags, load: c.load ?? (c.rpsMean !== null ? {} : null) });

/** Repetitions of one configuration: one cell per req/s value (p99 values paired by position). */
export function reps(s: Omit<CellSpec, 'rps' | 'p99Us'>, rps: number[], p99Us: number[] = rps.map(() => 1000)): StoredCell[] {
  return rps.map((r, i) => cell({ ...s, rps: r, p99Us: p99Us[i] ?? 1000 }));
}

/** A run holding the cells in order: indexes, ids and repetitions (per configuration) are assigned here. */
export function run(cells: StoredCell[], o: { name?: string; matrix?: unknown; status?: RunDetail['status']; host?: HostFacts } = {}): RunDetail {
  const seen = new Map<string, number>();
  const numbered = cells.map((c, i) => {
    const k = JSON.stringify({ ...c.config, index: 0, repetition: 0 });
    const repetition = seen.get(k) ?? 0;
    seen.set(k, repetition + 1);
    // Stored as the flags step decided it from the cell's final flags and load (a test may set them after `cell`).
    return { ...c, id: i + 1, config: { ...c.config, index: i, repetition }, bottleneck: storedBottleneck(c) };
  });
  return {
    id: 1, name: o.name ?? 'fixture', preset: null, matrix: o.matrix ?? { apps: ['hello'], placement: 'auto' }, host: o.host ?? HOST,
    ownerSession: 'lab:1:1', status: o.status ?? 'completed', cellsTotal: cells.length,
    startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:10:00.000Z', durationSec: 600, error: null, apps: [], cells: numbered, search: null,
  };
}
