import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type Docker from 'dockerode';
import { docker, localEngineSocket, type EngineInfo } from '../docker/client.ts';
import { LABEL, ownLabels } from '../docker/labels.ts';
import { currentSession } from '../session/session.ts';
import { hostNodeBinary } from '../util/node-binary.ts';
import { REAPER_FIRST_CONNECT_MS, REAPER_LAUNCHER, REAPER_PORT, REAPER_SCRIPT } from './reaper-script.ts';

/**
 * This session's reaper: a small container (node, from the base image) with the Docker socket
 * mounted, holding a TCP connection from this process. However this process ends — exit, crash,
 * SIGKILL — the kernel closes the connection and the reaper removes every container labelled with
 * this session (targets, the lab lock) within about a second, then itself. One per process, started
 * before the first container of a run or build; the start-up sweep remains for engines where a
 * reaper could not run.
 */
interface Live {
  container: Docker.Container;
  socket: net.Socket;
}

let live: Promise<Live> | undefined;

/** Starts this session's reaper if it is not running; resolves once it holds our connection. */
export function ensureReaper(image: string, engine: EngineInfo): Promise<void> {
  live ??= startReaper(image, engine).catch((e: unknown) => {
    live = undefined; // a failed start is not remembered: the next run tries again
    throw e;
  });
  return live.then(() => {});
}

/** The reaper's container id, when one runs for this session. */
export async function reaperId(): Promise<string | undefined> {
  return live?.then(
    (l) => l.container.id,
    () => undefined,
  );
}

/**
 * A name to recognise the reaper by in `docker ps`: the owner's pid, and a random part so that two
 * sessions with the same pid (two machines on one engine, a container's pid 1) or a dead session's
 * reaper still being removed never take the same name.
 */
