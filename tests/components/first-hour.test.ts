import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import Live from '../../src-renderer/routes/Live.svelte';
import Compare from '../../src-renderer/routes/Compare.svelte';
import CellsTable from '../../src-renderer/components/CellsTable.svelte';
import type { CellConfig, RunDetail, Sample, StoredCell } from '../../src-main/contract/api.ts';
import type { CellRow } from '../../src-renderer/lib/cells.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

// What a new user meets in the first hour (issue 14), each kept fixed here.

const apps = [{ name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true }];
const presets = [
  { name: 'quick', title: 'Quick first try', description: 'two cells', seed: '', matrix: { apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256], load: { model: 'closed', connections: [20] }, durationSec: 5, warmupSec: 1, repetitions: 3, order: 'shuffle' } },
];

const config = (index: number, workers = 1): CellConfig => ({ index, app: 'hello', mode: 'cluster', workers, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20 }, durationSec: 5, warmupSec: 1, repetition: 0, env: {} }) as unknown as CellConfig;
const sample = (t: number): Sample => ({ t, rps: 1000 + t, bytes: 0, errors: 0, timeouts: 0, non2xx: 0, p50Us: 300, p90Us: 500, p99Us: 900, maxUs: 2000, cpuPct: 90, memBytes: 2 ** 24, throttledPeriods: 0 });

beforeEach(() => {
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => presets;
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine; // the engine's own rules, as the real Lab applies them
});

describe('the builder', () => {
  it('shows the picked preset until the user changes something, then says it was changed', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(within(screen.getByTestId('preset')).getAllByRole('option').length).toBe(2));
    const picker = screen.getByTestId('preset') as HTMLSelectElement;
    await fireEvent.change(picker, { target: { value: 'quick' } });
    await vi.waitFor(() => expect(screen.getByTestId('worker-2').getAttribute('aria-pressed')).toBe('true'));
    // A later render (validation answers, derived state) must not reset it to "custom".
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/6 cells/));
    expect(picker.value).toBe('quick');
    expect(picker.selectedOptions[0]!.textContent).toBe('Quick first try');
    await fireEvent.click(screen.getByTestId('worker-4'));
    await vi.waitFor(() => expect(picker.value).toBe(''));
    expect(picker.selectedOptions[0]!.textContent).toBe('— custom (changed from Quick first try) —');
    // Undoing the change shows the preset again: the form holds it.
    await fireEvent.click(screen.getByTestId('worker-4'));
    await vi.waitFor(() => expect(picker.value).toBe('quick'));
  });

  it('says when the host has too few cores to keep the UI, the load and the target apart', async () => {
    const { rerender } = render(Builder, { props: { status: up } }); // 2 cores, 1 CPU cap: 1 + load + UI > 2
    expect(screen.getByTestId('cores-warning').textContent).toMatch(/This host has 2 cores: the target \(up to 1 CPU\), the load generator/);
    await rerender({ status: { ...up, limits: { ...up.limits, cores: 8 } } });
    expect(screen.queryByTestId('cores-warning')).toBeNull();
  });
});

