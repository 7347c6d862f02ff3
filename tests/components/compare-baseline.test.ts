// The Compare view's verdicts: the engine's real comparison of two constructed runs, shown as badges
// with the change, its interval and the comparability note; the picker asks for another baseline.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Compare from '../../src-renderer/routes/Compare.svelte';
import RunBaseline from '../../src-renderer/components/RunBaseline.svelte';
import { compareToBaseline } from '../../src-main/analysis/compare/baseline.ts';
import { shownComparison } from '../../src-main/service/views.ts';
import type { RunDetail } from '../../src-main/contract/api.ts';
import { HOST, reps, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

const runs: Record<number, RunDetail> = {
  4: { ...run(reps({}, [1000, 1008, 995, 1003], [2000, 2020, 1990, 2010])), id: 4 },
  5: { ...run(reps({}, [700, 706, 696, 702], [2000, 2020, 1990, 2010]), { host: { ...HOST, cores: 2 } }), id: 5 },
};

beforeEach(() => {
  fakeEngine.answers['runs.get'] = ({ runId }: { runId: number }) => runs[runId];
  fakeEngine.answers['baselines.list'] = () => [{ app: 'hello', name: 'main', runId: 4, createdAt: '2026-01-01T00:00:00Z' }];
  fakeEngine.answers['runs.compare'] = ({ runId, baseline, thresholdPct }: { runId: number; baseline: string; thresholdPct: number }) => ({
    comparison: shownComparison(compareToBaseline([{ run: runs[baseline === 'main' ? 4 : Number(baseline)]! }], { run: runs[runId]! }, { thresholdPct })),
    storedBaseline: null,
  });
});

describe('Compare: verdicts against a baseline', () => {
  it('shows each metric with its badge, change and interval, and says the runs are not comparable', async () => {
    render(Compare, { a: 4, b: 5 });
    await vi.waitFor(() => expect(screen.getByTestId('baseline-summary').textContent).toMatch(/Against run 4/));
    expect(screen.getByTestId('verdict-goodput').textContent).toBe('regressed');
    const row = screen.getAllByTestId('baseline-row')[0]!.textContent!;
    expect(row).toMatch(/goodput.*regressed.*1,002 req\/s.*701 req\/s.*−30\.0 %/);
    expect(screen.getByTestId('baseline-not-comparable').textContent).toMatch(/ran on lab \(8 cores.*this run on lab \(2 cores/);
    expect(fakeEngine.calls.filter((c) => c.name === 'runs.compare').at(-1)!.input).toEqual({ runId: 5, baseline: '4', thresholdPct: 5 });
  });

  it('the picker asks for a saved baseline by name and a threshold', async () => {
    render(Compare, { a: 4, b: 5 });
    await vi.waitFor(() => expect(screen.getByTestId('baseline-select').querySelectorAll('option')).toHaveLength(2));
    await fireEvent.change(screen.getByTestId('baseline-select'), { target: { value: 'main' } });
    await fireEvent.input(screen.getByTestId('baseline-threshold'), { target: { value: '40' } });
    await vi.waitFor(() =>
      expect(fakeEngine.calls.filter((c) => c.name === 'runs.compare').at(-1)!.input).toEqual({ runId: 5, baseline: 'main', thresholdPct: 40 }),
    );
    // 30 % lower is within a 40 % threshold: no longer a regression.
    await vi.waitFor(() => expect(screen.getByTestId('verdict-goodput').textContent).not.toBe('regressed'));
  });

  it("the run page opens the verdicts of the baseline the run was started with", async () => {
    fakeEngine.answers['runs.compare'] = ({ runId }: { runId: number }) => ({
      comparison: shownComparison(compareToBaseline([{ run: runs[4]! }], { run: runs[runId]! })),
      storedBaseline: { sides: [{ runId: 4, apps: null }], thresholdPct: 5, name: 'main' },
    });
    render(RunBaseline, { runId: 5 });
    await vi.waitFor(() => expect((screen.getByTestId('run-baseline') as HTMLDetailsElement).open).toBe(true));
    expect(screen.getByTestId('verdict-goodput').textContent).toBe('regressed');
    expect(fakeEngine.calls.find((c) => c.name === 'runs.compare')!.input).toEqual({ runId: 5 });
  });
});
