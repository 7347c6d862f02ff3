// npm run bench -- time-to-answer [--runs K] [--only quick,pbkdf2-one-thread,…]: where a user's wait goes.
// Each preset run K times (default 1) through the CLI as a user runs it, settling and verification included,
// after `run --dry-run` gave its estimate. Per run: the wall time against the estimate, and the cells' own wall
// time split into measured seconds, warm-up and the rest (start, readiness, teardown), by phase (grid,
// settling, verification). Issue 43's targets: measured ≥ 70 % of the wall time; `quick` in ≤ 75 s; the
// estimate within 20 % of the wall time. "At best": the measured share the same cells would have had if each warmed up
// only its JIT floor and cost nothing else (no start, no readiness, no teardown, no flatness past the floor): the
// ceiling of any design that measures warm code in a fresh container per repetition. `--bound` prints it for each
// preset's grid without running anything.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fmtNum } from '../src-main/common/format.ts';
import { plannedWarmup, type WarmupCell } from '../src-main/engine/cell-warmup.ts';
import { expandMatrix, validateMatrix } from '../src-main/engine/matrix.ts';
import { findPreset, listPresets, unknownPresetMessage } from '../src-main/presets/presets.ts';
import { Store } from '../src-main/store/index.ts';
import { isMain, median } from './stats.ts';

const PRESETS = ['quick', 'pbkdf2-one-thread', 'pm2-right-sizing'];

interface Timing {
  preset: string;
  /** Which run of the preset on this bench's history (1: none of its apps had run here). */
  run: number;
  estimateSec: number;
  estimateLowSec: number;
  estimateHighSec: number;
  wallSec: number;
  cells: Record<'matrix' | 'settle' | 'verify', number>;
  cellWallSec: number;
  measuredSec: number;
  warmupSec: number;
  warmupPerCell: number[];
  unstable: number;
  /** The measured share at best: these cells' measured seconds over those plus each one's JIT floor. */
  atBest: number;
}

type MeasuredCell = { config: WarmupCell; measuredSec: number };
/** A cell's least warm-up (its JIT floor, raised to one CPU where a lone local target's cap allows it). */
const floorSec = (c: MeasuredCell): number => plannedWarmup(c.config, true).minSec;
const total = <T>(xs: readonly T[], f: (x: T) => number): number => xs.reduce((s, x) => s + f(x), 0);

/** The measured share of `cells` if each warmed up only its least warm-up and cost nothing else. */
export function shareAtBest(cells: readonly MeasuredCell[]): number {
  const measured = total(cells, (c) => c.measuredSec);
  return measured / (measured + total(cells, floorSec));
}

/** A preset's matrix, by the name `rightsize run --preset` takes. */
function presetMatrix(preset: string): Record<string, unknown> {
  const p = findPreset(preset);
  if (!p) throw new Error(unknownPresetMessage(preset));
  return p.matrix;
}

/**
 * `shareAtBest` of a preset's grid, each cell measuring its configured seconds (nothing is run); and the same if each
 * configuration's repetitions shared one container (its floor paid once): the ceiling of issue 43's first option.
 */
