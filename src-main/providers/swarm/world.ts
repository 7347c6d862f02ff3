// A cell's world on a Swarm: an overlay network of its own and a service per dependency on it, reached
// by its name as in Compose (the app's service joins the network). Files a dependency mounts travel
// as Swarm configs (a node has no path of this machine's). Each dependency goes on another node than
// the app's where the Swarm has one; readiness is its health check run in its task's container, on
// that node's engine. Everything is labelled like the app's service: removeRun and the sweep find it.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { mountedFiles, type Dependency } from '../../apps/dependencies.ts';
import { dependencyTarget } from '../dependency-target.ts';
import type { DependencyTarget, StatsReading } from '../provider.ts';
import { streamReadings } from '../docker/readings.ts';
import { logText, openInside, untilReady } from '../docker/dependency-ready.ts';
import { WORLD_LABEL } from '../docker/world.ts';
import { runningTasks, untilGone, type SwarmTask } from './tasks.ts';

export interface SwarmWorldSpec {
  dependencies: readonly Dependency[];
  labels: Record<string, string>;
  /** The node the app will run on, when known: the dependencies go elsewhere if they can. */
  avoidNode?: string;
  /** The image to create a service with (an image ID where every node holds the same one). */
  imageOf: (tag: string) => string;
}

interface Member {
  dep: Dependency;
  service: string;
  node: string;
  container: Docker.Container;
}

export class SwarmWorld {
  private readonly members: Member[] = [];
  private readonly services: string[] = [];
  private readonly configs: string[] = [];

  private constructor(
    private readonly manager: Docker,
    readonly network: string,
  ) {}

  /** The network and every dependency's service, running (not yet ready: {@link ready}); on failure all removed. */
  static async start(
    manager: Docker,
    spec: SwarmWorldSpec,
    engineOf: (nodeId: string) => Docker,
    usableNodes: readonly string[],
  ): Promise<SwarmWorld> {
    const id = randomBytes(5).toString('hex');
    const net = await manager.createNetwork({
      Name: `rightsize-world-${id}`,
      Driver: 'overlay',
      Attachable: true,
      Labels: { ...spec.labels, [WORLD_LABEL.network]: 'world' },
    });
    const world = new SwarmWorld(manager, net.id);
    const elsewhere = spec.avoidNode && usableNodes.some((n) => n !== spec.avoidNode) ? spec.avoidNode : undefined;
    try {
      for (const dep of spec.dependencies) {
        const configs = [];
        for (const f of dep.mounts.flatMap(mountedFiles)) {
          const c = (await manager.createConfig({
            Name: `rightsize-${id}-${world.configs.length}`,
            Labels: spec.labels,
            Data: readFileSync(f.file).toString('base64'),
          })) as { id: string };
          world.configs.push(c.id);
          configs.push({
            File: { Name: f.target, UID: '0', GID: '0', Mode: 0o444 },
            ConfigID: c.id,
            ConfigName: `rightsize-${id}-${world.configs.length - 1}`,
          });
        }
        const nano = dep.cpuMillis * 1_000_000;
        const bytes = dep.memoryMb * 2 ** 20;
        const service = await manager.createService({
          Name: `rightsize-dep-${dep.name}-${id}`,
          Labels: { ...spec.labels, [WORLD_LABEL.dependency]: dep.name },
          TaskTemplate: {
            ContainerSpec: {
              Image: spec.imageOf(dep.image),
              ...(dep.command ? { Args: dep.command } : {}),
              Env: Object.entries(dep.env).map(([k, v]) => `${k}=${v}`),
              Labels: { ...spec.labels, [WORLD_LABEL.dependency]: dep.name },
              // Run by us until it passes (as on an engine), not by Docker through the measurement.
              HealthCheck: { Test: ['NONE'] },
              // Its data is thrown away with the cell: killed at once, as an engine's world is (remove --force).
              StopGracePeriod: 0,
              Configs: configs,
            },
            Resources: {
              Limits: { NanoCPUs: nano, MemoryBytes: bytes },
              Reservations: { NanoCPUs: nano, MemoryBytes: bytes },
            },
            RestartPolicy: { Condition: 'none' },
            Placement: { Constraints: elsewhere ? [`node.id!=${elsewhere}`] : [] },
            Networks: [{ Target: net.id, Aliases: [dep.name] }],
          },
          Mode: { Replicated: { Replicas: 1 } },
          // Its name resolves to its task's own address: no virtual IP (IPVS) between the app and its database.
          EndpointSpec: { Mode: 'dnsrr' },
        });
        world.services.push(service.id);
        const [task] = (await runningTasks(manager, service.id, 1)) as [SwarmTask];
        const container = engineOf(task.NodeID!).getContainer(task.Status.ContainerStatus!.ContainerID!);
        world.members.push({ dep, service: service.id, node: task.NodeID!, container });
      }
    } catch (e) {
      await world.remove();
      throw e;
    }
    return world;
  }

