// The Docker provider: a remote engine reached by URL ('docker'; this machine's engine is
// providers/local). Cells run as containers with real cgroup caps; images are shipped to the
// engine with `docker save | docker load` when it lacks them (its own image cache).
import { readyWorld } from '../dependency-target.ts';
import type Docker from 'dockerode';
import { withTimeout } from '../../docker/client.ts';
import { TargetContainer } from '../../docker/containers.ts';
import { LABEL, PRODUCT } from '../../docker/labels.ts';
import { listOwnContainers, removeOwnNetworks, sweepOrphans } from '../../docker/sweep.ts';
import { planPlacement, type Placement } from '../../docker/placement.ts';
import { planReplicaPlacement, type ReplicaPlacement } from '../../docker/replica-placement.ts';
import { replicaSet, startReplicas } from '../replica-set.ts';
import { LoadAgentImages } from '../../load-agent/agent-images.ts';
import { runRemoteLoad } from '../../load-agent/remote-load.ts';
import type { LoadCallbacks } from '../../load/runner.ts';
import type { LoadPlan } from '../../load/protocol.ts';
import {
  HOST_CPU_ELSEWHERE,
  REMOTE_LOAD_SILENCE,
  type Provider,
  type ProviderCheck,
  type ProvisionedTarget,
  type RemoteLoadOutcome,
  type RemoteLoadRequest,
  type TargetSpec,
} from '../provider.ts';
import { connect, connectionProblem, engineHost, type DockerConnection } from './connection.ts';
import { shipImage } from '../../docker/ship-image.ts';
import { containerTarget } from './target.ts';
import { CellWorld } from './world.ts';
import { bandwidthCapProblem, capBandwidth, ensureShaperImage } from '../../docker/net-shaper.ts';
import { formatCpuList, parseCpuList } from '../../common/cpu-list.ts';

/** A database's first start (initdb, init scripts) within this, or the cell fails naming it. */

/** A connection check must answer quickly: a dead host must not hang the Builder. */
const CHECK_TIMEOUT_MS = 5000;

export interface DockerProviderOptions {
  name: string;
  /** Always 'docker' (kept so saved settings and tests read as they did). */
  kind?: 'docker';
  connection: DockerConnection;
  /** Where images come from when this engine lacks them (this machine's engine). */
  source?: Docker;
  /** An existing client for the connection. */
  client?: Docker;
}

/** Where a container is started on an engine: its ports, its cores, and its load's cores. */
interface ContainerPlace {
  publish: boolean;
  publishOn?: string;
  place: Placement;
  /** The engine's core count: dependencies go on cores the target and its load do not use, where there are some. */
  cores?: number;
  /** What the provisioned target carries besides the container (this machine's readings). */
  extra?: Pick<Parameters<typeof containerTarget>[2], 'local' | 'cores' | 'placementWarning'>;
}

/** What every engine reached through the Docker API shares: starting a target, removal by run, sweep. */
export abstract class EngineProvider {
  abstract readonly name: string;
  abstract readonly client: Docker;
  /** A network and fresh containers per cell (providers/docker/world.ts). */
  readonly hostsDependencies = true;
  /** Readiness is polled from here, over TLS where the cell's app serves it (docker/readiness.ts). */
  readonly servesTls = true;
  /** Each target's load cores, by target id: its load runs there. */
  protected readonly loadCpus = new Map<string, string>();
  private shaper?: Promise<string>;

  /** An image built here, made available where this engine's cells run (shipped to a remote engine). */
  abstract prepareImage(localTag: string): Promise<string>;

  /** A bandwidth cap needs this machine's `tc` (docker/net-shaper.ts), on this engine or shipped to it. */
  bandwidthCapProblem(): string | undefined {
    return bandwidthCapProblem();
  }

  /** The bandwidth cap's helper image where this engine runs it: built here, prepared there once per provider. */
  private shaperImage(): Promise<string> {
    this.shaper ??= ensureShaperImage().then((tag) => this.prepareImage(tag));
    this.shaper.catch(() => (this.shaper = undefined));
    return this.shaper;
  }

