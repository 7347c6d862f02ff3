// A second, real Docker engine on this machine, standing in for a remote host (and, joined with the
// main engine, for a two-node Swarm). moby's own integration tests run several daemons on one host
// this way: each with its own data root, exec root, pid file, sockets and containerd namespaces.
//
// It lives in its own network namespace, reached over a veth pair: started in the main engine's
// namespace, a second engine (or its leaving a Swarm) removed the main engine's docker0, and every
// later container failed until dockerd restarted. `nsenter --net` (not `ip netns exec`, which also
// remounts /sys and hides the cgroup hierarchy from dockerd) enters only the network namespace.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { LABEL } from '../../src-main/docker/labels.ts';
import { guardEngine } from './engine-guard.ts';
import { laneContainers } from './lane-scope.ts';

const run = promisify(execFile);

const NETNS = 'rightsize-e2';
const VETH_HOST = 'rse2-h';
const VETH_NS = 'rse2-n';
/** A /24 no network here uses; the host side and the engine's side of the veth pair. */
export const HOST_SIDE = '10.77.0.1';
export const ENGINE_SIDE = '10.77.0.2';
const DATA_ROOT = '/var/lib/rightsize-e2';
const EXEC_ROOT = '/run/rightsize-e2';
const SOCKET = `${EXEC_ROOT}.sock`;
const PIDFILE = `${EXEC_ROOT}.pid`;
const LOG = '/tmp/rightsize-e2-dockerd.log';
/** Set while a Swarm formed with it stands, and once that Swarm's guard has undone it: the order of the two guards. */
const SWARM_FORMED = `${EXEC_ROOT}.swarm`;
const SWARM_GONE = `${EXEC_ROOT}.swarm-gone`;
const TCP_PORT = 2375;

export interface SecondEngine {
  /** DOCKER_HOST-style URL a provider connects to (plain tcp on a host-only link). */
  url: string;
  /** Its address as seen from the main engine's network namespace. */
  address: string;
  client: Docker;
  /** Ships an image from the main engine (`docker save | docker load`). */
  loadImage(tag: string): Promise<void>;
  /**
   * The link to it goes down (the host side of the veth): it becomes unreachable from here as a
   * remote host does when its network goes — packets vanish, open connections go silent, no error.
   * Synchronous, so a test can cut or restore at an exact event.
   */
  cut(): void;
  /** The link comes back (its route with it): open connections resume. */
  restore(): void;
  stop(): Promise<void>;
}

/** What "the main engine as found" means: its bridge, its networks, its Swarm state, its containers. */
export async function mainEngineState(): Promise<{ docker0: boolean; networks: string[]; swarm: string; containers: string[] }> {
  const main = new Docker();
  const info = (await main.info()) as { Swarm?: { LocalNodeState?: string } };
  const docker0 = await run('ip', ['link', 'show', 'docker0']).then(() => true, () => false);
  return {
    docker0,
    networks: (await main.listNetworks()).map((n) => n.Name).sort(),
    swarm: info.Swarm?.LocalNodeState ?? 'inactive',
    // Rightsize's (this lane's) and Swarm's tasks: another lane's cells and image builds come and go meanwhile.
    containers: (await laneContainers(main))
      .filter((c) => c.Labels?.[LABEL.product] || c.Labels?.['com.docker.swarm.task.id'])
      .map((c) => c.Id)
      .sort(),
  };
}

/** Why a second engine cannot run here, or null when it can. */
export async function secondEngineUnsupported(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'a second Docker engine needs root (network namespaces, dockerd)';
  for (const tool of ['ip', 'nsenter', 'dockerd']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `a second Docker engine needs \`${tool}\`, which is not installed`;
    }
  }
  return null;
}

const quiet = async (cmd: string, args: string[]): Promise<void> => {
  await run(cmd, args).catch(() => {});
};

async function alive(pidfile: string): Promise<number | null> {
  let pid: number;
  try {
    // Read at once, not after an exists check: a stopping dockerd removes its pidfile in between.
    pid = Number(readFileSync(pidfile, 'utf8').trim());
  } catch {
    return null;
  }
  if (!(pid > 0)) return null; // a pidfile being written (empty) names no process yet
  try {
    process.kill(pid, 0);
    return pid;
  } catch {
    return null;
  }
}

