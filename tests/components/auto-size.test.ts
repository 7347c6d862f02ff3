import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import Run from '../../src-renderer/routes/Run.svelte';
import SearchPath from '../../src-renderer/components/SearchPath.svelte';
import { sizeEtaSec, validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';
import type { CellConfig, RunDetail, SearchTrace, SizeSpec, StoredCell } from '../../src-main/contract/api.ts';
import { fmtDuration } from '../../src-main/common/format.ts';
import { engineError, fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

// The Builder's Auto-size mode and the path a search took on the run page (issue 15).

const apps = [
  { name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false },
  { name: 'pbkdf2', description: 'CPU-bound hashing', stresses: 'CPU', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false },
];

/** `size.validate` as the real Lab answers it: the engine's own rules (2 cores, 8 GiB, these apps) and its own budget. */
function validateSizeLikeTheEngine({ spec }: { spec: unknown }): unknown {
  const v = validateSizeSpec(spec, { cores: 2, memoryMb: 8192, apps: apps.map((a) => a.name) });
  return v.ok ? { ok: true, problems: [], gridCells: v.gridCells, maxCells: v.spec.maxCells, etaSec: sizeEtaSec(v.spec) } : { ok: false, problems: v.problems, gridCells: 0, maxCells: 0, etaSec: 0 };
}

beforeEach(() => {
  window.location.hash = '';
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => [];
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
  fakeEngine.answers['size.validate'] = validateSizeLikeTheEngine;
  fakeEngine.answers['runs.size'] = () => ({ runId: 42 });
});

const lastSpec = (): Record<string, unknown> => (fakeEngine.calls.filter((c) => c.name === 'size.validate').at(-1)!.input as { spec: Record<string, unknown> }).spec;
const input = (testid: string, value: string) => fireEvent.input(screen.getByTestId(testid), { target: { value } });
const startButton = () => screen.getByTestId('size-start') as HTMLButtonElement;

async function openAutoSize(): Promise<void> {
  render(Builder, { props: { status: up } });
  await fireEvent.click(screen.getByTestId('builder-mode-size'));
  await vi.waitFor(() => expect(screen.getByTestId('size-count').textContent).toMatch(/cells instead of/));
}

describe('the Builder’s Auto-size mode', () => {
  it('switches between Matrix and Auto-size, each keeping its form, and follows #/size', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/));
    expect(screen.queryByTestId('size-form')).toBeNull();
    expect((screen.getByTestId('builder-mode-matrix') as HTMLInputElement).checked).toBe(true);

    await fireEvent.click(screen.getByTestId('builder-mode-size'));
    expect(window.location.hash).toBe('#/size');
    expect(screen.getByTestId('size-form')).toBeTruthy();
    expect(screen.queryByTestId('cell-count')).toBeNull();
    expect(screen.queryByTestId('preset')).toBeNull(); // presets are matrices
    await input('size-p99', '80');
    await vi.waitFor(() => expect(lastSpec()).toMatchObject({ slo: { p99Ms: 80 } }));

    await fireEvent.click(screen.getByTestId('builder-mode-matrix'));
    expect(window.location.hash).toBe('#/');
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/));
    // Back in Auto-size (here through the address, as a link or a reload would): the objective is as left.
    window.location.hash = '#/size';
    window.dispatchEvent(new HashChangeEvent('hashchange'));
    await vi.waitFor(() => expect((screen.getByTestId('size-p99') as HTMLInputElement).value).toBe('80'));
  });

  it('says the budget against the grid it replaces, from the engine’s check', async () => {
    await openAutoSize();
    // Whatever the engine's steps are, the line says its numbers: the budget, the grid over the same bounds, the longest it can take.
    const said = (): string => screen.getByTestId('size-count').textContent!.replace(/\s+/g, ' ').trim();
    const engine = () => validateSizeLikeTheEngine({ spec: lastSpec() }) as { gridCells: number; maxCells: number; etaSec: number };
    expect(said()).toBe(`at most 12 cells instead of a ${engine().gridCells}-cell grid, about ${fmtDuration(engine().etaSec)}`);
    expect(engine().gridCells).toBeGreaterThan(12 * 10); // defaults: 250–1000m × 128–512 MB × 1–4 workers
    expect(startButton().disabled).toBe(false);
    const before = engine().gridCells;
    await input('size-max-cells', '6');
    await input('size-workers-max', '2');
    await vi.waitFor(() => expect(said()).toMatch(/^at most 6 cells/));
    expect(engine().gridCells).toBe(before / 2); // half the worker counts, half the grid
    expect(said()).toBe(`at most 6 cells instead of a ${engine().gridCells}-cell grid, about ${fmtDuration(engine().etaSec)}`);
  });

  it('shows every problem next to its field, keeps Start off, and lets a fix through', async () => {
    await openAutoSize();
    await input('size-p99', '0');
    await input('size-errors', '150');
    await input('size-workers-min', '5');
    await input('size-duration', '3');
    await input('size-max-cells', '0');
    await fireEvent.click(screen.getByTestId('size-mode-cluster'));
    await vi.waitFor(() => expect(screen.getByTestId('size-p99-error').textContent).toBe('0 is not a p99 limit above 0 ms (at most 120000)'));
    expect(screen.getByTestId('size-errors-error').textContent).toBe('150 is not a percentage from 0 to 100');
    expect(screen.getByTestId('size-workers-error').textContent).toBe('min 5 is above max 4');
    expect(screen.getByTestId('size-timing-error').textContent).toMatch(/^3 is not a whole number of seconds from 5/);
    expect(screen.getByTestId('size-max-cells-error').textContent).toBe('0 is not a whole number of cells from 1 to 500');
    expect(screen.getByTestId('size-modes-error').textContent).toBe('needs at least one launch mode');
    expect(screen.getByTestId('size-count').textContent).toContain('fix the problems above');
    expect(startButton().disabled).toBe(true);
    // Every problem is shown at its field, none only in a general list.
    expect(screen.queryAllByTestId('size-general-error')).toHaveLength(0);

    // A cleared number is sent as null and the engine says what it wants there.
    await input('size-rate', '');
    await vi.waitFor(() => expect(screen.getByTestId('size-rate-error').textContent).toMatch(/rate/));
    expect(lastSpec().rate).toBeNull();

    await input('size-p99', '50');
    await input('size-errors', '1');
    await input('size-workers-min', '1');
    await input('size-duration', '5');
    await input('size-max-cells', '4');
    await input('size-rate', '500');
    await fireEvent.click(screen.getByTestId('size-mode-pm2'));
    await vi.waitFor(() => expect(startButton().disabled).toBe(false));
    expect(screen.queryAllByRole('alert')).toHaveLength(0);
  });

  it('keeps a CPU or memory range in order when one end is dragged or typed past the other', async () => {
    await openAutoSize();
    await input('size-cpu-min', '1500');
    expect(screen.getByTestId('size-cpu-max-value').textContent).toBe('1.5 CPUs');
    await input('size-memory-max', '64');
    expect((screen.getByTestId('size-memory-min-input') as HTMLInputElement).value).toBe('64');
    await vi.waitFor(() => expect(lastSpec()).toMatchObject({ bounds: { cpuMillis: { min: 1500, max: 1500 }, memoryMb: { min: 64, max: 64 } } }));
    // Memory can also be typed, to the MB: a long scale is too coarse to drag to a value.
    await fireEvent.change(screen.getByTestId('size-memory-max-input'), { target: { value: '300' } });
    expect((screen.getByTestId('size-memory-max') as HTMLInputElement).value).toBe('300'); // the slider follows
    await fireEvent.change(screen.getByTestId('size-memory-min-input'), { target: { value: '400' } });
    expect((screen.getByTestId('size-memory-max-input') as HTMLInputElement).value).toBe('400');
    await vi.waitFor(() => expect(lastSpec()).toMatchObject({ bounds: { memoryMb: { min: 400, max: 400 } } }));
  });

  it('starts the search with the spec on screen and opens the live view, as a matrix run does', async () => {
    await openAutoSize();
    await fireEvent.click(screen.getByTestId('size-app-pbkdf2'));
    await input('size-rate', '300');
    await input('size-p99', '200');
    await input('size-workers-max', '2');
    await input('size-max-cells', '5');
    await fireEvent.click(screen.getByTestId('size-mode-pm2'));
    await input('size-name', '  pbkdf2 at 300  ');
    await vi.waitFor(() => expect(screen.getByTestId('size-count').textContent).toMatch(/at most 5 cells/));
    await fireEvent.click(startButton());
    await vi.waitFor(() => expect(window.location.hash).toBe('#/live/42'));
    const started = fakeEngine.calls.filter((c) => c.name === 'runs.size');
    expect(started).toHaveLength(1);
    expect(started[0]!.input).toEqual({
      name: 'pbkdf2 at 300',
      spec: {
        app: 'pbkdf2',
        slo: { p99Ms: 200, maxErrorPct: 0.1 },
        rate: 300,
        bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 512 }, workers: { min: 1, max: 2 }, modes: ['cluster', 'pm2'] },
        durationSec: 8,
        warmupSec: 2,
        maxCells: 5,
      },
    });
    // What was started is what the engine accepts.
    expect(validateSizeSpec((started[0]!.input as { spec: unknown }).spec, { cores: 2, memoryMb: 8192, apps: ['pbkdf2'] }).ok).toBe(true);
  });

  it('shows a refused start where it belongs: field problems at their fields, anything else by Start', async () => {
    await openAutoSize();
    fakeEngine.answers['runs.size'] = () => {
      throw engineError({ code: 'SIZE_INVALID', message: 'The auto-size request is not valid; nothing was started', fields: [{ path: 'app', message: 'unknown app "hello": it was removed' }] });
    };
    await fireEvent.click(startButton());
    await vi.waitFor(() => expect(screen.getByTestId('size-app-error').textContent).toBe('unknown app "hello": it was removed'));
    expect(screen.getByTestId('size-start-error').textContent).toMatch(/refused the search/);
    expect(window.location.hash).toBe('#/size');

    fakeEngine.answers['runs.size'] = () => {
      throw engineError({ code: 'CONFLICT', message: 'Run 7 is in progress: one run at a time.' });
    };
    await fireEvent.click(startButton());
    await vi.waitFor(() => expect(screen.getByTestId('size-start-error').textContent).toBe('Run 7 is in progress: one run at a time.'));
    expect(screen.queryByTestId('size-app-error')).toBeNull();
    expect(startButton().disabled).toBe(false); // it can be tried again
  });

  it('says when the host has too few cores for the largest CPU cap the search may try', async () => {
    await openAutoSize();
    // 2 cores, up to 1 CPU: the target, the load generator and this window share.
    expect(screen.getByTestId('cores-warning').textContent).toMatch(/This host has 2 cores: the target \(up to 1 CPU\).*run the search with rightsize size\./);
    await input('size-cpu-max', '2000');
    expect(screen.getByTestId('cores-warning').textContent).toContain('the target (up to 2 CPU)');
  });

  it('keeps Start off, saying why, while Docker is down or a run is in progress', async () => {
    const { rerender } = render(Builder, { props: { status: { ...up, activeRunId: 3 } } });
    await fireEvent.click(screen.getByTestId('builder-mode-size'));
    await vi.waitFor(() => expect(screen.getByText(/Start is off: run 3 is in progress/)).toBeTruthy());
    expect(startButton().disabled).toBe(true);
    await rerender({ status: { ...up, docker: { ok: false, error: 'down' } } });
    expect(screen.getByText(/Start is off: Docker is not reachable/)).toBeTruthy();
  });
});

