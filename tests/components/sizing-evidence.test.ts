// The Memory and CPU panel, rendered from a real Recommendation of a constructed run.
import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { answerOf } from '../helpers/shown-answer.ts';
import type { LoadResult, StatsSummary } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import SizingEvidence from '../../src-renderer/components/SizingEvidence.svelte';
import { cell, run, type CellSpec } from '../helpers/run-fixture.ts';

const MiB = 2 ** 20;
function measured(s: CellSpec & { peakMb: number }): StoredCell {
  const c = cell(s);
  const stats: StatsSummary = {
    cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: s.peakMb * MiB, memMaxBytes: s.peakMb * MiB, memLimitBytes: c.config.memoryMb * MiB,
    throttledPeriods: 30, throttledMs: 1200, samples: 10, memPeakBytes: s.peakMb * MiB, memPeakSource: 'cgroup', cpuPeriods: 100,
  };
  return { ...c, stats, load: { measuredSec: 10 } as LoadResult };
}

describe('SizingEvidence', () => {
  it('shows the peak, the limit with its rule, the caps with the one clearly too small, and throttling', () => {
    const rec = answerOf(run([
      cell({ workers: 2, mem: 128, status: 'oom' }),
      ...[9000, 9100, 8900].map((rps) => measured({ workers: 2, mem: 256, rps, peakMb: 150 })),
    ]));
    render(SizingEvidence, { props: { rec } });
    const top = screen.getByTestId('sizing-recommended');
    expect(within(top).getByTestId('sizing-peak').textContent).toContain('150 MB');
    expect(within(top).getByTestId('sizing-limit').textContent).toBe('192 MB (peak × 1.25, rounded up to a multiple of 32 MB)');
    expect(within(top).getByTestId('sizing-cap-128').textContent).toBe('128 MB: OOM-killed');
    expect(within(top).getByTestId('sizing-cap-256').textContent).toBe('256 MB: clean');
    expect(within(top).getByTestId('sizing-too-small').textContent).toBe('128 MB is clearly too small.');
    expect(within(top).getByTestId('sizing-throttling').textContent).toContain('120 ms per second (30 % of periods), 90 % of the cap used');
  });

  it('shows nothing for an answer made before sizing existed', () => {
    const { sizing: _gone, ...rec } = answerOf(run([measured({ workers: 2, rps: 9000, peakMb: 100 })]));
    render(SizingEvidence, { props: { rec } });
    expect(screen.queryByTestId('sizing')).toBeNull();
  });
});
