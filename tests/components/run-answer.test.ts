import { render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Run from '../../src-renderer/routes/Run.svelte';
import type { RunDetail, ShownAnswer } from '../../src-main/contract/api.ts';
import { answerOf } from '../helpers/shown-answer.ts';
import { reps, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

// "Open results" at the end of a run opens the run page: its answer's sentence is there first, not
// charts alone. The engine's real answer over a hand-built run; only the transport is faked.
const r = run([
  ...reps({ workers: 1 }, [24100, 24600, 23900], [1790, 1850, 1700]),
  ...reps({ workers: 2 }, [41000, 43000, 42000], [1900, 2000, 1950]),
], { name: 'answered' });
const rec = answerOf(r);

beforeEach(() => {
  fakeEngine.answers['runs.get'] = () => r;
  fakeEngine.answers['runs.samples'] = () => [];
  fakeEngine.answers['runs.probe'] = () => [];
  fakeEngine.answers['runs.compare'] = () => ({ comparison: null, storedBaseline: null });
  fakeEngine.answers['runs.recommend'] = () => rec;
});

describe('the run page', () => {
  it('opens with the answer: its headline, its bullets and the way to the whole answer, above the charts', async () => {
    expect(rec.headline?.text).toBeTruthy();
    render(Run, { props: { runId: 1 } });
    const answer = await vi.waitFor(() => screen.getByTestId('run-answer'));
    const headline = within(answer).getByTestId('headline');
    expect(headline.textContent).toContain(rec.headline!.text);
    expect(headline.getAttribute('data-state')).toBe(rec.headline!.state);
    expect(within(answer).getAllByRole('listitem').map((li) => li.textContent)).toEqual(rec.summary);
    expect(within(answer).getByTestId('run-open-answer').getAttribute('href')).toBe('#/runs/1/report');
    // At the top: right under the title, before the run's facts, its charts and its cells.
    const order = [screen.getByRole('heading', { level: 2 }), answer, screen.getByTestId('cells')];
    for (let i = 1; i < order.length; i++) expect(order[i - 1]!.compareDocumentPosition(order[i]!) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it('has no answer block when the run has no answer, or is still running', async () => {
    fakeEngine.answers['runs.recommend'] = () => ({ ...rec, headline: null, search: undefined }) as ShownAnswer;
    const { unmount } = render(Run, { props: { runId: 1 } });
    await vi.waitFor(() => expect(screen.getByTestId('cells')).toBeTruthy());
    await vi.waitFor(() => expect(fakeEngine.calls.some((c) => c.name === 'runs.recommend')).toBe(true));
    await new Promise((res) => setTimeout(res, 0));
    expect(screen.queryByTestId('run-answer')).toBeNull();
    unmount();

    fakeEngine.answers['runs.recommend'] = () => rec;
    fakeEngine.answers['runs.get'] = () => ({ ...r, status: 'running' }) as RunDetail;
    render(Run, { props: { runId: 1 } });
    await vi.waitFor(() => expect(screen.getByTestId('cells')).toBeTruthy());
    await new Promise((res) => setTimeout(res, 0));
    expect(screen.queryByTestId('run-answer')).toBeNull();
  });
});
