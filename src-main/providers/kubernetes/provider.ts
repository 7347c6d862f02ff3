// The Kubernetes provider: the user's kubeconfig and context, a namespace per run, a Deployment per
// cell with requests = limits, readiness and exit facts from the pod status, stats from the kubelet
// through the API server's node proxy, each cell's load as a load-agent pod on another node, images
// pushed to the target's registry. Verified here against recorded API responses replayed by a fake
// API server (tests/unit/k8s-*.test.ts), not against a live cluster: no API server runs on this
// machine. `rightsize targets check NAME` and the `quick` preset check a real one.
//
// Reaching the target is the load agent's job: the address is the pod IP and container port,
// reachable from inside the cluster (pod network), which is where the load agent runs, so no
// Service is made. A load generator outside the cluster would need a Service (NodePort /
// LoadBalancer) or a port-forward, whose extra hop would be measured too.
import type { V1Node } from '@kubernetes/client-node';
import type Docker from 'dockerode';
import { docker } from '../../docker/client.ts';
import { PRODUCT } from '../../docker/labels.ts';
import { agentPlanFor } from '../../load-agent/agent-stream.ts';
import type { LoadCallbacks } from '../../load/runner.ts';
import type { LoadPlan } from '../../load/protocol.ts';
import { threadCount } from '../../load/threads.ts';
import {
  HOST_CPU_ELSEWHERE,
  REMOTE_LOAD_SILENCE,
  type Provider,
  type ProviderCheck,
  type ProvisionedTarget,
  type RemoteLoadOutcome,
  type RemoteLoadRequest,
} from '../provider.ts';
import { checkCluster, describeError, nodeBusyReason, unschedulableReason } from './check.ts';
import { connect, httpStatus, type Cluster, type ClusterRef } from './client.ts';
import { LoadPod } from './load-pod.ts';
import {
  K8S_LABEL,
  deploymentFor,
  deploymentManifest,
  namespaceFor,
  type KubernetesTargetSpec,
  type Spread,
} from './manifests.ts';
import { pushToRegistry, type RegistryRef } from './registry-push.ts';
import { KubernetesWorld } from './dependencies.ts';
import { replicaSet } from '../replica-set.ts';
import { KubernetesTarget } from './target.ts';
import {
  deleteDeployment,
  ensureNamespace,
  removeRunNamespace,
  sweepNamespaces,
  type NamespaceTiming,
} from './namespaces.ts';

/** Load threads per load pod when the plan names none (a core each: loadResources). */
const DEFAULT_LOAD_THREADS = 2;

/** Where the images a cluster pulls come from: an engine, and the load agent's image built on it. */
export interface ImageSource {
  engine: () => Docker;
  /** The load agent's image on that engine (built on the base image if missing); returns its local tag. */
  loadAgentImage: () => Promise<string>;
}

/** This machine's engine, the agent image as Docker targets build it (its builder loaded on use). */
const LOCAL_IMAGES: ImageSource = {
  engine: docker,
  loadAgentImage: async () => {
    const [{ ensureBaseImage }, { ensureLoadAgentImage }] = await Promise.all([
      import('../../docker/base-image.ts'),
      import('../../load-agent/image.ts'),
    ]);
    return ensureLoadAgentImage(await ensureBaseImage());
  },
};

