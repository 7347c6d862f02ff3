// The runtime probe in the UI: one line per worker in three panels (ELU, event-loop delay p99, GC
// share over the time the probe listened), warm-up under the shaded band, a note in words where a
// cell has none; the run page's selected cell; Live's last finished cell; the Builder's and the
// Auto-size form's switch; throttling beside CPU.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import ProbeCharts from '../../src-renderer/components/ProbeCharts.svelte';
import Live from '../../src-renderer/routes/Live.svelte';
import Run from '../../src-renderer/routes/Run.svelte';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { probePanels } from '../../src-renderer/lib/probe-series.ts';
import { cellThroughputConfig } from '../../src-renderer/lib/charts.ts';
import { defaultDraft, toSpec } from '../../src-renderer/lib/size-form.ts';
import type { CellConfig, ProbeSecond, ProcessRole, RunDetail, Sample } from '../../src-main/contract/api.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const second = (t: number, pid: number, role: ProcessRole, o: Partial<ProbeSecond> = {}): ProbeSecond => ({
  t, pid, ppid: 1, role, elu: 0.5, delayP50Ms: 10, delayP99Ms: 12, delayMaxMs: 20, gcMs: 0,
  gcCounts: { scavenge: 0, markSweepCompact: 0, incremental: 0, weakCallbacks: 0 }, gcMaxPauseMs: 0,
  heapUsedBytes: 1, heapTotalBytes: 1, heapLimitBytes: 1, rssBytes: 1, externalBytes: 0, arrayBuffersBytes: 0,
  activeResources: null, voluntaryCtxSwitches: null, involuntaryCtxSwitches: null, ms: 1000,
  ...(t < 0 ? { warmup: true as const } : {}), ...o,
});
/** cluster ×2: the primary, and two workers over one warm-up and three measured seconds; worker 11 listened 200 ms for GC. */
const seconds: ProbeSecond[] = [
  ...[-1, 0, 1, 2].map((t) => second(t, 10, 'primary')),
  ...[-1, 0, 1, 2].map((t) => second(t, 11, 'worker', { elu: 0.9, gcMs: 20, gcWindowMs: 200 })),
  ...[-1, 0, 1, 2].map((t) => second(t, 12, 'worker', { elu: 0.4, gcMs: 5 })),
];
const sample = (t: number, throttledPeriods = 0): Sample => ({ t, rps: 1000, bytes: 0, errors: 0, timeouts: 0, non2xx: 0, p50Us: 300, p90Us: 500, p99Us: 900, maxUs: 2000, cpuPct: 90, memBytes: 2 ** 24, throttledPeriods });
const config = (index: number, o: Partial<CellConfig> = {}): CellConfig => ({ index, app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20 }, durationSec: 3, warmupSec: 1, repetition: 0, env: {}, probe: true, ...o }) as CellConfig;

describe('the probe panels (lib/probe-series.ts)', () => {
  it('draws one line per worker, after the warm-up, with the GC share over the time the probe listened', () => {
    const p = probePanels(seconds, { mode: 'cluster' })!;
    expect(p.lines).toBe(2);
    expect(p.elu.data.datasets.map((d) => d.label)).toEqual(['worker 1 (pid 11)', 'worker 2 (pid 12)']);
    // One warm-up second: x = 1 is warm-up, measurement from x = 2 (as the cell's other charts).
    expect(p.elu.data.datasets[0]!.data.map((q) => q.x)).toEqual([1, 2, 3, 4]);
    expect(p.elu.data.datasets[0]!.data.map((q) => q.y)).toEqual([0.9, 0.9, 0.9, 0.9]);
    expect(p.elu.options!.scales!['y']!.max).toBe(1);
    expect(p.gc.data.datasets.map((d) => d.data[1]!.y)).toEqual([10, 0.5]); // 20 of 200 ms; 5 of 1000 ms
    expect(p.othersNote).toBe('Not drawn: cluster primary (pid 10), which serves no requests.');
    // Lined up with the run page's charts when they draw more warm-up seconds than the probe heard.
    expect(probePanels(seconds, { mode: 'cluster', warmupSec: 3 })!.delay.data.datasets[0]!.data.map((q) => q.x)).toEqual([3, 4, 5, 6]);
    expect(probePanels([second(0, 10, 'primary')], { mode: 'cluster' })).toBeNull();
  });
});

