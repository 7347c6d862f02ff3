import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docker } from '../../src-main/docker/client.ts';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { Store } from '../../src-main/store/index.ts';
import { buildSteps, containersOf, freshFolderApp, stillThere, tagsOf } from '../helpers/build-watch.ts';
import { cli, startCli, tempDir, type CliResult } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker } from '../helpers/docker.ts';

// Nothing left behind, however the CLI ends. A run is killed at moments spread over its whole life
// from 0 s (start-up, reaper, lock, image checks, container creation, readiness, load, teardown):
// after SIGKILL the session's reaper must remove every container of the dead process within 15 s,
// with no Rightsize process of this lane running (the next CLI starts only once they are gone, and
// another lane's CLIs sweep only their own label's orphans, so no start-up sweep can be what removed
// them), the database is sound, and the next start (the next kill's run, on the same database)
// marks the run interrupted. SIGINT, SIGTERM and SIGHUP, in turn, cancel
// cleanly. A run here is one short cell, so the kills cover every phase quickly; and a kill and a
// signal land in an image build. npm test kills 10 of each, one in each tenth of the run's life (a
// phase as long as a tenth of it is hit every time, a shorter one over runs): the 20 of each, with
// RIGHTSIZE_KILLS=20, is the full check, recorded in BENCHMARKS.md (*Nothing left behind*).
const KILLS = Number(process.env.RIGHTSIZE_KILLS ?? 10);
const REAP_WITHIN_MS = 15_000;
const GRACEFUL: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

// Its second of load at a modest constant rate: the kills need every phase, not a saturated target, and a closed
// loop's busy cores were a quarter of each run's CPU, taken from the lanes beside it (docs/contributing.md).
const oneCell = { apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [500], memoryMb: [128], load: PACED_LOAD, durationSec: 1, warmupSec: 0, settleBudgetPct: 0, verify: false };

/**
 * Polls until `probe` has been empty for `settleMs` (a reaper the dead CLI's detached launcher was
 * still creating may appear just after the kill), or `limitMs` (plus a margin, to report how late)
 * has passed. `ms`: when it was last seen non-empty — the reap time — or 0 if never.
 */
async function emptyWithin(probe: () => Promise<string[]>, t0: number, limitMs = REAP_WITHIN_MS, settleMs = 1000): Promise<{ left: string[]; ms: number }> {
  let left = await probe();
  let lastSeen = left.length ? Date.now() - t0 : 0;
  let emptySince = left.length ? 0 : Date.now();
  while (Date.now() - t0 < limitMs + 5000 && (left.length || Date.now() - emptySince < settleMs)) {
    await new Promise((r) => setTimeout(r, 100));
    left = await probe();
    if (left.length) {
      lastSeen = Date.now() - t0;
      emptySince = 0;
    } else if (!emptySince) emptySince = Date.now();
  }
  return { left, ms: left.length ? Date.now() - t0 : lastSeen };
}

const sleepOrDone = (ms: number, done: Promise<CliResult>): Promise<unknown> => Promise.race([new Promise((r) => setTimeout(r, ms)), done]);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function integrity(db: string): string {
  const store = Store.open(db);
  try {
    return store.integrityCheck();
  } finally {
    store.close();
  }
}

let bystander: string | undefined;
let baseTag = '';
/** A container of another live session (this test process): no reaper and no sweep may touch it. */
async function makeBystander(): Promise<void> {
  bystander = (
    await docker().createContainer({
      Image: baseTag,
      Entrypoint: ['node', '-e', '0'],
      Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.kind]: 'test-bystander' },
    })
  ).id;
}

const ppidOf = (pid: number): number => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] ?? 0);
const cmdOf = (pid: number): string => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
const RUNNER = /vitest|playwright|scripts\/test\.mjs/;

/** The outermost test-runner process above this one (npm exec vitest, its node, this worker). */
function ourRunner(): number {
  let top = process.pid;
  for (let pid = process.ppid; pid > 1; pid = ppidOf(pid)) if (RUNNER.test(cmdOf(pid))) top = pid;
  return top;
}

/**
 * Another test runner working on this engine (not ours: nothing under our outermost runner). Its
 * teardown removes every Rightsize container made since it started — this file's bystander too —
 * so a bystander lost while one runs proves nothing either way (on CI none does).
 */
