// The probe's way from a log line to the store: parsing, placing in the cell's time, what was heard
// against what the launch mode starts, NODE_OPTIONS kept, and the rows stored and deleted with the run.
import { describe, expect, it } from 'vitest';
import { withProbeSwitch } from '../../src-main/cli/commands/run.ts';
import { launchCommand, PROBE_SCRIPT, withProbeOption } from '../../src-main/docker/launch.ts';
import { targetSpecOf } from '../../src-main/engine/cell-runner.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import type { ProbeReport } from '../../src-main/model/probe.ts';
import type { CellConfig, HostFacts } from '../../src-main/model/types.ts';
import { summarizeProbe } from '../../src-main/probe/attach.ts';
import { appLogTail, collectProbe } from '../../src-main/probe/collect.ts';
import { parseProbeLine, parseProbeLog } from '../../src-main/probe/parse.ts';
import { placeReports } from '../../src-main/probe/place.ts';
import { Store } from '../../src-main/store/index.ts';

const report = (o: Partial<ProbeReport> & { at: number; pid: number }): ProbeReport => ({
  ppid: 1,
  role: 'worker',
  elu: 0.5,
  delayP50Ms: 0.1,
  delayP99Ms: 2,
  delayMaxMs: 3,
  gcMs: 4,
  gcCounts: { scavenge: 2, markSweepCompact: 0, incremental: 0, weakCallbacks: 0 },
  gcMaxPauseMs: 2.5,
  heapUsedBytes: 10e6,
  heapTotalBytes: 20e6,
  heapLimitBytes: 2e9,
  rssBytes: 60e6,
  externalBytes: 1e6,
  arrayBuffersBytes: 1e4,
  activeResources: 5,
  voluntaryCtxSwitches: 100,
  involuntaryCtxSwitches: 7,
  ms: 1000,
  ...o,
});
const line = (r: ProbeReport): string => `rightsize:probe ${JSON.stringify(r)}`;

describe('probe lines', () => {
  it('parses a whole record, even behind a prefix, and skips broken ones', () => {
    const r = report({ at: 5000, pid: 7 });
    expect(parseProbeLine(`0|app | ${line(r)}`)).toEqual(r);
    expect(parseProbeLine(line(r).slice(0, 60))).toBeUndefined();
    expect(parseProbeLine('rightsize:workers-listening n=2')).toBeUndefined();
    const log = [line(r), 'hello', 'rightsize:probe-off pid=9 Cannot read /proc', line(r).slice(0, 40)].join('\n');
    const parsed = parseProbeLog(log);
    expect(parsed.reports).toHaveLength(1);
    expect([...parsed.off]).toEqual([[9, 'Cannot read /proc']]);
  });

  it("leaves the probe's lines out of the log tail a failed cell shows", async () => {
    const log = ['app started', line(report({ at: 1, pid: 2 })), 'Error: boom', line(report({ at: 2, pid: 2 }))];
    expect(await appLogTail({ logTail: () => Promise.resolve(log.join('\n')) }, 20)).toBe('app started\nError: boom');
  });
});

describe('placing reports in the cell', () => {
  const clock = { loadFromMs: 10_000, measureFromMs: 12_000, measuredSec: 3 };
  it('counts t like Sample.t (0 = first measured second), warm-up below 0, and drops start-up and teardown', () => {
    const reports = [9_000, 10_300, 11_300, 12_300, 13_300, 14_300, 15_300].map((at) => report({ at, pid: 1 }));
    const placed = placeReports(reports, clock);
    expect(placed.map((s) => [s.t, s.warmup ?? false])).toEqual([
      [-2, true], // 9.3–10.3 s: its middle is after the load began
      [-1, true],
      [0, false],
      [1, false],
      [2, false],
    ]);
    expect(placed[0]).not.toHaveProperty('at');
  });

  it('keeps one second per process when a late report and a prompt one fall in the same second', () => {
    const placed = placeReports(
      [
        report({ at: 12_900, pid: 1, ms: 1500 }),
        report({ at: 13_000, pid: 1, ms: 100 }),
        report({ at: 13_000, pid: 2 }),
      ],
      clock,
    );
    expect(placed.map((s) => [s.t, s.pid])).toEqual([
      [0, 1],
      [0, 2],
    ]);
  });
});

