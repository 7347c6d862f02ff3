import type Docker from 'dockerode';
import { docker, withTimeout } from './client.ts';
import { LABEL, ownLabels } from './labels.ts';
import { imageProbeEnv, putProbe } from './image-probe.ts';
import { launchCommand, RESTART_LINE, type LaunchSpec } from './launch.ts';
import { currentSession } from '../session/session.ts';
import type { ExitInfo } from '../model/types.ts';

export interface ContainerSpec {
  image: string;
  launch: LaunchSpec;
  port: number;
  env: Record<string, string>;
  cpuMillis: number;
  memoryMb: number;
  cpuset?: string;
  /** Publish the port on 127.0.0.1 (Docker Desktop, remote engines) instead of using the bridge IP. */
  publish: boolean;
  /** Where a published port listens and is reached: a remote engine's address (default 127.0.0.1, this machine). */
  publishOn?: string;
  labels: { run?: string | number; cell?: string | number; app: string };
  /** A network of the cell's own (its dependencies are on it) instead of the default bridge. */
  network?: string;
}

export interface Address {
  host: string;
  port: number;
  via: 'bridge' | 'published';
}

/** Log lines kept from a container that stopped: enough for exitInfo's restart count. */
const LOG_KEPT = 5000;

/** One running target container. Always `remove()` it: the cell runner does so in a finally. */
export class TargetContainer {
  private oomEvents = 0;
  private events?: NodeJS.ReadableStream;
  /** The log as it was when the container stopped by itself. */
  private finalLog?: Promise<string[] | null>;
  /** Why a probed image runs without the probe (its file could not be copied in). */
  probeNote?: string;
  /** An image's container that was given the probe's file (docker/image-probe.ts). */
  imageProbed = false;
  readonly exited: Promise<number>;

  private constructor(
    readonly container: Docker.Container,
    readonly address: Address,
    private readonly client: Docker,
  ) {
    // Resolves when the container stops by itself (crash, OOM kill of PID 1); removal also ends it.
    // 'next-exit': asked before start, the default condition would answer at once for a created container.
    this.exited = container.wait({ condition: 'next-exit' }).then(
      (r: { StatusCode: number }) => {
        // Read the log the moment the app stops: a failure is reported after this, and the
        // container may be gone by then (removed by someone else, or by a cancel).
        this.finalLog = this.readLog(LOG_KEPT);
        return r.StatusCode;
      },
      () => -1,
    );
  }

  get id(): string {
    return this.container.id;
  }

  /** Starts the target on `client`'s engine: this machine's by default, or a remote one a provider connected to. */
  static async start(spec: ContainerSpec, client: Docker = docker()): Promise<TargetContainer> {
    const { cmd, env } = launchCommand(spec.launch);
    const bytes = spec.memoryMb * 1024 * 1024;
    const portKey = `${spec.port}/tcp`;
    // A user's image gets the probe's file copied in before it starts (docker/image-probe.ts).
    const probeImage = spec.launch.mode === 'image' && spec.launch.probe === true;
    // The cell's flags in NODE_OPTIONS (launch.ts) stay: the probe's preload is appended to them.
    const cellOptions = env.NODE_OPTIONS ?? spec.env.NODE_OPTIONS;
    const nodeOptions = probeImage ? await imageProbeEnv(client, spec.image, cellOptions) : undefined;
    const container = await client.createContainer({
      Image: spec.image,
      ...(cmd ? { Cmd: cmd } : {}), // none: the image's own command
      Env: Object.entries({
        ...spec.env,
        ...env,
        ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
        PORT: String(spec.port),
      }).map(([k, v]) => `${k}=${v}`),
      Labels: {
        ...ownLabels(),
        [LABEL.session]: currentSession(),
        [LABEL.app]: spec.labels.app,
        ...(spec.labels.run !== undefined ? { [LABEL.run]: String(spec.labels.run) } : {}),
        ...(spec.labels.cell !== undefined ? { [LABEL.cell]: String(spec.labels.cell) } : {}),
      },
      ExposedPorts: { [portKey]: {} },
      HostConfig: {
        NanoCpus: spec.cpuMillis * 1_000_000,
        Memory: bytes,
        MemorySwap: bytes, // equal to Memory: no swap, so a memory cap is a real cap
        ...(spec.cpuset ? { CpusetCpus: spec.cpuset } : {}),
        ...(spec.network ? { NetworkMode: spec.network } : {}),
        ...(spec.publish
          ? { PortBindings: { [portKey]: [{ HostIp: spec.publishOn ?? '127.0.0.1', HostPort: '' }] } }
          : {}),
      },
    });
    const target = new TargetContainer(
      container,
      { host: '', port: spec.port, via: spec.publish ? 'published' : 'bridge' },
      client,
    );
    if (probeImage) {
      try {
        await putProbe(container);
        target.imageProbed = true;
      } catch (e) {
        // Without its file the preload would stop node at start: run the image unprobed, and say why.
        await container.remove({ force: true }).catch(() => undefined);
        const why = (e as Error)?.message?.split('\n')[0] ?? String(e);
        const unprobed = await TargetContainer.start({ ...spec, launch: { ...spec.launch, probe: false } }, client);
        unprobed.probeNote = `the probe's file could not be copied into the image's container (${why})`;
        return unprobed;
      }
    }
    try {
      await target.watchOom();
      await container.start();
      const info = await container.inspect();
      // An app that dies at once (a bad flag, a missing module) has no address by now: leave it
      // empty, and readiness reports the exit code and the log tail instead of a network error.
      if (!info.State.Running) return target;
      if (spec.publish) {
        const binding = info.NetworkSettings.Ports?.[portKey]?.[0];
        if (!binding) throw new Error(`Docker published no port for ${portKey}`);
        Object.assign(target.address, { host: spec.publishOn ?? '127.0.0.1', port: Number(binding.HostPort) });
      } else {
        const ip = spec.network
          ? info.NetworkSettings.Networks?.[spec.network]?.IPAddress
          : info.NetworkSettings.IPAddress;
        if (!ip) throw new Error('The container has no bridge IP address');
        target.address.host = ip;
      }
      return target;
    } catch (e) {
      await target.remove();
      throw e;
    }
  }