describe('the live view', () => {
  const run = { id: 5, name: 'quick', status: 'running', error: null, cellsTotal: 2, cells: [], matrix: presets[0]!.matrix } as unknown as RunDetail;
  beforeEach(() => {
    fakeEngine.answers['runs.get'] = () => run;
  });

  it('shows the phase from the first moment, never empty charts nor an ETA of 0', async () => {
    render(Live, { props: { runId: 5 } });
    // Before any event: what is happening, an estimate from the matrix, and no chart at all.
    expect(screen.getByTestId('phase').textContent).toContain('Starting the run');
    expect(screen.getByTestId('eta').textContent).not.toMatch(/\b0s\b/);
    await vi.waitFor(() => expect(screen.getByTestId('eta').textContent).toMatch(/ETA about \d/));
    expect(screen.queryByTestId('chart-latency')).toBeNull();
    expect(screen.queryByTestId('chart-summary')).toBeNull();
    expect(screen.getByTestId('charts-waiting')).toBeTruthy();

    fakeEngine.emit('run.progress', { type: 'run-started', runId: 5, name: 'quick', total: 2, etaSec: 0 });
    fakeEngine.emit('run.progress', { type: 'log', runId: 5, level: 'info', message: 'Step 1/4 : FROM node:20-slim' });
    await vi.waitFor(() => expect(screen.getByTestId('phase').textContent).toContain('Preparing images'));
    expect(screen.getByTestId('run-build-log').textContent).toContain('Step 1/4');
    expect(screen.getByTestId('eta').textContent).toBe('ETA estimating…'); // an estimate of 0 is no estimate

    fakeEngine.emit('run.progress', { type: 'cell-started', runId: 5, cellId: 1, index: 0, total: 2, etaSec: 30, cell: config(0) });
    await vi.waitFor(() => expect(screen.getByTestId('phase').textContent).toContain('Starting the container'));
    expect(screen.getByTestId('eta').textContent).toMatch(/ETA about (29|30)s/);
    fakeEngine.emit('run.progress', { type: 'cell-phase', runId: 5, cellId: 1, index: 0, phase: 'warmup' });
    await vi.waitFor(() => expect(screen.getByTestId('phase').textContent).toContain('Warming up'));
    // Warm-up: the charts are in place (no jump when measuring starts), its seconds drawn under a shaded band.
    expect(screen.getByTestId('chart-latency').getAttribute('data-points')).toBe('0');
    fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: { ...sample(0), warmup: true } });
    await vi.waitFor(() => expect(screen.getByTestId('chart-latency').getAttribute('data-points')).toBe('3'));
    expect(screen.getByTestId('chart-latency').getAttribute('data-warmup-until')).toBe('1.5');

    fakeEngine.emit('run.progress', { type: 'cell-phase', runId: 5, cellId: 1, index: 0, phase: 'measuring' });
    fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: sample(0) });
    await vi.waitFor(() => expect(screen.getByTestId('chart-latency').getAttribute('data-points')).toBe('6'));
    expect(screen.getByTestId('phase').textContent).toContain('Measuring (5 s)');
    // Later seconds are drawn in batches, not one redraw per second.
    fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: sample(1) });
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.getByTestId('chart-rps').getAttribute('data-points')).toBe('2'); // one warm-up, one measured
    expect(screen.getByTestId('current-cell').textContent).toContain('1,001 req/s'); // the words follow every second
    expect(screen.getByTestId('summary-waiting').textContent).toContain('Each cell that finishes with a result adds a point here');
  });

  it('says the run’s plan, moves the warm-up band back when steady seconds become measured, and counts what the grid skipped', async () => {
    render(Live, { props: { runId: 5 } });
    const range = (low: number, expected: number, high: number) => ({ low, expected, high });
    const estimate = { gridCells: 6, gridSec: 42, settle: { cells: range(0, 1.5, 3), sec: range(0, 10.5, 21) }, verify: { cells: range(1, 2, 3), sec: range(11, 22, 33) }, totalSec: 74.5, lowSec: 53, highSec: 96, basis: [], runs: 0 };
    fakeEngine.emit('run.progress', { type: 'run-started', runId: 5, name: 'quick', total: 6, cells: [], etaSec: 74.5, estimate });
    await vi.waitFor(() => expect(screen.getByTestId('run-plan').textContent).toBe('Planned: a grid of 6 cells, then settling (0–3 cells, only while undecided) and verification (1–3 cells)'));
    fakeEngine.emit('run.progress', { type: 'cell-started', runId: 5, cellId: 1, index: 0, total: 6, etaSec: 70, cell: config(0) });
    fakeEngine.emit('run.progress', { type: 'cell-phase', runId: 5, cellId: 1, index: 0, phase: 'warmup' });
    for (const t of [0, 1, 2, 3]) fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: { ...sample(t), warmup: true } });
    await vi.waitFor(() => expect(screen.getByTestId('chart-latency').getAttribute('data-warmup-until')).toBe('4.5'));
    // Seconds 1–3 were already steady: they come again as the first measured ones, and only the ramp stays warm-up.
    for (const t of [0, 1, 2]) fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: { ...sample(t), wasWarmup: t + 1 } });
    await vi.waitFor(() => expect(screen.getByTestId('chart-latency').getAttribute('data-warmup-until')).toBe('1.5'));
    await vi.waitFor(() => expect(screen.getByTestId('chart-rps').getAttribute('data-points')).toBe('4'), { timeout: 3000 }); // one warm-up, three measured
    fakeEngine.emit('run.progress', { type: 'run-phase', runId: 5, phase: 'grid', message: 'after 3 of 4 repetitions, 2 cluster workers on 1 CPU / 256 MB is out of the contest (…): 1 cell skipped', total: 5, etaSec: 60 });
    await vi.waitFor(() => expect(screen.getByTestId('progress').textContent).toContain('Grid: cell 1 of 5'));
    expect(screen.getByTestId('run-phase').textContent).toContain('1 cell skipped');
  });

  it('follows a cell whose start it did not see (the view opened late)', async () => {
    fakeEngine.answers['runs.get'] = () => ({ ...run, cells: [{ id: 1, status: 'running', config: config(0) }] });
    render(Live, { props: { runId: 5 } });
    fakeEngine.emit('run.progress', { type: 'cell-phase', runId: 5, cellId: 1, index: 0, phase: 'measuring' });
    fakeEngine.emit('run.samples', { runId: 5, cellId: 1, index: 0, sample: sample(0) });
    await vi.waitFor(() => expect(screen.getByTestId('chart-rps').getAttribute('data-points')).toBe('1'));
    await vi.waitFor(() => expect(screen.getByTestId('current-cell').textContent).toContain('1,000 req/s'));
    expect(screen.getByTestId('phase').textContent).toContain('Measuring (5 s)');
  });

  it('marks a cancelled cell as not a result', async () => {
    render(Live, { props: { runId: 5 } });
    const cell = config(0);
    fakeEngine.emit('run.progress', { type: 'cell-started', runId: 5, cellId: 1, index: 0, total: 2, etaSec: 30, cell });
    fakeEngine.emit('run.progress', {
      type: 'cell-finished', runId: 5, cellId: 1, index: 0, total: 2, etaSec: 0,
      result: { config: cell, status: 'cancelled', flags: [{ kind: 'client-bound', reason: 'busy' }], load: { rpsMean: 29, errors: 0, timeouts: 0, non2xx: 0, latencyUs: { p50: 500, p99: 713, max: 900 } }, stats: null },
    });
    fakeEngine.emit('run.progress', { type: 'run-finished', runId: 5, status: 'cancelled' });
    await vi.waitFor(() => expect(screen.getByTestId('partial-0').textContent).toBe('partial'));
    expect(screen.getByTestId('flags').textContent).toContain('stopped before the end; its seconds are not a result');
    expect(screen.getByTestId('summary-waiting').textContent).toContain('No cell finished with a result');
    expect(screen.queryByTestId('chart-summary')).toBeNull();
  });
});

