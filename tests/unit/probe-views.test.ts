// The runtime probe as it is shown and exported: which processes serve and what they are called,
// each second's figures (GC share over the time the probe listened, never over the whole second),
// the samples CSV's probe columns and probe.csv, the HTML report's "Runtime (probe)" section, and
// runs.probe through the contract (a real SQLite store; no Docker).
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { othersNote, probeBySecond, probeProcesses } from '../../src-main/common/probe-series.ts';
import { expandMatrix, validateMatrix } from '../../src-main/engine/matrix.ts';
import { probeCsv, samplesCsv } from '../../src-main/export/csv.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import type { ProbeSecond, ProcessRole } from '../../src-main/model/probe.ts';
import type { HostFacts, Sample } from '../../src-main/model/types.ts';
import { Lab } from '../../src-main/service/lab.ts';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { Store } from '../../src-main/store/index.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { tempDir } from '../helpers/cli.ts';
import { parseCsv } from '../helpers/report.ts';
import { cell, run } from '../helpers/run-fixture.ts';

const MB = 2 ** 20;
const second = (t: number, pid: number, role: ProcessRole, o: Partial<ProbeSecond> = {}): ProbeSecond => ({
  t,
  pid,
  ppid: 1,
  role,
  elu: 0.5,
  delayP50Ms: 10,
  delayP99Ms: 12,
  delayMaxMs: 20,
  gcMs: 0,
  gcCounts: { scavenge: 0, markSweepCompact: 0, incremental: 0, weakCallbacks: 0 },
  gcMaxPauseMs: 0,
  heapUsedBytes: 20 * MB,
  heapTotalBytes: 30 * MB,
  heapLimitBytes: 128 * MB,
  rssBytes: 60 * MB,
  externalBytes: 0,
  arrayBuffersBytes: 0,
  activeResources: 3,
  voluntaryCtxSwitches: 100,
  involuntaryCtxSwitches: 10,
  ms: 1000,
  ...(t < 0 ? { warmup: true as const } : {}),
  ...o,
});
const sample = (t: number, o: Partial<Sample> = {}): Sample => ({
  t, rps: 1000, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 100, p90Us: 200, p99Us: 300, maxUs: 400, cpuPct: 90, memBytes: 80 * MB, throttledPeriods: 2, ...o,
});

/** A cluster ×2 cell: the primary idle, worker 11 busy and GC-heavy in the second it listened 200 ms, worker 12 half busy. */
const clusterSeconds = (): ProbeSecond[] => [
  ...[-1, 0, 1, 2].map((t) => second(t, 10, 'primary', { elu: 0.01 })),
  ...[-1, 0, 1, 2].map((t) => second(t, 11, 'worker', { elu: 0.9, delayP99Ms: 30 + t, gcMs: 20, gcWindowMs: 200, heapUsedBytes: (40 + t) * MB, rssBytes: (90 + t) * MB })),
  ...[-1, 0, 1, 2].map((t) => second(t, 12, 'worker', { elu: 0.5, gcMs: 0 })),
];

describe('probe processes and seconds (common/probe-series.ts)', () => {
  it('draws the workers, numbered in order of first report, and names the primary as left out', () => {
    const { serving, others } = probeProcesses(clusterSeconds(), 'cluster');
    expect(serving.map((p) => p.label)).toEqual(['worker 1 (pid 11)', 'worker 2 (pid 12)']);
    expect(serving[0]!.seconds.map((s) => s.t)).toEqual([-1, 0, 1, 2]);
    expect(others.map((p) => p.label)).toEqual(['cluster primary (pid 10)']);
    expect(othersNote(others)).toBe('Not drawn: cluster primary (pid 10), which serves no requests.');
    expect(othersNote([])).toBe('');
  });

  it('takes a single process as it is, and an image’s only process as its server (never PM2’s daemon)', () => {
    expect(probeProcesses([second(0, 7, 'single')]).serving.map((p) => p.label)).toEqual(['process (pid 7)']);
    const image = [second(0, 1, 'primary'), second(0, 2, 'pm2-daemon')];
    expect(probeProcesses(image, 'image').serving.map((p) => p.pid)).toEqual([1]);
    expect(probeProcesses(image, 'cluster').serving).toEqual([]);
  });

  it('sums a second over the serving processes, GC over the time the probe listened', () => {
    const f = probeBySecond(clusterSeconds(), 'cluster').get(1)!;
    expect(f.processes).toBe(2);
    expect(f.eluMean).toBeCloseTo(0.7);
    expect(f.eluMax).toBeCloseTo(0.9);
    expect(f.delayP99MaxMs).toBe(31);
    // 20 ms of pauses in 200 ms heard (worker 11) + 0 in the whole second (worker 12): 20 / 1200, not 20 / 2000.
    expect(f.gcShare).toBeCloseTo(20 / 1200);
    expect(f.heapUsedMaxBytes).toBe(41 * MB);
    expect(f.rssMaxBytes).toBe(91 * MB);
    expect([...probeBySecond(clusterSeconds(), 'cluster').keys()]).toEqual([-1, 0, 1, 2]);
  });
});

