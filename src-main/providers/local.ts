import { docker, type EngineInfo } from '../docker/client.ts';
import { DockerProvider } from './docker/provider.ts';

/**
 * This machine's engine as a provider: the process's one Docker client (DOCKER_HOST honoured),
 * bridge IPs where they are routable, published ports on 127.0.0.1 where not (Docker Desktop).
 */
export function localProvider(engine: Pick<EngineInfo, 'bridgeRoutable'>): DockerProvider {
  const url =
    process.env.DOCKER_HOST ??
    (process.platform === 'win32' ? 'npipe:////./pipe/docker_engine' : 'unix:///var/run/docker.sock');
  return new DockerProvider({
    name: 'local',
    kind: 'local',
    connection: { url },
    client: docker(),
    publish: !engine.bridgeRoutable,
  });
}
