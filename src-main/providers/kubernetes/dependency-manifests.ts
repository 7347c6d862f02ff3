// The Kubernetes objects of a cell's dependencies, in the run's namespace: per dependency a
// Deployment of one pod (requests = limits, as the target), a ClusterIP Service of the cell's own,
// and a ConfigMap for the files it mounts (a node has no path of this machine's). The app dials the
// dependency by its Compose name (`db`): its pod maps that name to the Service's address (hostAliases),
// so two cells' `db`s never share a name. Pure functions of their specs: asserted exactly in tests.
import { readFileSync } from 'node:fs';
import type { V1ConfigMap, V1Deployment, V1Probe, V1Service } from '@kubernetes/client-node';
import { mountedFiles, type Dependency } from '../../apps/dependencies.ts';
import { k8sCpu, k8sMemory } from '../../common/k8s-quantity.ts';
import type { TargetSpec } from '../provider.ts';
import { dnsPart, K8S_LABEL, labelValue, namespaceFor, objectAnnotations, objectLabels, ROLE } from './manifests.ts';

/** The container's name in every dependency pod: its stats, logs and status are looked up by it. */
export const DEP_CONTAINER = 'dependency';

/** `dep-3-db`: the Deployment, Service and ConfigMap of one cell's dependency. */
export const dependencyObject = (cell: string, dep: Pick<Dependency, 'name'>): string =>
  `dep-${dnsPart(cell, 20)}-${dnsPart(dep.name.replace(/_/g, '-'), 30)}`;

/** Selects one cell's pods of one dependency. */
export function dependencySelector(spec: Pick<TargetSpec, 'labels'>, dep: Pick<Dependency, 'name'>) {
  return {
    [K8S_LABEL.run]: labelValue(spec.labels.run),
    [K8S_LABEL.cell]: labelValue(spec.labels.cell),
    [K8S_LABEL.role]: ROLE.dependency,
    [K8S_LABEL.dependency]: labelValue(dep.name),
  };
}

/** Ready = its health check passes (run by the kubelet in its container), else its port accepts a connection. */
function readiness(dep: Dependency): V1Probe {
  const hc = dep.healthcheck;
  if (!hc) return { tcpSocket: { port: dep.port! }, periodSeconds: 1, failureThreshold: 120 };
  const command = hc.test[0] === 'CMD-SHELL' ? ['/bin/sh', '-c', hc.test.slice(1).join(' ')] : hc.test.slice(1);
  return {
    exec: { command },
    periodSeconds: Math.max(1, Math.round(hc.intervalMs / 1000)),
    timeoutSeconds: Math.max(1, Math.round(hc.timeoutMs / 1000)),
    initialDelaySeconds: Math.round(hc.startPeriodMs / 1000),
    failureThreshold: hc.retries,
  };
}

export interface DependencyObjects {
  configMap?: V1ConfigMap;
  deployment: V1Deployment;
  service: V1Service;
}

/** One dependency of one cell as Kubernetes objects (its `port` is required: a Service needs one). */
export function dependencyManifests(spec: TargetSpec, dep: Dependency, namespacePrefix?: string): DependencyObjects {
  const name = dependencyObject(spec.labels.cell, dep);
  const namespace = namespaceFor(spec.labels.run, namespacePrefix);
  const selector = dependencySelector(spec, dep);
  const labels = { ...objectLabels(spec.labels), ...selector };
  const metadata = { name, namespace, labels, annotations: objectAnnotations(spec.labels) };
  const files = dep.mounts.flatMap(mountedFiles);
  const quantity = { cpu: k8sCpu(dep.cpuMillis), memory: k8sMemory(dep.memoryMb) };
  const configMap: V1ConfigMap | undefined = files.length
    ? {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata,
        binaryData: Object.fromEntries(files.map((f, i) => [`f${i}`, readFileSync(f.file).toString('base64')])),
      }
    : undefined;
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata,
    spec: {
      replicas: 1,
      revisionHistoryLimit: 0,
      strategy: { type: 'Recreate' },
      selector: { matchLabels: selector },
      template: {
        metadata: { labels, annotations: objectAnnotations(spec.labels) },
        spec: {
          terminationGracePeriodSeconds: 0, // its data is thrown away with the cell
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          // Off the app's node where the cluster has another (its cap is what is sized).
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 100,
                  podAffinityTerm: {
                    labelSelector: { matchLabels: { [K8S_LABEL.role]: ROLE.target } },
                    topologyKey: 'kubernetes.io/hostname',
                  },
                },
              ],
            },
          },
          containers: [
            {
              name: DEP_CONTAINER,
              image: dep.image,
              imagePullPolicy: 'IfNotPresent',
              ...(dep.command ? { args: dep.command } : {}),
              env: Object.entries(dep.env).map(([n, value]) => ({ name: n, value })),
              ports: [{ containerPort: dep.port!, protocol: 'TCP' }],
              resources: { requests: { ...quantity }, limits: { ...quantity } },
              readinessProbe: readiness(dep),
              ...(files.length
                ? {
                    volumeMounts: files.map((f, i) => ({
                      name: 'files',
                      mountPath: f.target,
                      subPath: `f${i}`,
                      readOnly: true,
                    })),
                  }
                : {}),
            },
          ],
          ...(files.length ? { volumes: [{ name: 'files', configMap: { name, defaultMode: 0o444 } }] } : {}),
        },
      },
    },
  };
  const service: V1Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata,
    spec: { type: 'ClusterIP', selector, ports: [{ port: dep.port!, targetPort: dep.port!, protocol: 'TCP' }] },
  };
  return { ...(configMap ? { configMap } : {}), deployment, service };
}
