import { readFileSync } from 'node:fs';
import path from 'node:path';
import { render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import History from '../../src-renderer/routes/History.svelte';
import type { RunSummary } from '../../src-main/contract/api.ts';
import type { RunPick } from '../../src-main/model/stored.ts';
import { fakeEngine } from './setup.ts';

// History names each run's answer (runs.list's `pick`), never its fastest cell.
const pick = (over: Partial<RunPick>): RunPick => ({ state: 'confident', configuration: 'cluster×1 on 1 CPU / 256 MB', app: 'json', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256, goodputRps: 12_229.4, lowerBound: false, p99Us: 3510, ...over });
const summary = (id: number, status: RunSummary['status'], p: RunPick | null): RunSummary => ({
  id, name: `run ${id}`, preset: null, status, cellsTotal: 6, cellsDone: 6, cellsFailed: 0, startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: status === 'running' ? null : '2026-01-01T00:01:00.000Z', durationSec: status === 'running' ? null : 60, bestRps: 78_361, bestP99Us: 900, pick: p,
});

beforeEach(() => {
  fakeEngine.answers['runs.list'] = () => ({
    total: 4,
    runs: [
      summary(4, 'running', null),
      summary(3, 'completed', pick({ state: 'undecided', configuration: 'cluster×2 on 1 CPU / 256 MB', workers: 2 })),
      summary(2, 'completed', pick({ lowerBound: true, goodputRps: 40_100 })),
      summary(1, 'completed', pick({ state: 'equivalent' })),
    ],
  });
});

describe('History', () => {
  it('shows the answer’s pick, its goodput (≥ a lower bound) and p99; — while running', async () => {
    render(History);
    await vi.waitFor(() => expect(screen.getAllByTestId('history-row')).toHaveLength(4));
    const cells = (i: number): string[] => within(screen.getAllByTestId('history-row')[i]!).getAllByRole('cell').map((c) => c.textContent!.trim());
    expect(cells(0).slice(-3)).toEqual(['—', '—', '—']);
    expect(cells(1).slice(-3)).toEqual(['leading: cluster×2 on 1 CPU / 256 MB, undecided', '12,229', '3.51 ms']);
    expect(cells(2).slice(-3)).toEqual(['cluster×1 on 1 CPU / 256 MB, confident', '≥ 40,100', '3.51 ms']);
    expect(cells(3).slice(-3)).toEqual(['cluster×1 on 1 CPU / 256 MB, equivalent', '12,229', '3.51 ms']);
    // The fastest cell (78,361 req/s) is nowhere: it is not what the run answered.
    expect(screen.getByTestId('history').textContent).not.toContain('78,361');
    expect(screen.getByRole('columnheader', { name: 'answer' })).toBeTruthy();
  });

  it('cuts a long run name with an ellipsis, whole on hover, so goodput and p99 stay in a 1280 px window', async () => {
    const long = `nightly ${'pbkdf2 under cluster with four workers and a very long description '.repeat(4)}`.slice(0, 200);
    expect(long).toHaveLength(200);
    fakeEngine.answers['runs.list'] = () => ({ total: 1, runs: [{ ...summary(9, 'completed', pick({})), name: long, preset: 'quick' }] });
    render(History);
    await vi.waitFor(() => expect(screen.getAllByTestId('history-row')).toHaveLength(1));
    const cell = screen.getByTestId('history-name');
    const box = cell.querySelector('.name') as HTMLElement;
    // The whole name (and its preset) on hover; the link still says it all to a screen reader.
    expect(box.getAttribute('title')).toBe(`#9 ${long} (quick)`);
    expect(within(cell).getByRole('link').textContent).toBe(`#9 ${long}`);
    // jsdom lays nothing out: the truncating rule is checked where it is written (the layout itself in
    // tests/e2e/serve-history-pick.spec.ts, at 1280 px).
    expect(box.classList.contains('name')).toBe(true);
    const css = /<style>([\s\S]*)<\/style>/.exec(readFileSync(path.resolve(import.meta.dirname, '../../src-renderer/routes/History.svelte'), 'utf8'))![1]!;
    const rule = /(?:^|\n)\s*\.name\s*\{([^}]*)\}/.exec(css)![1]!;
    expect(rule).toMatch(/max-width:\s*\d/);
    expect(rule).toMatch(/overflow:\s*hidden/);
    expect(rule).toMatch(/text-overflow:\s*ellipsis/);
    expect(rule).toMatch(/white-space:\s*nowrap/);
    // The row's other columns are all there.
    expect(within(screen.getAllByTestId('history-row')[0]!).getAllByRole('cell').map((c) => c.textContent!.trim()).slice(-2)).toEqual(['12,229', '3.51 ms']);
  });
});
