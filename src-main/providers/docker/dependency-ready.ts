// When a cell's dependencies are ready, on any engine: each one's health check run in its container
// as Docker would run it, polled until it passes (failures counted once per interval, as Docker's
// retries), else its port accepting a connection; an exit or a deadline is reported with its log.
import net from 'node:net';
import type Docker from 'dockerode';
import type { Dependency } from '../../apps/dependencies.ts';
import { demuxLogs } from '../../docker/containers.ts';

export interface ReadyMember {
  dep: Dependency;
  container: Docker.Container;
  /** Without a health check: whether its port accepts a connection now. */
  open: () => Promise<boolean>;
}

/** Resolves once every member is ready; rejects naming the first that exits, fails or is late, with its log's end. */
export async function untilReady(members: readonly ReadyMember[], deadlineMs: number, signal?: AbortSignal) {
  const t0 = Date.now();
  for (const m of members) {
    const hc = m.dep.healthcheck;
    const what = `${m.dep.name} (${m.dep.image})`;
    const tail = async (): Promise<string> => {
      const text = await logText(m.container, 10).catch(() => '');
      return text ? `; its log ends:\n${text}` : '';
    };
    let failures = 0;
    let counted = 0; // polled every 250 ms at most, a failure counted once per interval (Docker's retries)
    for (;;) {
      if (signal?.aborted) throw new Error('cancelled');
      const state = (await m.container.inspect()).State;
      if (!state.Running) throw new Error(`${what} exited with code ${state.ExitCode}${await tail()}`);
      if (hc ? await passes(m.container, hc) : await m.open()) break;
      const started = Date.now() - t0 > (hc?.startPeriodMs ?? 0);
      const due = hc !== undefined && started && Date.now() - counted >= hc.intervalMs;
      if (due) counted = Date.now();
      if (due && ++failures >= hc.retries)
        throw new Error(`${what} failed its health check ${failures} times${await tail()}`);
      if (Date.now() - t0 > deadlineMs)
        throw new Error(`${what} was not ready after ${deadlineMs / 1000} s${await tail()}`);
      await new Promise((r) => setTimeout(r, Math.min(hc?.intervalMs ?? 250, 250)));
    }
  }
}

/** Whether the health check's command exits 0 within its timeout, run in the container as Docker would. */
export async function passes(c: Docker.Container, hc: NonNullable<Dependency['healthcheck']>): Promise<boolean> {
  const cmd = hc.test[0] === 'CMD-SHELL' ? ['/bin/sh', '-c', hc.test.slice(1).join(' ')] : hc.test.slice(1);
  try {
    return (await execExitCode(c, cmd, hc.timeoutMs)) === 0;
  } catch {
    return false; // not started yet, or gone: the state check says which
  }
}

/**
 * Runs `cmd` in the container and gives its exit code once it ends or `timeoutMs` passes (then whatever the exec
 * reports so far). Throws when the exec cannot be made or started (no such binary, the container gone).
 */
export async function execExitCode(c: Docker.Container, cmd: string[], timeoutMs: number): Promise<number | null> {
  const exec = await c.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => (stream.destroy(), resolve()), timeoutMs);
    const end = (): void => (clearTimeout(timer), resolve());
    stream.on('data', () => {});
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  });
  return (await exec.inspect()).ExitCode;
}

/** Whether a TCP connection to `addr` is accepted within a second. */
export function accepts(addr: { host: string; port: number } | undefined): Promise<boolean> {
  if (!addr) return Promise.resolve(false);
  return new Promise((resolve) => {
    const s = net.connect(addr.port, addr.host);
    const done = (ok: boolean): void => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/**
 * Whether the container's own port `port` is open, asked from inside it (where its address does not route here):
 * busybox nc, else bash's /dev/tcp, as the images have one or the other.
 */
export const openInside = (c: Docker.Container, port: number): Promise<boolean> =>
  passes(c, {
    test: ['CMD-SHELL', `nc -z 127.0.0.1 ${port} 2>/dev/null || bash -c '</dev/tcp/127.0.0.1/${port}' 2>/dev/null`],
    intervalMs: 1000,
    timeoutMs: 3000,
    retries: 1,
    startPeriodMs: 0,
  });

export async function logText(c: Docker.Container, lines: number): Promise<string> {
  const buf = (await c.logs({ stdout: true, stderr: true, tail: lines, follow: false })) as unknown as Buffer;
  return demuxLogs(buf).trimEnd();
}