export interface KubernetesOptions extends ClusterRef {
  /** The target's name as the user saved it. */
  name: string;
  /** Anti-affinity against load agents and other targets: `required` (default) or `preferred` (one-node clusters). */
  spread?: Spread;
  /** How long a cell may take to be scheduled, pull its image and start (default 5 min: a cold image pull). */
  readyTimeoutMs?: number;
  /** How long removal waits for the objects to be gone (default 2 min). */
  removeTimeoutMs?: number;
  /** Pod status polling while starting and while running (exit watch); default 1 s. */
  pollMs?: number;
  /**
   * Stats polling; default 1 s. The kubelet refreshes its numbers every 10-15 s (cAdvisor housekeeping): a reading is
   * passed on only when it is new.
   */
  statsEveryMs?: number;
  /** The run namespaces' prefix (the saved target's `namespacePrefix`); default "rightsize": rightsize-run-ID. */
  namespacePrefix?: string;
  /**
   * Where images are pushed for the nodes to pull (the saved target's `registry` and `registryAuth`). Without it, runs
   * are refused.
   */
  registry?: RegistryRef;
  /** Load threads per load pod when the plan names none (default 2, a core each). */
  loadThreads?: number;
  /** How long a stopped load agent has to report (default 10 s, within the load pod's 15 s grace). */
  loadGraceMs?: number;
  /** Where images come from (tests give their own); default this machine's engine. */
  images?: ImageSource;
}

export class KubernetesProvider implements Provider {
  readonly kind = 'kubernetes' as const;
  readonly hostCpu = HOST_CPU_ELSEWHERE;
  /** A Deployment and a Service each, in the run's namespace (kubernetes/dependencies.ts). */
  readonly hostsDependencies = true;

  /** A dependency is reached through a Service of its own, which needs its port. */
  dependencyProblems(deps: readonly { name: string; port?: number | undefined }[]): string[] {
    return deps
      .filter((d) => d.port === undefined)
      .map((d) => `on Kubernetes ${d.name} is reached through a Service: give its port ("port")`);
  }
  /**
   * A load pod is scheduled and its image pulled before its first second: as long as a target pod may take to start.
   */
  get loadSilence(): Provider['loadSilence'] {
    return { startSec: this.readyTimeoutMs / 1000, betweenSec: REMOTE_LOAD_SILENCE.betweenSec };
  }

  lostTarget(): string {
    return `the target's pod went away while it ran (evicted, deleted or its node lost) on ${this.name}`;
  }
  readonly name: string;
  private cluster?: Promise<Cluster>;
  private readonly spread: Spread;
  private readonly readyTimeoutMs: number;
  private readonly removeTimeoutMs: number;
  private readonly pollMs: number;
  private readonly statsEveryMs: number;
  private readonly images: ImageSource;
  /** Local tag → the registry reference it was pushed as (provision is given the local tag). */
  private readonly pushed = new Map<string, Promise<string>>();
  private agentImage?: Promise<string>;

  constructor(private readonly opts: KubernetesOptions) {
    this.images = opts.images ?? LOCAL_IMAGES;
    this.name = opts.name;
    this.spread = opts.spread ?? 'required';
    this.readyTimeoutMs = opts.readyTimeoutMs ?? 300_000;
    this.removeTimeoutMs = opts.removeTimeoutMs ?? 120_000;
    this.pollMs = opts.pollMs ?? 1000;
    this.statsEveryMs = opts.statsEveryMs ?? 1000;
  }

  /** The connection, made once; a failed one (no kubeconfig, unknown context) is tried again next time. */
  private conn(): Promise<Cluster> {
    this.cluster ??= connect(this.opts).catch((e: unknown) => {
      this.cluster = undefined;
      throw e;
    });
    return this.cluster;
  }

  async check(): Promise<ProviderCheck> {
    let c: Cluster;
    try {
      c = await this.conn();
    } catch (e) {
      return { ok: false, problems: [`The kubeconfig could not be used: ${(e as Error).message}`], nodes: [] };
    }
    return checkCluster(c, this.spread);
  }

  /**
   * A cluster's nodes pull images from a registry: the image built here is tagged under the target's
   * registry and pushed there, and so is the load agent's image (once per provider), so that every
   * cell's load can run in the cluster. Without a registry nothing can run: refused in words, naming
   * the setting. Returns the reference the nodes pull.
   */
  async prepareImage(localTag: string): Promise<string> {
    const ref = await this.push(localTag);
    await this.agent();
    return ref;
  }

