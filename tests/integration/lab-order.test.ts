import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { acquireLab, labHolder } from '../../src-main/lab-lock/lab-lock.ts';
import { stopReaper } from '../../src-main/reaper/reaper.ts';
import { parseSession } from '../../src-main/session/session.ts';
import { containersOf } from '../helpers/build-watch.ts';
import { startCli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { until } from '../helpers/wait.ts';

// The lab lock comes before any image work: a run queued behind another process does not pull or
// build its base image meanwhile (that would take CPU from the measurement it waits for). Shown
// with a base that can only come from a pull, of an image that does not exist: the pull — and its
// failure — may happen only once the lab is given to the queued run.

let baseTag = '';
beforeAll(async () => {
  await requireDocker();
  baseTag = (await ensureBaseImage()).tag; // a base at hand: the reaper and the lock are made from it
});

describe('the lab lock before the base image', () => {
  it('a queued run touches no image until it holds the lab', async () => {
    const held = await acquireLab({ image: baseTag, what: 'this test' });
    let releasedAt = 0;
    try {
      const config = path.join(tempDir(), 'm.json');
      writeFileSync(config, JSON.stringify({ apps: ['hello'], modes: ['single'], workers: [1], cpuMillicores: [500], memoryMb: [128], durationSec: 1, warmupSec: 0, settleBudgetPct: 0, verify: false }));
      const missing = `rightsize-test/no-such-node:${Date.now()}`;
      const { child, done } = startCli(['--db', path.join(tempDir(), 'h.db'), 'run', '--wait', '--base', 'official', '--config', config], { RIGHTSIZE_NODE_IMAGE: missing });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      await until(() => /Waiting for the lab: this test holds it/.test(out) || child.exitCode !== null, 'the run to queue', 60_000);
      expect(out, 'it queued').toMatch(/Waiting for the lab/);
      await new Promise((r) => setTimeout(r, 2000)); // time enough for a pull to start and fail, were it allowed
      expect(child.exitCode, `it ended while queued:\n${out}`).toBeNull();
      expect(out).not.toContain(missing);
      releasedAt = Date.now();
      await held.release();
      const r = await done;
      const endedAt = Date.now();
      expect(r.code, out).not.toBe(0);
      expect(out, 'the pull was tried once the lab was free').toMatch(new RegExp(`${missing.replace(/[/.]/g, '\\$&')}.*(not present|could not be pulled)`));
      expect(endedAt).toBeGreaterThan(releasedAt);
      // It gave the lab back and left nothing.
      const holder = await labHolder();
      if (holder) expect(parseSession(holder.session)?.pid).not.toBe(child.pid);
      expect(await containersOf(child.pid!)).toEqual([]);
    } finally {
      if (!releasedAt) await held.release();
      await stopReaper();
    }
  });
});
