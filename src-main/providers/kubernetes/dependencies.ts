// A cell's dependencies on Kubernetes (dependency-manifests.ts): created in the run's namespace before
// the app, each waited on until its pod is Ready (its health check, run by the kubelet), read by the
// kubelet as the target is, and deleted with the cell. The namespace's deletion at the run's end (and
// the sweep's) removes whatever a crash left.
import type { V1HostAlias, V1Pod } from '@kubernetes/client-node';
import { dependencyTarget } from '../dependency-target.ts';
import type { DependencyTarget, StatsReading, TargetSpec } from '../provider.ts';
import { httpStatus, ignore404, type Cluster } from './client.ts';
import { DEP_CONTAINER, dependencyManifests, dependencySelector } from './dependency-manifests.ts';
import { namespaceFor, selectorText } from './manifests.ts';
import { currentPod, podView } from './pod-status.ts';
import { pollKubeletStats } from './stats.ts';
import { sleep, until } from './wait.ts';

export interface WorldTimings {
  pollMs: number;
  statsEveryMs: number;
  readyTimeoutMs: number;
  removeTimeoutMs: number;
  namespacePrefix?: string;
}

interface Member {
  dep: NonNullable<TargetSpec['dependencies']>[number];
  name: string;
  ip: string;
  pod: string;
  node: string;
}

/** Creates `create`; one left by an earlier attempt of the same cell (409) is deleted and made again. */
async function createReplacing(create: () => Promise<unknown>, remove: () => Promise<unknown>): Promise<unknown> {
  try {
    return await create();
  } catch (e) {
    if (httpStatus(e) !== 409) throw e;
    await ignore404(remove);
    return create();
  }
}

export class KubernetesWorld {
  private readonly members: Member[] = [];
  private readonly made: { kind: 'configmap' | 'deployment' | 'service'; name: string }[] = [];
  private readonly namespace: string;

  private constructor(
    private readonly c: Cluster,
    private readonly spec: TargetSpec,
    private readonly t: WorldTimings,
  ) {
    this.namespace = namespaceFor(spec.labels.run, t.namespacePrefix);
  }

  /** Every dependency created and Ready; on failure all of it deleted, naming the one that was not, with its log. */
  static async start(c: Cluster, spec: TargetSpec, t: WorldTimings): Promise<KubernetesWorld> {
    const world = new KubernetesWorld(c, spec, t);
    try {
      for (const dep of spec.dependencies ?? []) world.members.push(await world.startOne(dep));
    } catch (e) {
      await world.remove();
      throw e;
    }
    return world;
  }

  private async startOne(dep: Member['dep']): Promise<Member> {
    const { configMap, deployment, service } = dependencyManifests(this.spec, dep, this.t.namespacePrefix);
    const name = deployment.metadata!.name!;
    const namespace = this.namespace;
    if (configMap) {
      await createReplacing(
        () => this.c.core.createNamespacedConfigMap({ namespace, body: configMap }),
        () => this.c.core.deleteNamespacedConfigMap({ name, namespace }),
      );
      this.made.push({ kind: 'configmap', name });
    }
    await createReplacing(
      () => this.c.apps.createNamespacedDeployment({ namespace, body: deployment }),
      () => this.c.apps.deleteNamespacedDeployment({ name, namespace, gracePeriodSeconds: 0 }),
    );
    this.made.push({ kind: 'deployment', name });
    const svc = (await createReplacing(
      () => this.c.core.createNamespacedService({ namespace, body: service }),
      () => this.c.core.deleteNamespacedService({ name, namespace }),
    )) as { spec?: { clusterIP?: string } };
    this.made.push({ kind: 'service', name });
    const ip = svc.spec?.clusterIP;
    if (!ip || ip === 'None') throw new Error(`${dep.name}: its Service ${name} was given no cluster address`);
    const labelSelector = selectorText(dependencySelector(this.spec, dep));
    const deadline = Date.now() + this.t.readyTimeoutMs;
    let last = 'nothing heard yet';
    for (;;) {
      if (this.spec.signal?.aborted) throw new Error('cancelled');
      const pods: V1Pod[] = (await this.c.core.listNamespacedPod({ namespace, labelSelector })).items;
      const v = podView(currentPod(pods), DEP_CONTAINER);
      if (v.state === 'ready') return { dep, name, ip, pod: v.pod, node: v.node };
      const what = `${dep.name} (${dep.image})`;
      if (v.state === 'failed') throw new Error(`${what} did not start: ${v.reason}${await this.tail(v.pod)}`);
      last = v.reason === 'pod Running' ? 'its health check has not passed yet (pod not Ready)' : v.reason;
      if (Date.now() >= deadline)
        throw new Error(
          `${what} was not ready after ${this.t.readyTimeoutMs / 1000} s: ${last}${await this.tail(v.pod)}`,
        );
      await sleep(this.t.pollMs);
    }
  }

  private async tail(pod: string | undefined, lines = 10): Promise<string> {
    if (!pod) return '';
    const text = await this.c.core
      .readNamespacedPodLog({ name: pod, namespace: this.namespace, container: DEP_CONTAINER, tailLines: lines })
      .catch(() => '');
    return text.trim() ? `; its log ends:\n${text.trimEnd()}` : '';
  }

  /** What the app's pod maps each dependency's name to: its cell's own Service. */
  get hostAliases(): V1HostAlias[] {
    return this.members.map((m) => ({ ip: m.ip, hostnames: [m.dep.name] }));
  }

  /** Each dependency as a target's part; `appNodes`: where the app's pods run (its cores are then shared). */
  targets(appNodes: readonly string[]): DependencyTarget[] {
    return this.members.map((m) =>
      dependencyTarget(m.dep, {
        sharesCores: appNodes.includes(m.node),
        stats: (onReading: (r: StatsReading) => void) =>
          pollKubeletStats(
            this.c,
            m.node,
            { namespace: this.namespace, pod: m.pod, container: DEP_CONTAINER },
            m.dep.memoryMb,
            this.t.statsEveryMs,
            onReading,
          ),
        logTail: async (lines: number) => (await this.tail(m.pod, lines)).replace(/^; its log ends:\n/, ''),
      }),
    );
  }

  /** Deletes what it made (Deployments first, grace 0) and waits, bounded, until the Deployments are gone. */
  async remove(): Promise<void> {
    const namespace = this.namespace;
    const del = (m: (typeof this.made)[number]): Promise<unknown> =>
      ignore404<unknown>(() =>
        m.kind === 'deployment'
          ? this.c.apps.deleteNamespacedDeployment({
              name: m.name,
              namespace,
              propagationPolicy: 'Foreground',
              gracePeriodSeconds: 0,
            })
          : m.kind === 'service'
            ? this.c.core.deleteNamespacedService({ name: m.name, namespace })
            : this.c.core.deleteNamespacedConfigMap({ name: m.name, namespace }),
      ).catch(() => undefined); // the namespace's deletion at the run's end takes what is left
    await Promise.all(this.made.map(del));
    const deployments = this.made.filter((m) => m.kind === 'deployment');
    await until(
      async () =>
        (
          await Promise.all(
            deployments.map((m) => ignore404(() => this.c.apps.readNamespacedDeployment({ name: m.name, namespace }))),
          )
        ).every((d) => d === undefined),
      this.t.pollMs,
      this.t.removeTimeoutMs,
    );
  }
}
