// A remote Docker host, for real: a second dockerd on this machine in its own network namespace
// (tests/helpers/second-engine.ts), reached over tcp like any remote engine. The provider ships the
// image there, runs a capped target, streams its cgroup readings, and removes what it made; the
// main engine is left exactly as it was found.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { runCell } from '../../src-main/engine/cell-runner.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import { DockerProvider } from '../../src-main/providers/docker/provider.ts';
import type { StatsReading } from '../../src-main/providers/provider.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';
import { request } from '../helpers/http.ts';
import { until } from '../helpers/wait.ts';
import { mainEngineState, startSecondEngine, type SecondEngine } from '../helpers/second-engine.ts';

const run = promisify(execFile);

let second: SecondEngine;
let before: Awaited<ReturnType<typeof mainEngineState>>;

beforeAll(async () => {
  await requireDocker();
  before = await mainEngineState();
  second = await startSecondEngine();
});

afterAll(async () => {
  await second?.stop();
  // The second engine's namespace, veth pair and daemon are gone; the main engine is as it was.
  expect(await mainEngineState()).toEqual(before);
  await expect(run('ip', ['link', 'show', 'rse2-h'])).rejects.toThrow();
});

describe('a remote Docker engine as a target', () => {
  it('checks the connection, ships the image, runs a capped target reached over the network, streams its readings and removes it', async () => {
    const provider = new DockerProvider({ name: 'second', kind: 'docker', connection: { url: second.url }, source: new Docker() });
    const check = await provider.check();
    expect(check, JSON.stringify(check)).toMatchObject({ ok: true, problems: [] });
    expect(check.nodes).toHaveLength(1);
    expect(check.nodes[0]!.cpus).toBeGreaterThan(0);

    const { app, image } = await imageFor('hello');
    expect(await second.client.getImage(image.tag).inspect().then(() => true, () => false)).toBe(false);
    expect(await provider.prepareImage(image.tag)).toBe(image.tag);
    expect((await second.client.getImage(image.tag).inspect()).RepoTags).toContain(image.tag);

    const target = await provider.provision({
      image: image.tag, launch: { mode: 'cluster', workers: 2, entry: image.entry, name: 'hello' }, port: app.port, env: app.env,
      cpuMillis: 500, memoryMb: 128, labels: { run: 'remote-test', cell: '1', app: 'hello', session: currentSession() },
      networkMbps: 100,
    });
    try {
      // The bandwidth cap's helper image was shipped there and set the cap in the target's network namespace.
      const shaper = (await second.client.listImages()).flatMap((i) => i.RepoTags ?? []).find((t) => t.startsWith('rightsize/net-shaper:'));
      expect(shaper).toBeDefined();
      const look = await second.client.createContainer({ Image: shaper!, Cmd: ['qdisc', 'show', 'dev', 'eth0'], HostConfig: { NetworkMode: `container:${target.id}`, CapAdd: ['NET_ADMIN'] } });
      await look.start();
      await look.wait();
      const qdisc = (await look.logs({ stdout: true, stderr: true })).toString('utf8');
      await look.remove({ force: true });
      expect(qdisc).toMatch(/qdisc tbf .* rate 100Mbit/);
      // Published on the remote engine's address, not on this machine's loopback or a bridge IP.
      expect(target.address.host).toBe(second.address);
      await waitReady({ ...target.address, via: 'published' }, { path: app.health, processes: 2, deadlineMs: 30_000, exited: target.exited });
      const answer = await request(target.address.host, target.address.port, { path: '/' });
      expect(answer.status).toBe(200);

      // The caps are real cgroup caps on the remote engine.
      const inspect = await second.client.getContainer(target.id).inspect();
      expect([inspect.HostConfig.NanoCpus, inspect.HostConfig.Memory]).toEqual([500_000_000, 128 * 1024 * 1024]);
      expect(inspect.Config.Labels[LABEL.run]).toBe('remote-test');

      const readings: StatsReading[] = [];
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${readings.length} reading(s) in 6 s`)), 6000);
        void target.stats((r) => {
          readings.push(r);
          if (readings.length === 3) {
            clearTimeout(timer);
            resolve();
          }
        }).then((stop) => setTimeout(stop, 6000));
      });
      expect(readings.every((r) => r.memLimitBytes === 128 * 1024 * 1024 && r.memBytes > 0)).toBe(true);
      expect(readings[2]!.cpuNs).toBeGreaterThanOrEqual(readings[0]!.cpuNs);
      expect(readings[2]!.atMs).toBeGreaterThan(readings[0]!.atMs);
      expect(await target.exitInfo()).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });
    } finally {
      expect(await provider.removeRun('remote-test')).toEqual([`container ${target.id.slice(0, 12)} on second`]);
    }
    expect(await second.client.listContainers({ all: true })).toEqual([]);
    await target.remove(); // twice is safe
  });

  it('a whole cell runs on the remote engine through the cell runner: caps, readiness, its load from an agent on that engine\'s other cores, stats and exit, both containers removed', async () => {
    const engine = await requireDocker();
    const { app, image } = await imageFor('hello');
    const provider = new DockerProvider({ name: 'second', kind: 'docker', connection: { url: second.url }, source: new Docker() });
    await provider.prepareImage(image.tag);
    const r = await runCell(
      { index: 0, repetition: 0, app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 500, memoryMb: 128, load: { model: 'rate', rate: 200, connections: 4 }, durationSec: 2, warmupSec: 0, env: {} },
      { app, image, placement: true, timeoutSec: 10, provider },
    );
    expect(r.status, r.failure).toBe('ok');
    expect(r.ranOn).toEqual({ target: 'second', kind: 'docker', loadNode: ((await second.client.info()) as { Name: string }).Name });
    expect(r.load!.rpsMean).toBeGreaterThan(100);
    expect(r.load!.latencyUs.p50).toBeGreaterThan(20);
    // Readings from the remote cgroup: its 128 MB cap, its own peak; no host-contention figure (not this machine's cores).
    expect(r.stats!.memLimitBytes).toBe(128 * 1024 * 1024);
    expect(r.stats!.memPeakSource).toBe('cgroup');
    expect(r.stats!.host).toBeUndefined();
    expect(r.exit).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });
    expect(await second.client.listContainers({ all: true })).toEqual([]);
  });

  it('a sweep removes what a dead session left on the remote engine, and a check names an unreachable engine', async () => {
    const { image } = await imageFor('hello');
    await new DockerProvider({ name: 'second', kind: 'docker', connection: { url: second.url }, source: new Docker() }).prepareImage(image.tag);
    // A container labelled by a session that cannot be alive (a pid that cannot exist on this machine).
    const dead = currentSession().replace(/:\d+:\d+$/, ':4194311:1');
    const left = await second.client.createContainer({ Image: image.tag, Cmd: ['node', '-e', '0'], Labels: { ...ownLabels(), [LABEL.session]: dead, [LABEL.run]: 'old' } });
    const provider = new DockerProvider({ name: 'second', kind: 'docker', connection: { url: second.url } });
    expect(await provider.sweep()).toEqual([`container ${left.id.slice(0, 12)} on second`]);
    expect(await second.client.listContainers({ all: true })).toEqual([]);

    const nowhere = new DockerProvider({ name: 'nowhere', kind: 'docker', connection: { url: `tcp://${second.address}:1` } });
    const check = await nowhere.check();
    expect(check.ok).toBe(false);
    expect(check.problems).toEqual([expect.stringMatching(/^unreachable: nothing answers at tcp:\/\/10\.77\.0\.2:1/)]);
  });

});
