// The Kubernetes objects one run makes: a namespace per run, a Deployment per cell. Pure functions
// of the TargetSpec, so the exact manifests are asserted in tests without a cluster.
import { createHash } from 'node:crypto';
import type { V1Affinity, V1Deployment, V1Namespace, V1PodAffinityTerm } from '@kubernetes/client-node';
import { PRODUCT } from '../../docker/labels.ts';
import { launchCommand } from '../../docker/launch.ts';
import type { TargetSpec } from '../provider.ts';

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
} as const;

/**
 * Label values are limited (63 characters of [A-Za-z0-9-_.]) and a session id never fits
 * (`host~machine.boot:pid:start`): the exact text rides in annotations, which take any string.
 * The sweep reads the session from the annotation; labels are only for selecting.
 */
export const K8S_ANNOTATION = { session: 'rightsize.dev/session', app: 'rightsize.dev/app' } as const;

export const ROLE = { target: 'target', load: 'load' } as const;

/** The container's name in every target pod: stats, logs and status are looked up by it. */
export const CONTAINER = 'app';

const HOSTNAME = 'kubernetes.io/hostname';
const shortHash = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 10);

/** A label value for any text: itself when valid, else a readable cleaned prefix plus a hash (so two texts never share one). */
export function labelValue(text: string): string {
  if (/^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(text) && text.length <= 63) return text;
  const clean = text.replace(/[^A-Za-z0-9_.-]+/g, '-').slice(0, 50).replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return clean ? `${clean}-${shortHash(text)}` : shortHash(text);
}

/** A DNS-1123 label (namespace names, the first part of pod names) from any text, with a hash when it had to change. */
function dnsPart(text: string, max: number): string {
  if (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(text) && text.length <= max) return text;
  const clean = text.toLowerCase().replace(/[^a-z0-9-]+/g, '-').slice(0, max - 11).replace(/^-+|-+$/g, '');
  return clean ? `${clean}-${shortHash(text)}` : shortHash(text);
}

/** The run's namespace: deleting it removes everything the run made, in one call. */
export const namespaceFor = (runId: string): string => `rightsize-run-${dnsPart(runId, 63 - 'rightsize-run-'.length)}`;

/** A cell's Deployment; pod names add ~17 characters of ReplicaSet and pod hashes to it, hence the short cap. */
export const deploymentFor = (cell: string): string => `cell-${dnsPart(cell, 40)}`;

/** Selects the pods of one cell (and only a target's: the load agent of the same cell is `role=load`). */
export function cellSelector(spec: Pick<TargetSpec, 'labels'>): Record<string, string> {
  return { [K8S_LABEL.run]: labelValue(spec.labels.run), [K8S_LABEL.cell]: labelValue(spec.labels.cell), [K8S_LABEL.role]: ROLE.target };
}

export const selectorText = (labels: Record<string, string>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

export function namespaceManifest(runId: string, session: string): V1Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespaceFor(runId),
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
    ...(spec.placement?.avoidNode ? [{ key: 'metadata.name', operator: 'NotIn', values: [spec.placement.avoidNode] }] : []),
  ];
  return {
    ...(nodeTerms.length
      ? { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: nodeTerms }] } } }
      : {}),
    podAntiAffinity:
      spread === 'required'
        ? { requiredDuringSchedulingIgnoredDuringExecution: terms }
        : { preferredDuringSchedulingIgnoredDuringExecution: terms.map((podAffinityTerm) => ({ weight: 100, podAffinityTerm })) },
  };
}

/**
 * One cell's Deployment (replicas 1). requests = limits for CPU and memory on the only container:
 * Guaranteed QoS, so the kubelet neither overcommits the node under it nor evicts it first.
 * The launch command is launchCommand()'s, as `args`: like Docker's Cmd it replaces the image's
 * CMD and keeps its ENTRYPOINT (`command` would replace the entrypoint too).
 */
export function deploymentManifest(spec: TargetSpec, opts: { spread: Spread }): V1Deployment {
  const { cmd, env } = launchCommand(spec.launch);
  const quantity = { cpu: `${spec.cpuMillis}m`, memory: `${spec.memoryMb}Mi` };
  const labels = {
    [K8S_LABEL.product]: PRODUCT,
    [K8S_LABEL.session]: labelValue(spec.labels.session),
    [K8S_LABEL.app]: labelValue(spec.labels.app),
    ...cellSelector(spec),
    'app.kubernetes.io/managed-by': PRODUCT,
  };
  const annotations = { [K8S_ANNOTATION.session]: spec.labels.session, [K8S_ANNOTATION.app]: spec.labels.app };
  // The same precedence as the local container (docker/containers.ts): the launch mode's variables over the user's, PORT last.
  const allEnv: Record<string, string> = { ...spec.env, ...env, PORT: String(spec.port) };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: deploymentFor(spec.labels.cell), namespace: namespaceFor(spec.labels.run), labels, annotations },
    spec: {
      replicas: 1,
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
            },
          ],
        },
      },
    },
  };
}
