// The Kubernetes objects one run makes: a namespace per run, a Deployment per cell, a load pod per
// cell's load. Pure functions of their specs, so the exact manifests are asserted in tests without a cluster.
import { createHash } from 'node:crypto';
import type {
  V1Affinity,
  V1Deployment,
  V1HostAlias,
  V1Namespace,
  V1Pod,
  V1PodAffinityTerm,
  V1Probe,
} from '@kubernetes/client-node';
import { k8sCpu, k8sMemory } from '../../common/k8s-quantity.ts';
import { PRODUCT } from '../../docker/labels.ts';
import { launchCommand } from '../../docker/launch.ts';
import { AGENT_COMMAND } from '../../load-agent/image.ts';
import { PLAN_ENV, planEnvValue, type AgentPlan } from '../../load-agent/line-protocol.ts';
import type { TargetSpec } from '../provider.ts';

/**
 * A target as Kubernetes starts it: the app's health path, where the cell runner gives it, makes the
 * pod's readinessProbe (an HTTP GET from the kubelet, on the pod's own node); without it, the port
 * accepting connections is the probe.
 */
export interface KubernetesTargetSpec extends TargetSpec {
  health?: string;
}

/**
 * Label keys on every object we make. Kubernetes label keys take a DNS prefix; the Docker labels'
 * `io.rightsize.*` names stay Docker's. `role` tells a target's pods from a load agent's
 * (`rightsize.dev/role=load`), which the anti-affinity below keeps apart.
 */
export const K8S_LABEL = {
  product: 'rightsize.dev/product',
  run: 'rightsize.dev/run',
  cell: 'rightsize.dev/cell',
  app: 'rightsize.dev/app',
  session: 'rightsize.dev/session',
  role: 'rightsize.dev/role',
  dependency: 'rightsize.dev/dependency',
} as const;

/**
 * Label values are limited (63 characters of [A-Za-z0-9-_.]) and a session id never fits
 * (`host~machine.boot:pid:start`): the exact text rides in annotations, which take any string.
 * The sweep reads the session from the annotation; labels are only for selecting.
 */
export const K8S_ANNOTATION = { session: 'rightsize.dev/session', app: 'rightsize.dev/app' } as const;

export const ROLE = { target: 'target', load: 'load', dependency: 'dependency' } as const;

/** The container's name in every target pod: stats, logs and status are looked up by it. */
export const CONTAINER = 'app';
/** The container's name in every load pod. */
export const AGENT_CONTAINER = 'agent';

const HOSTNAME = 'kubernetes.io/hostname';
const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 10);

/**
 * A label value for any text: itself when valid, else a readable cleaned prefix plus a hash (so two texts never share
 * one).
 */
export function labelValue(text: string): string {
  if (/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(text) && text.length <= 63) return text;
  const clean = text
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .slice(0, 50)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return clean ? `${clean}-${shortHash(text)}` : shortHash(text);
}

/** A DNS-1123 label (namespace names, the first part of pod names) from any text, with a hash when it had to change. */
export function dnsPart(text: string, max: number): string {
  if (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) && text.length <= max) return text;
  const clean = text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, max - 11)
    .replace(/^-+|-+$/g, '');
  return clean ? `${clean}-${shortHash(text)}` : shortHash(text);
}

/**
 * The namespaces' prefix unless the saved target sets its own (`namespacePrefix`, a DNS label of up to 30 characters).
 */
export const DEFAULT_NAMESPACE_PREFIX = PRODUCT;

/** The run's namespace, `PREFIX-run-ID`: deleting it removes everything the run made, in one call. */
export function namespaceFor(runId: string, prefix: string = DEFAULT_NAMESPACE_PREFIX): string {
  const head = `${prefix}-run-`;
  return `${head}${dnsPart(runId, 63 - head.length)}`;
}

/** A cell's Deployment; pod names add ~17 characters of ReplicaSet and pod hashes to it, hence the short cap. */
export const deploymentFor = (cell: string): string => `cell-${dnsPart(cell, 40)}`;

/** A cell's load pod (a bare pod: its name is the pod's own). */
export const loadPodFor = (cell: string): string => `load-${dnsPart(cell, 40)}`;

/** Selects the pods of one cell (and only a target's: the load agent of the same cell is `role=load`). */
export function cellSelector(spec: Pick<TargetSpec, 'labels'>): Record<string, string> {
  return {
    [K8S_LABEL.run]: labelValue(spec.labels.run),
    [K8S_LABEL.cell]: labelValue(spec.labels.cell),
    [K8S_LABEL.role]: ROLE.target,
  };
}

export const selectorText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

