import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { DEFAULT_PRICES } from '../../src-main/common/cost.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

// The Builder's prices and baseline: prices sent with the matrix only when one is given (the engine's examples
// otherwise), filled from a preset that has them, and the engine's words at the Cost field.

const apps = [{ name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
const presets = [
  { name: 'priced', title: 'priced', description: 'with prices', seed: 'x', matrix: { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256], prices: { cpuHour: 0.05, gbHour: 0.01, replicaHour: 0 } } },
];

beforeEach(() => {
  window.location.hash = '';
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => presets;
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
  fakeEngine.answers['runs.start'] = () => ({ runId: 42 });
});

const lastValidated = () => (fakeEngine.calls.filter((c) => c.name === 'matrix.validate').at(-1)!.input as { matrix: Record<string, unknown> }).matrix;

describe('the Builder’s prices', () => {
  it('sends none until one is given; a given one goes with the example prices for the others', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(fakeEngine.calls.some((c) => c.name === 'matrix.validate')).toBe(true));
    expect(lastValidated()).not.toHaveProperty('prices');
    expect((screen.getByTestId('price-cpu') as HTMLInputElement).placeholder).toBe(String(DEFAULT_PRICES.cpuHour));
    await fireEvent.input(screen.getByTestId('price-cpu'), { target: { value: '0.05' } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ prices: { cpuHour: 0.05, gbHour: DEFAULT_PRICES.gbHour, replicaHour: DEFAULT_PRICES.replicaHour } }));
  });

  it('a preset with prices fills the fields', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByRole('option', { name: /priced/ })).toBeTruthy());
    await fireEvent.change(screen.getByLabelText('Preset'), { target: { value: 'priced' } });
    await vi.waitFor(() => expect((screen.getByTestId('price-cpu') as HTMLInputElement).value).toBe('0.05'));
    expect((screen.getByTestId('price-gb') as HTMLInputElement).value).toBe('0.01');
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ prices: { cpuHour: 0.05, gbHour: 0.01, replicaHour: 0 } }));
  });

  it('the engine’s problem with a price shows at the Cost field and in the Start bar', async () => {
    fakeEngine.answers['matrix.validate'] = (input: unknown) => {
      const m = (input as { matrix: { prices?: { cpuHour: number } } }).matrix;
      return m.prices && m.prices.cpuHour > 1000
        ? { ok: false, problems: [{ path: 'prices.cpuHour', message: 'a price per hour in dollars from 0 to 1000, e.g. 0.0316; got 5000' }] }
        : validateLikeTheEngine(input as never);
    };
    render(Builder, { props: { status: up } });
    await fireEvent.input(screen.getByTestId('price-cpu'), { target: { value: '5000' } });
    const field = screen.getByTestId('cost-field');
    await vi.waitFor(() => expect(within(field).getByRole('alert').textContent).toBe('a price per hour in dollars from 0 to 1000, e.g. 0.0316; got 5000'));
    expect(screen.getByTestId('problem-fields').textContent).toBe(' — in Cost');
  });
});

describe('the Builder’s baseline', () => {
  it('sends none by default; a saved baseline and its threshold go with runs.start', async () => {
    fakeEngine.answers['baselines.list'] = () => [{ app: 'hello', name: 'release-1', runId: 7, createdAt: '2026-11-24T10:00:00Z' }];
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(false));
    await vi.waitFor(() => expect(screen.getByRole('option', { name: /release-1 \(hello #7\)/ })).toBeTruthy());
    await fireEvent.change(screen.getByTestId('baseline-select'), { target: { value: 'release-1' } });
    await fireEvent.click(screen.getByTestId('start'));
    const start = fakeEngine.calls.find((c) => c.name === 'runs.start')!.input as Record<string, unknown>;
    expect(start).toMatchObject({ baseline: 'release-1', thresholdPct: 5 });
  });

  it('without a baseline, runs.start carries none', async () => {
    fakeEngine.answers['baselines.list'] = () => [];
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(false));
    await fireEvent.click(screen.getByTestId('start'));
    const start = fakeEngine.calls.find((c) => c.name === 'runs.start')!.input as Record<string, unknown>;
    expect(start).not.toHaveProperty('baseline');
  });
});
