import Docker from 'dockerode';

/** Docker could not be reached: the message says where we looked and what to do. */
export class DockerUnavailableError extends Error {
  readonly code = 'DOCKER_UNAVAILABLE';
  constructor(
    readonly target: string,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      `Cannot reach the Docker engine at ${target} (${why}). ` +
        'Start Docker (Linux: `sudo systemctl start docker` or `sudo dockerd &`; ' +
        'macOS/Windows: open Docker Desktop), ' +
        'or point DOCKER_HOST at a running engine, then try again.',
    );
    this.name = 'DockerUnavailableError';
  }
}

/**
 * This machine's engine, as dockerode finds it: DOCKER_HOST, else the platform's default socket.
 * The one rule for every place that names or reaches it (the client, the reaper, the targets list).
 */
export function localEngineUrl(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env.DOCKER_HOST ?? (process.platform === 'win32' ? 'npipe:////./pipe/docker_engine' : 'unix:///var/run/docker.sock')
  );
}

/** The engine's unix socket when it is reached through one (the usual local case), else undefined. */
export function localEngineSocket(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = localEngineUrl(env);
  return url.startsWith('unix://') ? url.slice('unix://'.length) : undefined;
}

/** Where dockerode will connect, in the words a user would type. */
export function dockerTarget(): string {
  return process.env.DOCKER_HOST ? `DOCKER_HOST=${process.env.DOCKER_HOST}` : localEngineUrl();
}

export interface EngineInfo {
  version: string;
  cgroupVersion: string | null;
  cpus: number;
  memoryBytes: number;
  os: string;
  /** Docker Desktop and remote engines put containers behind a VM: bridge IPs are not routable from here. */
  bridgeRoutable: boolean;
}

let shared: Docker | undefined;
export function docker(): Docker {
  // dockerode reads DOCKER_HOST / DOCKER_CERT_PATH itself; one client per process is enough.
  shared ??= new Docker();
  return shared;
}

/**
 * Ping and describe the engine, or throw DockerUnavailableError. A short timeout: a dead socket must not hang the UI.
 */
export async function checkEngine(timeoutMs = 5000): Promise<EngineInfo> {
  const d = docker();
  try {
    const info = await withTimeout(d.info(), timeoutMs, 'no answer');
    const version = await withTimeout(d.version(), timeoutMs, 'no answer');
    const remote = !/^(unix|npipe):\/\//.test(localEngineUrl());
    return {
      version: String(version.Version ?? 'unknown'),
      cgroupVersion: info.CgroupVersion ? String(info.CgroupVersion) : null,
      cpus: Number(info.NCPU),
      memoryBytes: Number(info.MemTotal),
      os: String(info.OperatingSystem ?? ''),
      bridgeRoutable: process.platform === 'linux' && !remote && !/Docker Desktop/i.test(String(info.OperatingSystem)),
    };
  } catch (e) {
    throw new DockerUnavailableError(dockerTarget(), e);
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
