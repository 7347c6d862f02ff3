// `npm test`: build, type-check, security scan of the Electron shell, then every suite in turn
// (unit, integration with a real Docker engine, end-to-end in Chromium and Electron), and one
// closing line for all of them together: "N passed, N failed, N skipped". Skips say why.
// Suites run one after another: integration cells measure CPU and would disturb each other.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const only = process.argv.slice(2); // e.g. `npm test -- unit`
const out = mkdtempSync(path.join(tmpdir(), 'rightsize-test-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];

function run(cmd, args) {
  return spawnSync(cmd, args, { stdio: 'inherit', env: process.env }).status ?? 1;
}

function step(name, cmd, args) {
  const code = run(cmd, args);
  totals[code === 0 ? 'passed' : 'failed']++;
  lines.push(`${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`}`);
  return code === 0;
}

function vitest(project) {
  const report = path.join(out, `${project}.json`);
  const code = run('npx', ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
  if (!existsSync(report)) {
    totals.failed++;
    lines.push(`${project}: FAILED before reporting (exit ${code})`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  // A file that fails to load reports no tests: count it, or a broken suite would look green.
  const brokenFiles = r.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length;
  totals.passed += r.numPassedTests;
  totals.failed += r.numFailedTests + brokenFiles;
  totals.skipped += skipped;
  lines.push(`${project}: ${r.numPassedTests} passed, ${r.numFailedTests + brokenFiles} failed, ${skipped} skipped`);
}

const skips = [];
function playwright() {
  const report = path.join(out, 'e2e.json');
  const code = spawnSync('npx', ['playwright', 'test'], { stdio: 'inherit', env: { ...process.env, PLAYWRIGHT_JSON: report } }).status ?? 1;
  if (!existsSync(report)) {
    totals.failed++;
    lines.push(`e2e: FAILED before reporting (exit ${code})`);
    return;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const { expected, unexpected, flaky, skipped } = r.stats;
  totals.passed += expected + flaky;
  totals.failed += unexpected;
  totals.skipped += skipped;
  lines.push(`e2e: ${expected + flaky} passed, ${unexpected} failed, ${skipped} skipped`);
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests) {
      if (t.status !== 'skipped') continue;
      const why = t.annotations.find((a) => a.type === 'skip')?.description ?? 'no reason given';
      skips.push(`${t.projectName} › ${spec.title} — ${why}`);
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of r.suites) walk(suite);
}

const want = (s) => only.length === 0 || only.includes(s);
step('build', 'npm', ['run', '--silent', 'build']);
if (want('typecheck')) step('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']) && step('typecheck renderer (svelte-check)', 'npx', ['svelte-check', '--tsconfig', './tsconfig.renderer.json', '--fail-on-warnings']);
if (want('security')) step('security scan (electronegativity)', 'node', ['scripts/security-scan.mjs']);
if (want('unit')) vitest('unit');
if (want('components')) vitest('components');
if (want('integration')) vitest('integration');
if (want('e2e')) playwright();
for (const s of skips) lines.push(`skipped: ${s}`);

console.log(`\n${lines.join('\n')}`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 ? 1 : 0);