/** A run of two cells: cell 1 (id 1) probed, cell 2 (id 2) with the probe off. */
function twoCells() {
  const probed = cell({ workers: 2 });
  const r = run([{ ...probed, config: { ...probed.config, probe: true } }, cell({ workers: 1 })]);
  const samples = new Map([
    [1, [0, 1, 2].map((t) => sample(t))],
    [2, [0, 1].map((t) => sample(t))],
  ]);
  return { r, samples, probe: new Map([[1, clusterSeconds()]]) };
}

describe('the samples CSV with the probe', () => {
  it('adds the serving processes’ figures to each cell-second, empty where the cell has no probe', () => {
    const { r, samples, probe } = twoCells();
    const rows = parseCsv(samplesCsv(r, samples, probe));
    expect(Object.keys(rows[0]!).slice(-6)).toEqual(['elu_mean', 'elu_max', 'delay_p99_max_ms', 'gc_share_mean', 'heap_used_max_bytes', 'rss_max_bytes']);
    const second1 = rows.find((x) => x.cell_index === '0' && x.t_s === '1')!;
    expect(second1).toMatchObject({ elu_mean: '0.700', elu_max: '0.900', delay_p99_max_ms: '31', gc_share_mean: '0.017', heap_used_max_bytes: String(41 * MB), rss_max_bytes: String(91 * MB) });
    expect(second1.throttled_periods).toBe('2');
    const unprobed = rows.filter((x) => x.cell_index === '1');
    expect(unprobed).toHaveLength(2);
    expect(unprobed.every((x) => x.elu_mean === '' && x.gc_share_mean === '' && x.rss_max_bytes === '')).toBe(true);
    // Without probe seconds at all (as before the probe), the columns are there and empty.
    expect(parseCsv(samplesCsv(r, samples)).every((x) => x.elu_mean === '')).toBe(true);
  });

  it('writes probe.csv with one row per process and second, warm-up marked, GC window given', () => {
    const { r, probe } = twoCells();
    const rows = parseCsv(probeCsv(r, probe));
    expect(rows).toHaveLength(12);
    const w = rows.find((x) => x.pid === '11' && x.t_s === '-1')!;
    expect(w).toMatchObject({ cell_index: '0', warmup: 'true', role: 'worker', gc_ms: '20', gc_window_ms: '200', elu: '0.900' });
    expect(rows.find((x) => x.pid === '12' && x.t_s === '0')).toMatchObject({ warmup: 'false', gc_window_ms: '1000' });
  });
});

