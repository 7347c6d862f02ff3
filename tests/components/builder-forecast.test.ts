// The Builder shows, next to the estimate, the engine's forecast of the cells likely client-bound on
// this host (matrix.validate's `forecast`, from its history and the load thread's stored ceiling),
// with the remedy, and nothing when the engine has nothing to say. Start stays on: it is a warning.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import type { ClientForecast, MatrixCheck } from '../../src-main/contract/api.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const apps = [{ name: 'hello', description: 'plain text', stresses: 'HTTP', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
const MESSAGE =
  '2 of 2 cells are likely client-bound on this host (hello at 1000m: ~80,000 req/s, one load thread tops out at ~75,000): their goodput will be a lower bound. ' +
  'To measure the server: a smaller CPU cap, a heavier app, more load threads, or a target with more cores.';

/** The Lab's answer on a host whose history says hello at 1000m reaches ~80,000 req/s: likely client-bound with 20 connections, not with 2. */
function validate({ matrix }: { matrix: unknown }): MatrixCheck {
  const c = validateLikeTheEngine({ matrix }) as MatrixCheck;
  if (!c.ok) return { ...c, cellsAtOnce: 1 };
  const connections = (matrix as { load: { connections: number[] } }).load.connections;
  const likely = connections.includes(20);
  const forecast: ClientForecast = likely
    ? { cells: c.cells, likely: c.cells, unknown: 0, ceilingPerThread: 75_000, groups: [{ app: 'hello', cpuMillis: 1000, threads: 1, predictedRps: 80_000, ceilingRps: 75_000, cells: c.cells, boundBefore: false }], message: MESSAGE }
    : { cells: c.cells, likely: 0, unknown: 0, ceilingPerThread: 75_000, groups: [], message: null };
  return { ...c, cellsAtOnce: 1, forecast };
}

beforeEach(() => {
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => [];
  fakeEngine.answers['targets.list'] = () => [{ name: 'local', kind: 'local', builtIn: true, where: "this machine's Docker engine" }];
  fakeEngine.answers['matrix.validate'] = validate;
  fakeEngine.answers['runs.start'] = () => ({ runId: 9 });
});

describe('the Builder: cells likely client-bound on this host', () => {
  it('shows the forecast with its remedy near the estimate, keeps Start on, and clears it when the matrix no longer is', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('client-forecast').textContent).toBe(`⚠ ${MESSAGE}`));
    expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells, about 26s/);
    expect(screen.getByTestId('client-forecast').getAttribute('role')).toBe('note');
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(false);
    await fireEvent.input(screen.getByTestId('connections'), { target: { value: '2' } });
    await vi.waitFor(() => expect(screen.queryByTestId('client-forecast')).toBeNull());
    expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/);
  });

  it('says nothing when the engine has no forecast (no history on this host, or a saved target)', async () => {
    fakeEngine.answers['matrix.validate'] = ({ matrix }: { matrix: unknown }) => ({ ...(validateLikeTheEngine({ matrix }) as MatrixCheck), cellsAtOnce: 1 });
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('cell-count').textContent).toMatch(/2 cells/));
    expect(screen.queryByTestId('client-forecast')).toBeNull();
  });

  it('shows no forecast for a matrix with problems', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('client-forecast')).toBeTruthy());
    await fireEvent.input(screen.getByTestId('connections'), { target: { value: '0' } });
    await vi.waitFor(() => expect(screen.getByText(/0 is not a connection count/)).toBeTruthy());
    expect(screen.queryByTestId('client-forecast')).toBeNull();
  });
});
