// npm run bench -- repeatability [--runs K] [--only NAME,…]: each matrix run K times back to back
// (default 5) through the CLI as a user runs it — settling and verification included — and each
// answered by recommend(): the `quick` preset (json, 1 vs 2 workers on one CPU), the same matrix
// on hello at half a CPU (server-bound too), the `pbkdf2-one-thread` preset, and `quick` at two CPU
// caps (0.5 and 1 CPU: the answer is one configuration decided across both pairs on goodput per
// dollar), and json at two caps in 2 GB pods (the same question where the costs per request differ). For each run: the headline's state, its pick (and its key), and the configuration the
// snippets deploy (mode, workers, CPU, memory limit).
// Target (issue 21): for each matrix, every confident or equivalent answer deploys the same
// configuration in K of K runs, and an undecided run never names a pick as if it were one. With
// several CPU caps also: the snippets deploy the pick's own cap in every run, and every decided run
// names the same configuration (headline key); "K of K" says whether all K runs were decided.
// `--only "quick at two CPU caps"` runs that matrix alone.
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
import { SNIPPET_KINDS, snippetDeploy } from '../src-main/deploy/snippets.ts';
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
  /** The headline's configuration key and label (for an undecided answer its leading contender), or null. */
  key: string | null;
  named: string | null;
  /** The CPU cap of the headline's configuration, and the CPU limit the snippets deploy (one answer: equal; null: none, or the snippets disagree). */
  pickCpuMillis: number | null;
  deployedCpuMillis: number | null;
  /** How many CPU caps the run's configurations were measured under. */
  caps: number;
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
  // Two CPU caps: the answer is one configuration decided across both pairs on goodput per dollar, deployed at its own cap.
  { label: 'quick at two CPU caps', preset: 'quick', over: { cpuMillicores: [500, 1000] } },
  // Two caps whose cost per request the data can tell apart: with 2 GB pods memory is a third of the
  // half-CPU price, so 1 CPU is cheaper per request unless json scaled worse than 0.6× per added CPU.
  { label: 'json at two CPU caps in 2 GB pods', preset: 'quick', over: { workers: [1], cpuMillicores: [500, 1000], memoryMb: [2048] } },
];

const wall = (c: RunDetail['cells'][number]): number => (c.finishedAt ? (Date.parse(c.finishedAt) - Date.parse(c.startedAt)) / 1000 : 0);

/** What the recommendation's snippets deploy, in one line. */
export function deployedOf(run: RunDetail, rec: Recommendation): string | null {
  return deployedCpuOf(run, rec)?.text ?? null;
}

/** What the snippets deploy, in one line, and the CPU limit they carry (Kubernetes' and Compose's). */
function deployedCpuOf(run: RunDetail, rec: Recommendation): { text: string; cpuMillis: number | null } | null {
  const d = recommendedDeployOf(run, rec);
  if (!d) return null;
  // Exactly what the snippets carry (verified, fallback or the measured cap), as they emit it.
  const [pm2, k8s] = [snippetDeploy('pm2', d).settings, snippetDeploy('kubernetes', d).settings];
  const cpus = new Set(SNIPPET_KINDS.map((k) => snippetDeploy(k, d).settings.cpuMillis));
  const pm2Extra = [pm2.recycleRssMb !== null ? `restart ${pm2.recycleRssMb}M` : '', pm2.heapMb !== null ? `heap ${pm2.heapMb}` : ''].filter(Boolean).join(', ');
  return {
    text: `${k8s.mode}×${k8s.workers}, ${k8s.cpuMillis}m CPU, ${k8s.memoryMb} MB; PM2 ×${pm2.workers} at ${pm2.memoryMb} MB${pm2Extra ? ` (${pm2Extra})` : ''}`,
    // One CPU limit across the three snippets, or null when they disagree.
    cpuMillis: cpus.size === 1 ? [...cpus][0]! : null,
  };
}

