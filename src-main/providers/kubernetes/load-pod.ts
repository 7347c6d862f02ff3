// A cell's load as a pod in the run's namespace: the load agent (the engine's own load code) next to
// the target on another node, its JSON lines read from the pod's log stream and handed to
// AgentStream (load-agent/agent-stream.ts), which turns them into runLoad's callbacks and result
// exactly as for an agent on a Docker engine. The pod is deleted whatever happens.
import { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { V1Pod } from '@kubernetes/client-node';
import type { LoadResult } from '../../model/types.ts';
import type { LoadCallbacks } from '../../load/runner.ts';
import { AgentStream, LoadAgentError } from '../../load-agent/agent-stream.ts';
import type { RemoteLoadOutcome } from '../provider.ts';
import { describeError } from './check.ts';
import { httpStatus, ignore404, loadK8s, type Cluster } from './client.ts';
import { AGENT_CONTAINER, LOAD_GRACE_SEC, loadPodManifest, type LoadPodSpec } from './manifests.ts';
import { appStatus, podView } from './pod-status.ts';
import { sleep, until } from './wait.ts';

export interface LoadPodTimings {
  pollMs: number;
  /** How long the pod may take to be scheduled, pull the agent's image and start. */
  startTimeoutMs: number;
  removeTimeoutMs: number;
  /** How long a stopped agent has to report (within the pod's own grace, after which the kubelet kills it). */
  graceMs?: number;
  /** A log stream silent this long while the agent runs is opened again (it prints every second). */
  silenceMs?: number;
}

/**
 * How long a stopped agent has to report: within the pod's own grace (the kubelet kills it then),
 * and shorter than the cell runner's bound on a stopped load, so that this side gives up first and
 * still deletes the pod itself.
 */
const STOP_REPORT_MS = 10_000;

/** How often a log stream cut short (API server, kubelet restart) is followed again before giving up. */
const MAX_FOLLOWS = 5;

/** Splits a log into lines and drops the first `skip` whole ones: a log followed again starts from the beginning. */
class LineSkipper {
  private buf = '';
  private readonly decoder = new StringDecoder('utf8');
  lines = 0;
  constructor(private skip: number) {}

  /** Whole new lines (with their newlines) not seen before; a partial last line waits for the rest. */
  push(chunk: Buffer | string): string {
    this.buf += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let out = '';
    for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
      const line = this.buf.slice(0, nl + 1);
      this.buf = this.buf.slice(nl + 1);
      if (this.skip > 0) this.skip--;
      else {
        out += line;
        this.lines++;
      }
    }
    return out;
  }

  /** At the end of a log that will not grow: its last line without a newline. */
  rest(): string {
    const r = this.buf + this.decoder.end();
    this.buf = '';
    return this.skip > 0 ? '' : r;
  }
}

export class LoadPod {
  readonly namespace: string;
  readonly name: string;
  private readonly where: string;
  private node = '';

  constructor(
    private readonly c: Cluster,
    private readonly spec: LoadPodSpec,
    private readonly t: LoadPodTimings,
  ) {
    const m = loadPodManifest(spec);
    this.namespace = m.metadata!.namespace!;
    this.name = m.metadata!.name!;
    this.where = `pod ${this.namespace}/${this.name}`;
  }

  /** The load, start to result; the pod is always deleted (grace 0: it has reported, or it failed). */
  async run(cb: LoadCallbacks): Promise<RemoteLoadOutcome> {
    if (cb.signal?.aborted) throw new LoadAgentError(`the load on ${this.where} was cancelled before it started`);
    const place = { server: this.c.server, context: this.c.context };
    try {
      await this.create();
    } catch (e) {
      throw new LoadAgentError(`Could not start the load agent (${this.where}): ${describeError(e, place)}`);
    }
    try {
      await this.waitStarted(cb.signal);
      const result = await this.follow(cb);
      return { result, node: this.node };
    } finally {
      await this.delete(0).catch(() => {});
      await until(
        async () =>
          (await ignore404(() => this.c.core.readNamespacedPod({ name: this.name, namespace: this.namespace }))) ===
          undefined,
        this.t.pollMs,
        this.t.removeTimeoutMs,
      ).catch(() => false);
    }
  }

  private async create(): Promise<void> {
    const body = loadPodManifest(this.spec);
    try {
      await this.c.core.createNamespacedPod({ namespace: this.namespace, body });
    } catch (e) {
      if (httpStatus(e) !== 409) throw e;
      // Left by an attempt of the same cell that did not clean up: replace it.
      await this.delete(0);
      await until(
        async () =>
          (await ignore404(() => this.c.core.readNamespacedPod({ name: this.name, namespace: this.namespace }))) ===
          undefined,
        this.t.pollMs,
        this.t.removeTimeoutMs,
      );
      await this.c.core.createNamespacedPod({ namespace: this.namespace, body });
    }
  }

  /** Deletes the pod; `graceSec` > 0 sends the agent SIGTERM first (it then prints what it measured). */
  private async delete(graceSec: number): Promise<void> {
    await ignore404(() =>
      this.c.core.deleteNamespacedPod({ name: this.name, namespace: this.namespace, gracePeriodSeconds: graceSec }),
    );
  }