describe('ProbeCharts', () => {
  const props = { probe: { attached: 3, expected: 3, processes: [] }, mode: 'cluster' as const, asked: true, heading: 'Runtime of cell 1 (probe, per worker)', filename: 'x' };

  it('shows three panels, each with a line per worker and the warm-up band, and the processes left out', () => {
    render(ProbeCharts, { props: { ...props, seconds } });
    expect(screen.getByTestId('probe-charts').getAttribute('data-lines')).toBe('2');
    for (const id of ['probe-elu', 'probe-delay', 'probe-gc']) {
      expect(screen.getByTestId(id).getAttribute('data-points')).toBe('8');
      expect(screen.getByTestId(id).getAttribute('data-warmup-until')).toBe('1.5');
    }
    expect(screen.getByTestId('probe-others').textContent).toBe('Not drawn: cluster primary (pid 10), which serves no requests.');
    expect(screen.queryByTestId('probe-note')).toBeNull();
  });

  it('says why instead of an empty chart: the probe off, its own note, or only a primary heard', () => {
    const { unmount } = render(ProbeCharts, { props: { ...props, seconds: [], probe: null, asked: false } });
    expect(screen.getByTestId('probe-note').textContent).toBe('No runtime probe in this cell: it ran with the probe off ("probe": false, --no-probe) or before Rightsize had one.');
    expect(screen.queryByTestId('probe-elu')).toBeNull();
    unmount();
    const note = "no probe: an image app runs its own command and its image does not hold the probe's file";
    const second_ = render(ProbeCharts, { props: { ...props, seconds: [], probe: { attached: 0, expected: null, processes: [], note }, mode: 'image' } });
    expect(screen.getByTestId('probe-note').textContent).toBe("No probe: an image app runs its own command and its image does not hold the probe's file.");
    second_.unmount();
    render(ProbeCharts, { props: { ...props, seconds: [second(0, 10, 'primary')] } });
    expect(screen.getByTestId('probe-note').textContent).toBe('No worker reported to the runtime probe; only cluster primary (pid 10), which serves no requests.');
  });

  it('keeps a partial attach’s note under the charts', () => {
    const note = 'the probe could not attach to 1 of 3 workers: no line came from them';
    render(ProbeCharts, { props: { ...props, seconds, probe: { attached: 3, expected: 4, processes: [], note } } });
    expect(screen.getByTestId('probe-elu')).toBeTruthy();
    expect(screen.getByTestId('probe-note').textContent).toBe('The probe could not attach to 1 of 3 workers: no line came from them.');
  });
});

describe('the run page', () => {
  const run = {
    id: 3, name: 'r', preset: null, matrix: {}, host: { cpuModel: 'x', cores: 2, memoryBytes: 2 ** 33, dockerVersion: '20', nodeVersion: '20' }, status: 'completed', cellsTotal: 2, startedAt: '2026-11-22T10:00:00Z', finishedAt: null, durationSec: 20, error: null, apps: [], search: null,
    cells: [
      { id: 31, config: config(0), status: 'ok', rpsMean: 1000, p50Us: 1, p99Us: 1, maxUs: 1, cpuPctMean: 1, memMaxBytes: 1, errors: 0, timeouts: 0, non2xx: 0, flags: [], failure: null, load: { warmupPerSecondRps: [900] } },
      { id: 32, config: config(1, { probe: undefined } as Partial<CellConfig>), status: 'ok', rpsMean: 1000, p50Us: 1, p99Us: 1, maxUs: 1, cpuPctMean: 1, memMaxBytes: 1, errors: 0, timeouts: 0, non2xx: 0, flags: [], failure: null, load: null },
    ],
  } as unknown as RunDetail;
  beforeEach(() => {
    fakeEngine.answers['runs.get'] = () => run;
    fakeEngine.answers['runs.samples'] = () => [{ cellId: 31, samples: [0, 1, 2].map((t) => sample(t, t)) }];
    fakeEngine.answers['runs.recommend'] = () => ({ scopes: [] });
    fakeEngine.answers['runs.probe'] = () => [{ cellId: 31, probe: { attached: 3, expected: 3, processes: [] }, seconds }, { cellId: 32, probe: null, seconds: [] }];
  });

  it('shows the selected cell’s runtime per worker, and says so for a cell without probe', async () => {
    render(Run, { props: { runId: 3 } });
    await vi.waitFor(() => expect(screen.getByTestId('probe-elu').getAttribute('data-points')).toBe('8'));
    expect(screen.getByTestId('probe-charts').getAttribute('aria-label')).toBe('Runtime of cell 1 (probe, per worker)');
    expect(fakeEngine.calls.find((c) => c.name === 'runs.probe')!.input).toEqual({ runId: 3 });
    expect(screen.getByTestId('export-probe')).toBeTruthy();
    const rows = screen.getByTestId('cells').querySelectorAll('tbody tr');
    await fireEvent.click(rows[1]!);
    await vi.waitFor(() => expect(screen.getByTestId('probe-note').textContent).toMatch(/^No runtime probe in this cell: it ran with the probe off/));
    expect(screen.queryByTestId('probe-elu')).toBeNull();
  });

  it('says so when the probe’s seconds cannot be read, and still shows the rest', async () => {
    fakeEngine.answers['runs.probe'] = () => {
      throw new Error('disk I/O error');
    };
    render(Run, { props: { runId: 3 } });
    await vi.waitFor(() => expect(screen.getByTestId('probe-error').textContent).toBe("The runtime probe's seconds could not be read: disk I/O error"));
    expect(screen.getByTestId('chart-cell-latency')).toBeTruthy();
  });
});