describe('the HTML report’s runtime section', () => {
  it('tables each configuration’s workers (ELU, delay, GC share, heap of limit, RSS) and charts their ELU', () => {
    const { r, samples, probe } = twoCells();
    const html = htmlReport(r, samples, recommend(r, { samples }), probe);
    const sectionHtml = /<section id="runtime">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(sectionHtml).toContain('<h2>Runtime (probe)</h2>');
    const rows = [...sectionHtml.matchAll(/<tr data-worker="(\d)">([\s\S]*?)<\/tr>/g)].map((m) => m[2]!.replace(/<[^>]+>/g, '|'));
    // Busiest first; measured seconds only (the warm-up second is left out): worker 11's heap peaked at 42 MB, RSS at 92 MB.
    expect(rows[0]).toContain('worker 1 (busiest)');
    expect(rows[0]).toContain('|0.90|');
    expect(rows[0]).toContain('|31.0 ms|');
    expect(rows[0]).toContain('|10 %|'); // 60 ms of pauses in the 600 ms it listened
    expect(rows[0]).toContain('|42 MB of 128 MB|');
    expect(rows[0]).toContain('|92 MB|');
    expect(rows[1]).toContain('|0.50|');
    expect(rows[1]).toContain('|0 %|');
    expect(rows).toHaveLength(2); // the primary serves no requests
    expect(sectionHtml).toContain('<svg');
    expect(sectionHtml).toContain('Event-loop utilization per worker — cell 1');
    expect(sectionHtml).toContain('warm-up ended');
    expect(sectionHtml).toContain('Not drawn: cluster primary (pid 10), which serves no requests.');
    // The container beside them: CPU of the cap and every process's context switches (3 × 110 a second).
    expect(sectionHtml).toContain('1 repetition with probe data · CPU 90 % of its cap · 330 context switches/s (30 involuntary).');
  });

  it('has no section for a run without the probe, and says so when the probe was on but nothing reported', () => {
    const { r, samples } = twoCells();
    const unprobed = run([cell({ workers: 1 })]);
    expect(htmlReport(unprobed, new Map(), recommend(unprobed))).not.toContain('id="runtime"');
    const silent = htmlReport(r, samples, recommend(r, { samples }), new Map());
    expect(silent).toContain('data-probe-none');
    expect(silent).toContain('The runtime probe was on, but no cell that finished has probe seconds.');
  });
});

describe('runs.probe through the contract', () => {
  let lab: Lab;
  let store: Store;
  beforeEach(async () => {
    store = Store.open(path.join(tempDir('rightsize-runs-probe-'), 'r.db'));
    lab = await Lab.open({
      store,
      startup: { interruptedRuns: [], sweptContainers: [], engine: { version: '27.0.0', cpus: 1, memoryBytes: 2 ** 32 } as EngineInfo },
      recheckMs: { down: 60_000, up: 60_000 },
    });
  });
  afterEach(async () => lab.close());

  it('gives each cell’s probe and seconds, one cell on request, and refuses what is not there as runs.samples does', async () => {
    const m = validateMatrix({ apps: ['hello'], cpuMillicores: [1000], memoryMb: [256], workers: [1, 2], modes: ['cluster'] }, { cores: 8, memoryMb: 8192, apps: ['hello'] });
    if (!m.ok) throw new Error('matrix refused');
    const runId = store.createRun({ name: 'p', matrix: m.matrix, host: {} as HostFacts, ownerSession: 'x:1:1', cellsTotal: 2 });
    const [a, b] = expandMatrix(m.matrix).map((c) => store.startCell(runId, c));
    const seconds = clusterSeconds();
    store.addProbe(a!, { attached: 3, expected: 3, processes: [{ pid: 10, role: 'primary' }, { pid: 11, role: 'worker' }, { pid: 12, role: 'worker' }], seconds });

    const all = await dispatch(lab, 'runs.probe', { runId });
    expect(all).toMatchObject({ ok: true });
    const value = (all as { value: { cellId: number; probe: unknown; seconds: ProbeSecond[] }[] }).value;
    expect(value.map((x) => x.cellId)).toEqual([a, b]);
    expect(value[0]!.probe).toEqual({ attached: 3, expected: 3, processes: [{ pid: 10, role: 'primary' }, { pid: 11, role: 'worker' }, { pid: 12, role: 'worker' }] });
    expect(value[0]!.seconds).toHaveLength(12);
    expect(value[1]).toEqual({ cellId: b, probe: null, seconds: [] });
    expect(await dispatch(lab, 'runs.probe', { runId, cellId: b })).toEqual({ ok: true, value: [{ cellId: b, probe: null, seconds: [] }] });

    const missing = await dispatch(lab, 'runs.probe', { runId: 999 });
    expect(missing).toEqual(await dispatch(lab, 'runs.samples', { runId: 999 }));
    expect(missing).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: 'There is no run 999.' } });
    expect(await dispatch(lab, 'runs.probe', { runId, cellId: 999 })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND', message: `Run ${runId} has no cell with id 999.` } });
    expect(await dispatch(lab, 'runs.probe', { runId: 'x' })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
  });
});