  /** A cell's container under its caps, on the cores the placement gave it, as a provisioned target. */
  protected async startContainer(spec: TargetSpec, at: ContainerPlace, shared?: CellWorld): Promise<ProvisionedTarget> {
    // Its dependencies first, ready before the app starts (Compose's `condition: service_healthy`); replicas share one.
    const own = !shared && spec.dependencies?.length ? await this.startWorld(spec, at) : undefined;
    const world = shared ?? own;
    let c: TargetContainer;
    try {
      c = await TargetContainer.start(
        {
          image: spec.image,
          launch: spec.launch,
          port: spec.port,
          env: spec.env,
          cpuMillis: spec.cpuMillis,
          memoryMb: spec.memoryMb,
          publish: at.publish,
          ...(at.publishOn ? { publishOn: at.publishOn } : {}),
          ...(at.place.targetCpus ? { cpuset: at.place.targetCpus } : {}),
          ...(world ? { network: world.network } : {}),
          labels: containerLabels(spec),
        },
        this.client,
      );
    } catch (e) {
      await own?.remove();
      throw e;
    }
    if (spec.networkMbps) {
      const labels = containerLabels(spec);
      const scope = { [LABEL.app]: labels.app, ...(labels.run ? { [LABEL.run]: labels.run } : {}) };
      try {
        await capBandwidth(this.client, await this.shaperImage(), c.id, spec.networkMbps, scope);
      } catch (e) {
        await c.remove().catch(() => {});
        await own?.remove();
        throw e;
      }
    }
    if (at.place.loadCpus) this.loadCpus.set(c.id, at.place.loadCpus);
    const together = world?.sharesCores ? sharedCoresWarning(world, at.cores, Boolean(at.place.loadCpus)) : undefined;
    const warning = [at.extra?.placementWarning, together].filter(Boolean).join('; ');
    return containerTarget(c, spec, {
      ...at.extra,
      ...(warning ? { placementWarning: warning } : {}),
      ...(world ? { dependencies: world.targets() } : {}),
      remove: async () => {
        this.loadCpus.delete(c.id);
        try {
          await c.remove();
        } finally {
          await own?.remove();
        }
      },
    });
  }

  /**
   * The cell's network and dependencies, all ready: on cores of their own where the engine has spare ones, else on
   * the load's (never the app's: its cap is what is sized, and a database on its core took half its goodput,
   * BENCHMARKS.md, Dependencies), else wherever the kernel puts them (an unpinned target).
   */
  private async startWorld(spec: TargetSpec, at: ContainerPlace): Promise<CellWorld> {
    const used = new Set([at.place.targetCpus, at.place.loadCpus].filter(Boolean).flatMap((c) => parseCpuList(c!)));
    // Only where the target is pinned: an unpinned one may run anywhere, and every core is watched.
    const spare = at.cores && at.place.targetCpus ? [...Array(at.cores).keys()].filter((c) => !used.has(c)) : [];
    const cpuset = spare.length ? formatCpuList(spare) : at.place.targetCpus ? at.place.loadCpus : undefined;
    const world = await CellWorld.start(
      {
        dependencies: spec.dependencies!,
        labels: containerLabels(spec),
        ...(cpuset ? { cpuset } : {}),
        ...(at.publish ? { publishOn: at.publishOn ?? '127.0.0.1' } : {}),
      },
      this.client,
      spare.length === 0,
    );
    return readyWorld(world, spec.signal);
  }

  /**
   * A replicated cell's containers (spec.replicas ≥ 2), all under the cell's per-replica caps, each on
   * the cores the placement gave it, as one target; its load goes on `place.loadCpus`.
   */
  protected async startReplicas(
    spec: TargetSpec,
    place: ReplicaPlacement,
    at: Omit<ContainerPlace, 'place'>,
  ): Promise<ProvisionedTarget> {
    const placed = { ...at, place: { ...(place.loadCpus ? { loadCpus: place.loadCpus } : {}) } };
    const world = spec.dependencies?.length
      ? await this.startWorld(spec, {
          ...placed,
          place: { ...placed.place, ...(place.replicaCpus ? { targetCpus: place.replicaCpus.join(',') } : {}) },
        })
      : undefined;
    let parts: ProvisionedTarget[];
    try {
      parts = await startReplicas(spec.replicas ?? 1, (i) => {
        const cpus = place.replicaCpus?.[i];
        return this.startContainer(spec, { ...at, place: cpus ? { targetCpus: cpus } : {} }, world);
      });
    } catch (e) {
      await world?.remove();
      throw e;
    }
    const set = replicaSet(parts, {
      ...(at.extra?.cores ? { cores: at.extra.cores } : {}),
      ...(place.warning ? { placementWarning: place.warning } : {}),
      ...(world ? { dependencies: world.targets() } : {}),
      remove: async () => {
        this.loadCpus.delete(set.id);
        const done = await Promise.allSettled(parts.map((p) => p.remove()));
        await world?.remove();
        const failed = done.find((d): d is PromiseRejectedResult => d.status === 'rejected');
        if (failed) throw failed.reason;
      },
    });
    if (place.loadCpus) this.loadCpus.set(set.id, place.loadCpus);
    return set;
  }

  async removeRun(runId: string): Promise<string[]> {
    const ids = await listOwnContainers({ run: runId }, this.client);
    await Promise.all(
      ids.map((id) =>
        this.client
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => {}),
      ),
    );
    const nets = await removeOwnNetworks(this.client, (l) => l[LABEL.run] === String(runId));
    return [
      ...ids.map((id) => `container ${id.slice(0, 12)} on ${this.name}`),
      ...nets.map((n) => `network ${n} on ${this.name}`),
    ];
  }

  async sweep(): Promise<string[]> {
    // sweepOrphans judges sessions with this machine's process table: every session label is ours.
    return (await sweepOrphans(this.client)).map((id) => `container ${id.slice(0, 12)} on ${this.name}`);
  }
}

