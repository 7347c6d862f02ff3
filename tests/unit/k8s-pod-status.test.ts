// Pod status as the provider reads it: readiness, failures in words, OOM kills and restarts.
// Recorded Pod objects (tests/fixtures/k8s/pod-*.json, shapes of core/v1 Pod), not a live cluster.
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { currentPod, podExitInfo, podView } from '../../src-main/providers/kubernetes/pod-status.ts';
import { fixture } from './k8s-fake-api.ts';

const pod = (name: string): V1Pod => fixture<V1Pod>(name);

describe('podView (readiness)', () => {
  it('is ready once the pod is Ready, running, on a node and has an IP', () => {
    expect(podView(pod('pod-running.json'))).toEqual({ state: 'ready', pod: 'cell-3-6b8f5d7c9d-k2x7p', node: 'worker-b', ip: '10.244.2.17', restarts: 0 });
  });

  it('waits while the pod is not scheduled, saying why', () => {
    const v = podView(pod('pod-unschedulable.json'));
    expect(v.state).toBe('pending');
    expect(v.state === 'pending' && v.reason).toMatch(/^not scheduled: 0\/3 nodes are available: .*didn't match pod anti-affinity rules/);
  });

  it('waits while the container is being created', () => {
    expect(podView(pod('pod-creating.json'))).toEqual({ state: 'pending', pod: 'cell-3-6b8f5d7c9d-k2x7p', reason: 'container ContainerCreating' });
    expect(podView(undefined)).toMatchObject({ state: 'pending' });
  });

  it('fails at once on states that waiting does not mend', () => {
    expect(podView(pod('pod-imagepullbackoff.json'))).toEqual({
      state: 'failed',
      pod: 'cell-3-6b8f5d7c9d-k2x7p',
      reason: 'ImagePullBackOff: Back-off pulling image "registry.example.com/rightsize/app:9c1e2f3"',
    });
    const crash = podView(pod('pod-crashloop.json'));
    expect(crash.state).toBe('failed');
    expect(crash.state === 'failed' && crash.reason).toMatch(/^CrashLoopBackOff: back-off 20s restarting failed container=app .*; it last exited with code 1 \(Error\)$/);
  });

  it('fails a pod that the node evicted', () => {
    const p = pod('pod-running.json');
    p.status = { phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' };
    expect(podView(p)).toMatchObject({ state: 'failed', reason: 'pod failed (Evicted: The node was low on resource: memory.)' });
  });
});

describe('podExitInfo', () => {
  it('reads an OOM kill and the restart from lastState and restartCount', () => {
    expect(podExitInfo(pod('pod-oomkilled.json'))).toEqual({ oomKilled: true, exitCode: 137, restarts: 1 });
  });

  it('reads a crash that is not an OOM kill', () => {
    expect(podExitInfo(pod('pod-crashloop.json'))).toEqual({ oomKilled: false, exitCode: 1, restarts: 2 });
  });

  it('reports nothing for a container that never stopped', () => {
    expect(podExitInfo(pod('pod-running.json'))).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });
    expect(podExitInfo(undefined)).toEqual({ oomKilled: false, exitCode: null, restarts: 0 });
  });
});

describe('currentPod', () => {
  it('prefers the newest pod that is not being deleted', () => {
    const old = pod('pod-oomkilled.json');
    old.metadata!.name = 'old';
    old.metadata!.creationTimestamp = new Date('2026-11-20T10:10:00Z');
    const gone = pod('pod-running.json');
    gone.metadata!.name = 'going';
    gone.metadata!.creationTimestamp = new Date('2026-11-20T10:20:00Z');
    gone.metadata!.deletionTimestamp = new Date('2026-11-20T10:21:00Z');
    const now = pod('pod-running.json');
    now.metadata!.creationTimestamp = new Date('2026-11-20T10:15:02Z');
    expect(currentPod([old, gone, now])?.metadata?.name).toBe('cell-3-6b8f5d7c9d-k2x7p');
    expect(currentPod([gone])?.metadata?.name).toBe('going');
    expect(currentPod([])).toBeUndefined();
  });
});
