import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { labHolder } from '../../src-main/lab-lock/lab-lock.ts';
import { parseSession } from '../../src-main/session/session.ts';
import { buildSteps, containersOf, freshFolderApp, stillThere, tagsOf } from '../helpers/build-watch.ts';
import { cli, startCli, tempDir, type CliResult } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

// `rightsize apps build` and `apps add --build` take the lab like a run, so a signal cancels them
// like one (the run lifecycle's handlers): the build stops (dockerd removes its step's container and
// never tags the image), the lab is given back, exit 130. The signal lands while a build step runs:
// the app is a fresh copy of the Express fixture, so its image does not exist yet.

beforeAll(async () => {
  await requireDocker();
});

const REMOVED_WITHIN_MS = 15_000;

/** Starts `args` until its install step runs; another process holding the lab (a build cannot queue) means try again. */
async function startedBuild(args: string[]): Promise<{ child: ReturnType<typeof startCli>['child']; done: Promise<CliResult>; steps: string[] }> {
  const deadline = Date.now() + 150_000;
  for (;;) {
    const { child, done } = startCli(args);
    const { ids, first } = buildSteps(child);
    const step = await Promise.race([first, new Promise<'slow'>((r) => setTimeout(() => r('slow'), 90_000))]);
    if (step === 'slow') throw new Error('no build step ran within 90 s');
    if (step) return { child, done, steps: ids };
    const r = await done;
    if (/lab is busy/.test(r.stderr) && Date.now() < deadline) {
      await new Promise((res) => setTimeout(res, 2000));
      continue;
    }
    throw new Error(`the build ended before the signal (exit ${r.code}):\n${r.stderr}`);
  }
}

async function expectCancelled(signal: NodeJS.Signals, args: string[], repo: string): Promise<CliResult> {
  const { child, done, steps } = await startedBuild(args);
  const t0 = Date.now();
  child.kill(signal);
  const r = await done;
  expect(r.code, r.stderr).toBe(130);
  expect(r.stderr).toMatch(new RegExp(`${signal}: cancelling`));
  expect(r.stderr).toMatch(/Cancelled: the build was stopped; no image was tagged and the lab is free/);
  // Its reaper, and the lab lock, went with it.
  expect(await containersOf(child.pid!)).toEqual([]);
  const holder = await labHolder();
  if (holder) expect(parseSession(holder.session)?.pid).not.toBe(child.pid);
  let left = await stillThere(steps);
  while (left.length && Date.now() - t0 < REMOVED_WITHIN_MS) {
    await new Promise((res) => setTimeout(res, 100));
    left = await stillThere(steps);
  }
  console.log(`${signal} during a build: exit after ${r.code === null ? '?' : Date.now() - t0} ms; build container ${steps.join(', ')}, ${left.length} left`);
  expect(left, 'a build container is left').toEqual([]);
  expect(await tagsOf(repo), 'a half-made image was tagged').toEqual([]);
  return r;
}

describe('a signal during an app build', () => {
  it('SIGINT during `apps build`: exit 130, no build container, no new tag, the lab free', async () => {
    const app = freshFolderApp();
    const db = path.join(tempDir(), 'h.db');
    const add = await cli(['--db', db, 'apps', 'add', app.name, '--folder', app.dir, '--port', '8080', '--health', '/health']);
    expect(add.code, add.stderr).toBe(0);
    await expectCancelled('SIGINT', ['--db', db, 'apps', 'build', app.name], app.repo);
  });

  it('SIGTERM during `apps add --build`: the app is saved, the build stopped, exit 130', async () => {
    const app = freshFolderApp();
    const db = path.join(tempDir(), 'h.db');
    const r = await expectCancelled('SIGTERM', ['--db', db, 'apps', 'add', app.name, '--folder', app.dir, '--port', '8080', '--health', '/health', '--build'], app.repo);
    expect(r.stdout).toMatch(new RegExp(`Added ${app.name}`));
    const list = await cli(['--db', db, '--json', 'apps']);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((a) => a.name)).toContain(app.name);
  });
});
