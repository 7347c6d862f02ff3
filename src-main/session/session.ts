import { readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * A session is one engine process. Its id names the host, the pid and the pid's start time, so that
 * a later process can tell for sure whether the owner of a container or a run is still alive
 * (a bare pid can be reused by an unrelated process after a crash).
 */
export interface SessionId {
  host: string;
  pid: number;
  start: string; // process start ticks on Linux, '' elsewhere
}

function processStart(pid: number): string | null {
  if (process.platform !== 'linux') return '';
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime) counted after the ")" that closes the command name, which may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null; // no such process
  }
}

export function formatSession(s: SessionId): string {
  return `${s.host}:${s.pid}:${s.start}`;
}

export function parseSession(text: string): SessionId | null {
  const m = /^(.*):(\d+):(\d*)$/.exec(text);
  if (!m) return null;
  return { host: m[1]!, pid: Number(m[2]), start: m[3]! };
}

let current: string | undefined;
/** This process's session id (stable for its lifetime). */
export function currentSession(): string {
  current ??= formatSession({ host: os.hostname(), pid: process.pid, start: processStart(process.pid) ?? '' });
  return current;
}

/**
 * Whether the session that wrote `text` still runs. Sessions of another host cannot be checked from
 * here and count as alive: removing a remote user's containers would be worse than leaving them.
 */
export function isSessionAlive(text: string): boolean {
  if (text === currentSession()) return true;
  const s = parseSession(text);
  if (!s) return false; // not ours to understand: treat as dead so it gets cleaned
  if (s.host !== os.hostname()) return true;
  if (process.platform === 'linux') return processStart(s.pid) === s.start;
  try {
    process.kill(s.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
