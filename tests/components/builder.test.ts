import { cleanup, fireEvent, render, screen, within } from '@testing-library/svelte';
import { tick } from 'svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const apps = [
  { name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true },
  { name: 'json', description: 'a fresh JSON document per request', stresses: 'JSON', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true },
];
const presets = [{ name: 'pbkdf2-one-thread', title: 'pbkdf2, one thread', description: 'seed 004', seed: '004.txt', matrix: { apps: ['hello'], modes: ['cluster'], workers: [1, 2, 4, 6], cpuMillicores: [1000], memoryMb: [256], env: { UV_THREADPOOL_SIZE: '1' }, load: { model: 'closed', connections: [6] }, durationSec: 10, warmupSec: 2 } }];

beforeEach(() => {
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => presets;
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine; // the engine's own rules, as the real Lab applies them
  fakeEngine.answers['runs.start'] = () => ({ runId: 42 });
});

const lastValidated = () => (fakeEngine.calls.filter((c) => c.name === 'matrix.validate').at(-1)!.input as { matrix: Record<string, unknown> }).matrix;

describe('the matrix builder', () => {
  it('counts cells live and starts the run with the matrix on screen', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells, about 26s/));
    await fireEvent.click(screen.getByTestId('worker-4'));
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/3 cells/));
    await fireEvent.click(screen.getByTestId('start'));
    await vi.waitFor(() => expect(window.location.hash).toBe('#/live/42'));
    const started = fakeEngine.calls.find((c) => c.name === 'runs.start')!.input as { matrix: Record<string, unknown> };
    expect(started.matrix).toMatchObject({ apps: ['json'], modes: ['cluster'], workers: [1, 2, 4], cpuMillicores: [1000], memoryMb: [256], load: { model: 'closed', connections: [20] } });
  });

  it('starts from an experiment a small host can answer: json, not hello (which measures the load generator there)', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect((screen.getByTestId('app-json') as HTMLInputElement).checked).toBe(true));
    expect((screen.getByTestId('app-hello') as HTMLInputElement).checked).toBe(false);
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ apps: ['json'] }));
  });

  it('takes the first app from the quick preset the engine lists, and leaves a choice already made alone', async () => {
    const quick = { name: 'quick', title: 'Quick first try', description: 'six cells', seed: null, matrix: { apps: ['pbkdf2'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [1000], memoryMb: [256] } };
    fakeEngine.answers['presets.list'] = () => [quick, ...presets];
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ apps: ['pbkdf2'] }));
    // Picked before the list came: the user's choice stays.
    let answer!: (p: unknown) => void;
    fakeEngine.answers['presets.list'] = () => new Promise((r) => (answer = r));
    cleanup();
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('app-hello')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('app-hello'));
    answer([quick, ...presets]);
    await vi.waitFor(() => expect(within(screen.getByTestId('preset')).getAllByRole('option').length).toBe(3));
    await tick();
    expect((screen.getByTestId('app-hello') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByTestId('app-json') as HTMLInputElement).checked).toBe(true);
  });

  it('shows the engine’s problems by field and keeps Start off until they are fixed', async () => {
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('worker-1'));
    await fireEvent.click(screen.getByTestId('worker-2'));
    await vi.waitFor(() => expect(screen.getByText('needs at least one value')).toBeTruthy());
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.input(screen.getByTestId('connections'), { target: { value: '0' } });
    await vi.waitFor(() => expect(screen.getByText(/0 is not a connection count/)).toBeTruthy());
    await fireEvent.click(screen.getByTestId('worker-8'));
    await fireEvent.input(screen.getByTestId('connections'), { target: { value: '10, 50' } });
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/));
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(false);
  });

  it('fills from a preset, keeping the settings it has no control for', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(within(screen.getByTestId('preset')).getAllByRole('option').length).toBe(2));
    await fireEvent.change(screen.getByTestId('preset'), { target: { value: 'pbkdf2-one-thread' } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ workers: [1, 2, 4, 6], env: { UV_THREADPOOL_SIZE: '1' }, load: { connections: [6] } }));
    expect(screen.getByTestId('extras').textContent).toContain('UV_THREADPOOL_SIZE');
    expect(screen.getByTestId('worker-4').getAttribute('aria-pressed')).toBe('true');
  });

  it('keeps Start off, saying why, while Docker is down or a run is in progress', async () => {
    const { rerender } = render(Builder, { props: { status: { ...up, docker: { ok: false, error: 'down' } } } });
    await vi.waitFor(() => expect(screen.getByText(/Start is off: Docker is not reachable/)).toBeTruthy());
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(true);
    await rerender({ status: { ...up, activeRunId: 7 } });
    expect(screen.getByText(/Start is off: run 7 is in progress/)).toBeTruthy();
  });
});