/** Removes every trace of a second engine: its daemon, mounts, namespace, veth pair and directories. Safe to call when none runs. */
export async function removeSecondEngine(): Promise<void> {
  const pid = await alive(PIDFILE);
  if (pid) {
    process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && (await alive(PIDFILE)); i++) await new Promise((r) => setTimeout(r, 100));
    if (await alive(PIDFILE)) process.kill(pid, 'SIGKILL');
  }
  // dockerd bind-mounts its network namespace under the exec root: while mounted, the namespace (and the veth in it) lives on.
  const { stdout } = await run('sh', ['-c', `grep -o " ${EXEC_ROOT}[^ ]*\\| ${DATA_ROOT}[^ ]*" /proc/mounts || true`]);
  for (const m of stdout.split('\n').map((s) => s.trim()).filter(Boolean).reverse()) await quiet('umount', ['-l', m]);
  await quiet('ip', ['netns', 'del', NETNS]);
  await quiet('ip', ['link', 'del', VETH_HOST]);
  for (const p of [EXEC_ROOT, DATA_ROOT, SOCKET, PIDFILE, SWARM_FORMED, SWARM_GONE]) rmSync(p, { recursive: true, force: true });
}

/**
 * Starts a second engine in its own network namespace (after removing one a crashed run left).
 * Caller must `stop()` it; the main engine is not touched.
 */