export function answerOf(run: RunDetail, rec: Recommendation): RunAnswer {
  const h = rec.headline ?? null;
  const decided = h !== null && h.state !== 'undecided';
  const c = h ? rec.configurations.find((x) => x.key === h.key) : undefined;
  const label = c?.label ?? null;
  const deployed = deployedCpuOf(run, rec);
  const sum = (phase: string): number => run.cells.filter((c) => (c.config.phase ?? 'matrix') === phase).reduce((a, c) => a + wall(c), 0);
  return {
    runId: run.id,
    state: h?.state ?? 'none',
    pick: decided ? label : null,
    deployed: deployed?.text ?? null,
    key: h?.key ?? null,
    named: label,
    pickCpuMillis: c?.cpuMillis ?? null,
    deployedCpuMillis: deployed?.cpuMillis ?? null,
    caps: new Set(rec.configurations.map((x) => x.cpuMillis)).size,
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

/** Runs whose snippets deploy another CPU than the cap of the configuration the headline names (one answer: none). */
export const otherCap = (answers: RunAnswer[]): RunAnswer[] =>
  answers.filter((a) => a.key !== null && a.deployedCpuMillis !== a.pickCpuMillis);

/**
 * The check of a matrix with several CPU caps: every decided run names the same configuration (headline key), and how
 * many of the K runs were decided ("K of K" holds only when all were).
 */
export function sameKey(answers: RunAnswer[]): { pass: boolean; decided: number; keys: string[]; all: boolean } {
  const decided = answers.filter((a) => a.state === 'confident' || a.state === 'equivalent');
  const keys = [...new Set(decided.map((a) => a.key ?? '(none)'))];
  const pass = keys.length <= 1 && otherCap(answers).length === 0;
  return { pass, decided: decided.length, keys, all: pass && decided.length === answers.length };
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
      const walls: number[] = []; // each run's wall time, as the user waits for it (issue 43)
      for (let i = 0; i < k; i++) {
        const t0 = performance.now();
        const what = m.over ? ['--config', config] : ['--preset', m.preset];
        // Exit 4 (a cell failed) is still a run with an answer; anything else stops the benchmark.
        const r = spawnSync(process.execPath, ['bin/rightsize.js', '--db', db, '--json', 'run', ...what], { stdio: ['ignore', 'ignore', 'inherit'] });
        if (r.status !== 0 && r.status !== 4) throw new Error(`run ${i + 1} of ${m.label} exited ${r.status ?? r.signal}`);
        walls.push((performance.now() - t0) / 1000);
      }
      const store = Store.open(db);
      try {
        const answers = store.listRuns({}).runs.map((r) => store.getRun(r.id)!).sort((a, b) => a.id - b.id)
          .map((run) => answerOf(run, recommend(run, { samples: store.getRunSamples(run.id) })));
        print(answers, m.label, Math.max(0, ...answers.map((a) => a.caps)), walls);
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

function print(answers: RunAnswer[], label: string, caps: number, walls: readonly number[]): void {
  console.log(`\n### repeatability: ${label}, ${answers.length} runs back to back\n`);
  // With several caps the headline's key is the check, and an undecided run's leading contender is shown too.
  const keyed = caps > 1;
  console.log(`| run | state | pick | ${keyed ? 'headline names | ' : ''}deployed (snippets) | grid s | settling s | verification s | run wall s |`);
  console.log(`|---|---|---|${keyed ? '---|' : ''}---|---:|---:|---:|---:|`);
  answers.forEach((a, i) => {
    console.log(`| ${a.runId} | ${a.state} | ${a.pick ?? '—'} | ${keyed ? `${a.named ?? '—'} | ` : ''}${a.deployed ?? '—'} | ${fmtNum(a.gridSec)} | ${fmtNum(a.settleSec)} | ${fmtNum(a.verifySec)} | ${walls[i] !== undefined ? fmtNum(walls[i]) : '—'} |`);
  });
  if (walls.length) console.log(`\nEach run's wall time: median ${fmtNum(median([...walls]))} s (min ${fmtNum(Math.min(...walls))}, max ${fmtNum(Math.max(...walls))}).`);
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
  let keyFail = false;
  if (keyed) {
    const k = sameKey(answers);
    const off = otherCap(answers);
    const name = (key: string): string => answers.find((a) => a.key === key)?.named ?? key;
    keyFail = !k.pass;
    console.log(
      `\nOne answer across ${caps} CPU caps: ${k.pass ? 'pass' : 'FAIL'}: the decided runs name ` +
        `${k.keys.length === 0 ? 'nothing' : k.keys.length === 1 ? `one configuration, ${name(k.keys[0]!)}` : `${k.keys.length} configurations: ${k.keys.map(name).join(' | ')}`}` +
        ` (same headline key in ${k.decided} of ${answers.length} runs decided: ${k.all ? 'K of K' : 'not K of K'}); ` +
        `${off.length ? `the snippets deploy another cap than the pick's in run ${off.map((a) => a.runId).join(', ')}` : "the snippets deploy the pick's own cap in every run"}.`,
    );
  }
  for (const a of answers) console.log(`\nThe headline of run ${a.runId} (${a.state}): ${a.headline}`);
  if (bad.length || wordy.length || keyFail) process.exitCode = 1;
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
