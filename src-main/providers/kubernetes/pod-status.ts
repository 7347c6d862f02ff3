// What a target pod's status says: ready (and where), still coming up (and why), or failed (and
// why, in words). Pure functions of a V1Pod, so recorded pod objects test them.
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import type { ExitInfo } from '../../model/types.ts';
import { CONTAINER } from './manifests.ts';

export type PodView =
  | { state: 'ready'; pod: string; node: string; ip: string; restarts: number }
  | { state: 'pending'; pod?: string; reason: string }
  | { state: 'failed'; pod?: string; reason: string };

/**
 * Waiting reasons that do not get better by waiting: the image is missing or unpullable (it
 * should have been put there by prepareImage), the spec is wrong, or the app keeps crashing.
 */
const HOPELESS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'CrashLoopBackOff',
]);

export const appStatus = (pod: V1Pod, container = CONTAINER): V1ContainerStatus | undefined =>
  pod.status?.containerStatuses?.find((c) => c.name === container);

/**
 * Readiness as the kubelet sees it: the pod's Ready condition (the target's readinessProbe passed:
 * its health path answers, on the pod's own node; a pod without a probe, once running) and an IP to
 * send load to. From outside the cluster a pod IP is usually not reachable, so nothing is asked from here.
 */
export function podView(pod: V1Pod | undefined, container = CONTAINER): PodView {
  if (!pod) return { state: 'pending', reason: 'no pod yet (the Deployment has not made one)' };
  const name = pod.metadata?.name;
  const where = name ? { pod: name } : {};
  if (pod.metadata?.deletionTimestamp) return { state: 'pending', ...where, reason: `pod ${name} is being deleted` };
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') {
    const why = [pod.status?.reason, pod.status?.message].filter(Boolean).join(': ');
    return { state: 'failed', ...where, reason: `pod ${phase.toLowerCase()}${why ? ` (${why})` : ''}` };
  }
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False') {
    return {
      state: 'pending',
      ...where,
      reason: `not scheduled: ${scheduled.message ?? scheduled.reason ?? 'no reason given'}`,
    };
  }
  const c = appStatus(pod, container);
  const waiting = c?.state?.waiting;
  if (waiting?.reason && HOPELESS.has(waiting.reason)) {
    const last = c?.lastState?.terminated;
    const exit = last ? `; it last exited with code ${last.exitCode}${last.reason ? ` (${last.reason})` : ''}` : '';
    return {
      state: 'failed',
      ...where,
      reason: `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}${exit}`,
    };
  }
  // An app that exits before it is ready is a failed start, even though the kubelet will restart it.
  const ended = c?.state?.terminated ?? ((c?.restartCount ?? 0) > 0 ? c?.lastState?.terminated : undefined);
  if (ended) {
    return {
      state: 'failed',
      ...where,
      reason:
        `the app exited with code ${ended.exitCode}` +
        `${ended.reason ? ` (${ended.reason})` : ''} before it was ready`,
    };
  }
  const ready = pod.status?.conditions?.find((cond) => cond.type === 'Ready')?.status === 'True';
  const node = pod.spec?.nodeName;
  const ip = pod.status?.podIP;
  if (ready && c?.state?.running && node && ip && name)
    return { state: 'ready', pod: name, node, ip, restarts: c.restartCount ?? 0 };
  return {
    state: 'pending',
    ...where,
    reason: waiting?.reason ? `container ${waiting.reason}` : `pod ${phase ?? 'without a phase'}`,
  };
}

/**
 * OOM kills, the exit code and restarts as the pod status records them. restartPolicy is Always
 * under a Deployment, so a crash shows as a restart with the crash in lastState; the exit code is
 * that crash's (or the current one's, if the container is down now), null if it never stopped.
 */
export function podExitInfo(pod: V1Pod | undefined): ExitInfo {
  const c = pod ? appStatus(pod) : undefined;
  const now = c?.state?.terminated;
  const last = c?.lastState?.terminated;
  return {
    oomKilled: now?.reason === 'OOMKilled' || last?.reason === 'OOMKilled',
    exitCode: now?.exitCode ?? last?.exitCode ?? null,
    restarts: c?.restartCount ?? 0,
  };
}

/**
 * Replica `index` of a Deployment's `count` pods: its live pods ordered by name, once all of them
 * exist (so each replica keeps to one pod of its own); undefined until then.
 */
export function replicaPod(pods: readonly V1Pod[], index: number, count: number): V1Pod | undefined {
  const live = pods.filter((p) => !p.metadata?.deletionTimestamp);
  if (live.length < count) return undefined;
  return [...live].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))[index];
}

/** The newest pod that is not on its way out: a Deployment may briefly show the old one next to its replacement. */
export function currentPod(pods: readonly V1Pod[]): V1Pod | undefined {
  const live = pods.filter((p) => !p.metadata?.deletionTimestamp);
  const created = (p: V1Pod): number => new Date(p.metadata?.creationTimestamp ?? 0).getTime();
  return [...(live.length ? live : pods)].sort((a, b) => created(b) - created(a))[0];
}
