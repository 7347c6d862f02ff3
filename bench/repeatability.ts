// npm run bench -- repeatability [--runs K] [--app NAME]: the `quick` preset run K times back to back
// (default 5) through the CLI as a user runs it, each answered by recommend(); with --app, the same
// matrix (1 vs 2 cluster workers on one CPU, 3 shuffled repetitions) on another built-in app. Target: never two confident, opposite
// answers — two runs that each call a different configuration best with a 'clear' verdict.
// Also prints the spread of each configuration's goodput across the runs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recommend } from '../src-main/analysis/index.ts';
import { fmtNum } from '../src-main/common/format.ts';
import { findPreset } from '../src-main/presets/presets.ts';
import { Store } from '../src-main/store/index.ts';
import { isMain, median } from './stats.ts';

export interface RunAnswer {
  runId: number;
  best: string | null;
  verdict: string;
  knee: string | null;
  undecided: boolean;
  /** Configuration label → goodput mean of that run. */
  goodput: Map<string, number>;
  flagged: number;
  /** Configurations the answer could not pick, with why (client-bound, host-busy…). */
  setAside: string[];
  /** The answer's own words for this run. */
  words: string[];
}

/** A pick the answer stands behind: separated by the test, or the only configuration left to pick. */
const confident = (a: RunAnswer): boolean => (a.verdict === 'clear' || a.verdict === 'only-one') && a.best !== null;

/** Two confident answers naming different bests: the failure this benchmark exists to catch. */
export function contradictions(answers: RunAnswer[]): [RunAnswer, RunAnswer][] {
  const clear = answers.filter(confident);
  const out: [RunAnswer, RunAnswer][] = [];
  for (let i = 0; i < clear.length; i++) for (let j = i + 1; j < clear.length; j++) if (clear[i]!.best !== clear[j]!.best) out.push([clear[i]!, clear[j]!]);
  return out;
}

export function benchRepeatability(k = 5, app?: string): RunAnswer[] {
  const preset = 'quick';
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
  const db = path.join(dir, 'r.db');
  const config = path.join(dir, 'matrix.json');
  if (app) writeFileSync(config, JSON.stringify({ ...findPreset(preset)!.matrix, name: `${preset} on ${app}`, apps: [app] }));
  try {
    for (let i = 0; i < k; i++) {
      const what = app ? ['--config', config] : ['--preset', preset];
      execFileSync(process.execPath, ['bin/rightsize.js', '--db', db, '--json', 'run', ...what], { stdio: ['ignore', 'ignore', 'inherit'] });
    }
    const store = Store.open(db);
    try {
      const answers = store
        .listRuns({})
        .runs.map((r) => store.getRun(r.id)!)
        .sort((a, b) => a.id - b.id)
        .map((run): RunAnswer => {
          const rec = recommend(run, { samples: store.getRunSamples(run.id) });
          const s = rec.scopes[0];
          return {
            runId: run.id,
            best: s ? s.bestRps.label : null,
            verdict: s ? s.rpsVerdict : 'undecided',
            knee: s ? s.knee.label : null,
            undecided: rec.undecided.length > 0 || !s,
            goodput: new Map(rec.configurations.filter((c) => c.rps).map((c) => [c.label, c.rps!.mean])),
            flagged: run.cells.filter((c) => c.flags.some((f) => f.kind === 'unstable' || f.kind === 'host-busy' || f.kind === 'client-bound')).length,
            setAside: s ? s.setAside.map((x) => `${rec.configurations.find((c) => c.key === x.key)?.label ?? x.key} (${x.reason})`) : [],
            words: rec.words,
          };
        });
      print(answers, app ? `${preset} matrix on ${app}` : preset);
      return answers;
    } finally {
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function print(answers: RunAnswer[], preset: string): void {
  console.log(`\n### repeatability: the ${preset}, ${answers.length} runs back to back\n`);
  console.log('| run | best (goodput) | verdict | knee | set aside | flagged cells |');
  console.log('|---|---|---|---|---|---:|');
  for (const a of answers) console.log(`| ${a.runId} | ${a.best ?? '—'} | ${a.verdict} | ${a.knee ?? '—'} | ${a.setAside.join('; ') || '—'} | ${a.flagged} |`);
  const labels = [...new Set(answers.flatMap((a) => [...a.goodput.keys()]))].sort();
  console.log('\n| configuration | median goodput req/s | min | max | spread (max−min)/median |');
  console.log('|---|---:|---:|---:|---:|');
  for (const l of labels) {
    const xs = answers.flatMap((a) => (a.goodput.has(l) ? [a.goodput.get(l)!] : []));
    const m = median(xs);
    console.log(`| ${l} | ${fmtNum(m)} | ${fmtNum(Math.min(...xs))} | ${fmtNum(Math.max(...xs))} | ${fmtNum(((Math.max(...xs) - Math.min(...xs)) / m) * 100, 1)} % |`);
  }
  const bad = contradictions(answers);
  const named = new Set(answers.filter(confident).map((a) => a.best));
  console.log(
    `\n${bad.length === 0 ? 'pass' : 'FAIL'}: ${bad.length} pair(s) of confident, opposite answers; ` +
      `${answers.filter(confident).length} of ${answers.length} runs were confident ('clear' or the only configuration left to pick; naming ${[...named].join(', ') || 'nothing'}), ` +
      `${answers.filter((a) => a.verdict === 'not-distinguishable').length} said not distinguishable, ${answers.filter((a) => a.undecided).length} could not decide.`,
  );
  console.log(`\nThe answer of run ${answers[0]?.runId}, in its own words:\n${(answers[0]?.words ?? []).map((w) => `> ${w}`).join('\n')}`);
  if (bad.length) process.exitCode = 1;
}

if (isMain(import.meta.url)) {
  const i = process.argv.findIndex((a) => a === '--runs' || a.startsWith('--runs='));
  const raw = i < 0 ? '5' : process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
  const k = Number(raw);
  if (!(Number.isInteger(k) && k >= 2)) {
    console.error('repeatability: --runs takes a whole number of runs, 2 or more (e.g. npm run bench -- repeatability --runs 5)');
    process.exit(2);
  }
  const a = process.argv.findIndex((x) => x === '--app' || x.startsWith('--app='));
  const app = a < 0 ? undefined : process.argv[a]!.includes('=') ? process.argv[a]!.split('=')[1] : process.argv[a + 1];
  benchRepeatability(k, app);
}
