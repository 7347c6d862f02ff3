// A load phase run by the load agent (agent.ts) in a container on another engine, next to the
// target: the same plan, the same callbacks and the same LoadResult as runLoad, so whoever drives
// it (the cell runner, the live view) cannot tell a remote load from a local one. The container
// uses the engine's host network (it reaches the target by the address the target is published on)
// and, optionally, its own cores; it is removed whatever happens, and carries the session labels so
// that a dead session's agent is swept like its targets.
import type Docker from 'dockerode';
import { ensureBaseImage } from '../docker/base-image.ts';
import { docker } from '../docker/client.ts';
import { LABEL, PRODUCT } from '../docker/labels.ts';
import { isWarm as steadyStateIsWarm } from '../engine/steady-state.ts';
import type { LoadResult } from '../engine/types.ts';
import type { LoadCallbacks } from '../load/runner.ts';
import type { LoadPlan } from '../load/protocol.ts';
import { shipImage } from '../providers/docker/ship-image.ts';
import { currentSession } from '../session/session.ts';
import { FrameSplitter } from './attach-frames.ts';
import { AGENT_COMMAND, ensureLoadAgentImage } from './image.ts';
import { LineParser, PLAN_ENV, type AgentLine, type AgentPlan, type NoiseLine } from './line-protocol.ts';

/** Where the agent runs: an engine, its name for messages, and (optionally) the cores it keeps to. */
export interface AgentPlacement {
  engine: Docker;
  /** A name for messages: "node-2 (tcp://10.0.0.2:2376)". */
  where: string;
  /** Cores on that engine's machine for the agent (taskset syntax); default: the plan's `cpus`, else any. */
  cpus?: string;
}

export interface RemoteLoadOptions {
  /** The agent image, present on the placement's engine (prepareLoadAgent). */
  image: string;
  /** The cell the load belongs to: the agent carries the same run/cell/app labels as its target. */
  labels?: { run?: string | number; cell?: string | number; app?: string };
}

/** After SIGTERM, how long the agent has to print what it measured before it is removed regardless. */
const CANCEL_GRACE_MS = 3000;

export class LoadAgentError extends Error {
  readonly code = 'LOAD_AGENT_FAILED';
}

/**
 * The agent image on `to`: built on this machine (on the base image) if needed, and shipped there
 * (`docker save | load`) when that engine lacks it. Returns the tag to pass to runRemoteLoad.
 */
export async function prepareLoadAgent(to: Docker, where: string, onLog?: (line: string) => void): Promise<string> {
  const tag = await ensureLoadAgentImage(await ensureBaseImage({ ...(onLog ? { onLog } : {}) }), onLog);
  await shipImage(tag, to, docker(), where);
  return tag;
}

/**
 * runLoad, run by the agent on `placement.engine`. `onSecond` gets every second as it arrives,
 * in order, warmup ones flagged; the result is the agent's runLoad result. The signal stops the
 * load (SIGTERM: the agent still reports what it measured, as a stopped local load does) and
 * removes the container. An adaptive warmup must be the engine's steady-state rule: the agent
 * applies that same rule itself (a function cannot travel to another machine).
 */
export async function runRemoteLoad(placement: AgentPlacement, plan: LoadPlan, cb: LoadCallbacks, opts: RemoteLoadOptions): Promise<LoadResult> {
  if (cb.isWarm && cb.isWarm !== steadyStateIsWarm) {
    throw new LoadAgentError('a remote load agent decides warmup with the steady-state rule (engine/steady-state.ts isWarm) only');
  }
  const cpus = placement.cpus ?? plan.cpus;
  const agentPlan: AgentPlan = { plan: { ...plan, ...(cpus ? { cpus } : {}) }, adaptiveWarmup: cb.isWarm !== undefined };
  const labels = opts.labels ?? {};
  if (cb.signal?.aborted) throw new LoadAgentError(`the load on ${placement.where} was cancelled before it started`);

  const container = await placement.engine.createContainer({
    Image: opts.image,
    Cmd: AGENT_COMMAND,
    Env: [`${PLAN_ENV}=${JSON.stringify(agentPlan)}`],
    Labels: {
      [LABEL.product]: PRODUCT,
      [LABEL.session]: currentSession(),
      [LABEL.kind]: 'load-agent',
      ...(labels.app !== undefined ? { [LABEL.app]: labels.app } : {}),
      ...(labels.run !== undefined ? { [LABEL.run]: String(labels.run) } : {}),
      ...(labels.cell !== undefined ? { [LABEL.cell]: String(labels.cell) } : {}),
    },
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: { NetworkMode: 'host', ...(cpus ? { CpusetCpus: cpus } : {}) },
  });
  const remove = (): Promise<void> => container.remove({ force: true, v: true }).catch(() => {});
  try {
    return await follow(container, placement, cb);
  } finally {
    await remove();
  }
}

