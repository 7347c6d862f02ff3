// The connection check in words: unreachable, TLS, credentials (401), permissions (403 / RBAC),
// no nodes free. Each failure says what is wrong and what to look at, not a stack trace.
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import type { ProviderCheck, ProviderNode } from '../provider.ts';
import { httpStatus, type Cluster } from './client.ts';
import { K8S_LABEL, ROLE, type Spread } from './manifests.ts';
import { PRODUCT } from '../../docker/labels.ts';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
]);
const isTls = (code: string): boolean =>
  /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$|HOSTNAME_MISMATCH)/.test(code);

/** The `message` of a Kubernetes Status body (what kubectl prints), if the body is one. */
function statusMessage(body: unknown): string | undefined {
  try {
    const o = (typeof body === 'string' ? JSON.parse(body) : body) as { kind?: string; message?: string };
    return typeof o?.message === 'string' && o.message ? o.message : undefined;
  } catch {
    return undefined;
  }
}

/** An error from the API (or on the way to it) in words, naming the server and context. */
export function describeError(e: unknown, where: { server: string; context: string }): string {
  const status = httpStatus(e);
  const body = (e as { body?: unknown })?.body;
  if (status === 401) {
    return (
      `The API server at ${where.server} did not accept the credentials of context "${where.context}" ` +
      '(401 Unauthorized): the token or client certificate is wrong or has expired; ' +
      'log in again or refresh the kubeconfig.'
    );
  }
  if (status === 403) {
    return (
      `Forbidden by the cluster's RBAC (403): ${statusMessage(body) ?? 'no reason given'}. ` +
      'Ask a cluster admin for the permissions listed by `rightsize targets check`.'
    );
  }
  if (status !== undefined) {
    return (
      `The API server at ${where.server} answered HTTP ${status}` +
      `${statusMessage(body) ? `: ${statusMessage(body)}` : ''}.`
    );
  }
  const code = String((e as { code?: unknown })?.code ?? (e as { errno?: unknown })?.errno ?? '');
  const reason = (e as Error)?.message?.replace(/^request to \S+ failed, reason: /, '') ?? String(e);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return (
      `The API server at ${where.server} is unreachable: its host name does not resolve (${code}). ` +
      "Is the kubeconfig's server address right, and is the VPN up?"
    );
  }
  if (UNREACHABLE.has(code)) {
    return (
      `The API server at ${where.server} is unreachable (${code}: ${reason}): ` +
      "is the cluster running, and is the kubeconfig's server address right (VPN, port-forward, firewall)?"
    );
  }
  if (isTls(code)) {
    return (
      `TLS with the API server at ${where.server} failed (${code}: ${reason}): ` +
      "the kubeconfig's certificate-authority does not match the server's certificate, " +
      "or the address is not the API server's."
    );
  }
  // No status and no system code: not a transport failure but a message of its own (ours, or the client's).
  return code ? `The API server at ${where.server} could not be used (${code}): ${reason}` : reason;
}

/** A Kubernetes quantity ("3920m", "16318412Ki", "8Gi", "1e9") as a number of units. */
export function parseQuantity(q: string | undefined): number {
  if (!q) return 0;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) return 0;
  const scale: Record<string, number> = {
    '': 1,
    n: 1e-9,
    u: 1e-6,
    m: 1e-3,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    P: 1e15,
    E: 1e18,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    Pi: 2 ** 50,
    Ei: 2 ** 60,
  };
  const f = scale[m[2]!];
  return f === undefined ? 0 : Number(m[1]) * f;
}

