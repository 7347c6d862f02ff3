import os from 'node:os';
import type { EngineInfo } from '../docker/client.ts';
import type { AppDefinition } from '../apps/catalog.ts';
import type { HostFacts } from '../model/types.ts';
import { rightsizeVersion } from '../util/paths.ts';
import type { HostLimits } from './matrix.ts';

/** What a run records about where it ran: results are only comparable with these facts beside them. */
export function hostFacts(engine: EngineInfo | null, apps: AppDefinition[]): HostFacts {
  const cpus = os.cpus();
  return {
    hostname: os.hostname(),
    platform: process.platform,
    arch: process.arch,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    nodeVersion: process.versions.node,
    dockerVersion: engine?.version ?? null,
    cgroupVersion: engine?.cgroupVersion ?? null,
    appVersions: Object.fromEntries(apps.map((a) => [a.name, a.version])),
    rightsizeVersion: rightsizeVersion(),
  };
}

/** The limits a matrix is checked against: what both this machine and the Docker engine can give. */
export function hostLimits(
  engine: EngineInfo | null,
  apps: string[],
  imageApps: HostLimits['imageApps'] = {},
): HostLimits {
  const cores = Math.min(os.cpus().length, engine?.cpus || Infinity);
  const memoryMb = Math.floor(Math.min(os.totalmem(), engine?.memoryBytes || Infinity) / (1024 * 1024));
  return { cores, memoryMb, apps, imageApps };
}
