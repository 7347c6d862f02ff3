// npm run bench -- repeatability [--runs K] [--only NAME,…]: each matrix run K times back to back
// (default 5) through the CLI as a user runs it — settling and verification included — and each
// answered by recommend(): the `quick` preset (json, 1 vs 2 workers on one CPU), the same matrix
// on hello at half a CPU (server-bound too), and the `pbkdf2-one-thread` preset. For each run: the headline's state, its pick,
// and the configuration the snippets deploy (mode, workers, CPU, memory limit).
// Target (issue 21): for each matrix, every confident or equivalent answer deploys the same
// configuration in K of K runs, and an undecided run never names a pick as if it were one.
// Also: how much the settling phase added to the run time (median), against the grid of 3 fixed
// repetitions, and each configuration's spread of goodput across the runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recommend } from '../src-main/analysis/index.ts';
import type { Recommendation } from '../src-main/analysis/index.ts';
import { fmtNum } from '../src-main/common/format.ts';
import { recommendedDeployOf } from '../src-main/deploy/from-cell.ts';
import { snippetDeploy } from '../src-main/deploy/snippets.ts';
import { findPreset } from '../src-main/presets/presets.ts';
import { Store, type RunDetail } from '../src-main/store/index.ts';
import { isMain, median } from './stats.ts';

export interface RunAnswer {
  runId: number;
  state: 'confident' | 'equivalent' | 'undecided' | 'none';
  /** The headline's pick (its configuration label), or null when undecided or nothing qualified. */
  pick: string | null;
  /** What the snippets deploy: "cluster×1, 1000m CPU, 128 MB", or null. */
  deployed: string | null;
  headline: string;
  /** Seconds of the cells' own wall time: the grid's, and the settling phase's. */
  gridSec: number;
  settleSec: number;
  verifySec: number;
  goodput: Map<string, number>;
}

/** Matrices the benchmark repeats: a preset, or a preset's matrix with some fields changed. */
export const MATRICES: { label: string; preset: string; over?: Record<string, unknown> }[] = [
  { label: 'quick', preset: 'quick' },
  // Server-bound on a 2-core host with one load thread too: the cap, not the load generator, sets the pace.
  { label: 'hello at half a CPU', preset: 'quick', over: { apps: ['hello'], cpuMillicores: [500] } },
  { label: 'pbkdf2-one-thread', preset: 'pbkdf2-one-thread' },
];

const wall = (c: RunDetail['cells'][number]): number => (c.finishedAt ? (Date.parse(c.finishedAt) - Date.parse(c.startedAt)) / 1000 : 0);

/** What the recommendation's snippets deploy, in one line. */
export function deployedOf(run: RunDetail, rec: Recommendation): string | null {
  const d = recommendedDeployOf(run, rec);
  if (!d) return null;
  // Exactly what the snippets carry (verified, fallback or the measured cap), as they emit it.
  const [pm2, k8s] = [snippetDeploy('pm2', d).settings, snippetDeploy('kubernetes', d).settings];
  const pm2Extra = [pm2.recycleRssMb !== null ? `restart ${pm2.recycleRssMb}M` : '', pm2.heapMb !== null ? `heap ${pm2.heapMb}` : ''].filter(Boolean).join(', ');
  return `${k8s.mode}×${k8s.workers}, ${k8s.cpuMillis}m CPU, ${k8s.memoryMb} MB; PM2 ×${pm2.workers} at ${pm2.memoryMb} MB${pm2Extra ? ` (${pm2Extra})` : ''}`;
}

export function answerOf(run: RunDetail, rec: Recommendation): RunAnswer {
  const h = rec.headline ?? null;
  const decided = h !== null && h.state !== 'undecided';
  const label = h ? rec.configurations.find((c) => c.key === h.key)?.label ?? null : null;
  const sum = (phase: string): number => run.cells.filter((c) => (c.config.phase ?? 'matrix') === phase).reduce((a, c) => a + wall(c), 0);
  return {
    runId: run.id,
    state: h?.state ?? 'none',
    pick: decided ? label : null,
    deployed: deployedOf(run, rec),
    headline: h?.text ?? '(no headline)',
    gridSec: sum('matrix'),
    settleSec: sum('settle'),
    verifySec: sum('verify'),
    goodput: new Map(rec.configurations.filter((c) => c.rps).map((c) => [c.label, c.rps!.mean])),
  };
}

/** Decided answers that deploy different configurations: the failure this benchmark exists to catch. */
export function disagreements(answers: RunAnswer[]): string[] {
  const decided = answers.filter((a) => a.state === 'confident' || a.state === 'equivalent');
  return [...new Set(decided.map((a) => a.deployed ?? '(nothing)'))].length > 1 ? decided.map((a) => `run ${a.runId}: ${a.deployed}`) : [];
}

/** An undecided answer that words itself as a pick. */
export const namesAPick = (a: RunAnswer): boolean => a.state === 'undecided' && /^Pick/.test(a.headline);