function foreignTestRunner(): string | undefined {
  const root = ourRunner();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = cmdOf(Number(entry));
      if (!RUNNER.test(cmd)) continue;
      let mine = false;
      for (let pid = Number(entry); pid > 1 && !mine; pid = ppidOf(pid)) mine = pid === root;
      if (!mine) return `pid ${entry}: ${cmd.slice(0, 80)}`;
    } catch {
      /* gone meanwhile */
    }
  }
  return undefined;
}

// Foreign runners come and go (a teardown is the last thing one does before it exits), so they are
// looked for every half second while this file runs, not only when the bystander is found gone.
let foreignSeen: { at: number; what: string } | undefined;
let lastBystanderCheck = Date.now();
const foreignWatch = setInterval(() => {
  const what = foreignTestRunner();
  if (what) foreignSeen = { at: Date.now(), what };
}, 500);

/** The bystander is still there; if it is not while another test runner worked here, a new one (and a note). */
async function expectBystander(when: string): Promise<void> {
  const since = lastBystanderCheck;
  lastBystanderCheck = Date.now();
  const there = await docker().getContainer(bystander!).inspect().then(() => true, () => false);
  if (there) return;
  const foreign = foreignSeen && foreignSeen.at >= since - 1000 ? foreignSeen.what : foreignTestRunner();
  expect(foreign, `the bystander (a live session's container) was removed ${when}, with no other test runner at work`).toBeDefined();
  console.log(`note: the bystander was removed ${when} while another test runner worked on this engine (${foreign}): made again`);
  await makeBystander();
}

let config = '';
/** A warm run's whole life, spawn to exit (measured in beforeAll): the kills are spread over it. */
let lifeMs = 0;
/** When that run's first container appeared: its signal handlers were installed a little before. */
let firstContainerMs = 0;
beforeAll(async () => {
  await requireDocker();
  baseTag = (await ensureBaseImage()).tag;
  await makeBystander();
  config = path.join(tempDir(), 'm.json');
  writeFileSync(config, JSON.stringify({ ...oneCell, name: 'kill me' }));
  // One run first, so images are built and the kills land in the run itself; two more to time it
  // (the shorter counts: a run slowed by a busy host would put the last kills after its end).
  const warm = await cli(['--db', path.join(tempDir(), 'warm.db'), 'run', '--wait', '--config', config]);
  expect(warm.code, warm.stderr).toBe(0);
  for (let k = 0; k < 2; k++) {
    const t0 = Date.now();
    const timed = startCli(['--db', path.join(tempDir(), 'warm.db'), 'run', '--wait', '--config', config]);
    let exited = false;
    let first = 0;
    void timed.done.then(() => (exited = true));
    while (!exited && !first) {
      if ((await containersOf(timed.child.pid!)).length) first = Date.now() - t0;
      else await new Promise((r) => setTimeout(r, 50));
    }
    const r = await timed.done;
    expect(r.code, r.stderr).toBe(0);
    const life = Date.now() - t0;
    console.log(`a warm one-cell run lives ${life} ms; its first container (the reaper) at ${first} ms`);
    lifeMs = lifeMs ? Math.min(lifeMs, life) : life;
    firstContainerMs = firstContainerMs ? Math.min(firstContainerMs, first) : first;
  }
});

/** Starts a run; a run that ends by itself before its signal shortens the life the moments spread over. */
function startRun(db: string): { child: ReturnType<typeof startCli>['child']; done: Promise<CliResult> } {
  const t0 = Date.now();
  const { child, done } = startCli(['--db', db, 'run', '--wait', '--config', config]);
  const timed = done.then((r) => {
    if (r.code === 0 && !child.killed) lifeMs = Math.min(lifeMs, Date.now() - t0);
    return r;
  });
  return { child, done: timed };
}

afterAll(async () => {
  clearInterval(foreignWatch);
  if (bystander) await docker().getContainer(bystander).remove({ force: true }).catch(() => {});
});

/** The i-th of n moments: one in each n-th of the run's life (and a little past it), from `from` ms. */
const moment = (i: number, n: number, from = 0): number => from + ((i + Math.random()) / n) * (lifeMs * 1.1 - from);

