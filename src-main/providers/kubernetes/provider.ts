// The Kubernetes provider: the user's kubeconfig and context, a namespace per run, a Deployment per
// cell with requests = limits, readiness and exit facts from the pod status, stats from the kubelet
// through the API server's node proxy. Verified here against recorded API responses replayed by a
// fake API server (tests/unit/k8s-*.test.ts), not against a live cluster: no API server runs on
// this machine. `rightsize targets check NAME` and the `quick` preset check a real one.
//
// Reaching the target is the load agent's job: the address is the pod IP and container port,
// reachable from inside the cluster (pod network), which is where the load agent runs, so no
// Service is made. A load generator outside the cluster would need a Service (NodePort /
// LoadBalancer) or a port-forward, whose extra hop would be measured too.
import type { V1Namespace } from '@kubernetes/client-node';
import { PRODUCT } from '../../docker/labels.ts';
import type { Provider, ProviderCheck, ProvisionedTarget, TargetSpec } from '../provider.ts';
import { checkCluster, describeError } from './check.ts';
import { connect, httpStatus, ignore404, type Cluster, type ClusterRef } from './client.ts';
import { K8S_ANNOTATION, K8S_LABEL, deploymentFor, deploymentManifest, namespaceFor, namespaceManifest, type Spread } from './manifests.ts';
import { KubernetesTarget } from './target.ts';
import { until } from './wait.ts';

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
  /** Stats polling; default 1 s. The kubelet refreshes its numbers every 10-15 s (cAdvisor housekeeping): a reading is passed on only when it is new. */
  statsEveryMs?: number;
}

export class KubernetesProvider implements Provider {
  readonly kind = 'kubernetes' as const;
  readonly name: string;
  private cluster?: Promise<Cluster>;
  private readonly spread: Spread;
  private readonly readyTimeoutMs: number;
  private readonly removeTimeoutMs: number;
  private readonly pollMs: number;
  private readonly statsEveryMs: number;

  constructor(private readonly opts: KubernetesOptions) {
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
   * A cluster's nodes pull images from a registry: the reference must already be one they can pull
   * (pushing is not done here). A bare local tag is refused with that in words, rather than left to
   * fail later as ImagePullBackOff.
   */
  async prepareImage(localTag: string): Promise<string> {
    const first = localTag.split('/')[0] ?? '';
    const hasRegistry = localTag.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
    if (!hasRegistry) {
      throw new Error(
        `Kubernetes nodes pull images from a registry, and "${localTag}" is a local tag: push it to a registry the cluster can pull from and use that reference (e.g. registry.example.com/${localTag}).`,
      );
    }
    return localTag;
  }

  async provision(spec: TargetSpec): Promise<ProvisionedTarget> {
    const c = await this.conn();
    const where = { server: c.server, context: c.context };
    const namespace = namespaceFor(spec.labels.run);
    const name = deploymentFor(spec.labels.cell);
    try {
      await this.ensureNamespace(c, spec);
      const body = deploymentManifest(spec, { spread: this.spread });
      try {
        await c.apps.createNamespacedDeployment({ namespace, body });
      } catch (e) {
        if (httpStatus(e) !== 409) throw e;
        // Left by an attempt of the same cell that did not clean up: replace it.
        await this.deleteDeployment(c, namespace, name);
        await c.apps.createNamespacedDeployment({ namespace, body });
      }
    } catch (e) {
      throw new Error(`Could not start cell ${spec.labels.cell} on ${this.name}: ${describeError(e, where)}`);
    }
    const target = new KubernetesTarget(c, spec, { pollMs: this.pollMs, statsEveryMs: this.statsEveryMs, removeTimeoutMs: this.removeTimeoutMs });
    try {
      await target.waitPodReady(this.readyTimeoutMs);
      return target;
    } catch (e) {
      await target.remove().catch(() => {});
      throw e;
    }
  }

  /** The run's namespace, made by its first cell. One being deleted (the same run id, cancelled just now) is waited out first. */
  private async ensureNamespace(c: Cluster, spec: TargetSpec): Promise<void> {
    const body = namespaceManifest(spec.labels.run, spec.labels.session);
    const name = body.metadata!.name!;
    const create = async (): Promise<boolean> => {
      try {
        await c.core.createNamespace({ body });
        return true;
      } catch (e) {
        if (httpStatus(e) !== 409) throw e;
        return false;
      }
    };
    if (await create()) return;
    const existing = await ignore404(() => c.core.readNamespace({ name }));
    if (existing && existing.metadata?.labels?.[K8S_LABEL.product] !== PRODUCT) {
      throw new Error(`namespace ${name} exists and is not Rightsize's: it is left alone`);
    }
    if (existing?.status?.phase !== 'Terminating') return;
    const gone = await until(async () => (await ignore404(() => c.core.readNamespace({ name }))) === undefined, this.pollMs, this.removeTimeoutMs);
    if (!gone) throw new Error(`namespace ${name} is still being deleted after ${this.removeTimeoutMs / 1000} s`);
    await create();
  }

  private async deleteDeployment(c: Cluster, namespace: string, name: string): Promise<void> {
    await ignore404(() => c.apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }));
    await until(async () => (await ignore404(() => c.apps.readNamespacedDeployment({ name, namespace }))) === undefined, this.pollMs, this.removeTimeoutMs);
  }

  /**
   * Deletes the run's namespace (Foreground: its Deployments, ReplicaSets and pods go first) and
   * waits, bounded, until it is gone, so that the nodes are free for what comes next.
   */
  async removeRun(runId: string): Promise<string[]> {
    const c = await this.conn();
    const name = namespaceFor(runId);
    const deleted = await this.deleteNamespace(c, name);
    if (!deleted) return [];
    const gone = await until(async () => (await ignore404(() => c.core.readNamespace({ name }))) === undefined, this.pollMs, this.removeTimeoutMs);
    return [gone ? `namespace ${name}` : `namespace ${name} (deleted, still terminating after ${this.removeTimeoutMs / 1000} s)`];
  }

  /** Whether there was a namespace to delete. */
  private async deleteNamespace(c: Cluster, name: string): Promise<boolean> {
    const r = await ignore404(() => c.core.deleteNamespace({ name, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }));
    return r !== undefined;
  }

  /**
   * Deletes the namespaces of sessions that are no longer alive. The session is read from the
   * annotation (a label cannot hold it); sessions of other machines count as alive
   * (isSessionAlive), so a shared cluster's other users are never swept.
   */
  async sweep(isAlive: (session: string) => boolean): Promise<string[]> {
    const c = await this.conn();
    const list = await c.core.listNamespace({ labelSelector: `${K8S_LABEL.product}=${PRODUCT}` });
    const dead = list.items.filter((ns: V1Namespace) => ns.status?.phase !== 'Terminating' && !isAlive(ns.metadata?.annotations?.[K8S_ANNOTATION.session] ?? ''));
    const removed: string[] = [];
    for (const ns of dead) {
      const name = ns.metadata!.name!;
      if (await this.deleteNamespace(c, name)) removed.push(`namespace ${name}`);
    }
    return removed;
  }
}
