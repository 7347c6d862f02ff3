import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

// The Builder's replicas, total budget, Node.js versions and flag sets: the matrix it sends, the
// cells the engine counts for it, and the engine's own words at the field that has the problem.

const apps = [{ name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
const presets = [
  {
    name: 'topology',
    title: 'containers or workers',
    description: 'two CPUs, split',
    seed: 'x',
    matrix: { apps: ['hello'], modes: ['cluster'], workers: [1, 2], budget: { cpuMillicores: [2000], memoryMb: [512] }, node: ['22'], nodeFlags: [[], ['--max-semi-space-size=32']] },
  },
];

beforeEach(() => {
  window.location.hash = '';
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => presets;
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine; // 2 cores, 8192 MB
  fakeEngine.answers['runs.start'] = () => ({ runId: 42 });
});

const lastValidated = () => (fakeEngine.calls.filter((c) => c.name === 'matrix.validate').at(-1)!.input as { matrix: Record<string, unknown> }).matrix;
const count = () => screen.getByTestId('cell-count').textContent ?? '';
const addReplicas = (n: number) => fireEvent.click(screen.getByTestId(`replicas-${n}`));

describe('the Builder’s replicas and budget', () => {
  it('replicas multiply the cells; one replica sends the matrix as before', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(lastValidated()).not.toHaveProperty('replicas');
    await addReplicas(2);
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    expect(lastValidated()).toMatchObject({ replicas: [1, 2], cpuMillicores: [1000], memoryMb: [256] });
    expect(screen.getByTestId('cpu').querySelector('legend')!.textContent).toBe('CPU cap per replica');
  });

  it('holding the total fixed sends a budget split over the replica counts', async () => {
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('budget-toggle'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ budget: { cpuMillicores: [1000], memoryMb: [256] }, replicas: [1, 2] }));
    expect(lastValidated()).not.toHaveProperty('cpuMillicores');
    // 1 CPU / 256 MB as 1 × 1000m and 2 × 500m, each with 1 and 2 workers
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    expect(screen.getByTestId('cpu').querySelector('legend')!.textContent).toBe('Total CPU');
    // Three replicas do not split 1000m into whole millicores: said at the Replicas field, named in the Start bar.
    await addReplicas(3);
    const field = screen.getByTestId('replicas-field');
    await vi.waitFor(() => expect(within(field).getByRole('alert').textContent).toBe('1000m and 256 MB over 3 replicas is not whole millicores and MB each (333.33m, 85.33 MB)'));
    expect(screen.getByTestId('problem-fields').textContent).toBe(' — in Replicas');
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(true);
  });
});

