// One cell's target on Kubernetes: its Deployment and pod, readiness (the pod's, then every worker's),
// the exit watch, stats from the kubelet through the node proxy, logs, exit info and removal. Made by
// KubernetesProvider.provision.
import type { V1Pod } from '@kubernetes/client-node';
import type { ExitInfo } from '../../model/types.ts';
import { RESTART_LINE } from '../../docker/launch.ts';
import type { DependencyTarget, ProvisionedTarget, StatsReading } from '../provider.ts';
import { describeError } from './check.ts';
import { httpStatus, ignore404, rawGet, type Cluster } from './client.ts';
import {
  CONTAINER,
  cellSelector,
  deploymentFor,
  namespaceFor,
  selectorText,
  type KubernetesTargetSpec,
} from './manifests.ts';
import { currentPod, podExitInfo, podView, replicaPod } from './pod-status.ts';
import { cadvisorContainer, pollKubeletStats, type ContainerRef } from './stats.ts';
import { sleep, until } from './wait.ts';
import { workersUp } from './workers.ts';

export interface TargetTimings {
  pollMs: number;
  statsEveryMs: number;
  removeTimeoutMs: number;
  /** The saved target's prefix for run namespaces (default: rightsize). */
  namespacePrefix?: string;
  /** A replicated cell: this target is replica `index` of the Deployment's `of` pods (pod-status.ts replicaPod). */
  replica?: { index: number; of: number };
}

/** The start of a target's log read for its workers' lines (they come first; a chatty app cannot hide them). */
const STARTUP_LOG_BYTES = 1 << 20;

/** One cell's Deployment and its pod. */
export class KubernetesTarget implements ProvisionedTarget {
  readonly id: string;
  readonly address = { host: '', port: 0 };
  node?: string;
  readonly exited: Promise<number>;
  private pod = '';
  private readonly namespace: string;
  private readonly deployment: string;
  private readonly selector: string;
  private removed = false;
  private resolveExit!: (code: number) => void;
  /** Set once the target stopped by itself (or was removed): readiness stops waiting. */
  private exitCode?: number;
  private readonly stops = new Set<() => void>();
  /** A pod runs an image as it is: the probe's file cannot be copied into it before it starts. */
  readonly probeNote?: string;
  /** Its dependencies (kubernetes/dependencies.ts), removed after it. */
  dependencies?: DependencyTarget[];
  private removeWorld?: () => Promise<void>;

  constructor(
    private readonly c: Cluster,
    private readonly spec: KubernetesTargetSpec,
    private readonly t: TargetTimings,
  ) {
    this.namespace = namespaceFor(spec.labels.run, t.namespacePrefix);
    this.deployment = deploymentFor(spec.labels.cell);
    this.id = `${this.namespace}/${this.deployment}${t.replica ? `#${t.replica.index + 1}` : ''}`;
    this.selector = selectorText(cellSelector(spec));
    if (spec.launch.mode === 'image' && spec.launch.probe === true)
      this.probeNote = "no probe: an image app's pod runs the image as it is, without the probe's file";
    this.address.port = spec.port;
    this.exited = new Promise((r) => (this.resolveExit = r));
    void this.exited.then((code) => (this.exitCode = code));
  }

  private async pods(): Promise<V1Pod[]> {
    return (await this.c.core.listNamespacedPod({ namespace: this.namespace, labelSelector: this.selector })).items;
  }

