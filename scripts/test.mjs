// `npm test`: build, type-check, security scan of the Electron shell (steps), then every suite in
// turn (runner self-test, unit, components, integration with a real Docker engine, end-to-end in
// Chromium and Electron), and one closing line for all the suites together:
// "N passed, N failed, N skipped".
//
// The line cannot lie. A suite counts as failed whenever its tool exited nonzero or reported an
// error that no test carries: a failed beforeAll/afterAll, an unhandled error or rejection, a file
// that failed to load, no test files at all, a file or project that ran no test, a skip without a
// reason, a Playwright `errors` entry, a flaky (retried) test. Each such problem is one failure,
// printed with its reason. Steps are not tests: they print as step lines, and a failed step counts
// as a failure so that the last line can never look green. Every skip prints its reason (vitest:
// `ctx.skip(reason)`; Playwright: `test.skip(cond, reason)`).
//
// The run leaves no trace: every process it starts gets TMPDIR = a folder of the run's own, removed
// at the end; images and containers it made are removed (compared with a snapshot of the engine
// taken at the start); anything still there after that is a failure.
//
//   npm test                       everything
//   npm test -- unit integration   the build step and only these (typecheck, security, runner,
//                                  unit, components, integration, e2e)
//   npm test -- --no-build unit    without the build step (dist/ is already built)
// For tests/runner (the runner's own tests), on fixture suites, without steps:
//   node scripts/test.mjs --vitest-config FILE project…
//   node scripts/test.mjs --playwright-config FILE
// Integration files run one at a time within a lane (tests/helpers/lanes.ts): the two shared lanes
// (proofs that mind neither a busy host nor another job on the engine) at once, beside the steps
// and suites that use no Docker, then e2e; then the quiet lane, whose numbers need the machine, with
// nothing beside it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
register();
const { snapshot, ownTmp, clean, leftovers } = await import('../tests/helpers/trace.ts');

const argv = process.argv.slice(2);
const option = (name) => {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const v = argv[i + 1];
  argv.splice(i, 2);
  if (!v) throw new Error(`${name} needs a value`);
  return v;
};
const vitestConfig = option('--vitest-config');
const playwrightConfig = option('--playwright-config');
const fixtureMode = Boolean(vitestConfig || playwrightConfig);
const noBuild = argv.includes('--no-build') && argv.splice(argv.indexOf('--no-build'), 1).length > 0;
const only = argv; // e.g. `npm test -- unit`
const SUITES = ['typecheck', 'security', 'runner', 'unit', 'components', 'integration', 'e2e'];
if (!fixtureMode) for (const n of only) if (!SUITES.includes(n)) {
  console.error(`Unknown suite "${n}". Choose from: ${SUITES.join(', ')}.`);
  process.exit(2);
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const stepLines = [];
const suiteLines = [];
const problems = []; // one line per counted failure, with its reason
const skips = []; // one line per skip, with its reason

// Tracking starts before anything runs; Docker is tracked only by runs that can use it (they hold the lock).
const usesDocker = !fixtureMode && (only.length === 0 || only.includes('integration') || only.includes('e2e'));
const before = await snapshot({ docker: usesDocker });
const tmp = ownTmp(); // TMPDIR for every process below; the reports live there too

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, env: { ...process.env, ...env } });
  return r.status ?? 1;
}

function fail(where, why) {
  totals.failed++;
  problems.push(`✗ ${where}: ${why}`);
}

/** Counts a step that ended with `code` after `ms` milliseconds. */
function stepEnded(name, code, ms) {
  const took = `${(ms / 1000).toFixed(1)} s`;
  stepLines.push(`step ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} (${took})`);
  if (code !== 0) fail(`step ${name}`, `exited ${code}`);
  return code === 0;
}

function step(name, cmd, args) {
  const t0 = performance.now();
  const code = run(cmd, args);
  return stepEnded(name, code, performance.now() - t0);
}