  private read(): Promise<V1Pod | undefined> {
    return ignore404(() => this.c.core.readNamespacedPod({ name: this.name, namespace: this.namespace }));
  }

  /** Until the agent's container has started (its log can be read), or a reason in words why it will not. */
  private async waitStarted(signal: AbortSignal | undefined): Promise<void> {
    const deadline = Date.now() + this.t.startTimeoutMs;
    let last = 'nothing heard yet';
    for (;;) {
      if (signal?.aborted) throw new LoadAgentError(`the load on ${this.where} was cancelled before the agent ran`);
      const pod = await this.read();
      if (!pod)
        throw new LoadAgentError(
          `the load agent's ${this.where} was deleted before it ran (the run was cancelled or removed)`,
        );
      this.node = pod.spec?.nodeName ?? this.node;
      const phase = pod.status?.phase;
      const c = appStatus(pod, AGENT_CONTAINER);
      if (phase === 'Running' || phase === 'Succeeded' || c?.state?.running || c?.state?.terminated) return;
      const v = podView(pod, AGENT_CONTAINER);
      if (v.state === 'failed') throw new LoadAgentError(`the load agent did not start (${this.where}): ${v.reason}`);
      if (v.state === 'pending') last = v.reason;
      if (Date.now() >= deadline) {
        const lead = last.startsWith('not scheduled') ? 'found no node' : 'did not start';
        throw new LoadAgentError(
          `the load agent ${lead} within ${Math.round(this.t.startTimeoutMs / 1000)} s (${this.where}): ${last}`,
        );
      }
      await sleep(this.t.pollMs);
    }
  }

  /**
   * Follows the agent's log into an AgentStream until its result. A stream that ends early (or goes
   * silent) while the agent still runs is followed again, skipping the lines already read; once the
   * agent has ended, its whole log is read once more for what the stream missed.
   */
  private follow(cb: LoadCallbacks): Promise<LoadResult> {
    const where = `${this.where} on ${this.node || 'its node'}`;
    const out = new AgentStream({
      cb,
      where,
      // The kubelet sends SIGTERM and kills after the pod's grace; the agent prints its result in between.
      terminate: () => this.delete(LOAD_GRACE_SEC),
      graceMs: this.t.graceMs ?? STOP_REPORT_MS,
    });
    if (cb.signal?.aborted) out.stop(); // aborted while it started: an aborted signal fires no more events
    void this.pump(out, where).catch((e: unknown) =>
      out.fail(
        `lost the load agent's log (${where}): ${describeError(e, { server: this.c.server, context: this.c.context })}`,
      ),
    );
    return out.result;
  }

  private async pump(out: AgentStream, where: string): Promise<void> {
    const k8s = await loadK8s();
    const log = new k8s.Log(this.c.kc);
    let seen = 0;
    for (let follows = 0; !out.settled; follows++) {
      const skipper = new LineSkipper(seen);
      let lastData = Date.now();
      let finish!: () => void;
      const ended = new Promise<void>((r) => (finish = r));
      const sink: Writable = new Writable({
        write(chunk: Buffer, _enc, done) {
          lastData = Date.now();
          const text = skipper.push(chunk);
          if (text) out.stdout(text);
          done();
        },
        final(done) {
          finish();
          done();
        },
      });
      // client-node pipes the response into the sink and leaves the response's errors unheard (an
      // abort or a dropped connection would be thrown as uncaught): listen on the source it pipes from.
      sink.on('pipe', (src: NodeJS.ReadableStream) => src.on('error', () => finish()));
      const ctl = await log.log(this.namespace, this.name, AGENT_CONTAINER, sink, { follow: true });
      out.onSettle(() => ctl.abort());
      const silence = this.t.silenceMs ?? 30_000;
      // A stream that errors stops writing without ending: silence while the agent runs counts as an end.
      while (
        !out.settled &&
        !(await Promise.race([ended.then(() => true), sleep(Math.min(silence, 1000)).then(() => false)]))
      ) {
        if (Date.now() - lastData >= silence) break;
      }
      ctl.abort();
      seen += skipper.lines;
      if (out.settled) return;
      const pod = await this.read();
      const c = pod ? appStatus(pod, AGENT_CONTAINER) : undefined;
      const terminated = c?.state?.terminated;
      if (pod && !terminated && follows + 1 >= MAX_FOLLOWS) {
        return out.fail(
          `lost the load agent's log (${where}): the stream ended ${MAX_FOLLOWS} times while the agent still ran`,
        );
      }
      if (!pod || terminated) {
        // The agent ended: what it printed is all there will be (the stream may have missed its last lines).
        if (pod) {
          const whole = await this.c.core
            .readNamespacedPodLog({ name: this.name, namespace: this.namespace, container: AGENT_CONTAINER })
            .catch(() => '');
          const last = new LineSkipper(seen);
          const text = last.push(whole) + last.rest();
          if (text) out.stdout(text);
        }
        await out.end(async () => terminated?.exitCode ?? null);
        return;
      }
      await sleep(this.t.pollMs); // the kubelet may not have written the container's end yet
    }
  }
}
