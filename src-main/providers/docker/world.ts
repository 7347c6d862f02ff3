// A cell's world on a Docker engine: its own network and a fresh container for each dependency of
// the app (its database, its cache), reached by name as in Compose. Fresh for every cell, so no
// cell's writes reach the next; every object labelled like the app's container, so cancel, the
// reaper and the sweep remove them too. A network a cell, not a run: the next cell's world starts
// while the last one's is still being removed, and two `db`s on one network would share the name.
import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { Dependency } from '../../apps/dependencies.ts';
import { dependencyTarget } from '../dependency-target.ts';
import { LABEL, ownLabels } from '../../docker/labels.ts';
import { currentSession } from '../../session/session.ts';
import type { DependencyTarget, StatsReading } from '../provider.ts';
import { streamReadings } from './readings.ts';
import { accepts, logText, untilReady } from './dependency-ready.ts';

/** Marks a dependency's container (its value: the dependency's name) and a world's network. */
export const WORLD_LABEL = { dependency: 'io.rightsize.dependency', network: 'io.rightsize.network' } as const;

export interface WorldSpec {
  dependencies: readonly Dependency[];
  labels: { app: string; run?: string; cell?: string };
  /** Cores for the dependencies (absent: wherever the kernel puts them). */
  cpuset?: string;
  /** Publish each dependency's port on this address (an engine whose bridge IPs do not route here). */
  publishOn?: string;
}

interface Member {
  dep: Dependency;
  container: Docker.Container;
  /** Where its port is reached from here, for readiness without a health check. */
  address?: { host: string; port: number };
}

export class CellWorld {
  private constructor(
    private readonly client: Docker,
    readonly network: string,
    private readonly members: Member[],
    /** Whether the dependencies share the cores the app and its load are watched on. */
    readonly sharesCores: boolean,
  ) {}

  /** Makes the network and starts every dependency (not yet ready: {@link ready}); on failure removes it all. */
  static async start(spec: WorldSpec, client: Docker, sharesCores: boolean): Promise<CellWorld> {
    const labels = {
      ...ownLabels(),
      [LABEL.session]: currentSession(),
      [LABEL.app]: spec.labels.app,
      ...(spec.labels.run !== undefined ? { [LABEL.run]: spec.labels.run } : {}),
      ...(spec.labels.cell !== undefined ? { [LABEL.cell]: spec.labels.cell } : {}),
    };
    const name = `rightsize-world-${randomBytes(5).toString('hex')}`;
    await client.createNetwork({ Name: name, Driver: 'bridge', Labels: { ...labels, [WORLD_LABEL.network]: 'world' } });
    const world = new CellWorld(client, name, [], sharesCores);
    try {
      for (const dep of spec.dependencies) world.members.push(await startMember(client, name, dep, labels, spec));
    } catch (e) {
      await world.remove();
      throw e;
    }
    return world;
  }

  /**
   * Resolves once every dependency is ready (its health check passes, else its port accepts a
   * connection); rejects naming the one that is not, with its log's last lines.
   */
  ready(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    return untilReady(
      this.members.map((m) => ({ ...m, open: () => accepts(m.address) })),
      deadlineMs,
      signal,
    );
  }

  /** Each dependency as a target's part: its name, caps, readings and log. */
  targets(): DependencyTarget[] {
    return this.members.map((m) =>
      dependencyTarget(m.dep, {
        sharesCores: this.sharesCores,
        stats: (onReading: (r: StatsReading) => void) => streamReadings(m.container, onReading),
        logTail: (lines: number) => logText(m.container, lines),
      }),
    );
  }

  /** Every container (with its anonymous volumes) and the network; what could not be removed is left to the sweep. */
  async remove(): Promise<void> {
    await Promise.allSettled(this.members.map((m) => m.container.remove({ force: true, v: true })));
    await this.client
      .getNetwork(this.network)
      .remove()
      .catch(() => undefined);
  }
}

async function startMember(
  client: Docker,
  network: string,
  dep: Dependency,
  labels: Record<string, string>,
  spec: WorldSpec,
): Promise<Member> {
  const bytes = dep.memoryMb * 2 ** 20;
  const portKey = dep.port !== undefined ? `${dep.port}/tcp` : undefined;
  // Published only where readiness needs the port from here (no health check): never a database on the LAN.
  const published = Boolean(portKey && spec.publishOn && !dep.healthcheck);
  const container = await client.createContainer({
    Image: dep.image,
    ...(dep.command ? { Cmd: dep.command } : {}),
    Env: Object.entries(dep.env).map(([k, v]) => `${k}=${v}`),
    Labels: { ...labels, [WORLD_LABEL.dependency]: dep.name },
    // The health check is run by us, only until it passes: Docker's own would exec it every interval
    // through the measurement, on the cell's cores. An image's own HEALTHCHECK is turned off likewise.
    Healthcheck: { Test: ['NONE'] },
    ...(portKey ? { ExposedPorts: { [portKey]: {} } } : {}),
    HostConfig: {
      NetworkMode: network,
      NanoCpus: dep.cpuMillis * 1_000_000,
      Memory: bytes,
      MemorySwap: bytes,
      ...(spec.cpuset ? { CpusetCpus: spec.cpuset } : {}),
      // Mounts, not Binds: a missing source is an error, not an empty folder made on the engine's host.
      Mounts: dep.mounts.map((m) => ({ Type: 'bind' as const, Source: m.source, Target: m.target, ReadOnly: true })),
      ...(published ? { PortBindings: { [portKey!]: [{ HostIp: spec.publishOn!, HostPort: '' }] } } : {}),
    },
    NetworkingConfig: { EndpointsConfig: { [network]: { Aliases: [dep.name] } } },
  });
  try {
    await container.start();
    if (!portKey || dep.healthcheck) return { dep, container };
    const info = await container.inspect();
    const port = info.NetworkSettings.Ports?.[portKey]?.[0]?.HostPort;
    const address = published
      ? port
        ? { host: spec.publishOn!, port: Number(port) }
        : undefined
      : { host: info.NetworkSettings.Networks?.[network]?.IPAddress ?? '', port: dep.port! };
    return { dep, container, ...(address?.host ? { address } : {}) };
  } catch (e) {
    await container.remove({ force: true, v: true }).catch(() => undefined); // not a member yet: remove() would miss it
    throw e;
  }
}