describe('the Builder’s Node.js versions and flags', () => {
  it('versions as chips or typed, the engine’s words for a wrong one', async () => {
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('node-22'));
    await fireEvent.click(screen.getByTestId('node-20'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ node: ['20', '22'] }));
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    await fireEvent.input(screen.getByTestId('node-typed'), { target: { value: 'lts' } });
    await fireEvent.click(screen.getByTestId('node-add'));
    await vi.waitFor(() => expect(screen.getByTestId('node-error').textContent).toBe('"lts" is not a Node.js version; give a major such as "22" or an exact version such as "22.11.0"'));
    expect(screen.getByTestId('problem-fields').textContent).toBe(' — in Node.js');
    await fireEvent.click(screen.getByRole('button', { name: 'Remove Node.js lts' }));
    await vi.waitFor(() => expect(screen.queryByTestId('node-error')).toBeNull());
  });

  it('a flag set is its own cells next to the baseline without flags; a profiler flag is refused at the field', async () => {
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('flags-add'));
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(lastValidated()).not.toHaveProperty('nodeFlags'); // a blank set is still being typed
    await fireEvent.input(screen.getByTestId('flags-0'), { target: { value: '--cpu-prof' } });
    await vi.waitFor(() => expect(screen.getByTestId('flags-error').textContent).toBe('"--cpu-prof" is refused: a debugger, profiler or heap dump would be measured along with the server'));
    await fireEvent.input(screen.getByTestId('flags-0'), { target: { value: '--max-semi-space-size=32  --max-old-space-size=192' } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ nodeFlags: [[], ['--max-semi-space-size=32', '--max-old-space-size=192']] }));
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    await fireEvent.click(screen.getByTestId('flags-none'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ nodeFlags: [['--max-semi-space-size=32', '--max-old-space-size=192']] }));
  });

  it('a preset with a budget, versions and flags fills the controls and is sent back unchanged', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(within(screen.getByTestId('preset')).getAllByRole('option').length).toBe(2));
    await fireEvent.change(screen.getByTestId('preset'), { target: { value: 'topology' } });
    await vi.waitFor(() =>
      expect(lastValidated()).toMatchObject({ budget: { cpuMillicores: [2000], memoryMb: [512] }, replicas: [1, 2], node: ['22'], nodeFlags: [[], ['--max-semi-space-size=32']] }),
    );
    expect((screen.getByTestId('budget-toggle') as HTMLInputElement).checked).toBe(true);
    expect(screen.getByTestId('node-22').getAttribute('aria-pressed')).toBe('true');
    expect((screen.getByTestId('flags-0') as HTMLInputElement).value).toBe('--max-semi-space-size=32');
    // 2 splits × 2 workers × 2 flag sets; the picker still shows the preset (nothing changed)
    await vi.waitFor(() => expect(count()).toMatch(/^8 cells/));
    expect((screen.getByTestId('preset') as HTMLSelectElement).value).toBe('topology');
  });
});

describe('the Builder’s settings (a pool size as a dimension)', () => {
  it('each value is its own cells; two settings multiply; the engine’s words for a reserved name at the field', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    await fireEvent.click(screen.getByTestId('setting-add'));
    expect(lastValidated()).not.toHaveProperty('envMatrix'); // a row without a name is still being typed
    await fireEvent.input(screen.getByTestId('setting-name-0'), { target: { value: 'PG_POOL_SIZE' } });
    await fireEvent.input(screen.getByTestId('setting-values-0'), { target: { value: '5, 10, 20' } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ envMatrix: { PG_POOL_SIZE: ['5', '10', '20'] } }));
    await vi.waitFor(() => expect(count()).toMatch(/^6 cells/));
    await fireEvent.click(screen.getByTestId('setting-add'));
    await fireEvent.input(screen.getByTestId('setting-name-1'), { target: { value: 'UV_THREADPOOL_SIZE' } });
    await fireEvent.input(screen.getByTestId('setting-values-1'), { target: { value: '4 8' } });
    await vi.waitFor(() => expect(count()).toMatch(/^12 cells/));
    expect(screen.getByTestId('settings-count').textContent).toBe('6 settings: every combination is its own cells.');
    await fireEvent.input(screen.getByTestId('setting-name-1'), { target: { value: 'PORT' } });
    await vi.waitFor(() => expect(screen.getByTestId('settings-error').textContent).toBe('PORT is set by Rightsize for every cell: it cannot be a dimension'));
    expect(screen.getByTestId('problem-fields').textContent).toBe(' — in Settings');
    await fireEvent.click(screen.getByRole('button', { name: 'Remove setting 2' }));
    await vi.waitFor(() => expect(screen.queryByTestId('settings-error')).toBeNull());
    await vi.waitFor(() => expect(count()).toMatch(/^6 cells/));
  });

  it('a preset’s settings fill the rows', async () => {
    presets.push({ name: 'pool', title: 'pool sizes', description: 'x', seed: 'x', matrix: { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256], envMatrix: { PG_POOL_SIZE: ['5', '20'] } } as never });
    try {
      render(Builder, { props: { status: up } });
      await vi.waitFor(() => expect(screen.getByRole('option', { name: /pool sizes/ })).toBeTruthy());
      await fireEvent.change(screen.getByTestId('preset'), { target: { value: 'pool' } });
      await vi.waitFor(() => expect((screen.getByTestId('setting-values-0') as HTMLInputElement).value).toBe('5, 20'));
      expect((screen.getByTestId('setting-name-0') as HTMLInputElement).value).toBe('PG_POOL_SIZE');
      await vi.waitFor(() => expect(lastValidated()).toMatchObject({ envMatrix: { PG_POOL_SIZE: ['5', '20'] } }));
    } finally {
      presets.pop();
    }
  });
});

