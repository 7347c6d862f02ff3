// Docker Swarm: each cell a service (one replica, or the cell's replicas) with CPU and memory limits equal to its
// reservations, placed by constraints, never restarted, its port published in host mode on the
// node that runs it. Swarm places the work; this provider only asks and watches. Stats, logs and
// exit come from the node's own engine (the Swarm API has no container stats).
import { readyWorld } from '../dependency-target.ts';
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { withTimeout } from '../../docker/client.ts';
import { TargetContainer } from '../../docker/containers.ts';
import { LABEL, ownFilters, ownLabels, PRODUCT } from '../../docker/labels.ts';
import { launchCommand } from '../../docker/launch.ts';
import { isSessionAlive } from '../../session/session.ts';
import { connect, connectionProblem, type DockerConnection } from '../docker/connection.ts';
import { shipImage } from '../../docker/ship-image.ts';
import { containerTarget } from '../docker/target.ts';
import { replicaSet } from '../replica-set.ts';
import { runningTasks, sharedAgentWords, untilGone, type SwarmTask } from './tasks.ts';
import { removeWorlds, SwarmWorld } from './world.ts';
import { untilNamesResolve } from './names-resolve.ts';
import { LoadAgentImages } from '../../load-agent/agent-images.ts';
import { removeLoadAgents } from '../../load-agent/leftovers.ts';
import { runRemoteLoad } from '../../load-agent/remote-load.ts';
import type { LoadCallbacks } from '../../load/runner.ts';
import type { LoadPlan } from '../../load/protocol.ts';
import {
  HOST_CPU_ELSEWHERE,
  REMOTE_LOAD_SILENCE,
  type Provider,
  type ProviderCheck,
  type ProviderNode,
  type ProvisionedTarget,
  type RemoteLoadOutcome,
  type RemoteLoadRequest,
  type TargetSpec,
} from '../provider.ts';

const CHECK_TIMEOUT_MS = 5000;

export interface SwarmProviderOptions {
  name: string;
  /** A manager's engine. */
  manager: DockerConnection;
  /** Each node's own engine, by node id or hostname: for images, stats, logs and exit. */
  nodeEngines: Record<string, DockerConnection>;
  /** Where images come from (this machine's engine). */
  source?: Docker;
}

interface SwarmNode {
  ID: string;
  Description: { Hostname: string; Resources: { NanoCPUs: number; MemoryBytes: number } };
  Status: { State: string; Addr: string };
  Spec: { Availability: string };
}

const labelFilter = (labels: string[]): string => JSON.stringify({ label: labels });

/** A node's name for "where it ran": its hostname, with its id when another node has the same hostname. */
function nodeName(n: SwarmNode, all: SwarmNode[]): string {
  const twin = all.some((o) => o.ID !== n.ID && o.Description.Hostname === n.Description.Hostname);
  return twin ? `${n.Description.Hostname}#${n.ID.slice(0, 12)}` : n.Description.Hostname;
}

const usable = (n: SwarmNode): boolean => n.Status.State === 'ready' && n.Spec.Availability === 'active';

export class SwarmProvider implements Provider {
  readonly kind = 'swarm' as const;
  readonly hostCpu = HOST_CPU_ELSEWHERE;
  readonly loadSilence = REMOTE_LOAD_SILENCE;
  /** Services on an overlay network of the cell's own (providers/swarm/world.ts). */
  readonly hostsDependencies = true;
  readonly name: string;
  readonly manager: Docker;
  private readonly engines = new Map<string, Docker>();
  private readonly agentImages = new LoadAgentImages();
  /** Each shipped tag's image ID, where every node holds the same image: what services are created with. */
  private readonly imageIds = new Map<string, string>();
  /** The free nodes concurrency() counted, one per pool slot. */
  private slots: string[] = [];

  constructor(private readonly o: SwarmProviderOptions) {
    this.name = o.name;
    this.manager = connect(o.manager);
  }

  lostTarget(): string {
    return `unreachable: lost the connection to ${this.name} while the target ran`;
  }

  /** The node's own engine, by id first, then hostname. */
  private engineOf(node: SwarmNode): Docker {
    const key = this.o.nodeEngines[node.ID] ? node.ID : node.Description.Hostname;
    const conn = this.o.nodeEngines[key];
    if (!conn)
      throw new Error(
        `no engine URL is given for Swarm node ${node.Description.Hostname} (${node.ID.slice(0, 12)}): ` +
          "add it to the target's node engines",
      );
    let d = this.engines.get(key);
    if (!d) this.engines.set(key, (d = connect(conn)));
    return d;
  }