// A constructed search: bisect the CPU cap, one repetition undecided, one cell failed.
const spec: SizeSpec = {
  app: 'pbkdf2', slo: { p99Ms: 50, minRps: 200, maxErrorPct: 0.1 }, rate: 200,
  bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 512 }, workers: { min: 1, max: 2 }, modes: ['cluster'] },
  durationSec: 8, warmupSec: 2, maxCells: 8, cpuStepMillis: 125, memoryStepMb: 64, connections: 20,
};
const trace: SearchTrace = {
  spec,
  status: 'found',
  steps: [
    { cellId: 101, mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 512, reason: 'the upper bound first: does anything meet the objective?', outcome: 'meets', detail: 'p99 12 ms ≤ 50 ms (sure), 200 req/s' },
    { cellId: 102, mode: 'cluster', workers: 1, cpuMillis: 500, memoryMb: 512, reason: 'bisect CPU between 250m and 1000m', outcome: 'misses', detail: 'p99 310 ms > 50 ms (sure)' },
    { cellId: 103, mode: 'cluster', workers: 1, cpuMillis: 750, memoryMb: 512, reason: 'bisect CPU between 500m and 1000m', outcome: 'undecided', detail: 'p99 48 ms, interval 41–57 ms spans 50 ms' },
    { cellId: 104, mode: 'cluster', workers: 1, cpuMillis: 750, memoryMb: 512, reason: 'repeat: the statistics could not decide', outcome: 'meets', detail: 'p99 44 ms ≤ 50 ms (sure over 2 repetitions)' },
    { cellId: 105, mode: 'cluster', workers: 2, cpuMillis: 625, memoryMb: 512, reason: 'two workers around the CPU count', outcome: 'failed', detail: 'the container was OOM-killed' },
  ],
  found: { mode: 'cluster', workers: 1, cpuMillis: 750, memoryMb: 192 },
  words: 'The cheapest configuration that meets p99 ≤ 50 ms at 200 req/s is 1 cluster worker on 0.75 CPU with a 192 MB limit.',
  gridCells: 98,
};
const cellConfig = (index: number, s: SearchTrace['steps'][number]): CellConfig => ({ index, app: 'pbkdf2', mode: s.mode, workers: s.workers, cpuMillis: s.cpuMillis, memoryMb: s.memoryMb, load: { model: 'rate', rate: 200, connections: 20 }, durationSec: 8, warmupSec: 2, repetition: 0, env: {} }) as unknown as CellConfig;
const storedCells = trace.steps.map((s, i) => ({ id: s.cellId, runId: 9, config: cellConfig(i, s), status: s.outcome === 'failed' ? 'failed' : 'ok', startedAt: '', finishedAt: '', load: null, stats: null, flags: [], failure: s.outcome === 'failed' ? 'OOM' : null }) as unknown as StoredCell);