/** Attaches before the start (nothing printed is missed, whatever the engine's log driver), starts, and reads lines until the result. */
async function follow(container: Docker.Container, placement: AgentPlacement, cb: LoadCallbacks): Promise<LoadResult> {
  const stream = (await container.attach({ stream: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
  const parser = new LineParser();
  const noise: string[] = [];
  const stderr: string[] = [];
  let stopping = false;

  return new Promise<LoadResult>((resolve, reject) => {
    let settled = false;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      if (grace) clearTimeout(grace);
      cb.signal?.removeEventListener('abort', stop);
      stream.destroy();
      fn();
    };
    const tail = (): string => {
      const lines = [...noise, ...stderr].slice(-10);
      return lines.length ? `\n${lines.join('\n')}` : '';
    };
    const handle = (m: AgentLine | NoiseLine): void => {
      if (settled) return;
      switch (m.type) {
        case 'second':
          // As runLoad: once stopped, seconds still in flight are not reported.
          if (!stopping) {
            try {
              cb.onSecond?.(m.s, m.warmup);
            } catch (e) {
              stop();
              settle(() => reject(e instanceof Error ? e : new Error(String(e))));
            }
          }
          break;
        case 'result':
          settle(() => resolve(m.result));
          break;
        case 'error':
          settle(() => reject(new LoadAgentError(`load agent on ${placement.where}: ${m.message}`)));
          break;
        case 'noise':
          noise.push(m.text);
          if (noise.length > 20) noise.shift();
          break;
      }
    };
    const frames = new FrameSplitter((kind, payload) => {
      if (kind === 'stdout') return parser.push(payload).forEach(handle);
      stderr.push(...payload.toString().split('\n').filter((l) => l.trim()));
      if (stderr.length > 20) stderr.splice(0, stderr.length - 20);
    });
    // Frames are split here, in the stream's own 'data' events: by its 'end' every line has been seen.
    stream.on('data', (chunk: Buffer) => frames.push(chunk));
    stream.on('end', () => {
      parser.end().forEach(handle);
      if (settled) return;
      void container.wait().then(
        (r: { StatusCode: number }) => r.StatusCode,
        () => null,
      ).then((code) => {
        const why = stopping ? 'was stopped' : `exited${code === null ? '' : ` with code ${code}`}`;
        settle(() => reject(new LoadAgentError(`the load agent on ${placement.where} ${why} before it reported a result${tail()}`)));
      });
    });
    stream.on('error', (e: Error) => settle(() => reject(new LoadAgentError(`lost the load agent on ${placement.where}: ${e.message}`))));

    function stop(): void {
      if (stopping || settled) return;
      stopping = true;
      // SIGTERM: the agent stops its threads and prints its result; after the grace it is removed anyway.
      void container.kill({ signal: 'SIGTERM' }).catch(() =>
        // Not running (not started yet, or already gone): nothing will report.
        settle(() => reject(new LoadAgentError(`the load on ${placement.where} was cancelled before the agent ran`))),
      );
      grace = setTimeout(
        () => settle(() => reject(new LoadAgentError(`the load agent on ${placement.where} did not report within ${CANCEL_GRACE_MS} ms of being stopped`))),
        CANCEL_GRACE_MS,
      );
    }
    cb.signal?.addEventListener('abort', stop, { once: true });

    container.start().then(
      () => {
        if (cb.signal?.aborted) stop();
      },
      (e: Error) => settle(() => reject(new LoadAgentError(`the load agent could not start on ${placement.where}: ${e.message}`))),
    );
  });
}
