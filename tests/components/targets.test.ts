import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import TargetPicker from '../../src-renderer/components/TargetPicker.svelte';
import Targets from '../../src-renderer/routes/Targets.svelte';
import type { TargetCheck, TargetInfo } from '../../src-main/contract/api.ts';
import { engineError, fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

const GiB = 2 ** 30;
const saved: TargetInfo[] = [
  { name: 'local', kind: 'local', builtIn: true, where: "this machine's Docker engine" },
  { name: 'build-box', kind: 'docker', builtIn: false, where: 'tcp://10.0.0.5:2376 (TLS: /home/me/.docker/box)', settings: { url: 'tcp://10.0.0.5:2376', tlsDir: '/home/me/.docker/box' } },
  { name: 'lab-swarm', kind: 'swarm', builtIn: false, where: 'Swarm manager tcp://m:2375, 2 node engine(s)' },
];
const checks: Record<string, TargetCheck> = {
  'build-box': { name: 'build-box', kind: 'docker', ok: true, summary: 'ok: 1 node, 1 free (version 27.1)', problems: [], nodes: [{ name: 'box', cpus: 8, memoryBytes: 32 * GiB, free: true }], version: '27.1', checkedAt: '' },
  'lab-swarm': {
    name: 'lab-swarm', kind: 'swarm', ok: false, summary: 'not ready: 2 nodes, 0 free (version 27.1); 2 problems', checkedAt: '',
    problems: ['node n2: unreachable: nothing answers at tcp://n2:2375 (is the engine running and listening there?)', 'no nodes free: every node is down, drained or already running a Rightsize cell'],
    nodes: [{ name: 'n1', cpus: 4, memoryBytes: 8 * GiB, free: false }, { name: 'n2', cpus: 4, memoryBytes: 8 * GiB, free: false }],
  },
};

beforeEach(() => {
  fakeEngine.answers['targets.list'] = () => saved;
  fakeEngine.answers['targets.check'] = ({ name }: { name: string }) => checks[name];
});

/** The options as shown, and the chosen one. */
const options = () => [...screen.getByTestId('target-choices').querySelectorAll('label')].map((l) => l.textContent!.trim().replace(/\s+/g, ' '));
const chosen = () => (screen.getByTestId('target-choices').querySelector('input:checked') as HTMLInputElement | null)?.value;
const choose = (name: string) => fireEvent.click(screen.getByTestId(`target-option-${name}`));

describe('the "Where to run" picker', () => {
  it('lists local and the saved targets, and checks the chosen one, showing its nodes and problems in words', async () => {
    render(TargetPicker);
    await vi.waitFor(() => expect(options()).toEqual(['local', 'build-box docker', 'lab-swarm swarm']));
    expect(chosen()).toBe('local');
    await choose('build-box');
    expect(screen.getByTestId('target-where').textContent).toBe('tcp://10.0.0.5:2376 (TLS: /home/me/.docker/box)');
    await fireEvent.click(screen.getByTestId('target-check-button'));
    await vi.waitFor(() => expect(screen.getByTestId('target-check-summary').textContent).toBe('Ready — 1 node, 1 free (version 27.1)'));
    expect(screen.getByTestId('target-check-nodes').textContent).toContain('box: 8 CPUs, 32.0 GiB, free');
    expect(fakeEngine.calls.filter((c) => c.name === 'targets.check').map((c) => c.input)).toEqual([{ name: 'build-box' }]);

    await choose('lab-swarm');
    expect(screen.queryByTestId('target-check')).toBeNull(); // the last result was of another target
    await fireEvent.click(screen.getByTestId('target-check-button'));
    await vi.waitFor(() => expect(screen.getByTestId('target-check-summary').textContent).toMatch(/^Not ready — 2 nodes, 0 free \(version 27\.1\); 2 problems$/));
    const problems = [...screen.getByTestId('target-check-problems').querySelectorAll('li')].map((li) => li.textContent);
    expect(problems).toEqual(checks['lab-swarm']!.problems);
  });

  it('shows an unknown-target answer as an error instead of a result', async () => {
    fakeEngine.answers['targets.check'] = () => {
      throw engineError({ code: 'NOT_FOUND', message: 'There is no target named "build-box". Targets: local.' });
    };
    render(TargetPicker, { props: { value: 'build-box' } });
    await vi.waitFor(() => expect(options()).toHaveLength(3));
    expect(chosen()).toBe('build-box');
    await fireEvent.click(screen.getByTestId('target-check-button'));
    await vi.waitFor(() => expect(screen.getByTestId('target-check-error').textContent).toContain('There is no target named "build-box"'));
  });

  it('sends the chosen target with the start of a matrix, and shows why the engine refused it', async () => {
    fakeEngine.answers['apps.list'] = () => [{ name: 'hello', description: 'plain text', stresses: 'HTTP', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];
    fakeEngine.answers['presets.list'] = () => [];
    fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
    fakeEngine.answers['runs.start'] = () => {
      throw engineError({ code: 'CONFLICT', message: 'The target "build-box" is not ready: unreachable: nothing answers at tcp://10.0.0.5:2375. Nothing was started.' });
    };
    render(Builder, { props: { status: up } });
    await vi.waitFor(() => expect(options()).toHaveLength(3));
    await choose('build-box');
    expect(screen.getByTestId('target-note').textContent).toMatch(/Cells run on "build-box" \(checked and swept first\), each with its load beside it:\s+a load agent on the engine's other cores, one cell at a time\./);
    await vi.waitFor(() => expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(false));
    await fireEvent.click(screen.getByTestId('start'));
    await vi.waitFor(() => expect(screen.getByTestId('start-error').textContent).toContain('The target "build-box" is not ready: unreachable'));
    expect(fakeEngine.calls.find((c) => c.name === 'runs.start')!.input).toMatchObject({ target: 'build-box' });
    // The picker stays in Auto-size mode too.
    await fireEvent.click(screen.getByTestId('builder-mode-size'));
    expect(chosen()).toBe('build-box');
  });
});

describe('the Targets page', () => {
  it('adds a target, showing each problem at its field first, then removes one after confirming', async () => {
    let list = saved.slice(0, 1);
    fakeEngine.answers['targets.list'] = () => list;
    let attempts = 0;
    fakeEngine.answers['targets.add'] = ({ target }: { target: { name: string; kind: 'docker'; settings: { url: string } } }) => {
      if (attempts++ === 0) {
        throw engineError({
          code: 'INVALID_INPUT', message: 'The target is not valid; nothing was saved',
          fields: [{ path: 'settings.tlsDir', message: 'is a PEM key or certificate pasted in. Rightsize never stores keys…' }, { path: 'settings.url', message: '"tpc://" engines are not supported. Did you mean "tcp://box:2376"?' }],
        });
      }
      const info: TargetInfo = { name: target.name, kind: 'docker', builtIn: false, where: target.settings.url };
      list = [...list, info];
      return info;
    };
    fakeEngine.answers['targets.remove'] = ({ name }: { name: string }) => {
      list = list.filter((t) => t.name !== name);
      return { removed: true };
    };
    render(Targets);
    await vi.waitFor(() => expect(screen.getByTestId('target-row-local')).toBeTruthy());
    expect(screen.queryByTestId('remove-local')).toBeNull(); // local is always there

    await fireEvent.input(screen.getByTestId('target-name'), { target: { value: 'box' } });
    await fireEvent.input(screen.getByTestId('target-url'), { target: { value: 'tpc://box:2376' } });
    await fireEvent.input(screen.getByTestId('target-tls'), { target: { value: '-----BEGIN' } });
    await fireEvent.click(screen.getByTestId('target-add'));
    await vi.waitFor(() => expect(screen.getByText(/Did you mean "tcp:\/\/box:2376"\?/)).toBeTruthy());
    expect(screen.getByText(/is a PEM key or certificate pasted in/)).toBeTruthy();
    expect(screen.queryByTestId('target-row-box')).toBeNull();

    await fireEvent.input(screen.getByTestId('target-url'), { target: { value: 'tcp://box:2376' } });
    await fireEvent.input(screen.getByTestId('target-tls'), { target: { value: '' } });
    await fireEvent.click(screen.getByTestId('target-add'));
    await vi.waitFor(() => expect(screen.getByTestId('target-row-box')).toBeTruthy());
    const sent = fakeEngine.calls.filter((c) => c.name === 'targets.add').map((c) => c.input);
    expect(sent.at(-1)).toEqual({ target: { name: 'box', kind: 'docker', settings: { url: 'tcp://box:2376' } } });

    await fireEvent.click(screen.getByTestId('remove-box'));
    await fireEvent.click(screen.getByTestId('confirm-remove-box'));
    await vi.waitFor(() => expect(screen.queryByTestId('target-row-box')).toBeNull());
    expect(screen.getByTestId('targets-notice').textContent).toContain('Removed box');
  });
  it('adds a Kubernetes target with its image registry and the path of its login, showing a registry problem at its field', async () => {
    fakeEngine.answers['targets.list'] = () => saved.slice(0, 1);
    let attempts = 0;
    fakeEngine.answers['targets.add'] = () => {
      if (attempts++ === 0) {
        throw engineError({ code: 'INVALID_INPUT', message: 'The target is not valid; nothing was saved', fields: [{ path: 'settings.registry', message: 'give the registry without a scheme: "registry.example.com/rs".' }] });
      }
      return { name: 'k', kind: 'kubernetes', builtIn: false, where: 'kubernetes' } satisfies TargetInfo;
    };
    render(Targets);
    await vi.waitFor(() => expect(screen.getByTestId('target-row-local')).toBeTruthy());
    await fireEvent.input(screen.getByTestId('target-name'), { target: { value: 'k' } });
    await fireEvent.click(screen.getByTestId('target-kind-kubernetes'));
    await fireEvent.input(screen.getByTestId('target-registry'), { target: { value: 'https://registry.example.com/rs' } });
    await fireEvent.input(screen.getByTestId('target-registry-auth'), { target: { value: '/home/me/.docker/config.json' } });
    await fireEvent.click(screen.getByTestId('target-add'));
    await vi.waitFor(() => expect(screen.getByText(/give the registry without a scheme/)).toBeTruthy());
    await fireEvent.input(screen.getByTestId('target-registry'), { target: { value: 'registry.example.com/rs' } });
    await fireEvent.click(screen.getByTestId('target-add'));
    await vi.waitFor(() => expect(attempts).toBe(2));
    const sent = fakeEngine.calls.filter((c) => c.name === 'targets.add').map((c) => c.input);
    expect(sent.at(-1)).toEqual({ target: { name: 'k', kind: 'kubernetes', settings: { registry: 'registry.example.com/rs', registryAuth: '/home/me/.docker/config.json' } } });
  });
});