export function reaperName(): string {
  return `rightsize-reaper-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/** Docker refused the name: a container already has it. */
function isNameConflict(e: unknown): boolean {
  const err = e as { statusCode?: number; message?: string };
  return err.statusCode === 409 || /HTTP 409|Conflict/i.test(err.message ?? '');
}

/** Creates and starts the reaper under a fresh name; a name already taken is tried again with another one. */
async function launch(spec: Docker.ContainerCreateOptions): Promise<Docker.Container> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launchNamed({ ...spec, name: reaperName() });
    } catch (e) {
      if (attempt >= 3 || !isNameConflict(e)) throw e;
    }
  }
}

/** Creates and starts the reaper; through the detached launcher when the engine is on a local socket. */
async function launchNamed(spec: Docker.ContainerCreateOptions & { name: string }): Promise<Docker.Container> {
  const socket = localEngineSocket();
  if (!socket) {
    // A remote engine (tcp/TLS): create and start from here. A kill between the two leaves a created
    // (never running) reaper, which the next start-up sweep removes.
    const c = await docker().createContainer(spec);
    await c.start().catch(async (e: unknown) => {
      await c.remove({ force: true }).catch(() => {});
      throw e;
    });
    return c;
  }
  const child = spawn(hostNodeBinary(), ['-e', REAPER_LAUNCHER], {
    detached: true, // its own process group: a Ctrl-C or a kill of this process does not reach it
    stdio: ['ignore', 'pipe', 'ignore'],
    env: {
      RIGHTSIZE_DOCKER_SOCKET: socket,
      RIGHTSIZE_REAPER_NAME: spec.name,
      RIGHTSIZE_REAPER_SPEC: JSON.stringify({ ...spec, name: undefined }),
    },
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const line = out.trim().split('\n').pop() ?? '';
  let answer: { id?: string; error?: string } = {};
  try {
    answer = JSON.parse(line) as typeof answer;
  } catch {
    /* reported below */
  }
  if (!answer.id)
    throw new Error(answer.error ?? `the launcher exited with code ${code} and said "${line.slice(0, 200)}"`);
  return docker().getContainer(answer.id);
}

async function startReaper(image: string, engine: EngineInfo): Promise<Live> {
  const publish = !engine.bridgeRoutable;
  const portKey = `${REAPER_PORT}/tcp`;
  const container = await launch({
    Image: image,
    Entrypoint: ['node', '-e', REAPER_SCRIPT],
    Cmd: [],
    Env: [
      `RIGHTSIZE_REAP_SESSION=${currentSession()}`,
      `RIGHTSIZE_REAP_LABEL=${LABEL.session}`,
      `RIGHTSIZE_REAP_PORT=${REAPER_PORT}`,
      `RIGHTSIZE_REAP_FIRST_MS=${REAPER_FIRST_CONNECT_MS}`,
    ],
    Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.kind]: 'reaper' },
    ExposedPorts: { [portKey]: {} },
    HostConfig: {
      AutoRemove: true, // it removes itself by exiting
      Binds: [`${localEngineSocket() ?? '/var/run/docker.sock'}:/var/run/docker.sock`],
      Memory: 128 * 1024 * 1024,
      ...(publish ? { PortBindings: { [portKey]: [{ HostIp: '127.0.0.1', HostPort: '' }] } } : {}),
    },
  });
  try {
    const info = await container.inspect();
    const address = publish
      ? { host: '127.0.0.1', port: Number(info.NetworkSettings.Ports?.[portKey]?.[0]?.HostPort) }
      : { host: info.NetworkSettings.IPAddress, port: REAPER_PORT };
    const socket = await connect(address, container);
    socket.on('close', () => {
      live = undefined; // the reaper went (removed by someone, or stopped): the next run starts another
    });
    return { container, socket };
  } catch (e) {
    await container.remove({ force: true }).catch(() => {});
    throw new Error(
      "Could not start the reaper container (it removes this session's containers if Rightsize dies): " +
        (e as Error).message,
      { cause: e },
    );
  }
}

/** Connects until the reaper answers "ready" (node takes a moment to start), within 4 s. */
async function connect(address: { host: string; port: number }, container: Docker.Container): Promise<net.Socket> {
  const deadline = Date.now() + 4_000; // the reaper gives up on us after REAPER_FIRST_CONNECT_MS
  let last: Error | undefined;
  while (Date.now() < deadline) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const s = net.connect(address);
        const fail = (e: Error): void => {
          s.destroy();
          reject(e);
        };
        s.setTimeout(2000, () => fail(new Error('no answer')));
        s.once('error', fail);
        s.once('close', () => reject(new Error('closed before ready')));
        s.once('data', (d) => {
          if (!String(d).startsWith('ready')) return fail(new Error(`unexpected answer ${String(d).slice(0, 40)}`));
          s.setTimeout(0);
          s.removeAllListeners('error');
          s.removeAllListeners('close');
          s.on('error', () => {}); // a reset shows as 'close' too
          s.setKeepAlive(true, 5000);
          s.unref(); // the reaper must not keep this process alive
          resolve(s);
        });
      });
    } catch (e) {
      last = e as Error;
      const state = await container.inspect().then(
        (i) => i.State,
        () => undefined,
      );
      if (!state?.Running) throw new Error(`the reaper stopped (exit code ${state?.ExitCode ?? 'unknown'})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no connection to the reaper at ${address.host}:${address.port}: ${last?.message ?? 'timed out'}`);
}

/**
 * Ends the reaper on purpose (this process is done): it makes one last pass for anything of this
 * session, then exits and Docker removes it. Waits for that, so a clean exit leaves nothing.
 */
export async function stopReaper(timeoutMs = 5000): Promise<void> {
  const current = live;
  live = undefined;
  if (!current) return;
  const l = await current.catch(() => undefined);
  if (!l) return;
  const gone = l.container.wait({ condition: 'removed' }).catch(() => undefined);
  l.socket.end('bye\n');
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
  const r = await Promise.race([gone, timeout]);
  clearTimeout(timer);
  if (r === 'timeout') await l.container.remove({ force: true }).catch(() => {});
}