describe('what the probe heard', () => {
  const sec = (pid: number, role: ProbeReport['role'], t = 0) => ({ ...report({ at: 0, pid, role }), t });
  it('counts a cluster primary and its workers, and names the worker that never reported', () => {
    const full = summarizeProbe([sec(1, 'primary'), sec(2, 'worker'), sec(3, 'worker')], {
      mode: 'cluster',
      workers: 2,
    });
    expect(full).toMatchObject({ attached: 3, expected: 3 });
    expect(full.note).toBeUndefined();
    const part = summarizeProbe([sec(1, 'primary'), sec(2, 'worker')], { mode: 'cluster', workers: 2 });
    expect(part.note).toBe('the probe could not attach to 1 of 2 workers: no line came from them');
    const pm2 = summarizeProbe([sec(2, 'worker'), sec(3, 'worker')], { mode: 'pm2', workers: 2 });
    expect(pm2.note).toBe("the probe could not attach to PM2's daemon: no line came from them");
  });

  it('says so when nothing reported, or when the log could not be read', async () => {
    const none = summarizeProbe([], { mode: 'single', workers: 1 }, new Map([[8, 'EBADF']]));
    expect(none.note).toBe(
      'the probe could not attach to any of the 1 processes: none reported while the load ran; ' +
        'the probe turned itself off in process 8: EBADF',
    );
    const clock = { loadFromMs: 0, measureFromMs: 0, measuredSec: 1 };
    const failing = { logTail: () => Promise.reject(new Error('logs are not available for this pod')) };
    const lost = await collectProbe(failing, { mode: 'cluster', workers: 2 }, clock, Date.now());
    expect(lost).toEqual({
      attached: 0,
      expected: null,
      processes: [],
      note: 'no probe data on this target: its log could not be read (logs are not available for this pod)',
    });
  });
});

describe('the probe in the launch', () => {
  it('appends its preload to the NODE_OPTIONS the app sets, in every mode but an image', () => {
    expect(withProbeOption(undefined)).toBe(`--require ${PROBE_SCRIPT}`);
    expect(withProbeOption('--max-old-space-size=96')).toBe(`--max-old-space-size=96 --require ${PROBE_SCRIPT}`);
    expect(withProbeOption(withProbeOption('--x'))).toBe(`--x --require ${PROBE_SCRIPT}`);
    for (const mode of ['single', 'cluster', 'pm2'] as const) {
      const env = launchCommand({
        mode,
        workers: 2,
        entry: '/srv/a.js',
        name: 'a',
        probe: true,
        nodeOptions: '--y',
      }).env;
      expect(env['NODE_OPTIONS']).toBe(`--y --require ${PROBE_SCRIPT}`);
      expect(launchCommand({ mode, workers: 2, entry: '/srv/a.js', name: 'a' }).env['NODE_OPTIONS']).toBeUndefined();
    }
    const image = launchCommand({ mode: 'image', workers: 2, entry: '', name: 'a', probe: true, workersEnv: 'W' });
    expect(image.env).toEqual({ W: '2' });
  });

  it('is on by default and off with "probe": false, down to the target spec', () => {
    const base = { apps: ['hello'], cpuMillicores: [1000], memoryMb: [256], workers: [2], modes: ['cluster'] };
    const limits = { cores: 8, memoryMb: 8192, apps: ['hello'] };
    const on = validateMatrix(base, limits);
    const off = validateMatrix({ ...base, probe: false }, limits);
    if (!on.ok || !off.ok) throw new Error('valid matrices refused');
    const [cellOn] = expandMatrix(on.matrix);
    const [cellOff] = expandMatrix(off.matrix);
    expect(cellOn!.probe).toBe(true);
    expect(cellOff!.probe).toBeUndefined();
    const bad = validateMatrix({ ...base, probe: 'no' }, limits);
    expect(bad.ok).toBe(false);
    const ctx = {
      app: {
        name: 'hello',
        port: 3000,
        health: '/health',
        env: { NODE_OPTIONS: '--z' },
        requests: [],
        source: { kind: 'builtin' },
      },
      image: { tag: 'img', entry: '/srv/apps/hello/server.js' },
      placement: false,
    } as unknown as Parameters<typeof targetSpecOf>[1];
    const labels = { run: '1', cell: '2', app: 'hello', session: 's' };
    expect(targetSpecOf(cellOn as CellConfig, ctx, labels).launch).toMatchObject({ probe: true, nodeOptions: '--z' });
    expect(targetSpecOf(cellOff as CellConfig, ctx, labels).launch.probe).toBeUndefined();
  });

  it('is turned off by --no-probe over the matrix, and left as the matrix says without it', () => {
    expect(withProbeSwitch({ apps: ['hello'] }, false)).toEqual({ apps: ['hello'], probe: false });
    expect(withProbeSwitch({ apps: ['hello'], probe: true }, false)).toEqual({ apps: ['hello'], probe: false });
    expect(withProbeSwitch({ apps: ['hello'], probe: false }, true)).toEqual({ apps: ['hello'], probe: false });
    expect(withProbeSwitch({ apps: ['hello'] }, true)).toEqual({ apps: ['hello'] });
  });
});