describe('the Builder’s bandwidth cap (issue 44)', () => {
  it('none by default; a cap from the slider is its own cells, sent as networkMbps, and a preset’s caps come back', async () => {
    const { unmount } = render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(lastValidated()).not.toHaveProperty('networkMbps');
    expect(screen.getByTestId('network').textContent).toContain('none: the link is not capped');
    await fireEvent.input(screen.getByTestId('network-range'), { target: { value: '2000' } });
    expect(screen.getByTestId('network-current').textContent).toBe('2 Gbit/s');
    await fireEvent.click(screen.getByTestId('network-add'));
    await fireEvent.input(screen.getByTestId('network-range'), { target: { value: '100' } });
    await fireEvent.click(screen.getByTestId('network-add'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ networkMbps: [100, 2000] }));
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    unmount();
  });
});

describe('the Builder’s TLS (issue 44)', () => {
  it('plain HTTP by default; HTTPS beside it is its own cells; HTTPS alone sends only it; none is refused at the field', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(lastValidated()).not.toHaveProperty('tls');
    await fireEvent.click(screen.getByTestId('tls-on'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ tls: [false, true] }));
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    await fireEvent.click(screen.getByTestId('tls-off'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ tls: [true] }));
    await fireEvent.click(screen.getByTestId('tls-on'));
    const field = screen.getByTestId('tls-field');
    await vi.waitFor(() => expect(within(field).getByRole('alert').textContent).toBe('needs at least one value (leave it out for plain HTTP)'));
  });

  it('resuming sessions is offered only where a cell speaks TLS (HTTPS or h2), sent in the load, and left out with TLS off', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(screen.queryByTestId('tls-resume')).toBeNull();
    await fireEvent.click(screen.getByTestId('tls-on'));
    await fireEvent.click(screen.getByTestId('tls-resume'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ tls: [false, true], load: { tlsResume: true } }));
    await fireEvent.click(screen.getByTestId('tls-on'));
    await vi.waitFor(() => expect(lastValidated()).not.toHaveProperty('tls'));
    expect(screen.queryByTestId('tls-resume')).toBeNull();
    expect(lastValidated()!.load).not.toHaveProperty('tlsResume'); // nothing to resume: never a refusal to mend
    await fireEvent.click(screen.getByTestId('protocol-h2'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ protocol: ['http1', 'h2'], load: { tlsResume: true } }));
  });

  it('HTTP/1.1 by default; h2 beside it is its own cells, with its streams in the load; the engine\'s refusal shows at the field', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(count()).toMatch(/^2 cells/));
    expect(lastValidated()).not.toHaveProperty('protocol');
    expect(screen.queryByTestId('streams')).toBeNull(); // streams are HTTP/2's
    await fireEvent.click(screen.getByTestId('protocol-h2'));
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ protocol: ['http1', 'h2'] }));
    await vi.waitFor(() => expect(count()).toMatch(/^4 cells/));
    await fireEvent.input(screen.getByTestId('streams'), { target: { value: '10' } });
    await vi.waitFor(() => expect(lastValidated()).toMatchObject({ load: { streams: 10 } }));
    await fireEvent.click(screen.getByTestId('protocol-http1'));
    await fireEvent.click(screen.getByTestId('protocol-h2'));
    const field = screen.getByTestId('protocol-field');
    await vi.waitFor(() => expect(within(field).getByRole('alert').textContent).toBe('needs at least one value (leave it out for HTTP/1.1)'));
  });
});