describe('the cells table', () => {
  it('shows a cancelled cell’s partial numbers marked, and an ok cell’s plainly', () => {
    const row = (index: number, status: string): CellRow => ({ config: config(index), status, rpsMean: 29, p50Us: 500, p99Us: 713, maxUs: 900, cpuPctMean: 50, memMaxBytes: 2 ** 24, errors: 0, flags: [], failure: null });
    render(CellsTable, { props: { cells: [row(0, 'ok'), row(1, 'cancelled')] } });
    const [ok, cancelled] = screen.getAllByRole('row').slice(1);
    expect(ok!.querySelectorAll('td.partial')).toHaveLength(0);
    expect(cancelled!.querySelectorAll('td.partial')).toHaveLength(7);
    expect(screen.getByTestId('partial-1').getAttribute('title')).toMatch(/left out of every summary/);
  });
});

describe('compare', () => {
  const cell = (index: number, status: string, workers = 1): StoredCell => ({ id: index + 1, config: config(index, workers), status, rpsMean: status === 'ok' ? 100 : 29, p99Us: 900 }) as unknown as StoredCell;
  it('says why two runs have nothing to compare instead of showing empty charts', async () => {
    const runs: Record<number, RunDetail> = {
      1: { id: 1, name: 'a', status: 'cancelled', cellsTotal: 2, cells: [cell(0, 'cancelled')] } as unknown as RunDetail,
      2: { id: 2, name: 'b', status: 'completed', cellsTotal: 1, cells: [cell(0, 'ok')] } as unknown as RunDetail,
    };
    fakeEngine.answers['runs.get'] = ({ runId }: { runId: number }) => runs[runId];
    render(Compare, { props: { a: 1, b: 2 } });
    await vi.waitFor(() => expect(screen.getByTestId('compare-why').textContent).toBe('Run 1 (cancelled) has no cell that finished with a result (1 cancelled of 2), so it has nothing to draw.'));
  });

  it('says when two runs share no configuration', async () => {
    const other = { ...cell(0, 'ok'), config: { ...config(0), cpuMillis: 500 } } as StoredCell;
    fakeEngine.answers['runs.get'] = ({ runId }: { runId: number }) => ({ id: runId, name: 'x', status: 'completed', cellsTotal: 1, cells: [runId === 1 ? cell(0, 'ok') : other] });
    render(Compare, { props: { a: 1, b: 2 } });
    await vi.waitFor(() => expect(screen.getByTestId('compare-why').textContent).toMatch(/no configuration in common/));
  });

  it('says nothing when the runs compare', async () => {
    fakeEngine.answers['runs.get'] = ({ runId }: { runId: number }) => ({ id: runId, name: 'x', status: 'completed', cellsTotal: 1, cells: [cell(0, 'ok')] });
    render(Compare, { props: { a: 1, b: 2 } });
    await vi.waitFor(() => expect(screen.getByTestId('compare-rps')).toBeTruthy());
    expect(screen.queryByTestId('compare-why')).toBeNull();
  });
});

