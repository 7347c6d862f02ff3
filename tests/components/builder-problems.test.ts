import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import Builder from '../../src-renderer/routes/Builder.svelte';
import { sizeEtaSec, validateSizeSpec } from '../../src-main/engine/auto-size/spec.ts';
import { engineError, fakeEngine, up } from './setup.ts';
import { validateLikeTheEngine } from './engine-rules.ts';

// The Builder says a field's problem in the engine's own words (the CLI's), and the sticky Start bar
// names the fields with problems and brings each into view, so none stays hidden behind it.

const apps = [{ name: 'hello', description: 'plain text', stresses: 'HTTP', version: '1', entry: 'server.js', port: 3000, health: '/health', requests: [], env: {}, builtIn: true, kind: 'builtin', fixedWorkers: false }];

const scrolled: string[] = [];
beforeEach(() => {
  window.location.hash = '';
  scrolled.length = 0;
  // jsdom lays nothing out: record which element was asked to come into view.
  Element.prototype.scrollIntoView = function (this: Element) {
    scrolled.push(this.getAttribute('data-testid') ?? this.tagName);
  };
  fakeEngine.answers['apps.list'] = () => apps;
  fakeEngine.answers['presets.list'] = () => [];
  fakeEngine.answers['matrix.validate'] = validateLikeTheEngine;
  fakeEngine.answers['size.validate'] = ({ spec }: { spec: unknown }) => {
    const v = validateSizeSpec(spec, { cores: 2, memoryMb: 8192, apps: ['hello'] });
    return v.ok ? { ok: true, problems: [], gridCells: v.gridCells, maxCells: v.spec.maxCells, etaSec: sizeEtaSec(v.spec) } : { ok: false, problems: v.problems, gridCells: 0, maxCells: 0, etaSec: 0 };
  };
});
afterEach(() => {
  delete (Element.prototype as Partial<Element>).scrollIntoView;
});

const connections = (value: string) => fireEvent.input(screen.getByTestId('connections'), { target: { value } });
const loadError = (): string => within(screen.getByTestId('load-field')).getByRole('alert').textContent!;

describe('the Builder’s problems', () => {
  it('says a bad connection count as the CLI does, in either load model', async () => {
    render(Builder, { props: { status: up } });
    await connections('0');
    await vi.waitFor(() => expect(loadError()).toBe('0 is not a connection count from 1 to 10000'));
    await fireEvent.click(screen.getByLabelText(/constant rate/));
    await vi.waitFor(() => expect(loadError()).toBe('0 is not a connection count from 1 to 10000'));
    // What is not a number goes to the engine as typed, and is named as such (never "null").
    await connections('lots');
    await vi.waitFor(() => expect(loadError()).toMatch(/not the text "lots"/));
    await fireEvent.click(screen.getByLabelText(/closed loop/));
    await vi.waitFor(() => expect(loadError()).toBe('should be a number, not the text "lots".'));
    expect(loadError()).not.toMatch(/null/);
  });

  it('names the fields with problems in the Start bar and brings one into view on a click', async () => {
    render(Builder, { props: { status: up } });
    await connections('0');
    await fireEvent.input(screen.getByTestId('duration'), { target: { value: '0' } });
    await vi.waitFor(() => expect(screen.getByTestId('problem-fields').textContent).toBe(' — in Load, Timing'));
    expect((screen.getByTestId('start') as HTMLButtonElement).disabled).toBe(true);
    await fireEvent.click(within(screen.getByTestId('problem-fields')).getByRole('button', { name: 'Timing' }));
    expect(scrolled).toEqual(['timing-field']);
    await connections('20');
    await fireEvent.input(screen.getByTestId('duration'), { target: { value: '10' } });
    await vi.waitFor(() => expect(screen.queryByTestId('problem-fields')).toBeNull());
  });

  it('Auto-size: a search the engine refuses at Start brings its first refused field into view', async () => {
    render(Builder, { props: { status: up } });
    await fireEvent.click(screen.getByTestId('builder-mode-size'));
    await vi.waitFor(() => expect(screen.getByTestId('size-count').textContent).toMatch(/cells instead of/));
    fakeEngine.answers['runs.size'] = () => {
      throw engineError({ code: 'INVALID_INPUT', message: 'The auto-size request is not valid', fields: [{ path: 'bounds.memoryMb', message: '4096 MB is more than this host\'s 2048 MB' }] });
    };
    await fireEvent.click(screen.getByTestId('size-start'));
    await vi.waitFor(() => expect(scrolled).toEqual(['size-memory']));
    expect(screen.getByTestId('size-problem-fields').textContent).toBe(' — in Memory cap');
  });
});
