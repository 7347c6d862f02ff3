// Load agents left on an engine: by run (cancel, the end of a run) or by dead session (the sweep).
// Targets have their own removal (containers, services, pods); agents are plain containers on
// whichever engine ran them, so every provider that places agents removes them with this.
import type Docker from 'dockerode';
import { LABEL, ownFilters } from '../docker/labels.ts';

export async function removeLoadAgents(
  engine: Docker,
  which: { run: string } | { isAlive: (session: string) => boolean },
): Promise<string[]> {
  const labels = [
    ...ownFilters(),
    `${LABEL.kind}=load-agent`,
    ...('run' in which ? [`${LABEL.run}=${which.run}`] : []),
  ];
  const list = await engine.listContainers({ all: true, filters: JSON.stringify({ label: labels }) });
  const gone = 'run' in which ? list : list.filter((c) => !which.isAlive(c.Labels[LABEL.session] ?? ''));
  await Promise.all(
    gone.map((c) =>
      engine
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => {}),
    ),
  );
  return gone.map((c) => c.Id);
}