describe('a cell’s per-second throughput chart', () => {
  it('draws CPU % on its own axis and marks where warm-up ended', async () => {
    const { cellThroughputConfig } = await import('../../src-renderer/lib/charts.ts');
    const c = cellThroughputConfig('cell 1', [sample(0), sample(1)], [400, 900]);
    const byLabel = Object.fromEntries(c.data.datasets.map((d) => [d.label, d]));
    expect(byLabel['req/s']!.yAxisID).toBe('y');
    expect(byLabel['CPU % of cap']!.yAxisID).toBe('y2');
    expect((c.options!.scales as Record<string, { position?: string }>).y2!.position).toBe('right');
    // Measured seconds follow the two warm-up seconds; the marker stands between them.
    expect(byLabel['req/s']!.data.map((p) => p.x)).toEqual([3, 4]);
    expect(byLabel['req/s during warm-up']!.data.map((p) => p.y)).toEqual([400, 900]);
    expect(byLabel['warm-up ended']!.data.map((p) => p.x)).toEqual([2.5, 2.5]);
    // Without stored warm-up seconds: no marker, seconds from 1.
    const plain = cellThroughputConfig('cell 1', [sample(0)]);
    expect(plain.data.datasets.map((d) => d.label)).toEqual(['req/s', 'CPU % of cap']);
  });
});

describe('compare, a run with itself', () => {
  it('says once why there is nothing to draw', async () => {
    fakeEngine.answers['runs.get'] = () => ({ id: 7, name: 'x', status: 'cancelled', cellsTotal: 1, cells: [{ id: 1, config: config(0), status: 'cancelled', rpsMean: 29 }] });
    render(Compare, { props: { a: 7, b: 7 } });
    await vi.waitFor(() => expect(screen.getAllByTestId('compare-why').map((e) => e.textContent)).toEqual(['Run 7 (cancelled) has no cell that finished with a result (1 cancelled of 1), so it has nothing to draw.']));
  });
});
