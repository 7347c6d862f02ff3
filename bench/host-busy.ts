// npm run bench -- host-busy [--runs N]: how often the host-busy rule (engine/flags.ts, HOST_BUSY_PCT in
// common/thresholds.ts) fires, measured. Quiet: N cells of json (cluster × 1, 1 CPU / 256 MB, 20
// connections, 3 s, no warm-up) with nothing else running, so every host-busy flag is a false alarm.
// Disturbed: the same N cells beside one unpinned busy loop per core of this host (each took the
// CPU a cell's cores needed), so every cell without the flag is a miss. Each rate with its exact
// (Clopper–Pearson) 95 % interval. The answer leaves a host-busy repetition out only where two
// undisturbed ones remain (analysis/decide/group.ts), so the false-alarm rate is what it costs.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import betaQuantile from '@stdlib/stats-base-dists-beta-quantile';
import { Store } from '../src-main/store/index.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : process.argv.find((a) => a.startsWith(`${name}=`))?.split('=')[1];
};
const N = Number(arg('--runs') ?? 30);
if (!Number.isInteger(N) || N < 1) {
  console.error(`--runs should be a whole number, 1 or more (got "${arg('--runs')}")`);
  process.exit(2);
}

/** The exact 95 % interval of k events in n trials, in percent. */
function clopperPearson(k: number, n: number): [number, number] {
  const lo = k === 0 ? 0 : betaQuantile(0.025, k, n - k + 1);
  const hi = k === n ? 1 : betaQuantile(0.975, k + 1, n - k);
  return [lo * 100, hi * 100];
}

interface Tally {
  cells: number;
  hostBusy: number;
  otherPct: number[];
}

/** Runs N repetitions of one cell through the CLI into a fresh database and counts the flags. */
function measure(label: string): Tally {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-host-busy-'));
  try {
    const config = path.join(dir, 'matrix.json');
    const db = path.join(dir, 'h.db');
    writeFileSync(
      config,
      JSON.stringify({
        name: `host-busy ${label}`, apps: ['json'], modes: ['cluster'], workers: [1], cpuMillicores: [1000],
        memoryMb: [256], load: { model: 'closed', connections: [20] }, durationSec: 3, warmupSec: 0,
        repetitions: N, order: 'fixed', settleBudgetPct: 0, verify: false, confirmLarge: true,
      }),
    );
    const r = spawnSync(process.execPath, ['bin/rightsize.js', '--db', db, 'run', '--wait', '--config', config], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) throw new Error(`the ${label} run exited ${r.status}`);
    const store = Store.open(db);
    try {
      const run = store.getRun(store.listRuns({ limit: 1 }).runs[0]!.id)!;
      const ok = run.cells.filter((c) => c.status === 'ok');
      return {
        cells: ok.length,
        hostBusy: ok.filter((c) => c.flags.some((f) => f.kind === 'host-busy')).length,
        otherPct: ok.map((c) => c.stats?.host?.otherPct ?? 0),
      };
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const quiet = measure('quiet');
// One busy loop per core, unpinned, for the whole disturbed run; killed after it.
const hogs: ChildProcess[] = cpus().map(() =>
  spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore', detached: true }),
);
let disturbed: Tally;
try {
  disturbed = measure('disturbed');
} finally {
  for (const h of hogs) h.kill('SIGKILL');
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const row = (name: string, t: Tally, k: number, what: string): string => {
  const [lo, hi] = clopperPearson(k, t.cells);
  return (
    `| ${name} | ${t.cells} | ${t.hostBusy} | ${what} ${((k / t.cells) * 100).toFixed(1)} % ` +
    `(95 %: ${lo.toFixed(1)}–${hi.toFixed(1)} %) | ${median(t.otherPct).toFixed(1)} % | ${Math.max(...t.otherPct).toFixed(1)} % |`
  );
};
console.log(`\n### host-busy: ${N} cells quiet, ${N} beside ${hogs.length} busy loops (${new Date().toISOString().slice(0, 16)} UTC)\n`);
console.log("| host | cells | flagged host-busy | rate | others' share of the watched cores, median | max |");
console.log('|---|---:|---:|---|---:|---:|');
console.log(row('quiet', quiet, quiet.hostBusy, 'false alarms'));
console.log(row('disturbed', disturbed, disturbed.cells - disturbed.hostBusy, 'misses'));
