// The Memory and CPU panel of an auto-size run: the limit the search kept and why, the check it could
// not decide labelled as undecided (never "clean"), the statements with their methods folded, no knee.
import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { answerOf } from '../helpers/shown-answer.ts';
import type { SearchStep, SizeSpec } from '../../src-main/model/search.ts';
import SizingEvidence from '../../src-renderer/components/SizingEvidence.svelte';
import { cell, run } from '../helpers/run-fixture.ts';

const LOAD = { model: 'rate' as const, rate: 1000, connections: 50 };
const SPEC: SizeSpec = {
  app: 'hello', slo: { p99Ms: 50, minRps: 1000, maxErrorPct: 0.1 }, rate: 1000,
  bounds: { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 256 }, workers: { min: 1, max: 1 }, modes: ['cluster'] },
  durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 250, memoryStepMb: 128, connections: 50,
};
const PATH = [
  { cpu: 1000, mem: 256, outcome: 'meets' }, { cpu: 500, mem: 256, outcome: 'misses' }, { cpu: 750, mem: 256, outcome: 'meets' },
  { cpu: 750, mem: 128, outcome: 'undecided' }, { cpu: 750, mem: 128, outcome: 'undecided' },
] as const;

describe('SizingEvidence of an auto-size run', () => {
  it('says the search kept 256 MB because the 128 MB check was undecided, and labels that check undecided', () => {
    const r = run(PATH.map((p) => ({ ...cell({ cpu: p.cpu, mem: p.mem, load: LOAD, rps: 1000, p99Us: 20_000 }), memMaxBytes: 21 * 2 ** 20 })), { matrix: SPEC });
    const steps: SearchStep[] = PATH.map((p, i) => ({ cellId: r.cells[i]!.id, mode: 'cluster', workers: 1, cpuMillis: p.cpu, memoryMb: p.mem, reason: 'r', outcome: p.outcome, detail: 'p99 20 ms–70 ms' }));
    const rec = answerOf({ ...r, search: { spec: SPEC, steps, status: 'found', found: { mode: 'cluster', workers: 1, cpuMillis: 750, memoryMb: 256 }, words: 'w', gridCells: 8, bestSoFar: null } });
    render(SizingEvidence, { props: { rec } });
    const top = screen.getByTestId('sizing-recommended');
    expect(within(top).getByTestId('sizing-cap-128').textContent).toBe('128 MB: undecided');
    expect(within(top).getByTestId('sizing-cap-256').textContent).toBe('256 MB: clean');
    expect(within(top).getByTestId('sizing-limit').textContent).toBe(
      "256 MB, the bounds' maximum: the peak at 256 MB, 21 MB, × 1.25, rounded up to a multiple of 32 MB, is 32 MB; " +
        "the search's memory step at or above that is 128 MB, but the check at 128 MB was undecided after 2 cells, so the search kept the 256 MB it measured with",
    );
    expect(within(top).getByTestId('sizing-cpu').textContent).toMatch(/^0\.75 CPU meets the objective; at 0\.5 CPU: misses: p99 20 ms–70 ms/);
    expect(screen.getAllByTestId('sizing-statement').map((e) => e.textContent)).toEqual(['Memory: limit 256 MB per container', 'CPU: request = limit = 0.75 CPU per container']);
    expect(screen.getAllByTestId('sizing-method')[0]!.textContent).toContain('the check at 128 MB was undecided');
    expect(screen.getByTestId('sizing').textContent).not.toMatch(/knee|peak × 1\.25, rounded up to a multiple of 32 MB\)/);
    expect(screen.queryAllByTestId('sizing-knee')).toEqual([]);
  });
});