/**
 * A remote engine reached by URL: its cells' load comes from an agent on that same engine, on
 * cores the target does not use (as this machine's cells do from load threads here).
 */
export class DockerProvider extends EngineProvider implements Provider {
  readonly kind = 'docker' as const;
  readonly name: string;
  readonly client: Docker;
  readonly hostCpu = HOST_CPU_ELSEWHERE;
  readonly loadSilence = REMOTE_LOAD_SILENCE;
  private readonly host: string;
  private readonly agentImages = new LoadAgentImages();
  /** The remote engine's name and cores, read once (for the cpuset split and "where the load ran"). */
  private engineFacts?: Promise<{ name: string; cpus: number }>;

  constructor(private readonly o: DockerProviderOptions) {
    super();
    this.name = o.name;
    this.client = o.client ?? connect(o.connection);
    this.host = engineHost(o.connection.url);
  }

  private facts(): Promise<{ name: string; cpus: number }> {
    this.engineFacts ??= (this.client.info() as Promise<{ Name: string; NCPU: number }>).then((i) => ({
      name: String(i.Name),
      cpus: Number(i.NCPU),
    }));
    this.engineFacts.catch(() => (this.engineFacts = undefined));
    return this.engineFacts;
  }

  lostTarget(): string {
    return `unreachable: lost the connection to ${this.name} while the target ran`;
  }

  async runLoad(
    target: ProvisionedTarget,
    plan: LoadPlan,
    cb: LoadCallbacks,
    opts: RemoteLoadRequest,
  ): Promise<RemoteLoadOutcome> {
    const where = `${this.name} (${this.o.connection.url})`;
    const [image, { name }] = await Promise.all([this.agentImages.on('engine', this.client, where), this.facts()]);
    const cpus = this.loadCpus.get(target.id);
    const result = await runRemoteLoad({ engine: this.client, where, ...(cpus ? { cpus } : {}) }, plan, cb, {
      image,
      labels: opts.labels,
    });
    return { result, node: name };
  }

  async check(): Promise<ProviderCheck> {
    try {
      const info = (await withTimeout(this.client.info(), CHECK_TIMEOUT_MS, 'no answer')) as {
        Name: string;
        NCPU: number;
        MemTotal: number;
        ServerVersion: string;
      };
      // Busy: another Rightsize session measuring there (its lab lock, or its targets running).
      const running = await this.client.listContainers({
        filters: JSON.stringify({ label: [`${LABEL.product}=${PRODUCT}`] }),
      });
      const free = running.length === 0;
      return {
        ok: free,
        problems: free
          ? []
          : [
              `no nodes free: ${running.length} Rightsize container(s) already run on ${info.Name} ` +
                `(${this.o.connection.url})`,
            ],
        nodes: [{ name: info.Name, cpus: Number(info.NCPU), memoryBytes: Number(info.MemTotal), free }],
        version: String(info.ServerVersion),
      };
    } catch (e) {
      return { ok: false, problems: [connectionProblem(this.o.connection.url, e)], nodes: [] };
    }
  }

  async prepareImage(localTag: string): Promise<string> {
    await shipImage(localTag, this.client, this.o.source, `${this.name} (${this.o.connection.url})`);
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const { cpus } = await this.facts();
    // Replicas on cores of their own where that engine has them (else together), the agent on the next.
    if ((spec.replicas ?? 1) >= 2) {
      const place = planReplicaPlacement(spec.cpuMillis, spec.replicas!, cpus, true);
      return this.startReplicas(spec, place, { publish: true, publishOn: this.host, cores: cpus });
    }
    // The target on the engine's first cores, its load agent on the next (that engine's own count).
    const place = planPlacement(spec.cpuMillis, cpus, true);
    // A remote engine's bridge IPs are not routable from here: publish on its address.
    return this.startContainer(spec, { publish: true, publishOn: this.host, place, cores: cpus });
  }
}

/** Said once per run where the dependencies could not have cores of their own. */
const sharedCoresWarning = (world: CellWorld, cores: number | undefined, onLoadCores: boolean): string =>
  `the dependencies (${world
    .targets()
    .map((d) => d.name)
    .join(', ')}) have no cores of their own` +
  `${cores ? ` (this engine has ${cores})` : ''}: ` +
  (onLoadCores ? "they share the load's, so a busy one can make the load client-bound (said so)" : 'they share') +
  "; their CPU is measured and never counted as the host's";

/** Cells run outside a stored run (tests, benchmarks) carry no run or cell label. */
export const containerLabels = (spec: TargetSpec): { app: string; run?: string; cell?: string } => ({
  app: spec.labels.app,
  ...(spec.labels.run ? { run: spec.labels.run } : {}),
  ...(spec.labels.cell ? { cell: spec.labels.cell } : {}),
});
