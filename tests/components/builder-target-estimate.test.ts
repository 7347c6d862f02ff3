// The Builder's estimate follows "Where to run": the chosen target goes to matrix.validate, and the
// line says how many cells the run will take at once there (the Lab's answer, K = its concurrency).
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import type { MatrixCheck, TargetInfo } from '../../src-main/contract/api.ts';
import { fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const saved: TargetInfo[] = [
  { name: 'local', kind: 'local', builtIn: true, where: "this machine's Docker engine" },
  { name: 'lab-swarm', kind: 'swarm', builtIn: false, where: 'Swarm manager tcp://m:2375, 2 node engine(s)' },
  { name: 'slow-swarm', kind: 'swarm', builtIn: false, where: 'Swarm manager tcp://s:2375, 2 node engine(s)' },
];

/** The Lab's answer: the engine's rules, then lab-swarm runs 2 cells at once and slow-swarm does not answer. */
function validate({ matrix, target }: { matrix: unknown; target?: string }): MatrixCheck {
  const c = validateLikeTheEngine({ matrix }) as MatrixCheck;
  if (!c.ok || !target) return { ...c, cellsAtOnce: 1 };
  if (target === 'slow-swarm') return { ...c, cellsAtOnce: 1, target, note: 'estimate assumes one cell at a time: slow-swarm did not answer' };
  return { ...c, etaSec: c.etaSec / 2, cellsAtOnce: 2, target };
}

beforeEach(() => {
  fakeEngine.answers['apps.list'] = () => [{ name: 'hello', description: 'plain text', stresses: 'HTTP', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
  fakeEngine.answers['presets.list'] = () => [];
  fakeEngine.answers['targets.list'] = () => saved;
  fakeEngine.answers['matrix.validate'] = validate;
  fakeEngine.answers['runs.start'] = () => ({ runId: 7 });
});

const validated = () => fakeEngine.calls.filter((c) => c.name === 'matrix.validate').map((c) => c.input as { target?: string });
const line = () => screen.getByTestId('cell-count').textContent!.replace(/\s+/g, ' ');

describe('the Builder estimate on a target', () => {
  it('sends the chosen target to matrix.validate and shows "2 cells at once"', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(line()).toMatch(/2 cells, about 26s/));
    expect(validated().at(-1)).not.toHaveProperty('target'); // local: no target sent
    expect(line()).not.toMatch(/at once/);
    await vi.waitFor(() => expect(screen.getByTestId('target-option-lab-swarm')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('target-option-lab-swarm'));
    await vi.waitFor(() => expect(line()).toMatch(/2 cells, about 13s, 2 cells at once on lab-swarm/));
    expect(validated().at(-1)).toMatchObject({ target: 'lab-swarm' });
    await fireEvent.click(screen.getByTestId('start'));
    await vi.waitFor(() => expect(fakeEngine.calls.find((c) => c.name === 'runs.start')?.input).toMatchObject({ target: 'lab-swarm' }));
  });

  it('says when the target did not answer and the estimate is one cell at a time', async () => {
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('target-option-slow-swarm')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('target-option-slow-swarm'));
    await vi.waitFor(() => expect(screen.getByTestId('estimate-note').textContent).toBe('estimate assumes one cell at a time: slow-swarm did not answer'));
    expect(line()).toMatch(/2 cells, about 26s/);
    expect(line()).not.toMatch(/cells at once/);
  });

  it('shows an unknown target as a problem and keeps Start off', async () => {
    fakeEngine.answers['matrix.validate'] = ({ matrix, target }: { matrix: unknown; target?: string }) =>
      target ? { ...validate({ matrix }), ok: false, target, problems: [{ path: 'target', message: `There is no target named "${target}". Targets: local.` }] } : validate({ matrix });
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(screen.getByTestId('target-option-lab-swarm')).toBeTruthy());
    await fireEvent.click(screen.getByTestId('target-option-lab-swarm'));
    await vi.waitFor(() => expect(screen.getByText('There is no target named "lab-swarm". Targets: local.')).toBeTruthy());
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(true);
  });
});
