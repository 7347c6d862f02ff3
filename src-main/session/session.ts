import { createHash } from 'node:crypto';
import { readFileSync, readlinkSync } from 'node:fs';
import os from 'node:os';
import { otherPlatformMachineId, otherPlatformProcessStart, pidExists } from './platform.ts';

/**
 * A session is one engine process. Its id names the machine, the pid and the pid's start time, so
 * that a later process can tell for sure whether the owner of a container or a run is still alive
 * (a bare pid can be reused by an unrelated process after a crash).
 *
 * Text form: `host~machine.boot:pid:start`. `host` is only for people to read; liveness is keyed
 * on `machine` (a hash of the machine id — /etc/machine-id on Linux, IOPlatformUUID on macOS,
 * MachineGuid on Windows — and the pid namespace, so two containers sharing a kernel are told
 * apart) and `boot` (Linux's boot id: after a reboot every old session is dead), so a laptop whose
 * hostname changes keeps recognising its own sessions. The start time is the kernel's start ticks
 * on Linux and UTC seconds elsewhere (`ps -o lstart` on macOS, the process's CreationDate on
 * Windows: session/platform.ts). Ids written before this form (`host:pid:start`) are still
 * understood.
 */
export interface SessionId {
  host: string;
  /** Hash of the machine id (or the hostname where there is none) and the pid namespace; '' in old ids. */
  machine?: string;
  /** The first characters of the kernel boot id; '' in old ids or off Linux. */
  boot?: string;
  pid: number;
  /** Process start ticks on Linux, UTC seconds on macOS and Windows, '' where it cannot be read. */
  start: string;
}

/** A process's start time: null when no such process runs, '' when it cannot be told here. */
function processStart(pid: number): string | null {
  if (process.platform !== 'linux') return otherPlatformProcessStart(pid);
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the ")" that closes the command name, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null; // no such process
  }
}

const readTrim = (file: string): string => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
};

let machineFacts: { machine: string; boot: string; legacy: string } | undefined;
const machineKey = (id: string, pidNs: string): string =>
  createHash('sha256').update(`${id}\n${pidNs}`).digest('hex').slice(0, 16);

/**
 * This machine's key and boot id, as written into session ids (`legacy`: the key earlier versions
 * wrote off Linux, from the hostname, still recognised as this machine's).
 */
export function machineIdentity(): { machine: string; boot: string; legacy: string } {
  if (machineFacts) return machineFacts;
  // The machine id survives hostname changes; without one (minimal containers) the hostname stands in.
  const hostKey = `host:${os.hostname()}`;
  const id = readTrim('/etc/machine-id') || readTrim('/var/lib/dbus/machine-id') || otherPlatformMachineId() || hostKey;
  let pidNs = '';
  try {
    pidNs = readlinkSync('/proc/self/ns/pid'); // pids are only comparable inside one namespace
  } catch {
    /* not Linux */
  }
  const boot = readTrim('/proc/sys/kernel/random/boot_id').replace(/-/g, '').slice(0, 12);
  const machine = machineKey(id, pidNs);
  // Off Linux, earlier versions keyed on the hostname (they could not read a machine id there).
  machineFacts = { machine, boot, legacy: process.platform === 'linux' ? machine : machineKey(hostKey, pidNs) };
  return machineFacts;
}

export function formatSession(s: SessionId): string {
  const where = s.machine ? `${s.host}~${s.machine}.${s.boot ?? ''}` : s.host;
  return `${where}:${s.pid}:${s.start}`;
}

export function parseSession(text: string): SessionId | null {
  const m = /^(.*):(\d+):(\d*)$/.exec(text);
  if (!m) return null;
  const where = m[1]!;
  const k = /^(.*)~([0-9a-f]+)\.([0-9a-f]*)$/.exec(where);
  return { host: k ? k[1]! : where, machine: k ? k[2]! : '', boot: k ? k[3]! : '', pid: Number(m[2]), start: m[3]! };
}

let current: string | undefined;
/** This process's session id (stable for its lifetime). */
export function currentSession(): string {
  current ??= formatSession({
    host: os.hostname(),
    ...machineIdentity(),
    pid: process.pid,
    start: processStart(process.pid) ?? '',
  });
  return current;
}

/** A session in words, for messages: "pid 1234 on laptop". */
export function describeSession(text: string): string {
  const s = parseSession(text);
  if (!s) return `session ${text}`;
  return `${text === currentSession() ? 'this process, ' : ''}pid ${s.pid} on ${s.host}`;
}

/**
 * Whether the session that wrote `text` still runs. Sessions of another machine cannot be checked
 * from here and count as alive: removing a remote user's containers would be worse than leaving
 * them (their own reaper removes them when their owner dies).
 */
export function isSessionAlive(text: string): boolean {
  if (text === currentSession()) return true;
  const s = parseSession(text);
  if (!s) return false; // not ours to understand: treat as dead so it gets cleaned
  const me = machineIdentity();
  if (s.machine) {
    if (s.machine !== me.machine && s.machine !== me.legacy) return true;
    if (s.boot && me.boot && s.boot !== me.boot) return false; // written before this machine last booted
  } else if (s.host !== os.hostname()) return true; // an old-form id: only the hostname to go by
  const start = processStart(s.pid);
  if (start === null) return false;
  if (start && s.start) return start === s.start; // pid reuse: the same pid started at another time is another process
  return pidExists(s.pid); // a start time missing on either side: only the pid to go by
}
