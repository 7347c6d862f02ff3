// Docker Swarm: each cell a service (one replica) with CPU and memory limits equal to its
// reservations, placed by constraints, never restarted, its port published in host mode on the
// node that runs it. Swarm places the work; this provider only asks and watches. Stats, logs and
// exit come from the node's own engine (the Swarm API has no container stats).
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { withTimeout } from '../../docker/client.ts';
import { TargetContainer } from '../../docker/containers.ts';
import { LABEL, PRODUCT } from '../../docker/labels.ts';
import { launchCommand } from '../../docker/launch.ts';
import { isSessionAlive } from '../../session/session.ts';
import { connect, connectionProblem, type DockerConnection } from '../docker/connection.ts';
import { shipImage } from '../docker/ship-image.ts';
import { containerTarget } from '../docker/target.ts';
import type { Provider, ProviderCheck, ProviderNode, ProvisionedTarget, TargetSpec } from '../provider.ts';

const CHECK_TIMEOUT_MS = 5000;
/** A task that is not running by then is reported with Swarm's own words (no resources, image missing…). */
const TASK_DEADLINE_MS = 60_000;

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

interface SwarmTask {
  ID: string;
  NodeID?: string;
  DesiredState: string;
  Status: { State: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string }; PortStatus?: { Ports?: { TargetPort: number; PublishedPort: number }[] } };
}

const labelFilter = (labels: string[]): string => JSON.stringify({ label: labels });

export class SwarmProvider implements Provider {
  readonly kind = 'swarm' as const;
  readonly name: string;
  readonly manager: Docker;
  private readonly engines = new Map<string, Docker>();

  constructor(private readonly o: SwarmProviderOptions) {
    this.name = o.name;
    this.manager = connect(o.manager);
  }

  /** The node's own engine, by id first, then hostname. */
  private engineOf(node: SwarmNode): Docker {
    const key = this.o.nodeEngines[node.ID] ? node.ID : node.Description.Hostname;
    const conn = this.o.nodeEngines[key];
    if (!conn) throw new Error(`no engine URL is given for Swarm node ${node.Description.Hostname} (${node.ID.slice(0, 12)}): add it to the target's node engines`);
    let d = this.engines.get(key);
    if (!d) this.engines.set(key, (d = connect(conn)));
    return d;
  }

  private async nodes(): Promise<SwarmNode[]> {
    return (await this.manager.listNodes()) as SwarmNode[];
  }

