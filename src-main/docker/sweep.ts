import type Docker from 'dockerode';
import { docker } from './client.ts';
import { LABEL, ownFilters } from './labels.ts';
import { isSessionAlive } from '../session/session.ts';

/**
 * Removes every Rightsize container whose owning session is gone (crash, SIGKILL, power loss).
 * Runs at engine start-up; containers of live sessions, this one included, are left alone.
 */
export async function sweepOrphans(client: Docker = docker()): Promise<string[]> {
  const list = await client.listContainers({
    all: true,
    filters: JSON.stringify({ label: ownFilters() }),
  });
  // Every container Rightsize creates names its session. One without is a build step's: it inherits its base image's
  // labels, never a session, and its builder removes it (forcerm). Removing it would kill another process's build.
  const orphans = list.filter((c) => {
    const session = c.Labels[LABEL.session];
    return session !== undefined && !isSessionAlive(session);
  });
  await Promise.all(
    orphans.map((c) =>
      client
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch((e: { statusCode?: number }) => {
          if (e.statusCode !== 404 && e.statusCode !== 409) throw e;
        }),
    ),
  );
  await removeOwnNetworks(client, (labels) => !isSessionAlive(labels[LABEL.session] ?? ''));
  return orphans.map((c) => c.Id);
}

/**
 * Removes Rightsize's networks (a cell's world: the app and its dependencies) that `which` picks by
 * their labels, after their containers are gone; one still in use is left for the next pass.
 */
export async function removeOwnNetworks(
  client: Docker,
  which: (labels: Record<string, string>) => boolean,
): Promise<string[]> {
  const nets = await client.listNetworks({ filters: JSON.stringify({ label: ownFilters() }) });
  const picked = nets.filter((n) => which(n.Labels ?? {}));
  const done = await Promise.all(
    picked.map((n) =>
      client
        .getNetwork(n.Id)
        .remove()
        .then(() => n.Name)
        .catch(() => undefined),
    ),
  );
  return done.filter((n): n is string => Boolean(n));
}

/** Containers of one run (or of this session), e.g. to prove a run left nothing behind. */
export async function listOwnContainers(
  filter: { run?: number | string; session?: string } = {},
  client: Docker = docker(),
): Promise<string[]> {
  const labels = ownFilters();
  if (filter.run !== undefined) labels.push(`${LABEL.run}=${filter.run}`);
  if (filter.session) labels.push(`${LABEL.session}=${filter.session}`);
  const list = await client.listContainers({ all: true, filters: JSON.stringify({ label: labels }) });
  return list.map((c) => c.Id);
}
