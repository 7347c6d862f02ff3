// The reaper is recognisable in `docker ps` (rightsize-reaper-PID-RANDOM), and a name already taken
// — a stale reaper, another session with the same pid — never stops a session from getting one.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkEngine, docker } from '../../src-main/docker/client.ts';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { ensureReaper, reaperId, stopReaper } from '../../src-main/reaper/reaper.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { withBaseImageAndReaper } from '../helpers/docker.ts';

/** The random parts the next reaper names get (hex), before the real random ones again. */
const forced: string[] = [];
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  const randomBytes = ((n: number, ...rest: unknown[]) =>
    n === 4 && forced.length ? Buffer.from(forced.shift()!, 'hex') : (real.randomBytes as (...a: unknown[]) => unknown)(n, ...rest)) as typeof real.randomBytes;
  return { ...real, default: { ...real, randomBytes }, randomBytes };
});

const { baseTag } = withBaseImageAndReaper();
const squatters: string[] = [];
afterEach(async () => {
  await stopReaper();
  for (const id of squatters.splice(0)) await docker().getContainer(id).remove({ force: true }).catch(() => {});
});

describe('the reaper’s name', () => {
  it('is rightsize-reaper-PID-RANDOM', async () => {
    await ensureReaper(baseTag(), await checkEngine());
    const info = await docker().getContainer((await reaperId())!).inspect();
    expect(info.Name).toMatch(new RegExp(`^/rightsize-reaper-${process.pid}-[0-9a-f]{8}$`));
    expect(info.Config.Labels[LABEL.kind]).toBe('reaper');
  });

  it('takes another name when its first is already taken, and still reaps', async () => {
    const taken = `rightsize-reaper-${process.pid}-deadbeef`;
    // A container already holding the name (as a reaper of a dead session with the same pid would).
    const squat = await docker().createContainer({
      name: taken,
      Image: baseTag(),
      Entrypoint: ['node', '-e', ''],
      Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.kind]: 'test' },
    });
    squatters.push(squat.id);
    forced.push('deadbeef', 'cafef00d');
    await ensureReaper(baseTag(), await checkEngine());
    expect(forced).toEqual([]); // both names were tried
    const info = await docker().getContainer((await reaperId())!).inspect();
    expect(info.Name).toBe(`/rightsize-reaper-${process.pid}-cafef00d`);
    expect(info.State.Running).toBe(true);
    // Its last pass on a clean stop removes this session's containers, the squatter included.
    await stopReaper();
    expect(await listOwnContainers({ session: currentSession() })).toEqual([]);
  });
});