/** Why none of our pods can be scheduled on a node at all (whatever runs there), or undefined. */
export function unschedulableReason(node: V1Node): string | undefined {
  const name = node.metadata?.name ?? '?';
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status !== 'True') return `${name} is not Ready${ready?.message ? ` (${ready.message})` : ''}`;
  if (node.spec?.unschedulable) return `${name} is cordoned`;
  // Our pods carry no tolerations: a NoSchedule or NoExecute taint keeps them off.
  const taint = node.spec?.taints?.find((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (taint) return `${name} is tainted ${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`;
  return undefined;
}

/** Why a node cannot take a cell now, or undefined when it can. */
export function nodeBusyReason(node: V1Node, ourPods: readonly V1Pod[]): string | undefined {
  const name = node.metadata?.name ?? '?';
  const cannot = unschedulableReason(node);
  if (cannot) return cannot;
  const busy = ourPods.find((p) => p.spec?.nodeName === name && !p.metadata?.deletionTimestamp);
  if (busy) {
    const role = busy.metadata?.labels?.[K8S_LABEL.role] === ROLE.load ? 'a load agent' : 'a target';
    return `${name} runs ${role} of Rightsize (${busy.metadata?.namespace}/${busy.metadata?.name})`;
  }
  return undefined;
}

export function nodeFacts(node: V1Node, ourPods: readonly V1Pod[]): ProviderNode {
  const alloc = node.status?.allocatable ?? {};
  return {
    name: node.metadata?.name ?? '?',
    cpus: parseQuantity(alloc.cpu),
    memoryBytes: parseQuantity(alloc.memory),
    free: nodeBusyReason(node, ourPods) === undefined,
  };
}

/** What a run does, as RBAC sees it: each must be allowed cluster-wide (a run makes its own namespace). */
export const NEEDED: { verb: string; group: string; resource: string; subresource?: string; what: string }[] = [
  { verb: 'create', group: '', resource: 'namespaces', what: 'create namespaces (one per run)' },
  { verb: 'delete', group: '', resource: 'namespaces', what: 'delete namespaces (cancel, end of run, sweep)' },
  { verb: 'list', group: '', resource: 'namespaces', what: 'list namespaces (the sweep)' },
  { verb: 'create', group: 'apps', resource: 'deployments', what: 'create deployments (one per cell)' },
  { verb: 'delete', group: 'apps', resource: 'deployments', what: 'delete deployments' },
  { verb: 'list', group: '', resource: 'pods', what: 'list pods (readiness, restarts, OOM kills)' },
  { verb: 'create', group: '', resource: 'pods', what: 'create pods (a load agent per cell)' },
  { verb: 'get', group: '', resource: 'pods', what: "get pods (the load agent's state)" },
  { verb: 'delete', group: '', resource: 'pods', what: 'delete pods (load agents, at once)' },
  { verb: 'get', group: '', resource: 'pods', subresource: 'log', what: 'read pod logs' },
  { verb: 'list', group: '', resource: 'nodes', what: 'list nodes' },
  {
    verb: 'get',
    group: '',
    resource: 'nodes',
    subresource: 'proxy',
    what: "read the kubelet's stats through the node proxy",
  },
];

/**
 * Checks a cluster the way a run will use it: reachable, credentials accepted, allowed to do what a
 * run does (SelfSubjectAccessReview: nothing is created), and enough free nodes (two with
 * `required` spread: the target alone on one, its load agent on another).
 */
export async function checkCluster(c: Cluster, spread: Spread): Promise<ProviderCheck> {
  const where = { server: c.server, context: c.context };
  let version: string | undefined;
  try {
    version = (await c.version.getCode()).gitVersion;
  } catch (e) {
    return { ok: false, problems: [describeError(e, where)], nodes: [] };
  }
  const problems: string[] = [];
  const denied: string[] = [];
  await Promise.all(
    NEEDED.map(async (n) => {
      try {
        const r = await c.authz.createSelfSubjectAccessReview({
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: {
              resourceAttributes: {
                verb: n.verb,
                group: n.group,
                resource: n.resource,
                ...(n.subresource ? { subresource: n.subresource } : {}),
              },
            },
          },
        });
        if (!r.status?.allowed) denied.push(n.what);
      } catch (e) {
        denied.push(`${n.what} (could not ask: ${describeError(e, where)})`);
      }
    }),
  );
  if (denied.length) {
    const order = NEEDED.map((n) => n.what);
    denied.sort((a, b) => order.findIndex((w) => a.startsWith(w)) - order.findIndex((w) => b.startsWith(w)));
    problems.push(`Forbidden by the cluster's RBAC: context "${c.context}" may not ${denied.join('; ')}.`);
  }
  let nodes: ProviderNode[] = [];
  try {
    const list = await c.core.listNode();
    let ours: V1Pod[] = [];
    try {
      ours = (await c.core.listPodForAllNamespaces({ labelSelector: `${K8S_LABEL.product}=${PRODUCT}` })).items;
    } catch (e) {
      problems.push(
        `Cannot see other Rightsize runs' pods, so a node running one may look free: ${describeError(e, where)}`,
      );
    }
    nodes = list.items.map((n) => nodeFacts(n, ours));
    const needed = spread === 'required' ? 2 : 1;
    const free = nodes.filter((n) => n.free).length;
    if (list.items.length === 0) problems.push('No nodes free: the cluster has no nodes.');
    else if (free < needed) {
      const why = list.items.map((n) => nodeBusyReason(n, ours)).filter((r): r is string => r !== undefined);
      problems.push(
        `No nodes free: ${free} of ${list.items.length} can take a cell now, ${needed} needed` +
          (spread === 'required' ? ' (the target alone on one, its load agent on another)' : '') +
          (why.length ? `; ${why.join('; ')}.` : '.'),
      );
    }
  } catch (e) {
    problems.push(describeError(e, where));
  }
  return { ok: problems.length === 0, problems, nodes, ...(version ? { version } : {}) };
}