describe('throttling beside CPU', () => {
  it('adds throttled periods on an axis of their own to a cell’s throughput chart when the cap held it back', () => {
    const c = cellThroughputConfig('cell 1', [sample(0, 0), sample(1, 4)]);
    const byLabel = Object.fromEntries(c.data.datasets.map((d) => [d.label, d]));
    expect(byLabel['throttled periods']!.yAxisID).toBe('y3');
    expect(byLabel['throttled periods']!.data.map((p) => p.y)).toEqual([0, 4]);
    expect((c.options!.scales as Record<string, { position?: string }>)['y3']!.position).toBe('right');
  });
});

describe('a dependency beside the app', () => {
  it("draws each dependency's CPU (of its own cap) on the app's CPU axis, second by second, skipping unmeasured ones", () => {
    const db = { name: 'db', measured: [{ cpuPct: 97, memBytes: 1 }, null, { cpuPct: 99, memBytes: 1 }] };
    const c = cellThroughputConfig('cell 1', [sample(0, 0), sample(1, 0), sample(2, 0)], [], [db]);
    const line = c.data.datasets.find((d) => d.label === 'db CPU % of its cap')!;
    expect(line.yAxisID).toBe('y2');
    expect(line.data).toEqual([{ x: 1, y: 97 }, { x: 3, y: 99 }]);
  });
});

describe('Live', () => {
  it('shows the runtime of the last finished cell, fetched when it ends', async () => {
    fakeEngine.answers['runs.get'] = () => ({ id: 5, name: 'x', status: 'running', cellsTotal: 2, cells: [], matrix: {} });
    fakeEngine.answers['matrix.validate'] = () => ({ ok: true, cells: 2, etaSec: 20, problems: [] });
    fakeEngine.answers['runs.probe'] = ({ cellId }: { cellId: number }) => [{ cellId, probe: { attached: 3, expected: 3, processes: [] }, seconds }];
    render(Live, { props: { runId: 5 } });
    expect(screen.queryByTestId('probe-charts')).toBeNull(); // nothing finished yet: nothing to show
    const result = { config: config(1), status: 'ok', flags: [], load: { warmupPerSecondRps: [800] }, startedAt: '', finishedAt: '' };
    const finished = { type: 'cell-finished', runId: 5, cellId: 52, index: 1, total: 2, etaSec: 10, result };
    fakeEngine.emit('run.cellFinished', finished);
    await vi.waitFor(() => expect(screen.getByTestId('probe-elu').getAttribute('data-points')).toBe('8'));
    expect(screen.getByRole('heading', { name: 'Runtime of cell 2 (probe, per worker)' })).toBeTruthy();
    expect(fakeEngine.calls.filter((c) => c.name === 'runs.probe').map((c) => c.input)).toEqual([{ runId: 5, cellId: 52 }]);
  });
});

describe('the runtime probe switch', () => {
  beforeEach(() => {
    fakeEngine.answers['apps.list'] = () => [{ name: 'hello', description: '', stresses: '', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true }];
    fakeEngine.answers['presets.list'] = () => [];
    fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
  });
  const lastMatrix = () => (fakeEngine.calls.filter((c) => c.name === 'matrix.validate').at(-1)!.input as { matrix: Record<string, unknown> }).matrix;

  it('is on in the Builder and sends "probe": false only when unticked', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(fakeEngine.calls.some((c) => c.name === 'matrix.validate')).toBe(true));
    expect((screen.getByTestId('probe') as HTMLInputElement).checked).toBe(true);
    expect(lastMatrix()).not.toHaveProperty('probe');
    await fireEvent.click(screen.getByTestId('probe'));
    await vi.waitFor(() => expect(lastMatrix()).toMatchObject({ probe: false }));
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/)); // the engine takes it
  });

  it('is on in the Auto-size form and sends probe: false only when off', () => {
    expect(toSpec(defaultDraft())).not.toHaveProperty('probe');
    expect(toSpec({ ...defaultDraft(), probe: false })).toMatchObject({ probe: false });
  });
});
