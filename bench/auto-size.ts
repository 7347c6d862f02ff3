// npm run bench -- auto-size [--app pbkdf2|json-read]: the auto-size search against the full grid
// it replaces, same bounds and steps, side by side in one process, per app: cells run, wall time,
// and whether both name the same cheapest configuration. The grid is judged cell by cell with the
// search's own judge (engine/auto-size/judge.ts, one cell each, no repeats) and ranked with the
// answer's byCost, so "same answer" compares strategies, not decision rules.
//
// The grid is kept small so each app runs in a few minutes: 4 CPU caps (250m steps) × 2 memory caps
// (128 MB steps) × 2 worker counts = 16 cells of 6 measured seconds; the search gets the same
// bounds and steps. Finer steps grow the grid multiplicatively and the search logarithmically.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { costOrder } from '../src-main/analysis/decide/cost-order.ts';

const byCost = costOrder();
import { evidenceOf, judge } from '../src-main/engine/auto-size/judge.ts';
import { runSearch } from '../src-main/engine/auto-size/run-search.ts';
import { configLabel, type Config } from '../src-main/engine/auto-size/search.ts';
import { steps, validateSizeSpec } from '../src-main/engine/auto-size/spec.ts';
import type { SizeSpec } from '../src-main/model/search.ts';
import { hostLimits } from '../src-main/engine/host.ts';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { stopReaper } from '../src-main/reaper/reaper.ts';
import { Store } from '../src-main/store/index.ts';

const COMMON = { durationSec: 6, warmupSec: 1, cpuStepMillis: 250, memoryStepMb: 128, maxCells: 12 };
const BOUNDS = { cpuMillis: { min: 250, max: 1000 }, memoryMb: { min: 128, max: 256 }, workers: { min: 1, max: 2 }, modes: ['cluster'] };
/** CPU-bound (~2 ms of CPU per request: 150 req/s needs ~0.3 CPU) and I/O-ish (a file read per request). */
const APPS: Record<string, Record<string, unknown>> = {
  pbkdf2: { app: 'pbkdf2', slo: { p99Ms: 100, maxErrorPct: 0.1 }, rate: 150, bounds: BOUNDS, ...COMMON },
  'json-read': { app: 'json-read', slo: { p99Ms: 50, maxErrorPct: 0.1 }, rate: 3000, bounds: BOUNDS, ...COMMON },
};

const argApp = process.argv.indexOf('--app');
const chosen = argApp > 0 ? [process.argv[argApp + 1]!] : Object.keys(APPS);
for (const a of chosen) if (!APPS[a]) throw new Error(`--app: one of ${Object.keys(APPS).join(', ')}`);

const engine = await checkEngine();
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-size-'));
const store = Store.open(path.join(dir, 'history.db'));
const rows: string[] = [];
const say = (s: string): boolean => process.stderr.write(`${s}\n`);
try {
  for (const app of chosen) {
    const v = validateSizeSpec(APPS[app], hostLimits(engine, [app]));
    if (!v.ok) throw new Error(JSON.stringify(v.problems));
    const spec = v.spec;

    let t0 = performance.now();
    const search = await runSearch(spec, { store, name: `bench search ${app}` });
    const searchSec = (performance.now() - t0) / 1000;
    const sFound = search.trace.found;
    say(`${app} search: ${search.trace.steps.length} cells, ${searchSec.toFixed(0)} s: ${search.trace.status} — ${search.trace.words}`);

    t0 = performance.now();
    const grid = await runMatrix(gridMatrix(spec), { store, name: `bench grid ${app}` });
    const gridSec = (performance.now() - t0) / 1000;
    const gFound = gridAnswer(grid.runId, spec);
    say(`${app} grid: ${grid.cells.length} cells, ${gridSec.toFixed(0)} s: ${gFound ? configLabel(gFound) : 'none meets'}`);

    const same = JSON.stringify(sFound) === JSON.stringify(gFound);
    const sameCpu = sFound && gFound ? sFound.cpuMillis === gFound.cpuMillis && sFound.workers === gFound.workers : sFound === gFound;
    rows.push(`| ${app} | p99 ≤ ${spec.slo.p99Ms} ms at ${spec.rate} req/s | ${search.trace.steps.length} | ${grid.cells.length} | ${(search.trace.steps.length / grid.cells.length).toFixed(2)} | ${fmtSec(searchSec)} | ${fmtSec(gridSec)} | ${(searchSec / gridSec).toFixed(2)} | ${sFound ? configLabel(sFound) : search.trace.status} | ${gFound ? configLabel(gFound) : 'none'} | ${same ? 'yes' : sameCpu ? 'CPU and workers yes, memory no' : 'no'} |`);
  }
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
  await stopReaper().catch(() => {});
}
console.log(`\n### Auto-size: search vs the full grid (same bounds and steps; cells of ${COMMON.durationSec} s + ${COMMON.warmupSec} s warmup)\n`);
console.log('| app | objective | search cells | grid cells | cells ratio | search wall | grid wall | wall ratio | search answer | grid answer | same answer |');
console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|');
for (const r of rows) console.log(r);

function fmtSec(s: number): string {
  return s >= 60 ? `${Math.floor(s / 60)} m ${String(Math.round(s % 60)).padStart(2, '0')} s` : `${Math.round(s)} s`;
}

/** The grid over the spec's bounds at its steps, at the same constant rate and cell length. */
function gridMatrix(spec: SizeSpec): Record<string, unknown> {
  const b = spec.bounds;
  return {
    apps: [spec.app],
    cpuMillicores: steps(b.cpuMillis.min, b.cpuMillis.max, spec.cpuStepMillis),
    memoryMb: steps(b.memoryMb.min, b.memoryMb.max, spec.memoryStepMb),
    workers: Array.from({ length: b.workers.max - b.workers.min + 1 }, (_, i) => b.workers.min + i),
    modes: b.modes,
    load: { model: 'rate', rates: [spec.rate], connections: spec.connections },
    durationSec: spec.durationSec,
    warmupSec: spec.warmupSec,
  };
}

/** The grid's answer: every cell judged alone by the search's judge; the cheapest that meets, by byCost. */
function gridAnswer(runId: number, spec: SizeSpec): Config | null {
  const run = store.getRun(runId)!;
  const meeting = run.cells
    .map((c) => ({ c, j: judge([evidenceOf(c, store.getSamples(c.id))], spec) }))
    .filter((x) => x.j.outcome === 'meets')
    .map((x) => ({ mode: x.c.config.mode, workers: x.c.config.workers, cpuMillis: x.c.config.cpuMillis, memoryMb: x.c.config.memoryMb, p99Us: x.j.p99Ms && { mean: x.j.p99Ms.mean } }))
    .sort(byCost);
  const best = meeting[0];
  return best ? { mode: best.mode, workers: best.workers, cpuMillis: best.cpuMillis, memoryMb: best.memoryMb } : null;
}