/**
 * Steps that only read the sources, run at once (each is one process on one core; one after another
 * they took about 30 s of the CI's time), or `oneAtATime` beside the shared lanes. Each one's output
 * is printed whole when it ends, so the logs of two never interleave. Resolves to whether all passed.
 */
async function parallelSteps(steps, { oneAtATime = false, low = false } = {}) {
  const one = async ({ name, cmd, args }) => {
    const t0 = performance.now();
    const code = await runAsync(cmd, args, {}, true, low);
    return { name, code, ms: performance.now() - t0 };
  };
  // Counted in the order given, whichever ended first.
  const results = [];
  if (oneAtATime) for (const s of steps) results.push(await one(s));
  else results.push(...(await Promise.all(steps.map(one))));
  return results.map(({ name, code, ms }) => stepEnded(name, code, ms)).every(Boolean);
}

// The tools straight from node_modules/.bin: npx loads npm first, about 0.3 CPU-seconds a call.
const bin = (name) => path.join(ROOT, 'node_modules', '.bin', name);

const clip = (s) => s.split('\n').slice(0, 3).join(' ⏎ ').slice(0, 400);

// RIGHTSIZE_TEST_EXCLUDE: globs (comma-separated) of test files to leave out: the runner's own test of
// an integration run with Docker down needs only the files that use Docker, not the load tests that do not.
const excluded = (process.env.RIGHTSIZE_TEST_EXCLUDE ?? '').split(',').filter(Boolean).flatMap((g) => ['--exclude', g]);

/** The suites of vitest.config.ts that are more than one project: unit files that mock a module run isolated (`unit-mocks`). */
const SUITE_PROJECTS = { unit: ['unit*'] };

/**
 * Runs a command without blocking this process: its output goes straight through, or (`buffered`)
 * is printed whole when it ends, so that two suites running at once never interleave their logs.
 * `low`: at the lowest CPU priority (nice 19), so that it takes only the cores the lanes beside it leave idle.
 */