describe('the path a search took', () => {
  it('lists every step in order with why it ran, its outcome and detail, then the answer and the cells it saved', async () => {
    const selected: number[] = [];
    render(SearchPath, { props: { search: trace, cells: storedCells, runId: 9, onselect: (i: number) => selected.push(i) } });
    const steps = screen.getAllByTestId('search-step');
    expect(steps.map((s) => s.getAttribute('data-outcome'))).toEqual(['meets', 'misses', 'undecided', 'meets', 'failed']);
    expect(steps[0]!.textContent).toContain('1 cluster worker on 1 CPU / 512 MB');
    expect(steps[1]!.textContent).toContain('bisect CPU between 250m and 1000m');
    expect(steps[1]!.textContent).toContain('misses');
    expect(steps[1]!.textContent).toContain('p99 310 ms > 50 ms (sure)');
    expect(steps[2]!.textContent).toContain('undecided');
    expect(steps[4]!.textContent).toContain('2 cluster workers on 0.625 CPU / 512 MB');
    expect(steps[4]!.textContent).toContain('the container was OOM-killed');
    expect(screen.getByTestId('search-status').textContent).toBe('Found');
    expect(screen.getByTestId('search-found').textContent).toBe('1 cluster worker on 0.75 CPU / 192 MB');
    expect(screen.getByTestId('search-words').textContent).toBe(trace.words);
    expect(screen.getByTestId('search-economy').textContent).toBe('5 cells instead of a grid of 98.');
    expect(screen.getByTestId('search-goal').textContent!.replace(/\s+/g, ' ')).toContain('pbkdf2: p99 ≤ 50 ms and errors ≤ 0.1 % at 200 req/s, within 0.25–1 CPU, 128–512 MB, 1–2 workers (cluster), at most 8 cells.');
    // The chart: the path, one point per step coloured by outcome, and the workers.
    const chart = screen.getByTestId('chart-search-path');
    expect(Number(chart.getAttribute('data-points'))).toBe(5 + 5 + 5);
    // Each step links to its cell's row.
    await fireEvent.click(within(steps[3]!).getByTestId('search-step-cell'));
    expect(selected).toEqual([3]);
  });

  it('says so when nothing has run yet and when no configuration within the bounds meets the objective', () => {
    const { unmount } = render(SearchPath, { props: { search: { ...trace, status: 'running', steps: [], found: null, words: 'Searching.' }, cells: [], runId: 9 } });
    expect(screen.getByTestId('search-no-steps').textContent).toBe('No cell has run yet.');
    expect(screen.getByTestId('search-economy').textContent).toBe('0 cells instead of a grid of 98.');
    unmount();
    render(SearchPath, { props: { search: { ...trace, status: 'none', steps: trace.steps.slice(0, 1).map((s) => ({ ...s, outcome: 'misses' as const })), found: null, words: 'None within the bounds meets p99 ≤ 50 ms at 200 req/s: even 1 CPU misses it.' }, cells: storedCells, runId: 9 } });
    expect(screen.getByTestId('search-status').textContent).toBe('None within the bounds');
    expect(screen.queryByTestId('search-found')).toBeNull();
    expect(screen.getByTestId('search-economy').textContent).toBe('1 cell instead of a grid of 98.');
    expect(screen.queryByTestId('chart-search-path')).toBeNull(); // one point is no path
  });
});