  /**
   * Until the pod is Ready with an IP, or a state that waiting will not mend (in words, with the log tail), or the time
   * is up.
   */
  async waitPodReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = 'nothing heard yet';
    const where = { server: this.c.server, context: this.c.context };
    for (;;) {
      if (this.removed) throw new Error(`Cell ${this.spec.labels.cell} was removed while it started`);
      let pods: V1Pod[];
      try {
        pods = await this.pods();
      } catch (e) {
        throw new Error(`Cell ${this.spec.labels.cell}: ${describeError(e, where)}`);
      }
      const r = this.t.replica;
      const v = podView(r ? replicaPod(pods, r.index, r.of) : currentPod(pods));
      if (v.state === 'ready') {
        Object.assign(this.address, { host: v.ip });
        this.node = v.node;
        this.pod = v.pod;
        this.watchExit(v.restarts);
        return;
      }
      if (v.state === 'failed') {
        if (v.pod) this.pod = v.pod;
        const tail = v.pod ? await this.logTail(20).catch(() => '') : '';
        throw new Error(
          `Cell ${this.spec.labels.cell} did not start (${this.id}): ${v.reason}${tail ? `\n${tail}` : ''}`,
        );
      }
      last = v.reason;
      // No pod and no Deployment: it was removed (cancel, the run's namespace deleted) while we waited.
      if (
        pods.length === 0 &&
        (await ignore404(() =>
          this.c.apps.readNamespacedDeployment({ name: this.deployment, namespace: this.namespace }),
        )) === undefined
      ) {
        throw new Error(`Cell ${this.spec.labels.cell} was removed while it started (${this.id} is gone)`);
      }
      if (Date.now() >= deadline) {
        const lead = last.startsWith('not scheduled') ? 'no node free for it' : 'not ready';
        throw new Error(
          `Cell ${this.spec.labels.cell} ${lead} after ${Math.round(timeoutMs / 1000)} s (${this.id}): ${last}`,
        );
      }
      await sleep(this.t.pollMs);
    }
  }

  /**
   * Every worker up, decided in the cluster (this machine cannot reach the pod IP): the pod Ready
   * (its readinessProbe: the health path answers) and the workers' own log lines (workers.ts:
   * the cluster launcher's "all N listening", N distinct pids, PM2's instances). Polled until the
   * deadline; fails at once when the target stops or the signal aborts.
   */
  async waitReady(o: { workers: number; deadlineMs: number; signal?: AbortSignal }): Promise<{ ms: number }> {
    const t0 = performance.now();
    let last = 'nothing heard yet';
    for (;;) {
      if (o.signal?.aborted) throw new Error('cancelled');
      if (this.exitCode !== undefined) {
        throw new Error(
          this.removed
            ? `cell ${this.spec.labels.cell} was removed before it was ready`
            : `the container exited with code ${this.exitCode} before it was ready`,
        );
      }
      const pod = (await this.pods().catch(() => undefined))?.find((p) => p.metadata?.name === this.pod);
      if (pod) {
        const v = podView(pod);
        if (v.state === 'failed') throw new Error(v.reason);
        if (v.state === 'ready') {
          const log = await this.c.core
            .readNamespacedPodLog({
              name: this.pod,
              namespace: this.namespace,
              container: CONTAINER,
              limitBytes: STARTUP_LOG_BYTES,
            })
            .catch(() => '');
          const w = workersUp(log, this.spec.launch, o.workers);
          if (w.up) return { ms: performance.now() - t0 };
          last = w.waiting;
        } else last = v.reason === 'pod Running' ? 'the health check has not passed yet (pod not Ready)' : v.reason;
      }
      if (performance.now() - t0 >= o.deadlineMs)
        throw new Error(`not ready within ${Math.round(o.deadlineMs / 1000)} s (${last})`);
      await sleep(this.t.pollMs);
    }
  }

  /**
   * Resolves `exited` when the target stops by itself: the kubelet restarts a crashed container in
   * place (restartPolicy Always), so a stop shows as a higher restartCount, a terminated state, or
   * the pod gone (evicted, deleted by someone else). Resolves -1 on remove().
   */
  private watchExit(restartsAtStart: number): void {
    let timer: NodeJS.Timeout | undefined;
    const stop = (): void => clearTimeout(timer);
    this.stops.add(stop);
    const tick = async (): Promise<void> => {
      if (this.removed) return;
      try {
        const pod = (await this.pods()).find((p) => p.metadata?.name === this.pod);
        if (this.removed) return;
        if (!pod) return this.endWatch(stop, -1);
        const info = podExitInfo(pod);
        const c = pod.status?.containerStatuses?.find((s) => s.name === CONTAINER);
        if (c?.state?.terminated || info.restarts > restartsAtStart) return this.endWatch(stop, info.exitCode ?? -1);
      } catch (e) {
        // The namespace is gone (the run removed under us: cancel); anything else is a hiccup: look again.
        if (httpStatus(e) === 404) return this.endWatch(stop, -1);
      }
      timer = setTimeout(() => void tick(), this.t.pollMs);
    };
    timer = setTimeout(() => void tick(), this.t.pollMs);
  }

  private endWatch(stop: () => void, code: number): void {
    this.stops.delete(stop);
    this.resolveExit(code);
  }

  private get ref(): ContainerRef {
    return { namespace: this.namespace, pod: this.pod, container: CONTAINER };
  }

  /**
   * The cAdvisor page of the target's node (empty if it cannot be read: throttling and the peak are then unknown, not
   * fatal).
   */
  private cadvisor(): Promise<string> {
    return rawGet(this.c, `/api/v1/nodes/${encodeURIComponent(this.node ?? '')}/proxy/metrics/cadvisor`).catch(
      () => '',
    );
  }

  /** The kubelet's readings of the target's container (stats.ts pollKubeletStats), the first before this returns. */
  async stats(onReading: (r: StatsReading) => void): Promise<() => void> {
    const stopPoll = await pollKubeletStats(
      this.c,
      this.node ?? '',
      this.ref,
      this.spec.memoryMb,
      this.t.statsEveryMs,
      onReading,
    );
    const stop = (): void => {
      stopPoll();
      this.stops.delete(stop);
    };
    this.stops.add(stop);
    return stop;
  }

  /** The app's last lines; after a restart, the previous instance's lines come first (that is where the crash is). */
  async logTail(lines: number): Promise<string> {
    if (!this.pod) return '';
    const read = (previous: boolean): Promise<string> =>
      this.c.core.readNamespacedPodLog({
        name: this.pod,
        namespace: this.namespace,
        container: CONTAINER,
        tailLines: lines,
        ...(previous ? { previous } : {}),
      });
    const pod = (await this.pods().catch(() => [] as V1Pod[])).find((p) => p.metadata?.name === this.pod);
    const restarted = (podExitInfo(pod).restarts ?? 0) > 0;
    const parts = await Promise.all([
      restarted ? read(true).catch(() => '') : Promise.resolve(''),
      read(false).catch(() => ''),
    ]);
    const all = parts
      .join('')
      .split('\n')
      .filter((l) => l.length > 0);
    return all.slice(-lines).join('\n');
  }

  /**
   * OOM kills, exit code and restarts: the pod status (OOMKilled in lastState, restartCount), plus
   * worker processes replaced inside the container (the launchers' log lines, as locally) and the
   * kernel's OOM kills of a worker that left the container running (cAdvisor's
   * container_oom_events_total, where the node's cAdvisor has it). Call before remove().
   */
  async exitInfo(): Promise<ExitInfo> {
    const pod = (await this.pods().catch(() => [] as V1Pod[])).find((p) => p.metadata?.name === this.pod);
    const base = podExitInfo(pod);
    const [logs, cad] = await Promise.all([
      this.logTail(5000).catch(() => ''),
      this.node ? this.cadvisor() : Promise.resolve(''),
    ]);
    const workerRestarts = logs.split('\n').filter((l) => RESTART_LINE.test(l)).length;
    const oomEvents = cadvisorContainer(cad, this.ref).oomEvents ?? 0;
    return {
      oomKilled: base.oomKilled || oomEvents > 0,
      exitCode: base.exitCode,
      restarts: base.restarts + workerRestarts,
    };
  }

  /** This target with its dependencies, which go when it does. */
  withWorld(dependencies: DependencyTarget[], remove: () => Promise<void>): this {
    this.dependencies = dependencies;
    this.removeWorld = remove;
    return this;
  }

  /**
   * Deletes the Deployment (Foreground: its ReplicaSet and pod first; grace 0, as `docker rm -f`)
   * and waits, bounded, until it is gone, so that its node is free for the next cell. Safe to call twice.
   */
  async remove(): Promise<void> {
    const first = !this.removed;
    this.removed = true;
    for (const stop of [...this.stops]) stop();
    this.stops.clear();
    if (first) this.resolveExit(-1);
    const ref = { name: this.deployment, namespace: this.namespace };
    await ignore404(() =>
      this.c.apps.deleteNamespacedDeployment({ ...ref, propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }),
    );
    await until(
      async () => (await ignore404(() => this.c.apps.readNamespacedDeployment(ref))) === undefined,
      this.t.pollMs,
      this.t.removeTimeoutMs,
    );
    if (first) await this.removeWorld?.();
  }
}