function runAsync(cmd, args, env = {}, buffered = false, low = false) {
  return new Promise((resolve) => {
    const child = spawn(low ? 'nice' : cmd, low ? ['-n', '19', cmd, ...args] : args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const out = [];
    child.stdout?.on('data', (b) => out.push(b));
    child.stderr?.on('data', (b) => out.push(b));
    let ended = false;
    const end = (code) => {
      if (ended) return;
      ended = true;
      if (out.length) process.stdout.write(Buffer.concat(out));
      resolve(code);
    };
    child.on('error', (e) => (out.push(Buffer.from(`${e.message}\n`)), end(1)));
    child.on('close', (code) => end(code ?? 1));
  });
}

/**
 * Runs one suite's vitest project(s), reads their summary (tests/helpers/summary-reporter.ts) and
 * counts it. `label` names it in the closing lines (a suite run in parts: "integration (alone)").
 */
async function vitest(project, config, { projects: named, label = project, buffered = false, env = {} } = {}) {
  const summaryFile = path.join(tmp.dir, `vitest-${label.replace(/\W+/g, '-')}.json`);
  const projects = named ?? ((!config && SUITE_PROJECTS[project]) || [project]);
  const code = await runAsync(bin('vitest'), ['run', ...(config ? ['--config', config] : []), ...projects.flatMap((p) => ['--project', p]), ...excluded,
    '--reporter=default', '--reporter=./tests/helpers/summary-reporter.ts'], { ...env, RIGHTSIZE_SUMMARY: summaryFile }, buffered);
  const failedBefore = totals.failed;
  const c = { passed: 0, failed: 0, skipped: 0 };
  const where = project;
  const counted = (kind) => { c[kind]++; totals[kind]++; };
  if (!existsSync(summaryFile)) {
    fail(where, `vitest ended before reporting (exit ${code})`);
  } else {
    const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
    if (s.reason === 'interrupted') fail(where, 'the run was interrupted');
    if (s.modules.length === 0) fail(where, 'no test files');
    for (const e of s.unhandledErrors) fail(where, `unhandled error: ${clip(e)}`);
    for (const m of s.modules) {
      const file = `${where} › ${m.file}`;
      for (const e of m.errors) fail(file, clip(e));
      let ran = 0;
      let reasoned = 0;
      let notRun = 0;
      for (const t of m.tests) {
        if (t.state === 'passed') (counted('passed'), ran++);
        else if (t.state === 'failed') (counted('failed'), ran++, problems.push(`✗ ${file} › ${t.name}: ${clip(t.errors[0] ?? 'failed')}`));
        else if (t.note || t.mode === 'todo') (counted('skipped'), reasoned++, skips.push(`${file} › ${t.name} — ${t.note ?? 'todo: not written yet'}`));
        else if (m.errors.length > 0) notRun++; // did not run because of the file's error, counted above
        else fail(`${file} › ${t.name}`, 'skipped without a reason (use ctx.skip(reason))');
      }
      if (notRun) problems.push(`  (${notRun} test(s) of ${m.file} did not run because of the error above)`);
      if (ran === 0 && reasoned === 0 && m.errors.length === 0 && m.tests.length === 0) fail(file, 'ran no test');
    }
  }
  if (existsSync(summaryFile) && c.passed + c.failed === 0 && totals.failed === failedBefore) fail(where, 'ran no test');
  if (code !== 0 && totals.failed === failedBefore) fail(where, `vitest exited ${code} with no failure reported (see its output above)`);
  suiteLines.push(`${label}: ${c.passed} passed, ${totals.failed - failedBefore} failed, ${c.skipped} skipped${code !== 0 ? ` (vitest exit ${code})` : ''}`);
}

/** Runs Playwright and counts its JSON report, errors included. */
async function playwright(config, { env = {}, buffered = false } = {}) {
  const report = path.join(tmp.dir, 'e2e.json');
  const code = await runAsync(bin('playwright'), ['test', ...(config ? ['--config', config] : [])], { ...env, PLAYWRIGHT_JSON: report }, buffered);
  const failedBefore = totals.failed;
  const c = { passed: 0, skipped: 0 };
  if (!existsSync(report)) {
    fail('e2e', `Playwright ended before reporting (exit ${code})`);
  } else {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    for (const e of r.errors ?? []) fail('e2e', clip(`${e.location ? `${path.relative(ROOT, e.location.file)}: ` : ''}${e.message ?? e.value ?? JSON.stringify(e)}`));
    const byProject = new Map(); // project → { ran, reasoned }
    const walk = (suite) => {
      for (const spec of suite.specs ?? []) for (const t of spec.tests) {
        const where = ['e2e', t.projectName, spec.file, spec.title].filter(Boolean).join(' › ');
        const p = byProject.get(t.projectName) ?? { ran: 0, reasoned: 0 };
        byProject.set(t.projectName, p);
        const last = t.results?.at(-1);
        if (t.status === 'expected') (c.passed++, totals.passed++, p.ran++);
        else if (t.status === 'unexpected') (p.ran++, fail(where, clip(last?.error?.message ?? last?.status ?? 'failed')));
        else if (t.status === 'flaky') (p.ran++, fail(where, `flaky: failed, then passed on retry (${clip(t.results[0]?.error?.message ?? '')})`));
        else {
          const why = t.annotations.find((a) => a.type === 'skip' || a.type === 'fixme')?.description;
          if (why) (c.skipped++, totals.skipped++, p.reasoned++, skips.push(`${where} — ${why}`));
          else fail(where, 'skipped without a reason (use test.skip(condition, reason))');
        }
      }
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of r.suites ?? []) walk(suite);
    if (byProject.size === 0) fail('e2e', 'ran no test');
    for (const [name, p] of byProject) if (p.ran === 0 && p.reasoned === 0) fail(`e2e › ${name}`, 'ran no test');
  }
  if (code !== 0 && totals.failed === failedBefore) fail('e2e', `Playwright exited ${code} with no failure reported (see its output above)`);
  suiteLines.push(`e2e: ${c.passed} passed, ${totals.failed - failedBefore} failed, ${c.skipped} skipped${code !== 0 ? ` (playwright exit ${code})` : ''}`);
}

try {
  if (fixtureMode) {
    if (vitestConfig) for (const p of only) await vitest(p, vitestConfig);
    if (playwrightConfig) await playwright(playwrightConfig);
  } else {
    const want = (s) => only.length === 0 || only.includes(s);
    if (!noBuild) step('build', 'npm', ['run', '--silent', 'build']);
    // The integration files that do not mind a busy host nor another job on the engine
    // (tests/helpers/lanes.ts) run in two lanes at once, beside everything that uses no Docker. Each
    // lane labels what it makes and checks only that (RIGHTSIZE_LABELS), and queues for the lab.
    const shared = want('integration');
    // Beside them the steps without Docker take one core between them, one step and one file at a
    // time, so the lanes' CLIs, builds and load keep the other; the type checks and the security scan at
    // the lowest CPU priority, in the time the lanes leave idle (docs/contributing.md).
    const oneCore = shared ? { RIGHTSIZE_UNIT_WORKERS: process.env.RIGHTSIZE_UNIT_WORKERS ?? '1' } : {};
    const withoutDocker = async () => {
      await parallelSteps([
        ...(want('typecheck')
          ? [
              { name: 'typecheck', cmd: bin('tsc'), args: ['-p', 'tsconfig.json', '--noEmit'] },
              { name: 'typecheck renderer (svelte-check)', cmd: bin('svelte-check'), args: ['--tsconfig', './tsconfig.renderer.json', '--fail-on-warnings'] },
            ]
          : []),
        ...(want('security') ? [{ name: 'security scan (electronegativity)', cmd: 'node', args: ['scripts/security-scan.mjs'] }] : []),
      ], { oneAtATime: shared, low: shared });
      // The suites keep the normal priority: starved, their real processes' timings (the probe's seconds) miss.
      for (const p of ['runner', 'unit', 'components']) if (want(p)) await vitest(p, undefined, { buffered: shared, env: oneCore });
      // Then e2e takes that core, beside the lanes' last minutes: its checks are the UI's, its runs queue for the lab
      // like theirs (its waits for a run allow for that queue: playwright.config.ts), its containers carry their own label.
      if (want('e2e') && shared) await playwright(undefined, { env: { RIGHTSIZE_LABELS: 'rightsize-test.lane=e2e', RIGHTSIZE_WAIT_FOR_LAB: '1' }, buffered: true });
    };
    const lane = (name, buffered) =>
      vitest('integration', undefined, {
        projects: [`integration-shared-${name}`],
        label: `integration (shared ${name})`,
        buffered,
        env: { RIGHTSIZE_LABELS: `rightsize-test.lane=${name}`, RIGHTSIZE_WAIT_FOR_LAB: '1' },
      });
    await Promise.all([withoutDocker(), ...(shared ? [lane('a', false), lane('b', true)] : [])]);
    // Then the files whose numbers need the machine to themselves, with nothing beside them.
    if (want('integration')) await vitest('integration', undefined, { projects: ['integration-quiet'], label: 'integration (quiet)' });
    if (want('e2e') && !shared) await playwright();
  }
} finally {
  // No trace: the run's folder (reports included), then whatever it made on the engine.
  tmp.restore();
  rmSync(tmp.dir, { recursive: true, force: true });
  const removed = await clean(before);
  if (removed.length) stepLines.push(`step clean-up: removed ${removed.length} thing(s) the run made: ${removed.join('; ')}`);
  const left = await leftovers(before);
  if (left.length) fail('no trace', `left behind: ${left.join('; ')}`);
  else stepLines.push('step no trace: nothing left behind');
}

console.log(`\n${[...stepLines, ...suiteLines].join('\n')}`);
if (skips.length) console.log(`\nskipped, with reasons:\n${skips.map((s) => `  ${s}`).join('\n')}`);
if (problems.length) console.log(`\nfailures:\n${problems.map((s) => `  ${s}`).join('\n')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
