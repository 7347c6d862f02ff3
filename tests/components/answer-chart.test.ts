// The answer's chart, rendered from a real Recommendation of a constructed run: the numbers and
// marks it carries (intervals, pick, knee, lower bounds, exclusions, groups) are the analysis's.
import { render, screen, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { answerOf } from '../helpers/shown-answer.ts';
import type { Flag } from '../../src-main/model/types.ts';
import AnswerChart from '../../src-renderer/components/AnswerChart.svelte';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const unstable: Flag = { kind: 'unstable', reason: 'throughput rose 30 % over the measurement' };
const hostBusy: Flag = { kind: 'host-busy', reason: 'others took 45 % of core 1' };

/**
 * 1 CPU: 1 worker clean (one unstable repetition counted and flagged, one host-busy repetition excluded), 2 workers
 * client-bound above it; 2 CPUs: undecided.
 */
const fixture = () =>
  run([
    ...reps({ workers: 1 }, [10000, 10100, 9950], [2000, 2100, 1900]),
    cell({ workers: 1, rps: 14000, p99Us: 5000, flags: [unstable] }),
    cell({ workers: 1, rps: 6000, p99Us: 8000, flags: [hostBusy] }),
    ...reps({ workers: 2 }, [17000, 17100, 16900]).map((c) => ({ ...c, flags: [clientBound] })),
    ...reps({ workers: 1, cpu: 2000 }, [9000, 10500, 9300]),
    ...reps({ workers: 2, cpu: 2000 }, [9500, 10400, 10000]),
  ]);

const points = (pair: HTMLElement): HTMLElement[] => within(pair).getAllByRole('listitem', { hidden: true });
const num = (el: HTMLElement, attr: string): number => Number(el.getAttribute(`data-${attr}`));

describe('AnswerChart', () => {
  it('carries each configuration’s estimate and 95 % interval, the pick and the lower bound as recommend() decided', () => {
    const r = fixture();
    const rec = answerOf(r);
    render(AnswerChart, { props: { rec } });
    const pairs = screen.getAllByTestId('answer-chart-pair');
    expect(pairs).toHaveLength(rec.scopes.length);
    expect(pairs.map((p) => p.getAttribute('data-key'))).toEqual(rec.scopes.map((s) => s.key));
    expect(pairs.map((p) => p.querySelectorAll('canvas').length)).toEqual([2, 2]);
    const s = rec.scopes[0]!;
    for (const li of points(pairs[0]!)) {
      const c = rec.configurations.find((x) => x.key === li.getAttribute('data-key'))!;
      expect(num(li, 'rps')).toBe(c.rps!.mean);
      expect(num(li, 'rps-low')).toBe(c.rps!.ci!.low);
      expect(num(li, 'rps-high')).toBe(c.rps!.ci!.high);
      expect(num(li, 'p99-ms')).toBeCloseTo(c.p99Us!.mean / 1000, 9);
      expect(li.getAttribute('data-lower-bound')).toBe(String(s.lowerBounds.includes(c.key)));
      expect(li.getAttribute('data-pick')).toBe(String(c.key === rec.headline!.key));
      expect(li.getAttribute('data-knee')).toBe(String(c.key === s.knee.key));
      expect(li.getAttribute('data-best')).toBe(String(c.key === s.bestRps.key));
    }
    const bound = points(pairs[0]!).find((li) => li.getAttribute('data-lower-bound') === 'true')!;
    expect(bound.getAttribute('data-workers')).toBe('2');
    expect(bound.textContent).toContain('goodput ≥ 17,000 req/s');
    const one = points(pairs[0]!).find((li) => li.getAttribute('data-workers') === '1')!;
    // The unstable repetition counts with the three steady ones; only the host-busy one is excluded.
    expect(one.getAttribute('data-repetitions')).toBe('4');
    expect(one.getAttribute('data-excluded')).toBe('1');
    expect(one.textContent).toContain('1 repetition excluded');
  });

  it('groups an undecided pair’s contenders and names its leader, never a pick', () => {
    const r = fixture();
    const rec = answerOf(r);
    const s = rec.scopes[1]!;
    expect(s.state).toBe('undecided');
    render(AnswerChart, { props: { rec } });
    const pair = screen.getAllByTestId('answer-chart-pair')[1]!;
    expect(pair.getAttribute('data-state')).toBe('undecided');
    const lis = points(pair);
    expect(lis.filter((li) => li.getAttribute('data-contender') === 'true').map((li) => li.getAttribute('data-key')).sort()).toEqual([...s.contenders].sort());
    expect(lis.filter((li) => li.getAttribute('data-leading') === 'true').map((li) => li.getAttribute('data-key'))).toEqual([s.knee.key]);
    expect(lis.some((li) => li.getAttribute('data-pick') === 'true' || li.getAttribute('data-knee') === 'true')).toBe(false);
  });
});
