// npm run bench -- overhead: wall time of each cell minus the warmup it used and its duration (container start,
// readiness, load worker start, teardown, stats), through the built CLI as a user runs it.
// Target: median ≤ 1.0 s.
import { WARM_WINDOW_SEC, warmupCapSec } from '../src-main/load/warmup.ts';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isMain, median, printRows, row, type Row } from './stats.ts';

interface CellOut {
  config: { mode: string; warmupSec: number; durationSec: number };
  /** The warmup a cell actually used: the configured one, extended until throughput was steady. */
  load: { warmupUsedSec?: number } | null;
  startedAt: string;
  finishedAt: string;
  status: string;
}

export function benchOverhead(): Row[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
  try {
    const config = path.join(dir, 'matrix.json');
    writeFileSync(config, JSON.stringify({
      name: 'overhead bench', apps: ['hello'], modes: ['single', 'cluster', 'pm2'], workers: [2],
      cpuMillicores: [500, 1000], memoryMb: [256], load: { model: 'closed', connections: [10] },
      durationSec: 2, warmupSec: 1, repetitions: 2,
      settleBudgetPct: 0, verify: false, // the grid's own cells: what each costs, not the answer's phases
    }));
    const out = execFileSync(process.execPath, ['bin/rightsize.js', '--db', path.join(dir, 'h.db'), '--json', 'run', '--config', config], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const cells = (JSON.parse(out) as { cells: CellOut[] }).cells;
    // The load's own time is the warm-up used (adaptive) and then the duration, or the steady window the warm-up is
    // judged on when that is longer (its seconds are measured from where it began: 3 s for a 2 s cell); unless the
    // warm-up reached its cap unjudged. The rest is overhead.
    const loadMs = (c: CellOut): number => {
      const used = c.load?.warmupUsedSec ?? c.config.warmupSec;
      const judged = used < warmupCapSec(c.config.warmupSec);
      return (used + (judged ? Math.max(c.config.durationSec, WARM_WINDOW_SEC) : c.config.durationSec)) * 1000;
    };
    const over = (c: CellOut): number => Date.parse(c.finishedAt) - Date.parse(c.startedAt) - loadMs(c);
    if (cells.some((c) => c.status !== 'ok')) throw new Error('a cell failed; overhead would be meaningless');
    const rows = [row(`overhead per cell, all modes (${cells.length} cells)`, cells.map(over), 1000)];
    // The run's own view: from the first cell's start to the last one's end, less every measured
    // second, per cell. Work moved between cells (a target prepared ahead) cannot hide here.
    const first = Math.min(...cells.map((c) => Date.parse(c.startedAt)));
    const last = Math.max(...cells.map((c) => Date.parse(c.finishedAt)));
    const measured = cells.reduce((a, c) => a + loadMs(c), 0);
    rows.push(row('run wall time per cell, less measured seconds', [(last - first - measured) / cells.length]));
    for (const mode of ['single', 'cluster', 'pm2']) rows.push(row(`overhead per cell, ${mode}`, cells.filter((c) => c.config.mode === mode).map(over)));
    printRows('overhead per cell (hello, 1 s minimum warmup + 2 s, built CLI)', rows);
    const warm = cells.map((c) => c.load?.warmupUsedSec ?? c.config.warmupSec);
    console.log(`\nwarmup used: median ${median(warm)} s (min ${Math.min(...warm)}, max ${Math.max(...warm)}) of 1 s configured`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) benchOverhead();