describe('nothing left behind', () => {
  it(`after SIGKILL at ${KILLS} moments over a run's life: 0 containers within 15 s, database sound, the run interrupted at the next start`, async () => {
    const db = path.join(tempDir(), 'h.db'); // shared: each run's start is the previous kill's "next start"
    const reapMs: number[] = [];
    const reaped: number[] = []; // the kills that left something to remove
    const startedAt: number[] = []; // wall clock of each CLI's start and of its kill
    const killedAt: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      startedAt.push(Date.now());
      const { child, done } = startRun(db);
      const at = moment(i, KILLS);
      await sleepOrDone(at, done);
      const atKill = (await containersOf(child.pid!)).length; // what was up when it died (reaper, lock, target)
      const t0 = Date.now();
      killedAt.push(Date.now());
      child.kill('SIGKILL');
      await done;
      // Nothing up yet: the dead CLI's detached launcher may still be creating the reaper, so watch a
      // full second. Once the reaper is up, it removes late creates itself and is seen until it is done.
      const { left, ms } = await emptyWithin(() => containersOf(child.pid!), t0, REAP_WITHIN_MS, atKill ? 300 : 1000);
      reapMs.push(ms);
      if (ms > 0) reaped.push(ms);
      console.log(`SIGKILL ${i}: at ${Math.round(at)} ms, ${atKill} container(s) up, ${left.length} left after ${ms} ms`);
      expect(left, `kill ${i} at ${Math.round(at)} ms left containers`).toEqual([]);
      expect(ms, `kill ${i} at ${Math.round(at)} ms`).toBeLessThan(REAP_WITHIN_MS);
      expect(integrity(db), `kill ${i}`).toBe('ok');
      await expectBystander(`by kill ${i} or its reaper`);
    }
    // The next start (for the last kill; the earlier ones were the next kill's run): every run the
    // kills cut short is interrupted, not left "running".
    const next = await cli(['--db', db, 'runs', '--json', '--limit', '100']);
    expect(next.code, next.stderr).toBe(0);
    const runs = (JSON.parse(next.stdout) as { runs: { id: number; status: string; startedAt: string; finishedAt: string | null }[] }).runs;
    for (const run of runs) expect(['interrupted', 'completed'], `run ${run.id}`).toContain(run.status);
    // "completed" only where the run had finished before its kill (a kill late in the run's life can
    // land while the CLI tears down after storing the end): never a run the kill cut short.
    // (A kill at the very start may come before the CLI created its run: fewer runs than kills.)
    for (const run of runs.filter((x) => x.status === 'completed')) {
      const i = startedAt.findLastIndex((t) => t <= Date.parse(run.startedAt));
      expect(Date.parse(run.finishedAt!), `run ${run.id} (kill ${i}) completed after its kill`).toBeLessThanOrEqual(killedAt[i]!);
    }
    expect(integrity(db)).toBe('ok');
    console.log(
      `SIGKILL → 0 containers over ${KILLS} kills: median ${median(reapMs)} ms, max ${Math.max(...reapMs)} ms; over the ${reaped.length} that left containers: median ${reaped.length ? median(reaped) : '-'} ms (${reapMs.join(', ')}); ${runs.length} runs interrupted or completed`,
    );
  });

  it(`SIGINT, SIGTERM and SIGHUP in turn at ${KILLS} moments cancel cleanly: exit 130 (or 0 if it had finished), run cancelled, nothing left`, async () => {
    const db = path.join(tempDir(), 'h.db');
    for (let i = 0; i < KILLS; i++) {
      const signal = GRACEFUL[i % GRACEFUL.length]!;
      // Spread from the first container's moment (the CLI installs its handlers just before it
      // touches Docker): earlier, node is still loading the CLI and the signal's default action ends
      // it before anything started — allowed below, but it tests nothing.
      const at = moment(i, KILLS, firstContainerMs);
      const before = Store.open(db);
      const known = new Set(before.listRuns({ limit: 1000 }).runs.map((x) => x.id));
      before.close();
      const { child, done } = startRun(db);
      await sleepOrDone(at, done);
      child.kill(signal);
      const r = await done;
      const left = await containersOf(child.pid!);
      console.log(`${signal} ${i}: at ${Math.round(at)} ms, exit ${r.code ?? 'by the signal'}`);
      expect(left, `${signal} ${i} at ${Math.round(at)} ms left containers:\n${r.stdout}\n${r.stderr}`).toEqual([]);
      const store = Store.open(db);
      try {
        const runs = store.listRuns({ limit: 1000 }).runs.filter((x) => !known.has(x.id));
        // Ended by the signal itself: before its handlers were installed (nothing may have started), or
        // after they were removed as it exited (its run had completed).
        if (r.code === null) for (const x of runs) expect(x.status, 'ended by the signal with a run not completed').toBe('completed');
        else if (r.code === 0) expect(runs.map((x) => x.status)).toEqual(['completed']);
        else {
          expect(r.code, `${signal} ${i}: ${r.stderr}`).toBe(130);
          // Cancelled before the run row existed (start-up, reaper, lock) stores nothing.
          for (const x of runs) expect(x.status).toBe('cancelled');
          if (!runs.length) expect(r.stdout).toMatch(/Cancelled before the run started/);
        }
        expect(store.integrityCheck()).toBe('ok');
      } finally {
        store.close();
      }
      await expectBystander(`by ${signal} ${i}`);
    }
  });
});