describe('the probe in the store', () => {
  it('stores a cell probe with its seconds, reads them back by cell and run, and deletes them with the run', () => {
    const store = Store.open(':memory:');
    const matrix = validateMatrix(
      { apps: ['hello'], cpuMillicores: [1000], memoryMb: [256], workers: [2], modes: ['cluster'] },
      { cores: 8, memoryMb: 8192, apps: ['hello'] },
    );
    if (!matrix.ok) throw new Error('matrix refused');
    const [cell] = expandMatrix(matrix.matrix);
    const runId = store.createRun({
      name: 'probe',
      matrix: matrix.matrix,
      host: {} as HostFacts,
      ownerSession: 'x:1:1',
      cellsTotal: 1,
    });
    const cellId = store.startCell(runId, cell!);
    const seconds = placeReports(
      [10_700, 11_700, 12_700].flatMap((at) => [report({ at, pid: 1, role: 'primary' }), report({ at, pid: 2 })]),
      { loadFromMs: 10_000, measureFromMs: 11_000, measuredSec: 2 },
    );
    const probe = summarizeProbe(seconds, { mode: 'cluster', workers: 2 });
    store.addProbe(cellId, probe);
    const back = store.getProbeSeconds(cellId);
    expect(back).toEqual(seconds);
    expect(back.filter((s) => s.warmup).map((s) => s.t)).toEqual([-1, -1]);
    expect(store.getRunProbeSeconds(runId).get(cellId)).toEqual(seconds);
    // Each process's peaks over the seconds, and the most serving processes heard at once, kept with the cell.
    const peak = { rssBytes: 60_000_000, heapTotalBytes: 20_000_000, heapLimitBytes: 2_000_000_000 };
    expect(store.getProbe(cellId)).toEqual({
      attached: 2,
      expected: 3,
      processes: [
        { pid: 1, role: 'primary', peak },
        { pid: 2, role: 'worker', peak },
      ],
      servingAtOnce: 1,
      note: 'the probe could not attach to 1 of 2 workers: no line came from them',
    });
    expect(store.getRun(runId)!.cells[0]!.probe).toEqual(store.getProbe(cellId));
    expect(store.deleteRun(runId)).toBe(true);
    expect(store.getProbeSeconds(cellId)).toEqual([]);
    expect(store.getProbe(cellId)).toBeUndefined();
    store.close();
  });
});