export function presetShareAtBest(preset: string): { fresh: number; shared: number } {
  const m = presetMatrix(preset);
  const v = validateMatrix(m, { cores: 64, memoryMb: 1 << 20, apps: m.apps as string[] });
  if (!v.ok) throw new Error(`${preset}: ${v.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  const cells = expandMatrix(v.matrix).map((config) => ({ config, measuredSec: config.durationSec }));
  const firstOfEach = new Map<string, MeasuredCell>();
  for (const c of cells) {
    const { index: _i, repetition: _r, ...configuration } = c.config;
    const key = JSON.stringify(configuration);
    if (!firstOfEach.has(key)) firstOfEach.set(key, c);
  }
  const measured = total(cells, (c) => c.measuredSec);
  return { fresh: shareAtBest(cells), shared: measured / (measured + total([...firstOfEach.values()], floorSec)) };
}

function option(name: string): string | undefined {
  const i = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
}

function cli(db: string, args: string[]): string {
  const r = spawnSync(process.execPath, ['bin/rightsize.js', '--db', db, '--json', ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  // Exit 4 (a cell failed) is still a run with an answer.
  if (r.status !== 0 && r.status !== 4) throw new Error(`rightsize ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr}`);
  return r.stdout;
}

function timeOne(preset: string, db: string, n: number): Timing {
  const dry = JSON.parse(cli(db, ['run', '--preset', preset, '--dry-run'])) as {
    estimateSec: number;
    estimate?: { lowSec: number; highSec: number };
  };
  const estimateSec = dry.estimateSec;
  const t0 = performance.now();
  const runId = (JSON.parse(cli(db, ['run', '--preset', preset])) as { runId: number }).runId;
  const wallSec = (performance.now() - t0) / 1000;
  const store = Store.open(db);
  try {
    const run = store.getRun(runId)!;
    const cells = { matrix: 0, settle: 0, verify: 0 };
    let cellWallSec = 0;
    let measuredSec = 0;
    let warmupSec = 0;
    const warmupPerCell: number[] = [];
    let unstable = 0;
    for (const c of run.cells) {
      cells[c.config.phase ?? 'matrix']++;
      if (c.finishedAt) cellWallSec += (Date.parse(c.finishedAt) - Date.parse(c.startedAt)) / 1000;
      measuredSec += c.load?.measuredSec ?? 0;
      const w = c.load?.warmupUsedSec ?? 0;
      warmupSec += w;
      if (c.load) warmupPerCell.push(w);
      if (c.flags.some((f) => f.kind === 'unstable')) unstable++;
    }
    const range = { estimateLowSec: dry.estimate?.lowSec ?? estimateSec, estimateHighSec: dry.estimate?.highSec ?? estimateSec };
    const atBest = shareAtBest(run.cells.flatMap((c) => (c.load ? [{ config: c.config, measuredSec: c.load.measuredSec ?? 0 }] : [])));
    return { preset, run: n, estimateSec, ...range, wallSec, cells, cellWallSec, measuredSec, warmupSec, warmupPerCell, unstable, atBest };
  } finally {
    store.close();
  }
}

/**
 * The preset's images made before it is timed (a user builds them once, on the first run): one cell of each app and
 * Node.js version, its dependencies included, 1 s, on a history of its own so the timed run 1 still has none.
 */
function buildImagesOf(preset: string, dir: string): void {
  const m = presetMatrix(preset);
  const config = path.join(dir, 'images.json');
  const tiny = { apps: m.apps, modes: [(m.modes as string[])[0]], workers: [1], cpuMillicores: [500], memoryMb: [Math.max(512, ...((m.memoryMb ?? []) as number[]))], ...(m.node ? { node: m.node } : {}), load: { model: 'closed', connections: [1] }, durationSec: 1, warmupSec: 0, settleBudgetPct: 0, verify: false };
  writeFileSync(config, JSON.stringify(tiny));
  cli(path.join(dir, 'images.db'), ['run', '--config', config]);
}

export function benchTimeToAnswer(k: number, presets: string[]): Timing[] {
  const out: Timing[] = [];
  for (const preset of presets) {
    const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
    try {
      buildImagesOf(preset, dir);
      for (let i = 0; i < k; i++) {
        const t = timeOne(preset, path.join(dir, 'r.db'), i + 1);
        out.push(t);
        console.log(`  ${preset} run ${i + 1}: ${fmtNum(t.wallSec)} s, estimate ${fmtNum(t.estimateSec)} s, measured ${fmtNum(t.measuredSec)} s`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const pct = (x: number): string => `${fmtNum(x * 100)} %`;
  console.log('\n### time to answer (each run through the CLI, settling and verification included)\n');
  console.log('| preset | run (history) | cells (grid + settling + verification) | wall s | estimate s (range) | estimate ÷ wall | measured s | measured ÷ wall | warm-up s (median a cell) | other cell time s | unstable cells | measured ÷ wall at best |');
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const t of out) {
    const cells = `${t.cells.matrix} + ${t.cells.settle} + ${t.cells.verify}`;
    const other = t.cellWallSec - t.measuredSec - t.warmupSec;
    const history = t.run === 1 ? '1 (none)' : `${t.run} (${t.run - 1} earlier)`;
    const est = `${fmtNum(t.estimateSec)} (${fmtNum(t.estimateLowSec)}–${fmtNum(t.estimateHighSec)})`;
    console.log(`| ${t.preset} | ${history} | ${cells} | ${fmtNum(t.wallSec)} | ${est} | ${(t.estimateSec / t.wallSec).toFixed(2)} | ${fmtNum(t.measuredSec)} | ${pct(t.measuredSec / t.wallSec)} | ${fmtNum(t.warmupSec)} (${fmtNum(median(t.warmupPerCell), 1)}) | ${fmtNum(other)} | ${t.unstable} | ${pct(t.atBest)} |`);
  }
  return out;
}

if (isMain(import.meta.url)) {
  const runs = Number(option('--runs') ?? 1);
  const only = option('--only')?.split(',');
  if (process.argv.includes('--bound')) {
    const names = only ?? listPresets().map((p) => p.name);
    console.log('| preset | measured ÷ wall at best: a fresh container per repetition | at best: one container per configuration |\n|---|---:|---:|');
    for (const name of names) {
      const b = presetShareAtBest(name);
      console.log(`| ${name} | ${fmtNum(b.fresh * 100)} % | ${fmtNum(b.shared * 100)} % |`);
    }
  } else benchTimeToAnswer(runs, only ?? PRESETS);
}