describe('during an image build (a user app whose image does not exist yet)', () => {
  /** A run of a fresh user app, once its install step runs in a build container. */
  async function runThatBuilds(): Promise<{ db: string; repo: string; steps: string[]; child: ReturnType<typeof startCli>['child']; done: Promise<CliResult> }> {
    const app = freshFolderApp();
    const db = path.join(tempDir(), 'h.db');
    const add = await cli(['--db', db, 'apps', 'add', app.name, '--folder', app.dir, '--port', '8080', '--health', '/health']);
    expect(add.code, add.stderr).toBe(0);
    const file = path.join(tempDir(), 'm.json');
    writeFileSync(file, JSON.stringify({ ...oneCell, apps: [app.name], name: 'kill the build' }));
    const { child, done } = startCli(['--db', db, 'run', '--wait', '--verbose', '--config', file]);
    const { ids, first } = buildSteps(child);
    const step = await Promise.race([first, new Promise<null>((r) => setTimeout(() => r(null), 90_000))]);
    expect(step, 'no build step ran').toBeTruthy();
    expect(child.exitCode, 'the run ended before the kill').toBeNull();
    return { db, repo: app.repo, steps: ids, child, done };
  }

  it('SIGKILL mid-build: no build container, no container of the run and no half-made tag within 15 s; the run interrupted at the next start', async () => {
    const { db, repo, steps, child, done } = await runThatBuilds();
    const t0 = Date.now();
    child.kill('SIGKILL');
    await done;
    const own = await emptyWithin(() => containersOf(child.pid!), t0);
    const build = await emptyWithin(() => stillThere(steps), t0);
    console.log(`SIGKILL mid-build: the session's containers gone after ${own.ms} ms, the build container ${steps.join(', ')} gone after ${build.ms} ms`);
    expect(own.left).toEqual([]);
    expect(build.left).toEqual([]);
    expect(Math.max(own.ms, build.ms)).toBeLessThan(REAP_WITHIN_MS);
    expect(await tagsOf(repo)).toEqual([]);
    const next = await cli(['--db', db, 'runs', '--json']);
    expect((JSON.parse(next.stdout) as { runs: { status: string }[] }).runs.map((r) => r.status)).toEqual(['interrupted']);
    expect(integrity(db)).toBe('ok');
  });

  it('SIGTERM mid-build cancels it: exit 130, the run cancelled, no build container, no tag', async () => {
    const { db, repo, steps, child, done } = await runThatBuilds();
    const t0 = Date.now();
    child.kill('SIGTERM');
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(await containersOf(child.pid!)).toEqual([]);
    const build = await emptyWithin(() => stillThere(steps), t0);
    console.log(`SIGTERM mid-build: exit after ${Date.now() - t0} ms, the build container ${steps.join(', ')} gone after ${build.ms} ms`);
    expect(build.left).toEqual([]);
    expect(await tagsOf(repo)).toEqual([]);
    const store = Store.open(db);
    try {
      expect(store.listRuns({}).runs.map((x) => x.status)).toEqual(['cancelled']);
    } finally {
      store.close();
    }
  });
});
