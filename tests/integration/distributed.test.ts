// A matrix run across distributed engines, for real: the main engine and a second dockerd in its
// own network namespace (tests/helpers/second-engine.ts) joined as a two-node Swarm run two cells
// at once, each target alone on its node and its load (the load agent) on the other node; results
// and samples stored as a local run's are; nothing left on either engine. A cell of 2 replicas on
// that Swarm: one service of 2 tasks spread over both nodes, the load agent's connections spread
// over both tasks, each task's share measured. And a remote Docker
// engine whose link is cut mid-cell: that cell fails as "unreachable" within a bound, the run goes
// on once the link is back, and what the cut cell left there is removed. The Swarm provider's own
// parts (a capped service per node at once, a busy check, the sweep of a dead session's service) run
// on the same Swarm, formed once.
import { OVERHEAD_DEFAULT_SEC } from '../../src-main/engine/estimate.ts';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL, PRODUCT } from '../../src-main/docker/labels.ts';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { demuxLogs } from '../../src-main/docker/containers.ts';
import { stopReaper } from '../../src-main/reaper/reaper.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { LOAD_SILENCE_SEC, UNREACHABLE_TEARDOWN_TIMEOUT_MS } from '../../src-main/engine/cell-runner.ts';
import type { RunEvent } from '../../src-main/model/events.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { CANCEL_GRACE_MS } from '../../src-main/load-agent/agent-stream.ts';
import { REMOVE_TIMEOUT_MS } from '../../src-main/load-agent/remote-load.ts';
import { DockerProvider } from '../../src-main/providers/docker/provider.ts';
import { SwarmProvider } from '../../src-main/providers/swarm/provider.ts';
import { Store } from '../../src-main/store/index.ts';
import { ROOT, tempDir } from '../helpers/cli.ts';
import { DependenciesSchema } from '../../src-main/apps/dependencies.ts';
import { imageFor, PACED_LOAD, requireDocker } from '../helpers/docker.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import type { StatsReading } from '../../src-main/providers/provider.ts';
import { formSwarm, HOST_SIDE, mainEngineState, startSecondEngine, type SecondEngine } from '../helpers/second-engine.ts';
import { until } from '../helpers/wait.ts';

const ours = (extra: string[] = []): string => JSON.stringify({ label: [`${LABEL.product}=${PRODUCT}`, ...extra] });

let second: SecondEngine;
const secondEngineEmpty = async () => (await second.client.listContainers({ all: true, filters: ours() })).length === 0;
let before: Awaited<ReturnType<typeof mainEngineState>>;
let store: Store;

beforeAll(async () => {
  await requireDocker();
  before = await mainEngineState();
  second = await startSecondEngine();
  store = Store.open(path.join(tempDir('rightsize-distributed-'), 'h.db'));
});

afterAll(async () => {
  store?.close();
  await stopReaper();
  second?.restore(); // a failed test may have left the link down
  await second?.stop();
  // The main engine as found: bridge, networks, Swarm state; and nothing of this session's on it.
  // (Its whole container list is not compared: other test processes share this engine.)
  const { containers: _c, ...now } = await mainEngineState();
  const { containers: _b, ...was } = before;
  expect(now).toEqual(was);
  expect(await listOwnContainers({ session: currentSession() })).toEqual([]);
});

