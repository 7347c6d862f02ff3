import { spawnSync } from 'node:child_process';

/**
 * What a session id needs from the operating system off Linux (where /proc and /etc/machine-id
 * answer directly): a process's start time and a machine id that survives a hostname change. The
 * commands' outputs are parsed by the pure functions below, unit-tested on recorded outputs
 * (tests/unit/session-identity.test.ts).
 *
 * Start times are absolute (UTC seconds since 1970), so unlike Linux's boot-relative ticks they
 * need no boot id beside them: a process started after a reboot has a later start time. They are
 * whole seconds on every platform (what `ps -o lstart` gives), so two ways of reading one process
 * (PowerShell or wmic) can never disagree on a live process; a pid reused within the same second
 * after a crash is the one case this cannot tell apart.
 */

/** Runs a command; its stdout, or null when it could not run or failed. */
function run(cmd: string, args: string[], env: Record<string, string> = {}): string | null {
  try {
    const r = spawnSync(cmd, args, {
      encoding: 'utf8',
      timeout: 15_000,
      windowsHide: true,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    if (r.error || r.status !== 0) return r.status === 1 && !r.error ? '' : null; // ps: 1 = no such process
    return r.stdout;
  } catch {
    return null;
  }
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * `TZ=UTC LC_ALL=C ps -o lstart= -p PID` (macOS, BSD): "Tue Nov 24 07:52:04 2026" → "1795506724".
 * '' for empty output (no such process), null for anything else.
 */
export function parsePsLstart(out: string): string | null {
  const text = out.trim();
  if (!text) return '';
  const m = /^(?:\w{3}\s+)?(\w{3})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})$/.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[1]!);
  if (month < 0) return null;
  return String(Date.UTC(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) / 1000);
}

/**
 * A CIM/WMI datetime, as `wmic process where ProcessId=N get CreationDate /value` prints it
 * ("CreationDate=20261124085204.123456+060", local time and its offset in minutes) or as the
 * PowerShell query below prints it (UTC, "+000") → UTC seconds since 1970, e.g. "1795506724".
 * '' when the output holds no date (no such process), null when it is not understood.
 */
export function parseWmiDate(out: string): string | null {
  const text = out.trim();
  if (!text || /^CreationDate=\s*$/i.test(text)) return '';
  const m = /(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})\.\d{6}([+-])(\d{3})/.exec(text);
  if (!m) return null;
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  const offsetMin = Number(m[8]) * (m[7] === '-' ? -1 : 1);
  return String(Math.floor((local - offsetMin * 60_000) / 1000));
}

/** `ioreg -rd1 -c IOPlatformExpertDevice` (macOS) → the IOPlatformUUID, or '' when absent. */
export function parseIoregPlatformUuid(out: string): string {
  return /"IOPlatformUUID"\s*=\s*"([0-9A-Fa-f-]{8,})"/.exec(out)?.[1] ?? '';
}

/** `reg query HKLM\SOFTWARE\Microsoft\Cryptography /v MachineGuid` (Windows) → the MachineGuid, or ''. */
export function parseRegMachineGuid(out: string): string {
  return /^\s*MachineGuid\s+REG_SZ\s+([0-9A-Fa-f-]{8,})\s*$/m.exec(out)?.[1] ?? '';
}

// PowerShell prints the creation time in the same form as wmic (UTC, offset +000), so one parser
// reads both; nothing for a pid that does not exist.
const psCreation = (pid: number): string =>
  `$p = Get-CimInstance Win32_Process -Filter 'ProcessId=${pid}'; ` +
  "if ($p -and $p.CreationDate) { $p.CreationDate.ToUniversalTime().ToString('yyyyMMddHHmmss') + '.000000+000' }";

/**
 * The start time of a pid known to exist, read through a command; '' when it cannot be told (the
 * command failed, or found no process: the pid was there a moment ago, so "cannot tell" is the safe
 * answer — a live session judged dead would lose its containers).
 */
function startThroughCommand(pid: number): string {
  if (process.platform === 'darwin' || process.platform === 'freebsd' || process.platform === 'openbsd') {
    const out = run('ps', ['-o', 'lstart=', '-p', String(pid)], { TZ: 'UTC', LC_ALL: 'C' });
    return out === null ? '' : (parsePsLstart(out) ?? '');
  }
  if (process.platform === 'win32') {
    let out = run('powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', psCreation(pid)]);
    if (out === null) out = run('wmic', ['process', 'where', `ProcessId=${pid}`, 'get', 'CreationDate', '/value']);
    return out === null ? '' : (parseWmiDate(out) ?? '');
  }
  return '';
}

// PowerShell takes most of a second to start: answers are kept a few seconds (a sweep asks about
// every session it finds), and this process's own start time is read once (session.ts caches it).
const CACHE_MS = 5_000;
const cache = new Map<number, { start: string; at: number }>();

/** A process's start time off Linux: UTC seconds as text, null when no such process runs, '' when it cannot be told. */
export function otherPlatformProcessStart(pid: number): string | null {
  if (!pidExists(pid)) return null; // cheap, and what decides for a process that is gone
  const hit = cache.get(pid);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.start;
  const start = startThroughCommand(pid);
  cache.set(pid, { start, at: Date.now() });
  return start;
}

/** Whether a process with this pid exists (one of another user's counts too). */
export function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The machine id off Linux: macOS' IOPlatformUUID, Windows' MachineGuid; '' when it cannot be read. */
export function otherPlatformMachineId(): string {
  if (process.platform === 'darwin')
    return parseIoregPlatformUuid(run('ioreg', ['-rd1', '-c', 'IOPlatformExpertDevice']) ?? '');
  if (process.platform === 'win32')
    return parseRegMachineGuid(
      run('reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid']) ?? '',
    );
  return '';
}
