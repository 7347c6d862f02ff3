// The one least-squares line (common/least-squares.ts) on an example worked by hand.
import { describe, expect, it } from 'vitest';
import { fitLine } from '../../src-main/common/least-squares.ts';

describe('fitLine', () => {
  it('gives the slope, intercept and the slope’s standard error (worked by hand)', () => {
    // x̄ = 1.5, ȳ = 2.75, Sxx = 5, Sxy = 5.5: slope 1.1, intercept 2.75 − 1.1 × 1.5 = 1.1.
    // Residuals −0.1, 0.8, −1.3, 0.6: SSE = 2.7, so SE = √(2.7 / (4 − 2) / 5) = √0.27.
    const fit = fitLine([{ x: 0, y: 1 }, { x: 1, y: 3 }, { x: 2, y: 2 }, { x: 3, y: 5 }])!;
    expect(fit.slope).toBeCloseTo(1.1, 12);
    expect(fit.intercept).toBeCloseTo(1.1, 12);
    expect(fit.n).toBe(4);
    expect(fit.slopeSe).toBeCloseTo(Math.sqrt(0.27), 12);
  });

  it('has no standard error through two points, and no line through one x', () => {
    expect(fitLine([{ x: 1, y: 10 }, { x: 3, y: 16 }])).toEqual({ slope: 3, intercept: 7, n: 2, slopeSe: null });
    expect(fitLine([{ x: 2, y: 10 }, { x: 2, y: 12 }, { x: 2, y: 11 }])).toBeNull();
    expect(fitLine([{ x: 2, y: 10 }])).toBeNull();
  });

  it('fits points on a line exactly: standard error 0', () => {
    const fit = fitLine([0, 1, 2, 3, 4].map((x) => ({ x, y: 5 - 2 * x })))!;
    expect(fit).toEqual({ slope: -2, intercept: 5, n: 5, slopeSe: 0 });
  });
});