export function benchRepeatability(k = 5, only?: string[]): Map<string, RunAnswer[]> {
  const out = new Map<string, RunAnswer[]>();
  for (const m of MATRICES.filter((x) => !only || only.includes(x.label))) {
    const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
    const db = path.join(dir, 'r.db');
    const config = path.join(dir, 'matrix.json');
    const preset = findPreset(m.preset)!;
    if (m.over) writeFileSync(config, JSON.stringify({ ...preset.matrix, name: m.label, ...m.over }));
    try {
      for (let i = 0; i < k; i++) {
        const what = m.over ? ['--config', config] : ['--preset', m.preset];
        // Exit 4 (a cell failed) is still a run with an answer; anything else stops the benchmark.
        const r = spawnSync(process.execPath, ['bin/rightsize.js', '--db', db, '--json', 'run', ...what], { stdio: ['ignore', 'ignore', 'inherit'] });
        if (r.status !== 0 && r.status !== 4) throw new Error(`run ${i + 1} of ${m.label} exited ${r.status ?? r.signal}`);
      }
      const store = Store.open(db);
      try {
        const answers = store.listRuns({}).runs.map((r) => store.getRun(r.id)!).sort((a, b) => a.id - b.id)
          .map((run) => answerOf(run, recommend(run, { samples: store.getRunSamples(run.id) })));
        print(answers, m.label);
        out.set(m.label, answers);
      } finally {
        store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

function print(answers: RunAnswer[], label: string): void {
  console.log(`\n### repeatability: ${label}, ${answers.length} runs back to back\n`);
  console.log('| run | state | pick | deployed (snippets) | grid s | settling s | verification s |');
  console.log('|---|---|---|---|---:|---:|---:|');
  for (const a of answers) {
    console.log(`| ${a.runId} | ${a.state} | ${a.pick ?? '—'} | ${a.deployed ?? '—'} | ${fmtNum(a.gridSec)} | ${fmtNum(a.settleSec)} | ${fmtNum(a.verifySec)} |`);
  }
  const labels = [...new Set(answers.flatMap((a) => [...a.goodput.keys()]))].sort();
  console.log('\n| configuration | median goodput req/s | min | max | spread (max−min)/median |');
  console.log('|---|---:|---:|---:|---:|');
  for (const l of labels) {
    const xs = answers.flatMap((a) => (a.goodput.has(l) ? [a.goodput.get(l)!] : []));
    const m = median(xs);
    console.log(`| ${l} | ${fmtNum(m)} | ${fmtNum(Math.min(...xs))} | ${fmtNum(Math.max(...xs))} | ${fmtNum(((Math.max(...xs) - Math.min(...xs)) / m) * 100, 1)} % |`);
  }
  const bad = disagreements(answers);
  const wordy = answers.filter(namesAPick);
  const decided = answers.filter((a) => a.state === 'confident' || a.state === 'equivalent');
  const added = median(answers.map((a) => (a.gridSec > 0 ? a.settleSec / a.gridSec : 0)));
  console.log(
    `\n${bad.length === 0 && wordy.length === 0 ? 'pass' : 'FAIL'}: ${decided.length} of ${answers.length} runs decided ` +
      `(${answers.filter((a) => a.state === 'confident').length} confident, ${answers.filter((a) => a.state === 'equivalent').length} equivalent), ` +
      `deploying ${[...new Set(decided.map((a) => a.deployed))].join(' | ') || 'nothing'}; ${answers.filter((a) => a.state === 'undecided').length} undecided` +
      `${wordy.length ? `, ${wordy.length} of them worded as a pick` : ''}${bad.length ? `; decided runs disagree: ${bad.join(', ')}` : ''}.`,
  );
  console.log(`Settling added a median ${fmtNum(added * 100, 1)} % to the grid's cell time (the grid: 3 fixed repetitions of every configuration).`);
  console.log(`\nThe headline of run ${answers[0]?.runId}: ${answers[0]?.headline ?? ''}`);
  if (bad.length || wordy.length) process.exitCode = 1;
}

if (isMain(import.meta.url)) {
  const i = process.argv.findIndex((a) => a === '--runs' || a.startsWith('--runs='));
  const raw = i < 0 ? '5' : process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
  const k = Number(raw);
  if (!(Number.isInteger(k) && k >= 2)) {
    console.error('repeatability: --runs takes a whole number of runs, 2 or more (e.g. npm run bench -- repeatability --runs 5)');
    process.exit(2);
  }
  const o = process.argv.findIndex((x) => x === '--only' || x.startsWith('--only='));
  const only = o < 0 ? undefined : (process.argv[o]!.includes('=') ? process.argv[o]!.split('=')[1]! : process.argv[o + 1]!).split(',');
  const unknown = (only ?? []).filter((x) => !MATRICES.some((m) => m.label === x));
  if (unknown.length) {
    console.error(`repeatability: --only takes names from ${MATRICES.map((m) => `"${m.label}"`).join(', ')}; unknown: ${unknown.join(', ')}`);
    process.exit(2);
  }
  benchRepeatability(k, only);
}