  private registry(): RegistryRef {
    if (!this.opts.registry) {
      throw new Error(
        `The Kubernetes target "${this.name}" has no registry: its nodes pull images ` +
          "(the app's and the load agent's) from one, and Rightsize pushes them there. " +
          "Set the target's `registry` setting (e.g. registry.example.com/rightsize, and `registryAuth`: " +
          'the path of a Docker config.json, if it needs a login): remove the target and add it again with it.',
      );
    }
    return this.opts.registry;
  }

  /** Pushed once per local tag and provider; a failed push is tried again next time. */
  private push(localTag: string): Promise<string> {
    const registry = this.registry();
    let p = this.pushed.get(localTag);
    if (!p) {
      p = pushToRegistry(this.images.engine(), localTag, registry);
      this.pushed.set(localTag, p);
      p.catch(() => this.pushed.delete(localTag));
    }
    return p;
  }

  /** The load agent's image as the nodes pull it. */
  private agent(): Promise<string> {
    this.registry();
    if (!this.agentImage) {
      this.agentImage = this.images.loadAgentImage().then((tag) => this.push(tag));
      this.agentImage.catch(() => (this.agentImage = undefined));
    }
    return this.agentImage;
  }

  async provision(given: KubernetesTargetSpec): Promise<ProvisionedTarget> {
    const c = await this.conn();
    const where = { server: c.server, context: c.context };
    // The cell runner passes the tag it built here: the nodes pull what prepareImage pushed.
    const pushed = this.pushed.get(given.image);
    const spec: KubernetesTargetSpec = pushed ? { ...given, image: await pushed } : given;
    const prefix = this.opts.namespacePrefix;
    const namespace = namespaceFor(spec.labels.run, prefix);
    const name = deploymentFor(spec.labels.cell);
    const timings = {
      pollMs: this.pollMs,
      statsEveryMs: this.statsEveryMs,
      removeTimeoutMs: this.removeTimeoutMs,
      ...(prefix ? { namespacePrefix: prefix } : {}),
    };
    let world: KubernetesWorld | undefined;
    try {
      await ensureNamespace(c, this.timing(), spec);
      // Its dependencies first, Ready before the app starts; the app reaches each by its name (hostAliases).
      if (spec.dependencies?.length)
        world = await KubernetesWorld.start(c, spec, { ...timings, readyTimeoutMs: this.readyTimeoutMs }).catch(
          (e: Error) => {
            throw new Error(`a dependency was not ready: ${e.message}`);
          },
        );
      const body = deploymentManifest(spec, {
        spread: this.spread,
        ...(prefix ? { namespacePrefix: prefix } : {}),
        ...(world ? { hostAliases: world.hostAliases } : {}),
      });
      try {
        await c.apps.createNamespacedDeployment({ namespace, body });
      } catch (e) {
        if (httpStatus(e) !== 409) throw e;
        // Left by an attempt of the same cell that did not clean up: replace it.
        await deleteDeployment(c, this.timing(), namespace, name);
        await c.apps.createNamespacedDeployment({ namespace, body });
      }
    } catch (e) {
      await world?.remove();
      throw new Error(`Could not start cell ${spec.labels.cell} on ${this.name}: ${describeError(e, where)}`);
    }
    // A replicated cell: one Deployment of R pods, each followed as a target of its own, the load over their IPs.
    const of = Math.max(1, spec.replicas ?? 1);
    const parts = Array.from(
      { length: of },
      (_, index) => new KubernetesTarget(c, spec, { ...timings, ...(of > 1 ? { replica: { index, of } } : {}) }),
    );
    try {
      await Promise.all(parts.map((t) => t.waitPodReady(this.readyTimeoutMs)));
    } catch (e) {
      await Promise.all(parts.map((t) => t.remove().catch(() => {})));
      await world?.remove();
      throw e;
    }
    if (!world) return of > 1 ? replicaSet(parts) : parts[0]!;
    const dependencies = world.targets(parts.map((t) => t.node ?? ''));
    if (of === 1) return parts[0]!.withWorld(dependencies, () => world.remove());
    return replicaSet(parts, {
      dependencies,
      remove: async () => {
        await Promise.all(parts.map((t) => t.remove()));
        await world.remove();
      },
    });
  }