describe('the run page of a search', () => {
  const run = { id: 9, name: 'auto-size pbkdf2', preset: null, matrix: {}, host: { cpuModel: 'x', cores: 2, memoryBytes: 2 ** 33, dockerVersion: '20', nodeVersion: '20' }, status: 'completed', cellsTotal: 5, startedAt: '2026-11-22T10:00:00Z', finishedAt: null, durationSec: 80, error: null, apps: [], cells: storedCells, search: trace } as unknown as RunDetail;
  beforeEach(() => {
    fakeEngine.answers['runs.get'] = () => run;
    fakeEngine.answers['runs.samples'] = () => [];
  });

  it('shows the path above the cells; a step selects its cell row; Re-run searches again', async () => {
    // jsdom has no layout, so no scrolling: record where the page was asked to scroll to.
    const scrolledTo: Element[] = [];
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolledTo.push(this);
    };
    render(Run, { props: { runId: 9 } });
    await vi.waitFor(() => expect(screen.getAllByTestId('search-step')).toHaveLength(5));
    const rows = () => screen.getByTestId('cells').querySelectorAll('tbody tr');
    expect(rows()[0]!.classList.contains('selected')).toBe(true);
    await fireEvent.click(within(screen.getAllByTestId('search-step')[2]!).getByTestId('search-step-cell'));
    expect(rows()[2]!.classList.contains('selected')).toBe(true);
    expect(rows()[0]!.classList.contains('selected')).toBe(false);
    expect(scrolledTo.map((e) => e.textContent)).toEqual([expect.stringMatching(/^Cells/)]); // to the table's heading
    expect(screen.getByText('Search')).toBeTruthy(); // the details show the spec, not an empty matrix

    await fireEvent.click(screen.getByRole('button', { name: 'Re-run' }));
    await vi.waitFor(() => expect(window.location.hash).toBe('#/live/42'));
    const again = fakeEngine.calls.find((c) => c.name === 'runs.size')!.input as { spec: unknown; name: string };
    const { connections: _derived, ...asked } = spec; // derived by the engine, not asked for
    expect(again).toEqual({ spec: asked, name: 'auto-size pbkdf2 (re-run)' });
    expect(validateSizeSpec(again.spec, { cores: 2, memoryMb: 8192, apps: ['pbkdf2'] })).toMatchObject({ ok: true, spec });
    expect(fakeEngine.calls.some((c) => c.name === 'runs.start')).toBe(false);
  });

  it('shows no path for a matrix run', async () => {
    fakeEngine.answers['runs.get'] = () => ({ ...run, search: null });
    render(Run, { props: { runId: 9 } });
    await vi.waitFor(() => expect(screen.getByTestId('cells')).toBeTruthy());
    expect(screen.queryByTestId('search-path')).toBeNull();
  });
});