export function namespaceManifest(runId: string, session: string, prefix?: string): V1Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespaceFor(runId, prefix),
      labels: {
        [K8S_LABEL.product]: PRODUCT,
        [K8S_LABEL.run]: labelValue(runId),
        [K8S_LABEL.session]: labelValue(session),
        'app.kubernetes.io/managed-by': PRODUCT,
      },
      annotations: { [K8S_ANNOTATION.session]: session },
    },
  };
}

/**
 * How hard the target is kept away from load agents and from other targets: `required` (each target
 * alone on its node, its load elsewhere: what a measurement needs) or `preferred` (a one-node
 * cluster such as kind or minikube, where the load must share the node; the check says so).
 */
export type Spread = 'required' | 'preferred';

/** Keeps the target off nodes running any Rightsize load agent or another Rightsize target, in any run's namespace. */
function antiAffinityTerms(): V1PodAffinityTerm[] {
  const ours = { matchLabels: { [K8S_LABEL.product]: PRODUCT } };
  return [ROLE.load, ROLE.target].map((role) => ({
    labelSelector: { matchLabels: { [K8S_LABEL.role]: role } },
    namespaceSelector: ours,
    topologyKey: HOSTNAME,
  }));
}

function affinity(spec: TargetSpec, spread: Spread): V1Affinity {
  const terms = antiAffinityTerms();
  // matchFields on metadata.name names the node exactly (the hostname label differs from the node
  // name on some clouds), and unlike spec.nodeName it still goes through the scheduler's resource fit.
  const nodeTerms = [
    ...(spec.placement?.node ? [{ key: 'metadata.name', operator: 'In', values: [spec.placement.node] }] : []),
    ...(spec.placement?.avoidNode
      ? [{ key: 'metadata.name', operator: 'NotIn', values: [spec.placement.avoidNode] }]
      : []),
  ];
  return {
    ...(nodeTerms.length
      ? {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: nodeTerms }] },
          },
        }
      : {}),
    podAntiAffinity:
      spread === 'required'
        ? { requiredDuringSchedulingIgnoredDuringExecution: terms }
        : {
            preferredDuringSchedulingIgnoredDuringExecution: terms.map((podAffinityTerm) => ({
              weight: 100,
              podAffinityTerm,
            })),
          },
  };
}

/**
 * One cell's Deployment (replicas 1, or the cell's). requests = limits for CPU and memory on the only container:
 * Guaranteed QoS, so the kubelet neither overcommits the node under it nor evicts it first.
 * The launch command is launchCommand()'s, as `args`: like Docker's Cmd it replaces the image's
 * CMD and keeps its ENTRYPOINT (`command` would replace the entrypoint too).
 */
export function deploymentManifest(
  spec: KubernetesTargetSpec,
  opts: { spread: Spread; namespacePrefix?: string; hostAliases?: V1HostAlias[] },
): V1Deployment {
  const { cmd, env } = launchCommand(spec.launch);
  const quantity = { cpu: k8sCpu(spec.cpuMillis), memory: k8sMemory(spec.memoryMb) };
  const labels = { ...objectLabels(spec.labels), ...cellSelector(spec) };
  const annotations = objectAnnotations(spec.labels);
  // The same precedence as the local container (docker/containers.ts): the launch mode's variables over the user's,
  // PORT last.
  const allEnv: Record<string, string> = { ...spec.env, ...env, PORT: String(spec.port) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: deploymentFor(spec.labels.cell),
      namespace: namespaceFor(spec.labels.run, opts.namespacePrefix),
      labels,
      annotations,
    },
    spec: {
      // Replicas: with the spread 'required' each lands on a node of its own (they keep off other targets).
      replicas: Math.max(1, spec.replicas ?? 1),
      revisionHistoryLimit: 0,
      // Never two pods of a cell at once (the default RollingUpdate surges one more).
      strategy: { type: 'Recreate' },
      selector: { matchLabels: cellSelector(spec) },
      template: {
        metadata: { labels, annotations },
        spec: {
          // A Deployment forces restartPolicy Always: a crash restarts the container, and the
          // restart shows in the pod status (restartCount, lastState), which exitInfo reads.
          terminationGracePeriodSeconds: 0, // teardown kills at once, as the local `docker rm -f` does
          automountServiceAccountToken: false, // the app under test has no business with the API
          enableServiceLinks: false, // no *_SERVICE_HOST variables: the same environment as a local container
          // Its dependencies by the names it dials (`db`), at their cell's own Services (dependency-manifests.ts).
          ...(opts.hostAliases?.length ? { hostAliases: opts.hostAliases } : {}),
          affinity: affinity(spec, opts.spread),
          containers: [
            {
              name: CONTAINER,
              image: spec.image,
              imagePullPolicy: 'IfNotPresent',
              ...(cmd ? { args: cmd } : {}), // none: the image's own command (image mode)
              env: Object.entries(allEnv).map(([name, value]) => ({ name, value })),
              ports: [{ name: 'http', containerPort: spec.port, protocol: 'TCP' }],
              resources: { requests: { ...quantity }, limits: { ...quantity } },
              readinessProbe: readinessProbe(spec.health),
            },
          ],
        },
      },
    },
  };
}