  /**
   * A cell's load as a load-agent pod in the run's namespace (load-pod.ts), away from the target's
   * node: required where the cluster has another schedulable node, else preferred (a one-node
   * cluster: the load shares the node, as it must). The plan's cores on this machine mean nothing
   * there: the pod gets its own (a core per load thread, requests = limits).
   */
  async runLoad(
    target: ProvisionedTarget,
    plan: LoadPlan,
    cb: LoadCallbacks,
    req: RemoteLoadRequest,
  ): Promise<RemoteLoadOutcome> {
    const threads = threadCount({
      load: plan.load,
      threads: plan.threads ?? this.opts.loadThreads ?? DEFAULT_LOAD_THREADS,
    });
    const { cpus: _coresHere, ...rest } = plan;
    const agentPlan = agentPlanFor(
      { ...rest, host: plan.host || target.address.host, port: plan.port || target.address.port },
      cb,
      { threads },
    );
    const image = await this.agent(); // no registry, no agent image: refused before anything is made
    const c = await this.conn();
    const schedulable = (await c.core.listNode()).items.filter(
      (n: V1Node) => unschedulableReason(n) === undefined,
    ).length;
    const targetNode = req.targetNode ?? target.node;
    // A replicated target: away from every replica's node where the cluster has a node without one.
    const targetNodes = target.replicas?.map((r) => r.node).filter((n): n is string => Boolean(n));
    const prefix = this.opts.namespacePrefix;
    const pod = new LoadPod(
      c,
      {
        labels: req.labels,
        image,
        plan: agentPlan,
        threads,
        ...(targetNodes?.length ? { targetNodes } : targetNode ? { targetNode } : {}),
        avoid: schedulable > (targetNodes?.length || 1) ? 'required' : 'preferred',
        ...(prefix ? { namespacePrefix: prefix } : {}),
      },
      {
        pollMs: this.pollMs,
        startTimeoutMs: this.readyTimeoutMs,
        removeTimeoutMs: this.removeTimeoutMs,
        ...(this.opts.loadGraceMs ? { graceMs: this.opts.loadGraceMs } : {}),
      },
    );
    return pod.run(cb);
  }

  /**
   * Cells at once: each needs a free node for its target alone and another for its load (targets
   * keep off any node with a load agent), so half the free nodes; with fewer than two, or a
   * one-node (preferred spread) target, 1.
   */
  async concurrency(): Promise<number> {
    if (this.spread !== 'required') return 1;
    const c = await this.conn();
    const [nodes, ours] = await Promise.all([
      c.core.listNode(),
      c.core.listPodForAllNamespaces({ labelSelector: `${K8S_LABEL.product}=${PRODUCT}` }),
    ]);
    const free = nodes.items.filter((n: V1Node) => nodeBusyReason(n, ours.items) === undefined).length;
    return Math.max(1, Math.floor(free / 2));
  }

  private timing(): NamespaceTiming {
    return { pollMs: this.pollMs, removeTimeoutMs: this.removeTimeoutMs, namespacePrefix: this.opts.namespacePrefix };
  }

  /**
   * Deletes the run's namespace (Foreground: its Deployments, ReplicaSets and pods go first) and
   * waits, bounded, until it is gone, so that the nodes are free for what comes next.
   */
  async removeRun(runId: string): Promise<string[]> {
    return removeRunNamespace(await this.conn(), this.timing(), runId);
  }

  /**
   * Deletes the namespaces of sessions that are no longer alive. The session is read from the
   * annotation (a label cannot hold it); sessions of other machines count as alive
   * (isSessionAlive), so a shared cluster's other users are never swept.
   */
  async sweep(isAlive: (session: string) => boolean): Promise<string[]> {
    return sweepNamespaces(await this.conn(), isAlive);
  }
}
