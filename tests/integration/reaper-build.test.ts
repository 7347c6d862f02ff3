import { describe, expect, it } from 'vitest';
import { BuildContext } from '../../src-main/docker/build-context.ts';
import { docker } from '../../src-main/docker/client.ts';
import { BuildCancelledError, buildImage, imageExists, withBuildSignal } from '../../src-main/docker/image-build.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { ensureReaper, reaperId, stopReaper } from '../../src-main/reaper/reaper.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { withBaseImageAndReaper } from '../helpers/docker.ts';

const { baseTag } = withBaseImageAndReaper();

describe('cancelling stops a build in progress', () => {
  it('an aborted build rejects at once, leaves no tag and no build container running', async () => {
    const marker = `rightsize-cancel-${process.pid}-${Date.now()}`;
    const ctx = new BuildContext();
    // Exec form: the offline base has no shell. The step runs for a minute unless cancelled.
    ctx.addText('Dockerfile', `FROM ${baseTag()}\nRUN ["node", "-e", "setTimeout(() => {}, 60000) // ${marker}"]\n`);
    const tag = `rightsize-test/cancel:${Date.now()}`;
    const ac = new AbortController();
    let stepStarted!: () => void;
    const inStep = new Promise<void>((r) => (stepStarted = r));
    const build = withBuildSignal(ac.signal, () => buildImage(ctx, tag, { kind: 'test', onLog: (l) => void (/Running in/.test(l) && stepStarted()) }));
    build.catch(() => {});
    await inStep;
    const t0 = Date.now();
    ac.abort();
    await expect(build).rejects.toBeInstanceOf(BuildCancelledError);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(await imageExists(tag)).toBe(false);
    // dockerd stops and removes the step's container once the request is gone.
    const running = async (): Promise<number> => (await docker().listContainers({ all: true })).filter((c) => c.Command.includes(marker)).length;
    const deadline = Date.now() + 15_000;
    while ((await running()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await running()).toBe(0);
  });
});

describe("the session's reaper", () => {
  it('runs once per process, labelled with this session, and a clean stop leaves nothing', async () => {
    await ensureReaper(baseTag(), await (await import('../../src-main/docker/client.ts')).checkEngine());
    const id = await reaperId();
    expect(id).toBeTruthy();
    const info = await docker().getContainer(id!).inspect();
    expect(info.State.Running).toBe(true);
    expect(info.Config.Labels['io.rightsize.session']).toBe(currentSession());
    expect(info.HostConfig.AutoRemove).toBe(true);
    await stopReaper();
    expect(await listOwnContainers({ session: currentSession() })).toEqual([]);
  });
});
