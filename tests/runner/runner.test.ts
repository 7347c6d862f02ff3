// scripts/test.mjs on small fixture suites (tests/runner/fixtures): its closing line and exit code
// must say what happened in each case. The runner runs as CI runs it, in a child process.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.ts';

const VITEST_FIXTURES = 'tests/runner/fixtures/vitest/vitest.config.ts';
const PLAYWRIGHT_FIXTURES = (name: string): string => `tests/runner/fixtures/playwright/${name}.config.ts`;

interface Outcome {
  code: number | null;
  out: string;
  /** The closing line, as numbers. */
  totals: { passed: number; failed: number; skipped: number };
}

function runner(args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/test.mjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => {
      const last = out.trimEnd().split('\n').at(-1) ?? '';
      const m = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(last);
      if (!m) return reject(new Error(`no closing line in:\n${out}`));
      resolve({ code, out, totals: { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) } });
    });
  });
}

const fixture = (project: string): Promise<Outcome> => runner(['--vitest-config', VITEST_FIXTURES, project]);

describe.concurrent('vitest suites', () => {
  it('a passing suite is green', async () => {
    const r = await fixture('passing');
    expect(r.totals).toEqual({ passed: 2, failed: 0, skipped: 0 });
    expect(r.code).toBe(0);
    expect(r.out).toContain('step no trace: nothing left behind');
  });

  it('a failing test fails the run', async () => {
    const r = await fixture('failing');
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ failing › failing\.test\.ts › fails: AssertionError/);
  });

  it('a failing beforeAll is a failure, not skipped tests', async () => {
    const r = await fixture('before-all-fails');
    expect(r.totals).toEqual({ passed: 2, failed: 1, skipped: 0 }); // the 2 passes are passing.test.ts
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ before-all-fails › before-all-fails\.test\.ts: .*the engine is not there/);
    expect(r.out).toMatch(/2 test\(s\) of before-all-fails\.test\.ts did not run/);
  });

  it('a failing afterAll fails the run although every test passed', async () => {
    const r = await fixture('after-all-fails');
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ after-all-fails › after-all-fails\.test\.ts: cleanup: .*could not remove the container/);
  });

  it('an unhandled rejection fails the run', async () => {
    const r = await fixture('unhandled-rejection');
    expect(r.totals).toEqual({ passed: 2, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ unhandled-rejection: unhandled error: .*nobody awaited me/);
  });

  it('a file that fails to load is a failure', async () => {
    const r = await fixture('load-fails');
    expect(r.totals).toEqual({ passed: 2, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ load-fails › load-fails\.test\.ts: .*no-such-module/);
  });

  it('zero test files is a failure', async () => {
    const r = await fixture('no-files');
    expect(r.totals).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ no-files: no test files/);
  });

  it('a file that runs no test is a failure', async () => {
    const r = await fixture('no-tests');
    expect(r.totals.passed).toBe(2);
    expect(r.totals.failed).toBeGreaterThanOrEqual(1);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ no-tests › no-tests\.test\.ts: .*No test found/);
  });

  it('a skip prints its reason and stays green', async () => {
    const r = await fixture('skip-with-reason');
    expect(r.totals).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(r.code).toBe(0);
    expect(r.out).toContain('skip-with-reason.test.ts › needs a GPU — no GPU on this machine');
  });

  it('a skip without a reason is a failure', async () => {
    const r = await fixture('skip-without-reason');
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/is skipped, nobody says why: skipped without a reason/);
  });
});

describe.concurrent('Playwright suites', () => {
  it('passing, with a reasoned skip: green, and the reason printed', async () => {
    const r = await runner(['--playwright-config', PLAYWRIGHT_FIXTURES('passing')]);
    expect(r.totals).toEqual({ passed: 1, failed: 0, skipped: 1 });
    expect(r.code).toBe(0);
    expect(r.out).toContain('passes.spec.ts › needs Electron — no Electron binary on this machine');
  });

  it("a spec that fails to load (Playwright's `errors`) fails the run", async () => {
    const r = await runner(['--playwright-config', PLAYWRIGHT_FIXTURES('broken')]);
    expect(r.totals.failed).toBeGreaterThanOrEqual(1);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/✗ e2e: tests\/runner\/fixtures\/playwright\/fails-to-load\.spec\.ts: Error: this spec fails to load/);
  });

  it('a skip without a reason is a failure', async () => {
    const r = await runner(['--playwright-config', PLAYWRIGHT_FIXTURES('skip-without-reason')]);
    expect(r.totals).toEqual({ passed: 1, failed: 1, skipped: 0 });
    expect(r.code).toBe(1);
  });
});

describe('the real integration suite', () => {
  it('every integration file asks for the engine and none can skip: the ones that use no Docker are the load tests and the probe in real processes', () => {
    const dir = path.join(ROOT, 'tests/integration');
    const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
    const text = (f: string): string => readFileSync(path.join(dir, f), 'utf8');
    const asks = (f: string): boolean => /\b(requireDocker|withBaseImageAndReaper|docker)\(/.test(text(f));
    expect(files.filter((f) => !asks(f)).sort()).toEqual([
      'http2-load.test.ts',
      'load-reconnect.test.ts',
      'load-spread.test.ts',
      'load-threads.test.ts',
      'probe-process.test.ts',
    ]);
    expect(files.filter((f) => /\.skip\b|\bskip\(/.test(text(f)))).toEqual([]);
    expect(files.length).toBeGreaterThan(30);
  });

  it('with Docker down FAILS, file by file, with the reason (it does not skip)', async () => {
    // Four files through the real runner, from every lane and two from one (every file asks for the engine,
    // checked above): each fails on its own.
    const picked = 'answer|containers|load|user-apps';
    const others = readdirSync(path.join(ROOT, 'tests/integration'))
      .filter((f) => f.endsWith('.test.ts') && !picked.split('|').includes(f.replace(/\.test\.ts$/, '')))
      .map((f) => `**/${f}`);
    const r = await runner(['--no-build', 'integration'], { DOCKER_HOST: 'unix:///nonexistent.sock', RIGHTSIZE_TEST_EXCLUDE: others.join(',') });
    expect(r.code).toBe(1);
    expect(r.totals.skipped).toBe(0); // tests that need Docker do not pass by skipping
    const files = new Set([...r.out.matchAll(/✗ integration › tests\/integration\/([\w-]+)\.test\.ts: These tests need a running Docker engine/g)].map((m) => m[1]));
    for (const f of picked.split('|')) expect(files, f).toContain(f);
    expect([...files].sort()).toEqual(picked.split('|').sort());
    expect(r.totals.failed).toBeGreaterThanOrEqual(files.size);
  });

  it('an unknown suite name is refused', async () => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/test.mjs'), 'nope'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise((r) => child.on('close', r));
    expect(code).toBe(2);
    expect(err).toMatch(/Unknown suite "nope"/);
  });
});