  /**
   * A container someone else started (a Swarm task on its node's engine), watched like our own:
   * OOM kills from now on, its log, its exit. Removing it is the starter's business (the service).
   */
  static async attach(client: Docker, id: string, address: Omit<Address, 'via'>): Promise<TargetContainer> {
    const target = new TargetContainer(client.getContainer(id), { ...address, via: 'published' }, client);
    await target.watchOom();
    return target;
  }

  /** Count the kernel's OOM kills in this container: a worker can be killed while PID 1 survives. */
  private async watchOom(): Promise<void> {
    const stream = await this.client.getEvents({
      filters: JSON.stringify({ container: [this.container.id], event: ['oom'] }),
    });
    this.events = stream;
    stream.on('data', (chunk: Buffer) => {
      this.oomEvents += chunk
        .toString()
        .split('\n')
        .filter((l) => l.includes('"oom"')).length;
    });
    stream.on('error', () => {}); // ends with remove()
  }

  get oomKills(): number {
    return this.oomEvents;
  }

  /** Its CPU cap in place (CFS quota), without a restart; an engine that does not answer within 10 s fails it. */
  async setCpuMillis(millis: number): Promise<void> {
    await withTimeout(this.container.update({ NanoCpus: millis * 1_000_000 }), 10_000, 'no answer to the cap change');
  }

  /** The last lines the app printed (stdout and stderr together); after a stop, what was read when it stopped. */
  async logTail(lines = 50): Promise<string[]> {
    const live = await this.readLog(lines);
    if (live) return live;
    const kept = await this.finalLog;
    return kept ? kept.slice(-lines) : [];
  }

  private async readLog(lines: number): Promise<string[] | null> {
    try {
      const buf = (await this.container.logs({
        stdout: true,
        stderr: true,
        tail: lines,
        follow: false,
      })) as unknown as Buffer;
      return demuxLogs(buf)
        .split('\n')
        .filter((l) => l.length > 0);
    } catch {
      return null; // gone
    }
  }

  /** Whether the app has printed a line matching `re` so far. */
  async hasLogLine(re: RegExp): Promise<boolean> {
    return (await this.logTail(200)).some((l) => re.test(l));
  }

  /** OOM kills, exit code and restarts so far; call before remove(). */
  async exitInfo(): Promise<ExitInfo> {
    const info = await this.container.inspect().catch(() => undefined);
    const logs = await this.logTail(5000);
    const workerRestarts = logs.filter((l) => RESTART_LINE.test(l)).length;
    const state = info?.State;
    return {
      oomKilled: this.oomEvents > 0 || Boolean(state?.OOMKilled),
      exitCode: state && !state.Running ? state.ExitCode : null,
      restarts: (info?.RestartCount ?? 0) + workerRestarts,
    };
  }

  /** Force-removes the container (SIGKILL + remove): fast, and safe to call twice. */
  async remove(): Promise<void> {
    (this.events as { destroy?: () => void } | undefined)?.destroy?.();
    try {
      await this.container.remove({ force: true, v: true });
    } catch (e) {
      const code = (e as { statusCode?: number }).statusCode;
      if (code !== 404 && code !== 409) throw e; // gone already, or removal already in progress
    }
  }
}

/** Docker multiplexes stdout/stderr of a non-TTY container into frames with an 8-byte header. */
export function demuxLogs(buf: Buffer): string {
  if (!Buffer.isBuffer(buf)) return String(buf);
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}
