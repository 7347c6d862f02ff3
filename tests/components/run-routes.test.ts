import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import Run from '../../src-renderer/routes/Run.svelte';
import type { RouteResult, RunDetail } from '../../src-main/contract/api.ts';
import type { LoadResult } from '../../src-main/model/types.ts';
import { fmtNum, fmtUs } from '../../src-main/contract/present.ts';
import { mixLines } from '../../src-main/mix/describe.ts';
import type { MixEntry } from '../../src-main/model/requests.ts';
import { runView } from '../../src-main/service/views.ts';
import { cell, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

// The run page's routes of a cell that sent a mix: each route's share against its weight's, goodput, p50 and p99,
// as the load side counted them, a share off by more than the tolerance marked, and the mix as the run kept it.

const mix: MixEntry[] = [
  { method: 'GET', path: '/products/{{zipf 1 5000 1.1}}', weight: 6, name: 'product' },
  {
    sequence: [
      { method: 'POST', path: '/login', capture: { token: { json: '$.token' } } },
      { method: 'GET', path: '/me' },
    ],
    weight: 2,
  },
];
const route = (r: Partial<RouteResult> & { route: string }): RouteResult => ({
  sent: 1000,
  share: 0.5,
  expectedShare: 0.5,
  requests: 1000,
  good: 1000,
  goodputMean: 100,
  p50Us: 800,
  p99Us: 4200,
  ...r,
});
const routes: RouteResult[] = [
  route({ route: 'product', share: 0.6, expectedShare: 0.6, goodputMean: 1234.5, p50Us: 850, p99Us: 12_500 }),
  route({ route: 'POST /login', share: 0.16, expectedShare: 0.2, goodputMean: 329, p50Us: 2100, p99Us: 41_000 }),
  route({ route: 'GET /me', share: 0.24, expectedShare: 0.2, goodputMean: 494, p50Us: 640, p99Us: 3100 }),
];

function shown(): RunDetail {
  const withRoutes = cell({ app: 'shop' });
  const plain = cell({ app: 'shop', workers: 2 });
  const r = run([{ ...withRoutes, load: { routes } as LoadResult }, plain]);
  return { ...r, apps: [{ name: 'shop', requests: mix }] };
}

beforeEach(() => {
  const r = shown();
  fakeEngine.answers['runs.get'] = () => ({ ...r, view: runView(r) });
  fakeEngine.answers['runs.samples'] = () => [];
  fakeEngine.answers['runs.probe'] = () => [];
  fakeEngine.answers['runs.compare'] = () => ({ comparison: null, storedBaseline: null });
});

describe('the run page’s routes', () => {
  it('lists the picked cell’s routes from load.routes, marks a share off its weight and shows the mix it sent', async () => {
    render(Run, { props: { runId: 1 } });
    const table = await vi.waitFor(() => screen.getByTestId('routes-table'));
    expect(screen.getByTestId('routes').textContent).toContain('Routes of cell 1');
    const rows = routes.map((_, i) => within(table).getByTestId(`route-row-${i}`));
    expect(
      rows.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.replace('⚠', '').trim())),
    ).toEqual([
      ['product', '60.0 %', '60.0 %', fmtNum(1234.5), fmtUs(850), fmtUs(12_500)],
      ['POST /login', '16.0 %', '20.0 %', fmtNum(329), fmtUs(2100), fmtUs(41_000)],
      ['GET /me', '24.0 %', '20.0 %', fmtNum(494), fmtUs(640), fmtUs(3100)],
    ]);
    // 4 points off its weight's share: marked; on it: not.
    expect(rows.map((tr) => tr.dataset.off ?? null)).toEqual([null, 'true', 'true']);
    expect(rows[1]!.textContent).toContain('⚠');
    expect(rows[0]!.textContent).not.toContain('⚠');
    expect(screen.getByTestId('routes').textContent).toContain('more than 2 percentage points (2 here)');
    // The mix as the run kept the app, in the words `show` and the HTML report use.
    const lines = within(screen.getByTestId('routes-mix'))
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    expect(lines).toEqual(mixLines(mix));
    expect(lines[1]).toBe('25 % sequence POST /login (takes token from $.token) → GET /me');
  });

  it('has no routes table for a cell without routes', async () => {
    render(Run, { props: { runId: 1 } });
    await vi.waitFor(() => screen.getByTestId('routes-table'));
    await fireEvent.click(screen.getByRole('button', { name: 'Show cell 2' }));
    expect(screen.queryByTestId('routes-table')).toBeNull();
    expect(screen.queryByTestId('routes-mix')).toBeNull();
  });
});
