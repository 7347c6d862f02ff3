import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import MultiSlider from '../../src-renderer/components/MultiSlider.svelte';
import WorkerChips from '../../src-renderer/components/WorkerChips.svelte';
import CellsTable from '../../src-renderer/components/CellsTable.svelte';
import Chart from '../../src-renderer/components/Chart.svelte';
import DockerBanner from '../../src-renderer/components/DockerBanner.svelte';
import { lineConfig, lineSet } from '../../src-renderer/lib/charts.ts';
import type { CellRow } from '../../src-renderer/lib/cells.ts';
import type { EngineStatus } from '../../src-main/contract/api.ts';
import { fakeEngine } from './setup.ts';

describe('MultiSlider', () => {
  it('adds the slider value as a chip, once, and removes it', async () => {
    const props = $state({ values: [1000] });
    render(MultiSlider, { props: { label: 'CPU cap', min: 100, max: 2000, step: 50, format: (v: number) => `${v}m`, testid: 'cpu', get values() { return props.values; }, set values(v) { props.values = v; } } });
    await fireEvent.input(screen.getByTestId('cpu-range'), { target: { value: '500' } });
    expect(screen.getByTestId('cpu-current').textContent).toBe('500m');
    await fireEvent.click(screen.getByTestId('cpu-add'));
    await fireEvent.click(screen.getByTestId('cpu-add'));
    expect(props.values).toEqual([500, 1000]);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove 1000m' }));
    expect(props.values).toEqual([500]);
  });

  it('shows the engine’s message for its field', () => {
    render(MultiSlider, { props: { label: 'Memory', min: 64, max: 4096, step: 64, values: [16], format: String, testid: 'mem', error: '16 MB is below the minimum of 32 MB' } });
    expect(screen.getByRole('alert').textContent).toContain('below the minimum');
  });
});

describe('WorkerChips', () => {
  it('toggles common counts and adds a custom range; refuses a bad range', async () => {
    const props = $state({ values: [1] });
    render(WorkerChips, { props: { get values() { return props.values; }, set values(v) { props.values = v; } } });
    await fireEvent.click(screen.getByTestId('worker-4'));
    await fireEvent.click(screen.getByTestId('worker-1'));
    expect(props.values).toEqual([4]);
    expect(screen.getByTestId('worker-4').getAttribute('aria-pressed')).toBe('true');
    await fireEvent.click(screen.getByRole('button', { name: 'Add range' })); // 3..6 step 1
    expect(props.values).toEqual([3, 4, 5, 6]);
    await fireEvent.input(screen.getByLabelText('from'), { target: { value: '9' } });
    await fireEvent.click(screen.getByRole('button', { name: 'Add range' }));
    expect(screen.getByRole('alert').textContent).toMatch(/to ≥ from/);
    expect(props.values).toEqual([3, 4, 5, 6]);
  });
});

const row = (index: number, workers: number, rpsMean: number | null, status = 'ok'): CellRow => ({
  config: { index, repetition: 0, app: 'hello', mode: 'cluster', workers, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20 }, durationSec: 5, warmupSec: 1, env: {} },
  status, rpsMean, p50Us: 100, p99Us: 900, maxUs: 5000, cpuPctMean: 90, memMaxBytes: 2 ** 25, errors: 0, flags: status === 'oom' ? [{ kind: 'oom-killed', reason: 'killed' }] : [], failure: null,
});

describe('CellsTable', () => {
  it('sorts by a column both ways, missing values last, and selects a row', async () => {
    const props = $state({ selected: undefined as number | undefined });
    render(CellsTable, { props: { cells: [row(0, 1, 200), row(1, 2, 300), row(2, 4, null, 'oom')], get selected() { return props.selected; }, set selected(v) { props.selected = v; } } });
    const order = () => screen.getAllByRole('row').slice(1).map((r) => r.querySelector('td:nth-child(4)')!.textContent);
    await fireEvent.click(screen.getByRole('button', { name: 'req/s' }));
    expect(order()).toEqual(['1', '2', '4']);
    await fireEvent.click(screen.getByRole('button', { name: /req\/s/ }));
    expect(order()).toEqual(['2', '1', '4']);
    expect(screen.getByTestId('flag-oom-killed').getAttribute('title')).toBe('killed');
    await fireEvent.click(screen.getByRole('button', { name: 'Show cell 3' }));
    expect(props.selected).toBe(2);
  });
});

describe('Chart', () => {
  it('draws its data and saves a PNG through the engine contract', async () => {
    fakeEngine.answers['files.save'] = () => ({ saved: true, path: '/home/u/Documents/c.png' });
    const config = lineConfig('Latency', 'time (s)', 'latency (ms)', [lineSet('p99', [{ x: 1, y: 2 }, { x: 2, y: 3 }, { x: 3, y: null }], 0)]);
    render(Chart, { props: { config, filename: 'c', testid: 'chart' } });
    expect(screen.getByTestId('chart').getAttribute('data-points')).toBe('2');
    await fireEvent.click(screen.getByRole('button', { name: /PNG/ }));
    await vi.waitFor(() => expect(screen.getByRole('status').textContent).toBe('Saved /home/u/Documents/c.png'));
    const call = fakeEngine.calls.find((c) => c.name === 'files.save')!.input as { filename: string; encoding: string; content: string };
    expect(call).toMatchObject({ filename: 'c.png', encoding: 'base64' });
    expect(call.content).not.toMatch(/^data:/);
  });
});

describe('DockerBanner', () => {
  const down: EngineStatus = { docker: { ok: false, error: 'Cannot reach the Docker engine at unix:///var/run/docker.sock (ENOENT).' }, limits: { cores: 2, memoryMb: 4096, minMemoryMb: 32, largeMatrixCells: 500 }, activeRunId: null, checkedAt: '' };
  it('says what is wrong and re-checks on demand', async () => {
    fakeEngine.answers['engine.recheck'] = () => down;
    render(DockerBanner, { props: { status: down } });
    expect(screen.getByTestId('docker-banner').textContent).toContain('unix:///var/run/docker.sock');
    await fireEvent.click(screen.getByRole('button', { name: 'Check now' }));
    expect(fakeEngine.calls.map((c) => c.name)).toEqual(['engine.recheck']);
  });
  it('is absent when Docker is up', () => {
    render(DockerBanner, { props: { status: { ...down, docker: { ok: true, version: '28', cpus: 2, memoryBytes: 1, cgroupVersion: '2' } } } });
    expect(screen.queryByTestId('docker-banner')).toBeNull();
  });
});