  private async nodes(): Promise<SwarmNode[]> {
    return (await this.manager.listNodes()) as SwarmNode[];
  }

  async check(): Promise<ProviderCheck> {
    try {
      const info = (await withTimeout(this.manager.info(), CHECK_TIMEOUT_MS, 'no answer')) as {
        ServerVersion: string;
        Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean };
      };
      if (info.Swarm?.LocalNodeState !== 'active')
        return {
          ok: false,
          problems: [
            `not a Swarm: the engine at ${this.o.manager.url} ` +
              `is not in a Swarm (${info.Swarm?.LocalNodeState ?? 'inactive'})`,
          ],
          nodes: [],
        };
      if (!info.Swarm.ControlAvailable)
        return {
          ok: false,
          problems: [`permissions: the engine at ${this.o.manager.url} is a Swarm worker; give a manager's URL`],
          nodes: [],
        };
      const problems: string[] = [];
      const busy = new Set(
        (
          (await this.manager.listTasks({
            filters: JSON.stringify({ 'desired-state': ['running'], label: [`${LABEL.product}=${PRODUCT}`] }),
          })) as SwarmTask[]
        ).map((t) => t.NodeID),
      );
      const nodes: ProviderNode[] = [];
      const all = await this.nodes();
      for (const n of all) {
        if (!usable(n)) problems.push(`node ${n.Description.Hostname} is ${n.Status.State}/${n.Spec.Availability}`);
        try {
          await withTimeout(this.engineOf(n).ping(), CHECK_TIMEOUT_MS, 'no answer');
        } catch (e) {
          const conn = this.o.nodeEngines[n.ID] ?? this.o.nodeEngines[n.Description.Hostname];
          problems.push(
            conn ? `node ${n.Description.Hostname}: ${connectionProblem(conn.url, e)}` : (e as Error).message,
          );
        }
        nodes.push({
          name: nodeName(n, all),
          cpus: n.Description.Resources.NanoCPUs / 1e9,
          memoryBytes: n.Description.Resources.MemoryBytes,
          free: usable(n) && !busy.has(n.ID),
        });
      }
      if (!nodes.some((n) => n.free))
        problems.push('no nodes free: every node is down, drained or already running a Rightsize cell');
      return { ok: problems.length === 0, problems, nodes, version: String(info.ServerVersion) };
    } catch (e) {
      return { ok: false, problems: [connectionProblem(this.o.manager.url, e)], nodes: [] };
    }
  }

  async prepareImage(localTag: string): Promise<string> {
    const ids = new Set<string>();
    for (const n of await this.nodes()) {
      await shipImage(localTag, this.engineOf(n), this.o.source, `Swarm node ${n.Description.Hostname}`);
      ids.add(String((await this.engineOf(n).getImage(localTag).inspect()).Id));
    }
    // A service named by image ID skips the registry lookup each task makes for a tag (seconds per
    // task where no registry answers); by tag only where the nodes' copies differ.
    if (ids.size === 1) this.imageIds.set(localTag, [...ids][0]!);
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const { cmd, env } = launchCommand(spec.launch);
    const labels = {
      ...ownLabels(),
      [LABEL.session]: spec.labels.session,
      [LABEL.run]: spec.labels.run,
      [LABEL.cell]: spec.labels.cell,
      [LABEL.app]: spec.labels.app,
    };
    const nano = spec.cpuMillis * 1_000_000;
    const bytes = spec.memoryMb * 1024 * 1024;
    const constraints = [
      ...(spec.placement?.node ? [`node.id==${spec.placement.node}`] : []),
      ...(spec.placement?.avoidNode ? [`node.id!=${spec.placement.avoidNode}`] : []),
    ];
    const replicas = Math.max(1, spec.replicas ?? 1);
    // Its dependencies first, ready before the app starts; the app then avoids their node where it can.
    const world = spec.dependencies?.length ? await this.startWorld(spec, labels) : undefined;
    const all = await this.nodes();
    const apart = world?.nodes.length === 1 && !spec.placement?.node ? world.nodes[0] : undefined;
    if (apart && all.filter(usable).some((n) => n.ID !== apart)) constraints.push(`node.id!=${apart}`);
    const service = await this.manager.createService({
      Name: `rightsize-${spec.labels.run}-${spec.labels.cell}-${randomBytes(3).toString('hex')}`,
      Labels: labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: this.imageIds.get(spec.image) ?? spec.image,
          ...(cmd ? { Command: cmd } : {}),
          Env: Object.entries({ ...spec.env, ...env, PORT: String(spec.port) }).map(([k, v]) => `${k}=${v}`),
          Labels: labels, // on the task's container too: the node's own sweep finds it
        },
        // Limits = reservations: the cell gets what it is capped at, and Swarm will not overcommit a node.
        Resources: {
          Limits: { NanoCPUs: nano, MemoryBytes: bytes },
          Reservations: { NanoCPUs: nano, MemoryBytes: bytes },
        },
        RestartPolicy: { Condition: 'none' },
        Placement: { Constraints: constraints },
        ...(world ? { Networks: [{ Target: world.network }] } : {}),
      },
      // R replicas: Swarm spreads them over the nodes; the load reaches each task at its own port, per connection.
      Mode: { Replicated: { Replicas: replicas } },
      // Host mode: the port opens on the node that runs the task, without the routing mesh in the path.
      EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: spec.port, PublishMode: 'host' }] },
    });
    const removeService = async (): Promise<void> => {
      await service.remove().catch((e: { statusCode?: number }) => {
        if (e.statusCode !== 404) throw e;
      });
    };
    try {
      const tasks = await runningTasks(this.manager, service.id, replicas);
      const containers = await Promise.all(tasks.map((task) => this.taskContainer(task, all, spec.port)));
      // A failure here is the cell's: the catch below removes the service and the world.
      const names = spec.dependencies?.map((d) => d.name) ?? [];
      const inside = containers.map(({ c }) => c.container);
      if (world) await untilNamesResolve(inside, names, spec.signal);
      // The tasks' containers go with the service; wait (bounded) so the nodes are free for the next cell.
      const remove = async (): Promise<void> => {
        // The world at the same time: its network waits for the app's tasks to leave it (world.ts removeNetwork).
        const app = (async () => {
          await removeService();
          await Promise.all(containers.map(({ c }) => untilGone(c)));
        })();
        await Promise.all([app, world?.remove()]);
      };
      const dependencies = world ? { dependencies: world.targets(tasks.map((t) => t.NodeID ?? '')) } : {};
      const parts = containers.map(({ c, node }) => containerTarget(c, spec, { node, remove, ...dependencies }));
      if (replicas === 1) return parts[0]!;
      const free = all.filter(usable).some((n) => !tasks.some((t) => t.NodeID === n.ID));
      return replicaSet(parts, {
        remove,
        ...dependencies,
        ...(free ? {} : { placementWarning: sharedAgentWords(parts.map((p) => p.node ?? '')) }),
      });
    } catch (e) {
      await removeService();
      await world?.remove();
      throw e;
    }
  }

  /** The cell's overlay network and dependencies, all ready; on another node than the app's slot where one is free. */
  private async startWorld(spec: TargetSpec, labels: Record<string, string>): Promise<SwarmWorld> {
    const all = await this.nodes();
    const world = await SwarmWorld.start(
      this.manager,
      {
        dependencies: spec.dependencies!,
        labels,
        ...(spec.placement?.node ? { avoidNode: spec.placement.node } : {}),
        imageOf: (tag) => this.imageIds.get(tag) ?? tag,
      },
      (id) => this.engineOf(all.find((n) => n.ID === id)!),
      all.filter(usable).map((n) => n.ID),
    );
    return readyWorld(world, spec.signal);
  }

  /** A running task's container on its node's own engine, reached at its host-mode port. */
  private async taskContainer(
    task: SwarmTask,
    all: SwarmNode[],
    port: number,
  ): Promise<{ c: TargetContainer; node: string }> {
    const node = all.find((n) => n.ID === task.NodeID)!;
    const published = task.Status.PortStatus?.Ports?.find((p) => p.TargetPort === port)?.PublishedPort;
    if (!published) throw new Error(`Swarm published no port for ${port} on ${node.Description.Hostname}`);
    const c = await TargetContainer.attach(this.engineOf(node), task.Status.ContainerStatus!.ContainerID!, {
      host: node.Status.Addr,
      port: published,
    });
    return { c, node: nodeName(node, all) };
  }

  /**
   * Cells at once: each target alone on a free node, its load on another node, so with N ≥ 2 free
   * nodes N cells run together; with one node there is no elsewhere for the load, so one at a time.
   */
  async concurrency(): Promise<number> {
    const busy = new Set(
      (
        (await this.manager.listTasks({
          filters: JSON.stringify({ 'desired-state': ['running'], label: [`${LABEL.product}=${PRODUCT}`] }),
        })) as SwarmTask[]
      ).map((t) => t.NodeID),
    );
    this.slots = (await this.nodes())
      .filter((n) => usable(n) && !busy.has(n.ID))
      .map((n) => n.ID)
      .sort();
    return this.slots.length >= 2 ? this.slots.length : 1;
  }

  /** Slot i's targets on free node i (when several run at once); Swarm picks when one does. */
  placement(slot: number, k: number): TargetSpec['placement'] | undefined {
    const node = k >= 2 ? this.slots[slot] : undefined;
    return node ? { node } : undefined;
  }

  /**
   * The load agent as a plain container on another node's engine than the target's (host network:
   * it reaches the target at its host-mode port), with the target's labels; the same node only
   * when the Swarm has no other usable node.
   */
  async runLoad(
    target: ProvisionedTarget,
    plan: LoadPlan,
    cb: LoadCallbacks,
    opts: RemoteLoadRequest,
  ): Promise<RemoteLoadOutcome> {
    const all = await this.nodes();
    const candidates = all.filter(usable).sort((a, b) => a.ID.localeCompare(b.ID));
    const at = all.find((n) => nodeName(n, all) === (opts.targetNode ?? target.node));
    // The next node after the target's, so that with K targets on K nodes each node carries one load.
    const i = at ? candidates.findIndex((n) => n.ID === at.ID) : -1;
    // Replicas: a node running none of them, where the Swarm has one.
    const taken = new Set((target.replicas ?? [target]).map((t) => t.node));
    const others = candidates.filter((n) => n.ID !== at?.ID && !taken.has(nodeName(n, all)));
    const next = i >= 0 ? candidates[(i + 1) % candidates.length] : undefined;
    const node = others.length ? (next && others.includes(next) ? next : others[0]!) : candidates[0];
    if (!node) throw new Error(`no usable Swarm node on ${this.name} for the load agent`);
    const engine = this.engineOf(node);
    const where = `Swarm node ${nodeName(node, all)}`;
    const image = await this.agentImages.on(node.ID, engine, where);
    const result = await runRemoteLoad({ engine, where }, plan, cb, { image, labels: opts.labels });
    return { result, node: nodeName(node, all) };
  }

  /** Load agents on every node's own engine (they are containers, not services). Unreachable nodes are skipped. */
  private async removeAgents(which: Parameters<typeof removeLoadAgents>[1]): Promise<string[]> {
    const all = await this.nodes();
    const removed = await Promise.all(
      all.map(async (n) => {
        try {
          const ids = await withTimeout(removeLoadAgents(this.engineOf(n), which), CHECK_TIMEOUT_MS * 2, 'no answer');
          return ids.map((id) => `load agent ${id.slice(0, 12)} on ${nodeName(n, all)}`);
        } catch {
          return [];
        }
      }),
    );
    return removed.flat();
  }

  private async removeServices(
    labels: string[],
    keep: (l: Record<string, string>) => boolean = () => false,
  ): Promise<string[]> {
    const services = (await this.manager.listServices({ filters: labelFilter(labels) })) as {
      ID: string;
      Spec: { Name: string; Labels?: Record<string, string> };
    }[];
    const gone = services.filter((s) => !keep(s.Spec.Labels ?? {}));
    await Promise.all(
      gone.map((s) =>
        this.manager
          .getService(s.ID)
          .remove()
          .catch(() => {}),
      ),
    );
    return [
      ...gone.map((s) => `service ${s.Spec.Name} on ${this.name}`),
      ...(await removeWorlds(this.manager, this.name, labels, keep)),
    ];
  }

  async removeRun(runId: string): Promise<string[]> {
    return [
      ...(await this.removeServices([`${LABEL.product}=${PRODUCT}`, `${LABEL.run}=${runId}`])),
      ...(await this.removeAgents({ run: runId })),
    ];
  }

  async sweep(isAlive: (session: string) => boolean = isSessionAlive): Promise<string[]> {
    return [
      ...(await this.removeServices(ownFilters(), (l) => isAlive(l[LABEL.session] ?? ''))),
      ...(await this.removeAgents({ isAlive })),
    ];
  }
}
