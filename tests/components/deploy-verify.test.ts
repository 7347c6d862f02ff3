// The Deploy panel says, per snippet, whether it was run exactly as emitted: the engine's real
// deploy.snippets answer over a hand-built run, before and after verification cells; only the
// transport is faked.
import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import DeploySnippets from '../../src-renderer/components/DeploySnippets.svelte';
import { recommend } from '../../src-main/analysis/index.ts';
import { deployAnswer } from '../../src-main/deploy/from-cell.ts';
import { gridCells } from '../../src-main/deploy/verification.ts';
import type { CellConfig, LoadResult } from '../../src-main/model/types.ts';
import { planSettings, planVerification, verifyCellConfig, type VerifyPlan } from '../../src-main/engine/verify-plan.ts';
import type { RunDetail, StoredCell } from '../../src-main/store/index.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';
import { fakeEngine } from './setup.ts';

const grid = run([...reps({ workers: 1 }, [24100, 24600, 23900]), ...reps({ workers: 2 }, [24300, 24800, 24000])], { name: 'sizing' });

/** The grid plus one passing verification cell for Kubernetes + Compose at the answer's limit. */
function verified(): RunDetail {
  const rec = recommend(grid);
  const plan = planVerification(grid.cells, rec, rec.scopes[0]!.knee.key, 10) as VerifyPlan;
  const mb = plan.start.kubernetes!.memoryMb;
  const config = { ...verifyCellConfig(plan, ['kubernetes', 'compose'], planSettings(plan, 'kubernetes', mb), { round: '2026-01-02T10:00:00.000Z', attempt: 1, final: false, basis: 'test' }), index: grid.cells.length } as CellConfig;
  const series = [23900, 24100, 23950, 24050, 24000, 24000, 23900, 24100, 24000, 24000];
  const load: LoadResult = {
    model: 'closed', connections: 20, measuredSec: 10, requests: 240000, bytes: 0, rpsMean: 24000, rpsStddev: 60, bytesPerSec: 0,
    latencyUs: { p50: 600, p75: 900, p90: 1200, p97_5: 1500, p99: 1800, p99_9: 2500, max: 4000, mean: 700, stddev: 200 },
    latencyFrom: 'send', statusCounts: { '200': 240000 }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false,
    perSecondRps: series, perSecondGood: series, goodputMean: 24000,
  };
  const c: StoredCell = { ...cell({ mem: mb, rps: 24000 }), id: grid.cells.length + 1, config, load, finishedAt: '2026-01-02T10:00:14.000Z' };
  return { ...grid, cells: [...grid.cells, c] };
}

let current: RunDetail = grid;
beforeEach(() => {
  current = grid;
  fakeEngine.answers['deploy.snippets'] = ({ cellId }: { cellId?: number }) => deployAnswer(current, recommend({ ...current, cells: gridCells(current.cells) }), undefined, cellId);
});

describe('DeploySnippets: what was verified', () => {
  it('unverified: each tab says so and names the command', async () => {
    render(DeploySnippets, { props: { runId: 1 } });
    const note = await vi.waitFor(() => screen.getByTestId('deploy-verified'));
    expect(note.dataset.state).toBe('unverified');
    expect(note.textContent).toMatch(/^Unverified — run `rightsize verify 1` to run it exactly as emitted/);
  });

  it('verified: the Kubernetes tab says what ran; PM2, not run, stays unverified', async () => {
    current = verified();
    render(DeploySnippets, { props: { runId: 1 } });
    await vi.waitFor(() => screen.getByTestId('deploy-verified'));
    expect(screen.getByTestId('deploy-verified').dataset.state).toBe('unverified'); // PM2 first
    await fireEvent.click(screen.getByTestId('deploy-tab-kubernetes'));
    await vi.waitFor(() => expect(screen.getByTestId('deploy-verified').dataset.state).toBe('verified'));
    expect(screen.getByTestId('deploy-verified').textContent).toMatch(/^Verified: ran 10 s exactly as emitted on 2026-01-02 10:00 UTC \(cell 7\): no OOM kill, no restart/);
    expect(screen.getByTestId('deploy-text').textContent).toContain('memory: "64Mi"');
  });
});
