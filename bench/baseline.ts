// npm run bench -- baseline [--runs N]: the regression gate's repeatability. N pairs (default 5) of
// identical runs of one pbkdf2 configuration (single×1, 1 CPU, 256 MB, 4 connections, 3 s cells, one
// repetition), the second of each pair run with `--baseline <first>` through the CLI as CI would:
// every "regressed" verdict there is a false regression (target: 0, and no exit 10). Then the same
// matrix with a slower pbkdf2 (1.25× and 4× the iterations through `env`) against the last baseline:
// how large a slow-down the gate detects at this length of cell.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BaselineComparison } from '../src-main/analysis/compare/baseline.ts';
import { EXIT } from '../src-main/cli/exit-codes.ts';
import { fmtNum } from '../src-main/common/format.ts';
import { isMain } from './stats.ts';

const matrix = (env: Record<string, string>) => ({
  name: 'baseline bench',
  apps: ['pbkdf2'],
  modes: ['single'],
  workers: [1],
  cpuMillicores: [1000],
  memoryMb: [256],
  load: { model: 'closed', connections: [4] },
  durationSec: 3,
  warmupSec: 1,
  settleBudgetPct: 0,
  verify: false,
  env,
});

interface Outcome {
  exit: number | null;
  comparison: BaselineComparison | null;
  runId: number;
}

function run(db: string, config: string, baseline?: number): Outcome {
  const args = ['bin/rightsize.js', '--db', db, '--json', 'run', '--config', config];
  if (baseline !== undefined) args.push('--baseline', String(baseline));
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== EXIT.ok && r.status !== EXIT.regressed && r.status !== EXIT.cellsFailed)
    throw new Error(`a run exited ${r.status ?? r.signal}`);
  const doc = JSON.parse(r.stdout) as { runId: number; baseline: BaselineComparison | null };
  return { exit: r.status, comparison: doc.baseline, runId: doc.runId };
}

const verdicts = (c: BaselineComparison | null): string =>
  c ? c.configurations.flatMap((x) => x.metrics.map((m) => `${m.metric} ${m.verdict}`)).join(', ') : '—';
const goodput = (c: BaselineComparison | null) => c?.configurations[0]?.metrics.find((m) => m.metric === 'goodput');
const change = (c: BaselineComparison | null): string => {
  const g = goodput(c);
  return g?.ratio == null ? '—' : `${fmtNum((g.ratio - 1) * 100, 1)} %`;
};

export function benchBaseline(pairs = 5): { falseRegressions: number; detected: Record<string, boolean> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-baseline-'));
  const db = path.join(dir, 'b.db');
  const config = (name: string, env: Record<string, string>): string => {
    const f = path.join(dir, `${name}.json`);
    writeFileSync(f, JSON.stringify(matrix(env)));
    return f;
  };
  const same = config('same', {});
  let falseRegressions = 0;
  const rows: string[] = [];
  try {
    let last = 0;
    for (let i = 0; i < pairs; i++) {
      const a = run(db, same);
      const b = run(db, same, a.runId);
      last = a.runId;
      const regressed = b.comparison?.counts.regressed ?? 0;
      falseRegressions += regressed + (b.exit === EXIT.regressed && regressed === 0 ? 1 : 0);
      rows.push(`| identical pair ${i + 1} (runs ${a.runId}, ${b.runId}) | ${change(b.comparison)} | ${verdicts(b.comparison)} | ${b.exit} |`);
    }
    const detected: Record<string, boolean> = {};
    for (const [label, iterations] of [['1.25× iterations', '6250'], ['4× iterations', '20000']] as const) {
      const slow = run(db, config(`slow-${iterations}`, { PBKDF2_ITERATIONS: iterations }), last);
      detected[label] = goodput(slow.comparison)?.verdict === 'regressed' && slow.exit === EXIT.regressed;
      rows.push(`| pbkdf2 ${label} vs run ${last} | ${change(slow.comparison)} | ${verdicts(slow.comparison)} | ${slow.exit} |`);
    }
    console.log('\n### Baseline gate: identical pairs and a slower app\n');
    console.log('| runs | goodput change | verdicts (goodput, p99, peak memory) | exit |');
    console.log('|---|---:|---|---:|');
    for (const r of rows) console.log(r);
    console.log(`\nFalse regressions in ${pairs} identical pairs: ${falseRegressions} (target 0).`);
    console.log(`Slower app detected: ${Object.entries(detected).map(([k, v]) => `${k} ${v ? 'yes' : 'no'}`).join(', ')}.`);
    return { falseRegressions, detected };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const i = process.argv.findIndex((a) => a === '--runs' || a.startsWith('--runs='));
  const value = i < 0 ? undefined : process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
  const pairs = value === undefined ? 5 : Number(value);
  if (!Number.isInteger(pairs) || pairs < 1) {
    console.error(`--runs should be a whole number of pairs, 1 or more (got "${value}").`);
    process.exit(2);
  }
  const r = benchBaseline(pairs);
  process.exit(r.falseRegressions === 0 ? 0 : 1);
}