  async check(): Promise<ProviderCheck> {
    try {
      const info = (await withTimeout(this.manager.info(), CHECK_TIMEOUT_MS, 'no answer')) as { ServerVersion: string; Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean } };
      if (info.Swarm?.LocalNodeState !== 'active') return { ok: false, problems: [`not a Swarm: the engine at ${this.o.manager.url} is not in a Swarm (${info.Swarm?.LocalNodeState ?? 'inactive'})`], nodes: [] };
      if (!info.Swarm.ControlAvailable) return { ok: false, problems: [`permissions: the engine at ${this.o.manager.url} is a Swarm worker; give a manager's URL`], nodes: [] };
      const problems: string[] = [];
      const busy = new Set(
        ((await this.manager.listTasks({ filters: JSON.stringify({ 'desired-state': ['running'], label: [`${LABEL.product}=${PRODUCT}`] }) })) as SwarmTask[]).map((t) => t.NodeID),
      );
      const nodes: ProviderNode[] = [];
      for (const n of await this.nodes()) {
        const usable = n.Status.State === 'ready' && n.Spec.Availability === 'active';
        if (!usable) problems.push(`node ${n.Description.Hostname} is ${n.Status.State}/${n.Spec.Availability}`);
        try {
          await withTimeout(this.engineOf(n).ping(), CHECK_TIMEOUT_MS, 'no answer');
        } catch (e) {
          const conn = this.o.nodeEngines[n.ID] ?? this.o.nodeEngines[n.Description.Hostname];
          problems.push(conn ? `node ${n.Description.Hostname}: ${connectionProblem(conn.url, e)}` : (e as Error).message);
        }
        nodes.push({ name: n.Description.Hostname, cpus: n.Description.Resources.NanoCPUs / 1e9, memoryBytes: n.Description.Resources.MemoryBytes, free: usable && !busy.has(n.ID) });
      }
      if (!nodes.some((n) => n.free)) problems.push('no nodes free: every node is down, drained or already running a Rightsize cell');
      return { ok: problems.length === 0, problems, nodes, version: String(info.ServerVersion) };
    } catch (e) {
      return { ok: false, problems: [connectionProblem(this.o.manager.url, e)], nodes: [] };
    }
  }

  async prepareImage(localTag: string): Promise<string> {
    for (const n of await this.nodes()) await shipImage(localTag, this.engineOf(n), this.o.source, `Swarm node ${n.Description.Hostname}`);
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const { cmd, env } = launchCommand(spec.launch);
    const labels = {
      [LABEL.product]: PRODUCT, [LABEL.session]: spec.labels.session, [LABEL.run]: spec.labels.run, [LABEL.cell]: spec.labels.cell, [LABEL.app]: spec.labels.app,
    };
    const nano = spec.cpuMillis * 1_000_000;
    const bytes = spec.memoryMb * 1024 * 1024;
    const constraints = [
      ...(spec.placement?.node ? [`node.id==${spec.placement.node}`] : []),
      ...(spec.placement?.avoidNode ? [`node.id!=${spec.placement.avoidNode}`] : []),
    ];
    const service = await this.manager.createService({
      Name: `rightsize-${spec.labels.run}-${spec.labels.cell}-${randomBytes(3).toString('hex')}`,
      Labels: labels,
      TaskTemplate: {
        ContainerSpec: {
          Image: spec.image,
          ...(cmd ? { Command: cmd } : {}),
          Env: Object.entries({ ...spec.env, ...env, PORT: String(spec.port) }).map(([k, v]) => `${k}=${v}`),
          Labels: labels, // on the task's container too: the node's own sweep finds it
        },
        // Limits = reservations: the cell gets what it is capped at, and Swarm will not overcommit a node.
        Resources: { Limits: { NanoCPUs: nano, MemoryBytes: bytes }, Reservations: { NanoCPUs: nano, MemoryBytes: bytes } },
        RestartPolicy: { Condition: 'none' },
        Placement: { Constraints: constraints },
      },
      // Host mode: the port opens on the node that runs the task, without the routing mesh in the path.
      EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: spec.port, PublishMode: 'host' }] },
    });
    const removeService = async (): Promise<void> => {
      await service.remove().catch((e: { statusCode?: number }) => {
        if (e.statusCode !== 404) throw e;
      });
    };
    try {
      const task = await this.runningTask(service.id);
      const node = (await this.nodes()).find((n) => n.ID === task.NodeID)!;
      const published = task.Status.PortStatus?.Ports?.find((p) => p.TargetPort === spec.port)?.PublishedPort;
      if (!published) throw new Error(`Swarm published no port for ${spec.port} on ${node.Description.Hostname}`);
      const engine = this.engineOf(node);
      const c = await TargetContainer.attach(engine, task.Status.ContainerStatus!.ContainerID!, { host: node.Status.Addr, port: published });
      return containerTarget(c, {
        node: node.Description.Hostname,
        remove: async () => {
          await removeService();
          // The task's container goes with the service; wait (bounded) so the node is free for the next cell.
          for (let i = 0; i < 100 && (await c.container.inspect().then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 100));
        },
      });
    } catch (e) {
      await removeService();
      throw e;
    }
  }

  /** The service's task once it runs, or Swarm's reason it does not. */
  private async runningTask(serviceId: string): Promise<SwarmTask> {
    const deadline = Date.now() + TASK_DEADLINE_MS;
    let last: SwarmTask | undefined;
    while (Date.now() < deadline) {
      const tasks = (await this.manager.listTasks({ filters: JSON.stringify({ service: [serviceId] }) })) as SwarmTask[];
      last = tasks[0];
      if (last?.Status.State === 'running' && last.Status.ContainerStatus?.ContainerID) return last;
      if (last && ['failed', 'rejected', 'complete', 'shutdown', 'orphaned'].includes(last.Status.State)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const why = last ? `${last.Status.State}: ${last.Status.Err ?? last.Status.Message ?? ''}` : 'no task was created';
    throw new Error(`the Swarm did not run the cell's service (${why.trim()})`);
  }

  private async removeServices(labels: string[], keep: (l: Record<string, string>) => boolean = () => false): Promise<string[]> {
    const services = (await this.manager.listServices({ filters: labelFilter(labels) })) as { ID: string; Spec: { Name: string; Labels?: Record<string, string> } }[];
    const gone = services.filter((s) => !keep(s.Spec.Labels ?? {}));
    await Promise.all(gone.map((s) => this.manager.getService(s.ID).remove().catch(() => {})));
    return gone.map((s) => `service ${s.Spec.Name} on ${this.name}`);
  }

  removeRun(runId: string): Promise<string[]> {
    return this.removeServices([`${LABEL.product}=${PRODUCT}`, `${LABEL.run}=${runId}`]);
  }

  sweep(isAlive: (session: string) => boolean = isSessionAlive): Promise<string[]> {
    return this.removeServices([`${LABEL.product}=${PRODUCT}`], (l) => isAlive(l[LABEL.session] ?? ''));
  }
}
