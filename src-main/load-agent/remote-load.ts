// A load phase run by the load agent (agent.ts) in a container on another engine, next to the
// target: the same plan, the same callbacks and the same LoadResult as runLoad, so whoever drives
// it (the cell runner, the live view) cannot tell a remote load from a local one. The container
// uses the engine's host network (it reaches the target by the address the target is published on)
// and, optionally, its own cores; it is removed whatever happens, and carries the session labels so
// that a dead session's agent is swept like its targets.
import type Docker from 'dockerode';
import { ensureBaseImage } from '../docker/base-image.ts';
import { docker, withTimeout } from '../docker/client.ts';
import { LABEL, ownLabels } from '../docker/labels.ts';
import type { LoadResult } from '../model/types.ts';
import type { LoadCallbacks } from '../load/runner.ts';
import type { LoadPlan } from '../load/protocol.ts';
import { shipImage } from '../docker/ship-image.ts';
import { currentSession } from '../session/session.ts';
import { FrameSplitter } from './attach-frames.ts';
import { AGENT_COMMAND, ensureLoadAgentImage } from './image.ts';
import { AgentStream, agentPlanFor, LoadAgentError } from './agent-stream.ts';
import { PLAN_ENV, planEnvValue } from './line-protocol.ts';

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

export { LoadAgentError };

/** How long removing a finished agent may take before it is left to removeRun / the sweep. */
export const REMOVE_TIMEOUT_MS = 5000;

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
export async function runRemoteLoad(
  placement: AgentPlacement,
  plan: LoadPlan,
  cb: LoadCallbacks,
  opts: RemoteLoadOptions,
): Promise<LoadResult> {
  const cpus = placement.cpus ?? plan.cpus;
  const agentPlan = agentPlanFor(plan, cb, cpus ? { cpus } : {});
  const labels = opts.labels ?? {};
  if (cb.signal?.aborted) throw new LoadAgentError(`the load on ${placement.where} was cancelled before it started`);

  const container = await placement.engine.createContainer({
    Image: opts.image,
    Cmd: AGENT_COMMAND,
    Env: [`${PLAN_ENV}=${planEnvValue(agentPlan)}`],
    Labels: {
      ...ownLabels(),
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
  // Bounded: an engine that stopped answering keeps its agent until removeRun or the sweep reaches it.
  const remove = (): Promise<void> =>
    withTimeout(container.remove({ force: true, v: true }), REMOVE_TIMEOUT_MS, 'no answer').catch(() => {});
  try {
    return await follow(container, placement, cb);
  } finally {
    await remove();
  }
}

/**
 * Attaches before the start (nothing printed is missed, whatever the engine's log driver), starts, and reads lines
 * until the result.
 */
async function follow(container: Docker.Container, placement: AgentPlacement, cb: LoadCallbacks): Promise<LoadResult> {
  const stream = (await container.attach({
    stream: true,
    stdout: true,
    stderr: true,
  })) as unknown as NodeJS.ReadableStream & { destroy(): void };
  // SIGTERM: the agent stops its threads and prints its result (AgentStream bounds the wait).
  const out = new AgentStream({ cb, where: placement.where, terminate: () => container.kill({ signal: 'SIGTERM' }) });
  out.onSettle(() => stream.destroy());
  const frames = new FrameSplitter((kind, payload) => (kind === 'stdout' ? out.stdout(payload) : out.stderr(payload)));
  // Frames are split here, in the stream's own 'data' events: by its 'end' every line has been seen.
  stream.on('data', (chunk: Buffer) => frames.push(chunk));
  stream.on('end', () => void out.end(() => container.wait().then((r: { StatusCode: number }) => r.StatusCode)));
  stream.on('error', (e: Error) => out.fail(`lost the load agent on ${placement.where}: ${e.message}`));
  container.start().then(
    () => {
      if (cb.signal?.aborted) out.stop();
    },
    (e: Error) => out.fail(`the load agent could not start on ${placement.where}: ${e.message}`),
  );
  return out.result;
}
