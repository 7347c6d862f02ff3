// After Ctrl-C the CLI says how far the run got and where to see it, not the whole answer again.
import { describe, expect, it } from 'vitest';
import { cancelledSummary } from '../../src-main/cli/cancelled-summary.ts';
import { cell, run } from '../helpers/run-fixture.ts';

describe('the summary of a cancelled run', () => {
  it('counts cells done, cancelled and not started, and names the commands', () => {
    const r = { ...run([cell({}), cell({ workers: 2 }), cell({ workers: 4, status: 'cancelled' })], { status: 'cancelled' }), cellsTotal: 6 };
    const text = cancelledSummary(r);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain('Cancelled: 2 of 6 cells done, 1 cancelled, 3 not started. No container of it is left running.');
    expect(text).toMatch(/Kept as run 1: .*rightsize show 1 {3}The answer so far: .*rightsize report 1/);
  });

  it('offers no answer when no cell finished, and never counts verification cells as grid cells', () => {
    const verify = cell({ status: 'cancelled' });
    verify.config.phase = 'verify';
    const r = { ...run([cell({ status: 'cancelled' }), verify], { status: 'cancelled' }), cellsTotal: 3 };
    const text = cancelledSummary(r);
    expect(text).toContain('Cancelled: 0 of 3 cells done, 1 cancelled, 2 not started.');
    expect(text).not.toContain('The answer so far');
  });
});