export async function startSecondEngine(): Promise<SecondEngine> {
  const why = await secondEngineUnsupported();
  if (why) throw new Error(why);
  await removeSecondEngine();
  // What removeSecondEngine does, in sh, for a test process that dies before its stop() (Ctrl-C, a killed worker).
  const guard = guardEngine(
    'second engine',
    [
      // A Swarm formed with it is undone first (formSwarm's guard says so), for at most 30 s.
      `if [ -e ${SWARM_FORMED} ]; then for i in $(seq 1 60); do [ -e ${SWARM_GONE} ] && break; sleep 0.5; done; fi`,
      `pid=$(cat ${PIDFILE} 2>/dev/null)`,
      'if [ -n "$pid" ]; then kill "$pid"; for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done;',
      'kill -9 "$pid" 2>/dev/null; fi',
      `grep -o " ${EXEC_ROOT}[^ ]*\\| ${DATA_ROOT}[^ ]*" /proc/mounts | tac | while read -r m; do umount -l "$m"; done`,
      `ip netns del ${NETNS}; ip link del ${VETH_HOST}; rm -rf ${EXEC_ROOT} ${DATA_ROOT} ${SOCKET} ${PIDFILE}`,
      `rm -f ${SWARM_FORMED} ${SWARM_GONE}`,
    ].join('\n'),
  );
  await run('ip', ['netns', 'add', NETNS]);
  await run('ip', ['link', 'add', VETH_HOST, 'type', 'veth', 'peer', 'name', VETH_NS]);
  await run('ip', ['link', 'set', VETH_NS, 'netns', NETNS]);
  await run('ip', ['addr', 'add', `${HOST_SIDE}/24`, 'dev', VETH_HOST]);
  await run('ip', ['link', 'set', VETH_HOST, 'up']);
  const inNs = (args: string[]): Promise<unknown> => run('ip', ['netns', 'exec', NETNS, 'ip', ...args]);
  await inNs(['addr', 'add', `${ENGINE_SIDE}/24`, 'dev', VETH_NS]);
  await inNs(['link', 'set', VETH_NS, 'up']);
  await inNs(['link', 'set', 'lo', 'up']);
  await inNs(['route', 'add', 'default', 'via', HOST_SIDE]);
  mkdirSync(DATA_ROOT, { recursive: true });
  mkdirSync(EXEC_ROOT, { recursive: true });
  const args = [
    `--net=/var/run/netns/${NETNS}`, 'dockerd',
    '--data-root', DATA_ROOT, '--exec-root', EXEC_ROOT, '--pidfile', PIDFILE,
    '-H', `unix://${SOCKET}`, '-H', `tcp://${ENGINE_SIDE}:${TCP_PORT}`,
    // Plain tcp on a host-only link, said explicitly: without it dockerd 20.10 waits 15 s at start to
    // show its warning about unauthenticated tcp (16.5 s to come up against 1.4 s with it, measured).
    '--tls=false',
    '--containerd-namespace', 'rightsize-e2', '--containerd-plugins-namespace', 'rightsize-e2-plugins',
    // Its own bridge subnet: distinct from the main engine's 172.17/16 so routes never collide.
    '--bip', '172.31.77.1/24',
  ];
  await run('sh', ['-c', `nohup nsenter ${args.map((a) => `'${a}'`).join(' ')} >${LOG} 2>&1 &`]);
  const client = new Docker({ socketPath: SOCKET });
  for (let i = 0; ; i++) {
    try {
      await client.ping();
      break;
    } catch (e) {
      if (i >= 150) {
        const log = existsSync(LOG) ? readFileSync(LOG, 'utf8').split('\n').slice(-15).join('\n') : '';
        guard.release();
        await removeSecondEngine();
        throw new Error(`the second Docker engine did not come up in 30 s: ${(e as Error).message}\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return {
    url: `tcp://${ENGINE_SIDE}:${TCP_PORT}`,
    address: ENGINE_SIDE,
    client,
    async loadImage(tag) {
      await run('sh', ['-c', `docker save '${tag}' | docker -H 'unix://${SOCKET}' load -q`], { maxBuffer: 1 << 20 });
    },
    cut() {
      execFileSync('ip', ['link', 'set', VETH_HOST, 'down']);
    },
    restore() {
      execFileSync('ip', ['link', 'set', VETH_HOST, 'up']);
      // The connected route comes back with the link; replaced in case the kernel has not yet.
      execFileSync('ip', ['route', 'replace', `${HOST_SIDE.replace(/\.\d+$/, '.0')}/24`, 'dev', VETH_HOST, 'src', HOST_SIDE]);
    },
    async stop() {
      guard.release();
      await removeSecondEngine();
    },
  };
}

export interface TwoNodeSwarm {
  /** Node ids: the main engine's (manager) and the second engine's (worker). */
  manager: string;
  worker: string;
  leave(): Promise<void>;
}

/**
 * Joins the main engine (manager, on the veth's host side) and the second engine (worker) as a
 * two-node Swarm. `leave()` dissolves it and removes the gateway bridge Swarm created on the main
 * engine, so the main engine is left as found. Refuses when the main engine is already in a Swarm.
 */
export async function formSwarm(second: SecondEngine): Promise<TwoNodeSwarm> {
  const main = new Docker();
  const info = (await main.info()) as { Swarm?: { LocalNodeState?: string } };
  if (info.Swarm?.LocalNodeState && info.Swarm.LocalNodeState !== 'inactive') {
    throw new Error(`the main Docker engine is already in a Swarm (${info.Swarm.LocalNodeState}): not touching it`);
  }
  const hadGwBridge = (await main.listNetworks({ filters: { name: ['docker_gwbridge'] } })).length > 0;
  await main.swarmInit({ ListenAddr: `${HOST_SIDE}:2377`, AdvertiseAddr: HOST_SIDE });
  writeFileSync(SWARM_FORMED, '');
  // As leave() does, in its order: the second engine leaves first, while it still runs (its own guard waits for this
  // one: a main engine that leaves while its peer is being killed keeps a broken overlay DNS until dockerd restarts).
  const guard = guardEngine(
    'swarm',
    [
      `docker -H unix://${SOCKET} swarm leave --force`,
      'docker swarm leave --force',
      ...(hadGwBridge ? [] : ['docker network rm docker_gwbridge']),
      `touch ${SWARM_GONE}`,
    ].join('; '),
  );
  const leave = async (): Promise<void> => {
    guard.release();
    rmSync(SWARM_FORMED, { force: true });
    await second.client.swarmLeave({ force: true }).catch(() => {});
    await main.swarmLeave({ force: true }).catch(() => {});
    if (!hadGwBridge) await main.getNetwork('docker_gwbridge').remove().catch(() => {});
  };
  try {
    const swarm = (await main.swarmInspect()) as { JoinTokens: { Worker: string } };
    await second.client.swarmJoin({ ListenAddr: `${ENGINE_SIDE}:2477`, AdvertiseAddr: ENGINE_SIDE, RemoteAddrs: [`${HOST_SIDE}:2377`], JoinToken: swarm.JoinTokens.Worker });
    const self = (await main.info()) as { Swarm: { NodeID: string } };
    const other = (await second.client.info()) as { Swarm: { NodeID: string } };
    return { manager: self.Swarm.NodeID, worker: other.Swarm.NodeID, leave };
  } catch (e) {
    await leave();
    throw e;
  }
}
