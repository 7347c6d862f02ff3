import { render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Report from '../../src-renderer/routes/Report.svelte';
import { deployAnswer } from '../../src-main/deploy/from-cell.ts';
import { answerOf } from '../helpers/shown-answer.ts';
import { reps, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

// How sure each pair's answer is: its one state, the contest's, and no second word beside it (the
// engine's real answer over a hand-built run; only the transport is faked).
const r = run([
  // 1 CPU: 1 and 2 workers 4 % apart with wide spreads, neither separated nor within 5 %: undecided.
  ...reps({ workers: 1 }, [9000, 10500, 9300]),
  ...reps({ workers: 2 }, [9500, 10400, 10000]),
  // 2 CPUs: 2 workers far above 1: confident.
  ...reps({ workers: 1, cpu: 2000, mem: 512 }, [26000, 26200, 25900]),
  ...reps({ workers: 2, cpu: 2000, mem: 512 }, [41000, 43000, 42000]),
], { name: 'states' });
const rec = answerOf(r);

beforeEach(() => {
  fakeEngine.answers['runs.recommend'] = () => rec;
  fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => deployAnswer(r, rec, undefined, cellId);
});

describe('the answer page: one state per pair', () => {
  it('shows each pair’s state and nothing else for how sure', async () => {
    expect(rec.scopes.map((s) => s.state)).toEqual(['undecided', 'confident']);
    render(Report, { props: { runId: 1 } });
    const table = await vi.waitFor(() => screen.getByTestId('scopes'));
    const cells = within(table).getAllByTestId('scope-state');
    expect(cells.map((c) => c.textContent)).toEqual(rec.scopes.map((s) => s.state));
    for (const [i, cell] of cells.entries()) {
      const row = cell.closest('tr')!;
      // The state is said once in the row; its title is the best's goodput in words, no verdict.
      const said = [...row.querySelectorAll('td')].flatMap((td) => td.textContent!.match(/\b(confident|equivalent|undecided)\b/g) ?? []);
      expect(said).toEqual([rec.scopes[i]!.state]);
      expect(cell.getAttribute('title')).toBe(`req/s: ${rec.view.configurations[rec.scopes[i]!.bestRps.key]!.rps}`);
      expect(row.innerHTML).not.toMatch(/\bclear\b|not distinguishable|means only|not confident|only candidate/);
    }
  });
});
