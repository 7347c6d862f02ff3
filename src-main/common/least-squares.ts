// Ordinary least squares of y on x: one fit for memory per worker (analysis/size/memory.ts) and the
// throughput trend of a cell's seconds (load/steady-state.ts).

export interface LineFit {
  slope: number;
  intercept: number;
  /** Points fitted. */
  n: number;
  /**
   * Standard error of the slope, from the residual variance over n − 2 degrees of freedom; null
   * through two points, where the line fits exactly and there is no residual to estimate it from.
   */
  slopeSe: number | null;
}

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The least-squares line through the points; null below two distinct x. */
export function fitLine(points: readonly { x: number; y: number }[]): LineFit | null {
  const n = points.length;
  if (n < 2 || new Set(points.map((p) => p.x)).size < 2) return null;
  const mx = meanOf(points.map((p) => p.x));
  const my = meanOf(points.map((p) => p.y));
  let sxx = 0;
  let sxy = 0;
  for (const p of points) {
    sxx += (p.x - mx) ** 2;
    sxy += (p.x - mx) * (p.y - my);
  }
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  if (n === 2) return { slope, intercept, n, slopeSe: null };
  // Residuals about the centre of the data: exact zeros for points on the line.
  let sse = 0;
  for (const p of points) sse += (p.y - (my + slope * (p.x - mx))) ** 2;
  return { slope, intercept, n, slopeSe: Math.sqrt(sse / (n - 2) / sxx) };
}