describe('a matrix on distributed engines', () => {
  // One Swarm for the tests that need it: forming and leaving one takes longer than a cell.
  describe('on a two-node Swarm', () => {
    let swarm: Awaited<ReturnType<typeof formSwarm>>;
    beforeAll(async () => {
      swarm = await formSwarm(second);
    });
    afterAll(async () => {
      await swarm?.leave();
      expect((await mainEngineState()).swarm).toBe('inactive');
    });
    // The Swarm's manager on this engine, its worker on the second: each node reached for its agent.
    const pairProvider = (): SwarmProvider =>
      new SwarmProvider({
        name: 'pair', manager: { url: 'unix:///var/run/docker.sock' }, source: new Docker(),
        nodeEngines: { [swarm.manager]: { url: 'unix:///var/run/docker.sock' }, [swarm.worker]: { url: second.url } },
      });

    it('a two-node Swarm runs one capped cell on each node at once (services with limits = reservations, host-mode ports), reached from here; removed on finish, swept when their session died', async () => {
      const { app, image } = await imageFor('hello');
      const provider = pairProvider();
      const check = await provider.check();
      expect(check, JSON.stringify(check)).toMatchObject({ ok: true, problems: [] });
      expect(check.nodes.map((n) => n.free)).toEqual([true, true]);
      await provider.prepareImage(image.tag);
      expect((await second.client.getImage(image.tag).inspect()).RepoTags).toContain(image.tag);

      const spec = (cell: string, placement: { node?: string; avoidNode?: string }) => ({
        image: image.tag, launch: { mode: 'cluster' as const, workers: 2, entry: image.entry, name: 'hello' }, port: app.port, env: app.env,
        cpuMillis: 250, memoryMb: 128, labels: { run: 'swarm-test', cell, app: 'hello', session: currentSession() }, placement,
      });
      const targets = await Promise.all([provider.provision(spec('1', { node: swarm.worker })), provider.provision(spec('2', { avoidNode: swarm.worker }))]);
      try {
        // Each on its own node, each answering on its node's address with all of its workers.
        expect(targets.map((t) => t.address.host)).toEqual([second.address, HOST_SIDE]);
        for (const t of targets) await waitReady({ ...t.address, via: 'published' }, { path: app.health, processes: 2, deadlineMs: 30_000, exited: t.exited });
        const onWorker = await second.client.getContainer(targets[0]!.id).inspect();
        expect([onWorker.HostConfig.NanoCpus, onWorker.HostConfig.Memory]).toEqual([250_000_000, 128 * 1024 * 1024]);
        const readings: StatsReading[] = [];
        const stop = await targets[0]!.stats((r) => readings.push(r));
        await until(() => readings.length >= 2, 'two stats readings', 5000);
        stop();
        expect(readings[0]!.memLimitBytes).toBe(128 * 1024 * 1024);
        expect(await targets[0]!.exitInfo()).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });
        const busy = await provider.check();
        expect(busy.problems).toEqual(['no nodes free: every node is down, drained or already running a Rightsize cell']);
      } finally {
        for (const t of targets) await t.remove();
      }
      expect(await provider.removeRun('swarm-test')).toEqual([]);
      expect(await second.client.listContainers({ all: true })).toEqual([]);

      // A dead session's service is swept; a live one's is not.
      const left = await provider.provision(spec('3', { node: swarm.worker }));
      expect(await provider.sweep(() => true)).toEqual([]);
      expect(await provider.sweep(() => false)).toEqual([expect.stringMatching(/^service rightsize-swarm-test-3-\w+ on pair$/)]);
      await until(
        async () => (await second.client.listContainers({ all: true })).length === 0,
        "the swept service's containers to be gone",
        10_000,
      );
      await left.remove();
    });

    it("a Swarm cell's dependency: a service on the cell's overlay network, its file a config, on the other node; reached by its name; measured; nothing left", async () => {
      const { app, image } = await imageFor('hello');
      const provider = pairProvider();
      await provider.prepareImage(image.tag);
      const echo = path.join(ROOT, 'tests/fixtures/dependency-echo');
      const dependencies = DependenciesSchema.parse([{
        name: 'cache', image: image.tag, command: ['node', '/srv/dep/echo.js'], mounts: [{ source: echo, target: '/srv/dep' }],
        healthcheck: { test: ['CMD', 'node', '-e', "require('net').connect(7000,'127.0.0.1').on('data',()=>process.exit(0)).on('error',()=>process.exit(1))"] },
        port: 7000, cpuMillis: 250, memoryMb: 64,
      }]);
      const t = await provider.provision({
        image: image.tag, launch: { mode: 'single' as const, workers: 1, entry: image.entry, name: 'hello' }, port: app.port, env: app.env,
        cpuMillis: 250, memoryMb: 128, labels: { run: 'swarm-deps', cell: '1', app: 'hello', session: currentSession() }, dependencies,
      });
      try {
        const dep = t.dependencies![0]!;
        expect(dep).toMatchObject({ name: 'cache', cpuMillis: 250, memoryMb: 64, sharesCores: false });
        // The app's container asks `cache:7000` by name, from its node, over the overlay network.
        const appNode = t.address.host === second.address ? second.client : new Docker();
        const ask = async (): Promise<string> => {
          const exec = await appNode.getContainer(t.id).exec({ Cmd: ['node', '-e', "require('net').connect(7000,'cache').on('data',(d)=>{process.stdout.write(String(d));process.exit(0)}).on('error',(e)=>{console.log(e.message);process.exit(1)})"], AttachStdout: true, AttachStderr: true });
          return new Promise<string>((resolve) => {
            void exec.start({ hijack: true, stdin: false }).then((stream) => {
              const chunks: Buffer[] = [];
              stream.on('data', (d: Buffer) => chunks.push(d));
              stream.on('end', () => resolve(demuxLogs(Buffer.concat(chunks))));
            });
          });
        };
        // Asked once: the provider hands the target over only once the name resolves from the app's node
        // (Swarm's DNS spreads by gossip, and under a busy host it answered EAI_AGAIN for seconds).
        expect(await ask()).toContain('pong');
        const readings: StatsReading[] = [];
        const stop = await dep.stats((r) => readings.push(r));
        await until(() => readings.length >= 2, "the dependency's stats", 5000);
        stop();
        expect(readings[0]!.memLimitBytes).toBe(64 * 1024 * 1024);
      } finally {
        await t.remove();
      }
      // Services, configs and the overlay network went with the cell.
      const left = await provider.removeRun('swarm-deps');
      expect(left, JSON.stringify(left)).toEqual([]);
      expect(await provider.manager.listConfigs({ filters: JSON.stringify({ label: [`${LABEL.run}=swarm-deps`] }) })).toEqual([]);
      // A removed overlay network stays listed while the nodes tear it down: gone within seconds.
      const networks = () => provider.manager.listNetworks({ filters: JSON.stringify({ label: [`${LABEL.run}=swarm-deps`] }) });
      await until(async () => (await networks()).length === 0, "the cell's overlay network to be gone", 15_000);
    });

    it('a two-node Swarm runs 4 cells two at once, each target on one node and its load on the other; stored like a local run; nothing left', async () => {
      const provider = pairProvider();
      const events: RunEvent[] = [];
      const out = await runMatrix(
        { name: 'distributed', apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [250], memoryMb: [128], load: PACED_LOAD, durationSec: 3, warmupSec: 0, repetitions: 4, settleBudgetPct: 0, verify: false },
        { store, provider, waitForLab: true, onEvent: (e) => events.push(e) },
      );
      expect(out.status, out.error).toBe('completed');
      expect(out.cells.map((c) => [c.status, c.failure])).toEqual(out.cells.map(() => ['ok', undefined]));

      // Two at once, never more: the cells' spans overlap in pairs.
      const spans = out.cells.map((c) => [Date.parse(c.startedAt), Date.parse(c.finishedAt)] as const);
      const atOnce = (t: number): number => spans.filter(([a, b]) => a <= t && t < b).length;
      expect(Math.max(...spans.map(([a]) => atOnce(a)))).toBe(2);
      const started = events.filter((e) => e.type === 'run-started')[0] as Extract<RunEvent, { type: 'run-started' }>;
      // The ETA knows two run at once: no warm-up, 3 s, and the default time around a cell (a fresh history).
      expect(started.etaSec).toBeCloseTo((4 * (0 + 3 + OVERHEAD_DEFAULT_SEC)) / 2);
      expect(started.estimate).toMatchObject({ gridCells: 4, settle: { cells: { high: 0 } }, verify: { cells: { high: 0 } } });

      // Each target on a node, its load on the other; both nodes carried targets.
      for (const c of out.cells) {
        expect(c.ranOn?.kind).toBe('swarm');
        expect(c.ranOn?.node).toBeTruthy();
        expect(c.ranOn?.loadNode).toBeTruthy();
        expect(c.ranOn!.loadNode).not.toBe(c.ranOn!.node);
        expect(c.load!.rpsMean).toBeGreaterThan(50);
        expect(c.stats!.memLimitBytes).toBe(128 * 2 ** 20);
      }
      expect(new Set(out.cells.map((c) => c.ranOn!.node)).size).toBe(2);

      // Stored as a local run's cells are: every result, where it ran, and its measured seconds.
      const stored = store.getRun(out.runId)!;
      expect(stored.status).toBe('completed');
      expect(stored.cells.map((c) => c.ranOn)).toEqual(out.cells.map((c) => c.ranOn));
      const samples = store.getRunSamples(out.runId);
      for (const c of stored.cells) expect(samples.get(c.id)?.length ?? 0).toBeGreaterThanOrEqual(2);
      // Samples of both running cells arrived interleaved, each by its index.
      const sampleIdx = events.filter((e) => e.type === 'sample').map((e) => (e as Extract<RunEvent, { type: 'sample' }>).index);
      expect(new Set(sampleIdx)).toEqual(new Set([0, 1, 2, 3]));

      // Nothing left: no services, no agents, no task containers, on either engine.
      expect(await provider.manager.listServices({ filters: ours() })).toEqual([]);
      await until(secondEngineEmpty, 'our containers on the second engine to be gone', 10_000, 200);
      expect(await new Docker().listContainers({ all: true, filters: ours([`${LABEL.run}=${out.runId}`]) })).toEqual([]);
      expect(await new Docker().listContainers({ all: true, filters: ours([`${LABEL.kind}=load-agent`]) })).toEqual([]);
    });

    it('a Swarm cell of 2 replicas: one service of 2 tasks spread over both nodes, its load spread over both per connection; nothing left', async () => {
      const provider = pairProvider();
      const warnings: string[] = [];
      const out = await runMatrix(
        { name: 'swarm replicas', apps: ['hello'], modes: ['cluster'], workers: [1], replicas: [2], cpuMillicores: [250], memoryMb: [128], load: PACED_LOAD, durationSec: 3, warmupSec: 0, settleBudgetPct: 0, verify: false },
        { store, provider, waitForLab: true, onEvent: (e) => e.type === 'log' && e.level === 'warn' && warnings.push(e.message) },
      );
      expect(out.status, out.error).toBe('completed');
      const [cell] = out.cells;
      expect([cell!.status, cell!.failure]).toEqual(['ok', undefined]);
      const reps = cell!.replicas!;
      console.log(
        `Swarm hello ×2 replicas: ${cell!.load!.rpsMean.toFixed(0)} req/s, shares ` +
          `${reps.map((r) => `${(r.share * 100).toFixed(1)} % on ${r.ranOn?.node}`).join(' / ')}, load on ${cell!.ranOn?.loadNode}`,
      );
      // Swarm spread the two tasks over both nodes; each got its connections and served its share.
      expect(new Set(reps.map((r) => r.ranOn?.node)).size).toBe(2);
      expect(reps.map((r) => r.connections)).toEqual([2, 2]);
      expect(reps[0]!.requests + reps[1]!.requests).toBe(cell!.load!.requests);
      for (const r of reps) {
        expect(r.share).toBeGreaterThan(0.35); // both under the same 250m cap: near even (measured, logged above)
        expect(r.stats!.memLimitBytes).toBe(128 * 2 ** 20);
        expect(r.exit!.oomKilled).toBe(false);
      }
      expect(cell!.stats!.memLimitBytes).toBe(2 * 128 * 2 ** 20);
      // Every node runs a replica: the load agent shares one, and the run says so.
      expect(reps.map((r) => r.ranOn?.node)).toContain(cell!.ranOn!.loadNode);
      expect(warnings.join('\n')).toContain('the load agent shares a node with a replica');
      expect(store.getRun(out.runId)!.cells[0]!.replicas).toEqual(reps);

      expect(await provider.manager.listServices({ filters: ours() })).toEqual([]);
      await until(secondEngineEmpty, 'our containers on the second engine to be gone', 10_000, 200);
      expect(await new Docker().listContainers({ all: true, filters: ours([`${LABEL.run}=${out.runId}`]) })).toEqual([]);
    });

  });

  it('a remote engine runs a cell of 2 replicas: both containers there, the agent beside them, each share measured; nothing left', async () => {
    const provider = new DockerProvider({ name: 'far', kind: 'docker', connection: { url: second.url }, source: new Docker() });
    const out = await runMatrix(
      { name: 'remote replicas', apps: ['hello'], modes: ['cluster'], workers: [1], replicas: [2], cpuMillicores: [250], memoryMb: [128], load: PACED_LOAD, durationSec: 3, warmupSec: 0, settleBudgetPct: 0, verify: false },
      { store, provider, waitForLab: true },
    );
    expect(out.status, out.error).toBe('completed');
    const [cell] = out.cells;
    expect([cell!.status, cell!.failure]).toEqual(['ok', undefined]);
    const reps = cell!.replicas!;
    console.log(`remote hello ×2 replicas: ${cell!.load!.rpsMean.toFixed(0)} req/s, shares ${reps.map((r) => `${(r.share * 100).toFixed(1)} %`).join(' / ')}`);
    expect(reps.map((r) => r.connections)).toEqual([2, 2]);
    expect(reps[0]!.requests + reps[1]!.requests).toBe(cell!.load!.requests);
    for (const r of reps) {
      expect(Math.abs(r.share - 0.5) / 0.5).toBeLessThan(0.1); // one engine, one path: even
      expect(r.stats!.memLimitBytes).toBe(128 * 2 ** 20);
    }
    expect(cell!.ranOn).toMatchObject({ target: 'far', kind: 'docker' });
    await until(secondEngineEmpty, 'the replicas and the agent to be gone', 10_000, 200);
  });

  it('a remote engine cut off mid-cell: that cell fails as unreachable within a bound, the run goes on, leftovers removed once it is back', async () => {
    const provider = new DockerProvider({ name: 'far', kind: 'docker', connection: { url: second.url }, source: new Docker() });
    const arrivals: number[] = [];
    let cutAt = 0;
    let failedAt = 0;
    const out = await runMatrix(
      { name: 'cut', apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [250], memoryMb: [128], load: PACED_LOAD, durationSec: 12, warmupSec: 0, repetitions: 2, settleBudgetPct: 0, verify: false },
      {
        store, provider, waitForLab: true,
        onEvent: (e) => {
          if (e.type === 'sample' && e.index === 0) {
            arrivals.push(Date.now());
            // Mid-measurement: after a few seconds (their spacing is the spread the bound allows for).
            if (arrivals.length === 4) {
              cutAt = Date.now();
              second.cut();
            }
          }
          if (e.type === 'cell-finished' && e.index === 0) {
            failedAt = Date.now();
            second.restore();
          }
        },
      },
    );
    expect(cutAt).toBeGreaterThan(0);
    const [cut, after] = out.cells;
    expect(cut!.status).toBe('failed');
    expect(cut!.failure).toMatch(/^unreachable: /);
    expect(cut!.failure).not.toMatch(/exited with code/);
    expect(cut!.load).toBeUndefined();
    // The bound: the silence that means "gone", plus the agent's grace and the two bounded removals,
    // plus the largest spacing of its seconds before the cut (how late a second may be here).
    const gaps = arrivals.slice(1).map((t, i) => t - arrivals[i]!);
    const spread = Math.max(...gaps);
    const bound = LOAD_SILENCE_SEC * 1000 + 1000 + CANCEL_GRACE_MS + REMOVE_TIMEOUT_MS + UNREACHABLE_TEARDOWN_TIMEOUT_MS + 2 * spread;
    expect(failedAt - cutAt, `gaps ${gaps.join(', ')} ms`).toBeLessThan(bound);
    expect(failedAt - cutAt).toBeGreaterThanOrEqual(LOAD_SILENCE_SEC * 1000); // not before the silence said so
    // The run went on: the next cell measured on the engine once it was back; the run completed.
    expect(out.status).toBe('completed');
    expect(after!.status, after!.failure).toBe('ok');
    expect(store.getRun(out.runId)!.cells[0]!.failure).toMatch(/^unreachable: /);
    // What the cut cell left there (its target, its agent) is gone: the run's end removed it.
    await until(secondEngineEmpty, 'what the cut cell left to be gone', 15_000, 200);
    expect(await provider.removeRun(String(out.runId))).toEqual([]);
  });
});
