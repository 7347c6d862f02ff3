// npm run bench -- probe [--runs N]: the runtime probe's cost. The same cell (json, cluster ×2, one
// core, 256 MB, 20 connections) run with and without the probe, N pairs, the order alternating each
// pair so drift falls on both sides. Reports the median goodput ratio (with ÷ without) and the
// median p99 ratio, beside the noise between the cells without the probe themselves.
// Target: goodput cost ≤ 1 % (ratio ≥ 0.99); p99 within the cell's own noise.
// PROBE_BENCH_SEC sets the measured seconds per cell (default 10; warm-up 2).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import type { CellResult } from '../src-main/model/types.ts';
import { stopReaper } from '../src-main/reaper/reaper.ts';
import { Store } from '../src-main/store/index.ts';
import { median } from './stats.ts';

const runsAt = process.argv.indexOf('--runs');
const runsArg = runsAt >= 0 ? process.argv[runsAt + 1] : process.argv.find((a) => a.startsWith('--runs='))?.slice(7);
const PAIRS = Number(runsArg ?? 10);
const SECONDS = Number(process.env.PROBE_BENCH_SEC ?? 10);
if (!Number.isInteger(PAIRS) || PAIRS < 1)
  throw new Error(`--runs should be a whole number of pairs, 1 or more (got ${runsArg})`);

const matrix = (probe: boolean): Record<string, unknown> => ({
  name: `probe bench (${probe ? 'with' : 'without'} the probe)`,
  apps: ['json'], // server-bound on one core here; hello is client-bound, a cost would hide under the client
  modes: ['cluster'],
  workers: [2],
  cpuMillicores: [1000],
  memoryMb: [256],
  load: { model: 'closed', connections: [20] },
  durationSec: SECONDS,
  warmupSec: 2,
  settleBudgetPct: 0,
  verify: false,
  probe,
});

const goodput = (c: CellResult): number => {
  const l = c.load!;
  return (l.requests - l.non2xx - l.errors) / l.measuredSec;
};

const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-probe-'));
const store = Store.open(path.join(dir, 'h.db'));
try {
  const pairs: { on: CellResult; off: CellResult }[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const order = i % 2 === 0 ? [true, false] : [false, true];
    const got: Partial<Record<'on' | 'off', CellResult>> = {};
    for (const probe of order) {
      const outcome = await runMatrix(matrix(probe), { store });
      const cell = outcome.cells[0];
      if (!cell || cell.status !== 'ok' || !cell.load)
        throw new Error(`a cell failed (${cell?.failure ?? 'none ran'}); the comparison would be meaningless`);
      if (probe && !(cell.probe && cell.probe.attached === 3))
        throw new Error(`the probe did not report every process: ${JSON.stringify(cell.probe)}`);
      got[probe ? 'on' : 'off'] = cell;
    }
    pairs.push({ on: got.on!, off: got.off! });
    const p = pairs[i]!;
    console.error(
      `pair ${i + 1}/${PAIRS}: goodput ${goodput(p.on).toFixed(0)} vs ${goodput(p.off).toFixed(0)} req/s, ` +
        `p99 ${p.on.load!.latencyUs.p99} vs ${p.off.load!.latencyUs.p99} µs (with vs without)`,
    );
  }
  const g = pairs.map((p) => goodput(p.on) / goodput(p.off));
  const p99 = pairs.map((p) => p.on.load!.latencyUs.p99 / p.off.load!.latencyUs.p99);
  // The cell's own noise: consecutive cells without the probe against each other.
  const offs = pairs.map((p) => p.off);
  const noiseG = offs.slice(1).map((c, i) => Math.abs(goodput(c) / goodput(offs[i]!) - 1));
  const noiseP99 = offs.slice(1).map((c, i) => Math.abs(c.load!.latencyUs.p99 / offs[i]!.load!.latencyUs.p99 - 1));
  const f = (x: number): string => x.toFixed(3);
  const pct = (xs: number[]): string => (xs.length ? `${(median(xs) * 100).toFixed(1)} %` : 'n/a (one pair)');
  console.log(
    `\n### runtime probe overhead (json, cluster ×2, 1 CPU, 20 connections, ${SECONDS} s, ${PAIRS} pairs)\n`,
  );
  console.log('| measure | median | min | max | noise without the probe (median change between cells) | target | |');
  console.log('|---|---:|---:|---:|---:|---|---|');
  const gVerdict = median(g) >= 0.99 ? 'pass' : 'FAIL';
  console.log(
    `| goodput with ÷ without | ${f(median(g))} | ${f(Math.min(...g))} | ${f(Math.max(...g))} | ${pct(noiseG)} | ≥ 0.990 | ${gVerdict} |`,
  );
  const noise = noiseP99.length ? median(noiseP99) : undefined;
  // A cost is a higher p99: one lower than without the probe is noise the other way.
  const pVerdict = noise === undefined ? '' : median(p99) - 1 <= noise ? 'pass' : 'FAIL';
  console.log(
    `| p99 with ÷ without | ${f(median(p99))} | ${f(Math.min(...p99))} | ${f(Math.max(...p99))} | ${pct(noiseP99)} | within the noise | ${pVerdict} |`,
  );
} finally {
  await stopReaper().catch(() => {});
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