  /** Resolves once every dependency passes its health check (else its port is open inside its container). */
  ready(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    const open = (m: Member) => (): Promise<boolean> =>
      m.dep.port === undefined ? Promise.resolve(true) : openInside(m.container, m.dep.port);
    return untilReady(
      this.members.map((m) => ({ ...m, open: open(m) })),
      deadlineMs,
      signal,
    );
  }

  /** The nodes the dependencies run on: the app goes elsewhere when it can. */
  get nodes(): string[] {
    return [...new Set(this.members.map((m) => m.node))];
  }

  /** Each dependency as a target's part; `appNodes`: where the app's tasks run (its cores are then shared). */
  targets(appNodes: readonly string[]): DependencyTarget[] {
    return this.members.map((m) =>
      dependencyTarget(m.dep, {
        sharesCores: appNodes.includes(m.node),
        stats: (onReading: (r: StatsReading) => void) => streamReadings(m.container, onReading),
        logTail: (lines: number) => logText(m.container, lines),
      }),
    );
  }

  /** The services (their tasks go with them), then the configs and the network once nothing uses them. */
  async remove(): Promise<void> {
    await Promise.allSettled(this.services.map((s) => this.manager.getService(s).remove()));
    await Promise.allSettled(this.members.map((m) => untilGone(m)));
    await Promise.allSettled(this.configs.map((c) => this.manager.getConfig(c).remove()));
    await removeNetwork(this.manager, this.network);
  }
}

/**
 * Removes a network once its last task has left it, which a worker node reports seconds after its container is gone:
 * tries for up to 15 s. 'gone': already removed (Docker 20.10 answers a network being torn down with a 500 "not
 * found"); 'in-use': still attached, left to removeRun and the sweep.
 */
export async function removeNetwork(manager: Docker, id: string): Promise<'removed' | 'gone' | 'in-use'> {
  for (let i = 0; i < 60; i++) {
    const r = await manager
      .getNetwork(id)
      .remove()
      .then(
        () => 'removed' as const,
        (e: { statusCode?: number; message?: string }) =>
          e.statusCode === 404 || /not found/i.test(e.message ?? '') ? ('gone' as const) : undefined,
      );
    if (r) return r;
    await new Promise((res) => setTimeout(res, 250));
  }
  return 'in-use';
}

/** Dependencies' configs and the cells' overlay networks (once their services are gone). */
export async function removeWorlds(
  manager: Docker,
  target: string,
  labels: string[],
  keep: (l: Record<string, string>) => boolean,
): Promise<string[]> {
  type Labelled = { Id?: string; ID?: string; Name?: string; Labels?: Record<string, string>; Spec?: Labelled };
  const configs = ((await manager.listConfigs({ filters: JSON.stringify({ label: labels }) })) as Labelled[]).filter(
    (c) => !keep(c.Spec?.Labels ?? {}),
  );
  await Promise.all(
    configs.map((c) =>
      manager
        .getConfig(c.ID!)
        .remove()
        .catch(() => {}),
    ),
  );
  const nets = ((await manager.listNetworks({ filters: JSON.stringify({ label: labels }) })) as Labelled[]).filter(
    (n) => !keep(n.Labels ?? {}),
  );
  const removed = await Promise.all(nets.map((n) => removeNetwork(manager, n.Id!)));
  return [
    ...configs.map((c) => `config ${c.Spec?.Name ?? c.ID} on ${target}`),
    ...nets.filter((_, i) => removed[i] === 'removed').map((n) => `network ${n.Name} on ${target}`),
  ];
}
