// A run's namespace on a cluster: made by its first cell, removed with everything in it at the end
// of the run (load pods first, at once), and a dead session's namespaces swept.
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import { PRODUCT } from '../../docker/labels.ts';
import { httpStatus, ignore404, type Cluster } from './client.ts';
import {
  K8S_ANNOTATION,
  K8S_LABEL,
  ROLE,
  loadSelector,
  namespaceFor,
  namespaceManifest,
  selectorText,
  type KubernetesTargetSpec,
} from './manifests.ts';
import { until } from './wait.ts';

/** How often to look, how long to wait for a deletion, and the namespace prefix of the target. */
export interface NamespaceTiming {
  pollMs: number;
  removeTimeoutMs: number;
  namespacePrefix?: string | undefined;
}

/**
 * The run's namespace, made by its first cell. One being deleted (the same run id, cancelled just now) is waited out
 * first.
 */
export async function ensureNamespace(c: Cluster, o: NamespaceTiming, spec: KubernetesTargetSpec): Promise<void> {
  const body = namespaceManifest(spec.labels.run, spec.labels.session, o.namespacePrefix);
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
  const gone = await until(
    async () => (await ignore404(() => c.core.readNamespace({ name }))) === undefined,
    o.pollMs,
    o.removeTimeoutMs,
  );
  if (!gone) throw new Error(`namespace ${name} is still being deleted after ${o.removeTimeoutMs / 1000} s`);
  await create();
}

export async function deleteDeployment(c: Cluster, o: NamespaceTiming, namespace: string, name: string): Promise<void> {
  await ignore404(() =>
    c.apps.deleteNamespacedDeployment({ name, namespace, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }),
  );
  await until(
    async () => (await ignore404(() => c.apps.readNamespacedDeployment({ name, namespace }))) === undefined,
    o.pollMs,
    o.removeTimeoutMs,
  );
}

/**
 * Deletes the run's namespace (Foreground: its Deployments, ReplicaSets and pods go first) and
 * waits, bounded, until it is gone, so that the nodes are free for what comes next.
 */
export async function removeRunNamespace(c: Cluster, o: NamespaceTiming, runId: string): Promise<string[]> {
  const name = namespaceFor(runId, o.namespacePrefix);
  // Load pods first, at once: deleted with the namespace they would get their grace and go on loading.
  const agents =
    (
      await ignore404(() =>
        c.core.listNamespacedPod({ namespace: name, labelSelector: selectorText(loadSelector(runId)) }),
      )
    )?.items ?? [];
  const removed: string[] = [];
  for (const p of agents) if (await deletePod(c, p)) removed.push(`load pod ${name}/${p.metadata?.name}`);
  const deleted = await deleteNamespace(c, name);
  if (!deleted) return removed;
  const gone = await until(
    async () => (await ignore404(() => c.core.readNamespace({ name }))) === undefined,
    o.pollMs,
    o.removeTimeoutMs,
  );
  return [
    ...removed,
    gone ? `namespace ${name}` : `namespace ${name} (deleted, still terminating after ${o.removeTimeoutMs / 1000} s)`,
  ];
}

/** Deletes a pod now (grace 0); whether it was there. */
async function deletePod(c: Cluster, p: V1Pod): Promise<boolean> {
  const ref = { name: p.metadata!.name!, namespace: p.metadata!.namespace! };
  return (await ignore404(() => c.core.deleteNamespacedPod({ ...ref, gracePeriodSeconds: 0 }))) !== undefined;
}

/** Whether there was a namespace to delete. */
async function deleteNamespace(c: Cluster, name: string): Promise<boolean> {
  const r = await ignore404(() =>
    c.core.deleteNamespace({ name, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }),
  );
  return r !== undefined;
}

/**
 * Deletes the namespaces of sessions that are no longer alive. The session is read from the
 * annotation (a label cannot hold it); sessions of other machines count as alive
 * (isSessionAlive), so a shared cluster's other users are never swept.
 */
export async function sweepNamespaces(c: Cluster, isAlive: (session: string) => boolean): Promise<string[]> {
  const removed: string[] = [];
  // Dead sessions' load agents, wherever they are (also in a namespace already terminating, where
  // they would otherwise load their node for their whole grace), deleted at once.
  const agents = await c.core.listPodForAllNamespaces({
    labelSelector: `${K8S_LABEL.product}=${PRODUCT},${K8S_LABEL.role}=${ROLE.load}`,
  });
  for (const p of agents.items) {
    if (isAlive(p.metadata?.annotations?.[K8S_ANNOTATION.session] ?? '')) continue;
    if (await deletePod(c, p)) removed.push(`load pod ${p.metadata?.namespace}/${p.metadata?.name}`);
  }
  const list = await c.core.listNamespace({ labelSelector: `${K8S_LABEL.product}=${PRODUCT}` });
  const dead = list.items.filter(
    (ns: V1Namespace) =>
      ns.status?.phase !== 'Terminating' && !isAlive(ns.metadata?.annotations?.[K8S_ANNOTATION.session] ?? ''),
  );
  for (const ns of dead) {
    const name = ns.metadata!.name!;
    if (await deleteNamespace(c, name)) removed.push(`namespace ${name}`);
  }
  return removed;
}