/** Every pod's labels besides the selecting ones: product, session, app (valid label values), managed-by. */
export function objectLabels(l: TargetSpec['labels']): Record<string, string> {
  return {
    [K8S_LABEL.product]: PRODUCT,
    [K8S_LABEL.session]: labelValue(l.session),
    [K8S_LABEL.app]: labelValue(l.app),
    'app.kubernetes.io/managed-by': PRODUCT,
  };
}

/** The exact session and app (labels can hold neither in general): the sweep reads the session from here. */
export const objectAnnotations = (l: TargetSpec['labels']): Record<string, string> => ({
  [K8S_ANNOTATION.session]: l.session,
  [K8S_ANNOTATION.app]: l.app,
});

/**
 * Ready = the app answers its health path (else: accepts connections), asked every second. A few
 * misses in a row before NotReady: a saturated app answering slowly under load stays Ready (no
 * Service routes by it; only readiness at start reads it).
 */
function readinessProbe(health: string | undefined): V1Probe {
  const how = health ? { httpGet: { path: health, port: 'http' } } : { tcpSocket: { port: 'http' } };
  return { ...how, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };
}

/** Selects the load pods of one run (one cell: add its label). */
export const loadSelector = (runId: string): Record<string, string> => ({
  [K8S_LABEL.run]: labelValue(runId),
  [K8S_LABEL.role]: ROLE.load,
});

/** What a load pod is given: the cell's labels, the agent's image and plan, its threads, and where its target is. */
export interface LoadPodSpec {
  labels: TargetSpec['labels'];
  image: string;
  plan: AgentPlan;
  /** Load threads: the pod's CPU is one core each (loadResources). */
  threads: number;
  /** The target's node (a replicated target's nodes): the load goes elsewhere. */
  targetNode?: string;
  targetNodes?: string[];
  /**
   * Away from targetNode as a rule (the cluster has another schedulable node), or only preferably (a one-node cluster).
   */
  avoid: 'required' | 'preferred';
  namespacePrefix?: string;
}

/**
 * The load pod's requests = limits (Guaranteed QoS, like the target): a whole core per load thread,
 * so no thread waits for CPU (its event-loop utilisation would then read as a busy client), and
 * memory for Node, autocannon's clients and two HDR histograms per thread per second.
 */
export function loadResources(threads: number): { cpu: string; memory: string } {
  return { cpu: k8sCpu(threads * 1000), memory: k8sMemory(256 + 128 * threads) };
}

/** How long a stopped load agent has to print what it measured (SIGTERM) before the kubelet kills it. */
export const LOAD_GRACE_SEC = 15;

/**
 * A cell's load agent as a bare pod in the run's namespace: restartPolicy Never (a load that failed
 * is reported, not run again over the measurement), the cell's labels plus role=load (cancel and
 * the sweep find it; targets' anti-affinity keeps them off its node), node anti-affinity away from
 * the target's node, the plan in the environment, the agent's command as `args` (like the Docker
 * agent's Cmd: the image's entrypoint stays).
 */
export function loadPodManifest(p: LoadPodSpec): V1Pod {
  const labels = {
    ...objectLabels(p.labels),
    [K8S_LABEL.run]: labelValue(p.labels.run),
    [K8S_LABEL.cell]: labelValue(p.labels.cell),
    [K8S_LABEL.role]: ROLE.load,
  };
  const avoidNodes = p.targetNodes?.length ? p.targetNodes : p.targetNode ? [p.targetNode] : [];
  const away = avoidNodes.length
    ? { matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: avoidNodes }] }
    : undefined;
  const quantity = loadResources(p.threads);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: loadPodFor(p.labels.cell),
      namespace: namespaceFor(p.labels.run, p.namespacePrefix),
      labels,
      annotations: objectAnnotations(p.labels),
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: LOAD_GRACE_SEC,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      ...(away
        ? {
            affinity: {
              nodeAffinity:
                p.avoid === 'required'
                  ? { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [away] } }
                  : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, preference: away }] },
            },
          }
        : {}),
      containers: [
        {
          name: AGENT_CONTAINER,
          image: p.image,
          imagePullPolicy: 'IfNotPresent',
          args: [...AGENT_COMMAND],
          env: [{ name: PLAN_ENV, value: planEnvValue(p.plan) }],
          resources: { requests: { ...quantity }, limits: { ...quantity } },
        },
      ],
    },
  };
}
