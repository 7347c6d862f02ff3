import { seededRandom } from '../src-main/util/seeded-random.ts';

/** Small helpers shared by the benchmarks: medians, not means, because this machine is noisy. */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export interface Row {
  op: string;
  medianMs: number;
  minMs: number;
  maxMs: number;
  targetMs?: number;
}

export function row(op: string, xs: number[], targetMs?: number): Row {
  return { op, medianMs: median(xs), minMs: Math.min(...xs), maxMs: Math.max(...xs), ...(targetMs !== undefined ? { targetMs } : {}) };
}

export function printRows(title: string, rows: Row[], digits = 1): void {
  const f = (n: number): string => n.toFixed(digits);
  console.log(`\n### ${title}\n`);
  console.log('| operation | median ms | min | max | target | |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const verdict = r.targetMs === undefined ? '' : r.medianMs <= r.targetMs ? 'pass' : 'FAIL';
    console.log(`| ${r.op} | ${f(r.medianMs)} | ${f(r.minMs)} | ${f(r.maxMs)} | ${r.targetMs ?? ''} | ${verdict} |`);
  }
}

export const isMain = (url: string): boolean => process.argv[1] !== undefined && url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!);

/**
 * A 95 % percentile-bootstrap interval of the median (seeded, so a report repeats exactly): how
 * far the median of this many noisy rounds could sit from the one measured.
 */
export function medianInterval(xs: number[], seed = 1, draws = 10_000): [number, number] {
  if (xs.length === 0) return [NaN, NaN];
  const rand = seededRandom(seed);
  const ms: number[] = [];
  for (let d = 0; d < draws; d++) ms.push(median(Array.from(xs, () => xs[Math.floor(rand() * xs.length)]!)));
  ms.sort((a, b) => a - b);
  return [ms[Math.floor(0.025 * draws)]!, ms[Math.ceil(0.975 * draws) - 1]!];
}
