// A cell's Swarm service's tasks: waiting until all of its replicas run (or saying Swarm's reason why
// not), and waiting until their containers are gone after the service is removed.
import type Docker from 'dockerode';
import type { TargetContainer } from '../../docker/containers.ts';

/** A task that is not running by then is reported with Swarm's own words (no resources, image missing…). */
const TASK_DEADLINE_MS = 60_000;

export interface SwarmTask {
  ID: string;
  NodeID?: string;
  DesiredState: string;
  Slot?: number;
  Status: {
    State: string;
    Err?: string;
    Message?: string;
    ContainerStatus?: { ContainerID?: string };
    PortStatus?: { Ports?: { TargetPort: number; PublishedPort: number }[] };
  };
}

const ENDED = ['failed', 'rejected', 'complete', 'shutdown', 'orphaned'];

/** The service's `count` tasks once all run, in slot order; or Swarm's reason one does not. */
export async function runningTasks(manager: Docker, serviceId: string, count: number): Promise<SwarmTask[]> {
  const deadline = Date.now() + TASK_DEADLINE_MS;
  let last: SwarmTask[] = [];
  while (Date.now() < deadline) {
    last = (await manager.listTasks({ filters: JSON.stringify({ service: [serviceId] }) })) as SwarmTask[];
    const running = last.filter((t) => t.Status.State === 'running' && t.Status.ContainerStatus?.ContainerID);
    if (running.length >= count) return running.sort((a, b) => (a.Slot ?? 0) - (b.Slot ?? 0)).slice(0, count);
    if (last.some((t) => ENDED.includes(t.Status.State))) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const bad = last.find((t) => ENDED.includes(t.Status.State)) ?? last.find((t) => t.Status.State !== 'running');
  const why = bad ? `${bad.Status.State}: ${bad.Status.Err ?? bad.Status.Message ?? ''}` : 'no task was created';
  const which =
    count > 1 ? ` (${last.filter((t) => t.Status.State === 'running').length} of ${count} replicas ran)` : '';
  throw new Error(`the Swarm did not run the cell's service${which} (${why.trim()})`);
}

/** Bounded: a removed service's task container is gone within ~10 s, or left to removeRun and the sweep. */
export async function untilGone(c: Pick<TargetContainer, 'container'>): Promise<void> {
  for (
    let i = 0;
    i < 100 &&
    (await c.container.inspect().then(
      () => true,
      () => false,
    ));
    i++
  )
    await new Promise((r) => setTimeout(r, 100));
}

/** Said when every usable node runs a replica: the load agent has to share a node with one. */
export function sharedAgentWords(nodes: readonly string[]): string {
  const distinct = [...new Set(nodes)];
  return (
    `the load agent shares a node with a replica: the ${nodes.length} replicas run on every usable node ` +
    `(${distinct.join(', ')}), so no node is free for the load alone`
  );
}
