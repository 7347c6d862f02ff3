import * as childProcess from 'node:child_process';
import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otherPlatformMachineId, otherPlatformProcessStart, parseIoregPlatformUuid, parsePsLstart, parseRegMachineGuid, parseWmiDate } from '../../src-main/session/platform.ts';
import { currentSession, describeSession, formatSession, isSessionAlive, machineIdentity, parseSession } from '../../src-main/session/session.ts';

vi.mock('node:child_process', async (original) => ({ ...(await original<typeof import('node:child_process')>()), spawnSync: vi.fn() }));
const spawnSync = vi.mocked(childProcess.spawnSync);

const me = parseSession(currentSession())!;

describe('session identity', () => {
  it('round-trips through its text form, machine key and boot id included', () => {
    expect(me.pid).toBe(process.pid);
    expect(me.machine).toBe(machineIdentity().machine);
    expect(me.machine).toMatch(/^[0-9a-f]{16}$/);
    expect(formatSession(me)).toBe(currentSession());
    expect(parseSession(formatSession({ host: 'a:b~c', machine: 'ab12', boot: 'cd34', pid: 7, start: '99' }))).toEqual({ host: 'a:b~c', machine: 'ab12', boot: 'cd34', pid: 7, start: '99' });
  });

  it('survives a hostname change: the same machine, boot and live process is alive under any host name', () => {
    const renamed = formatSession({ ...me, host: `${os.hostname()}-renamed.local` });
    expect(renamed).not.toBe(currentSession());
    expect(isSessionAlive(renamed)).toBe(true);
  });

  it('survives pid reuse: the same pid with another start time is dead', () => {
    if (process.platform !== 'linux') return;
    expect(isSessionAlive(formatSession({ ...me, start: String(Number(me.start) + 1) }))).toBe(false);
    expect(isSessionAlive(formatSession({ ...me, pid: 2 ** 22 + 7 }))).toBe(false);
  });

  it('a session from before the last boot is dead even if its pid and start time match a live process', () => {
    if (!me.boot) return; // no boot id off Linux
    const otherBoot = me.boot.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(isSessionAlive(formatSession({ ...me, boot: otherBoot }))).toBe(false);
  });

  it("another machine's session (or another pid namespace: another container) counts as alive: not ours to judge", () => {
    const other = me.machine!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(isSessionAlive(formatSession({ ...me, machine: other, pid: 2 ** 22 + 7 }))).toBe(true);
  });

  it('still understands ids written before machine keys (host:pid:start)', () => {
    const old = `${os.hostname()}:${process.pid}:${me.start}`;
    expect(parseSession(old)).toMatchObject({ host: os.hostname(), machine: '', pid: process.pid });
    expect(isSessionAlive(old)).toBe(true);
    expect(isSessionAlive(`${os.hostname()}:${2 ** 22 + 7}:1`)).toBe(false);
    expect(isSessionAlive(`elsewhere-${os.hostname()}:1:1`)).toBe(true);
  });

  it('describes a session in words for messages', () => {
    expect(describeSession(formatSession({ ...me, pid: 42, host: 'lab-box' }))).toBe('pid 42 on lab-box');
    expect(describeSession(currentSession())).toMatch(/^this process, pid \d+ on /);
  });
});

// Off Linux a session's start time and machine id come from commands (session/platform.ts); their
// parsers are checked here on outputs recorded on macOS 14 and Windows 11, and the commands' wiring
// with spawnSync stubbed and the platform faked.
const PS_LSTART = 'Tue Nov 24 07:52:04 2026\n';
const PS_LSTART_SPACE = 'Mon Mar  3 09:05:07 2025\n';
const WMIC = '\r\r\nCreationDate=20261124085204.123456+060\r\r\n\r\r\n\r\r\n';
const POWERSHELL = '20261124075204.000000+000\r\n';
const IOREG = `+-o MacBookPro18,3  <class IOPlatformExpertDevice, id 0x100000220, registered, matched, active, busy 0 (11 ms), retain 37>
    {
      "IOPolledInterface" = "AppleARMWatchdogTimerHibernateHandler is not serializable"
      "#address-cells" = <02000000>
      "IOPlatformSerialNumber" = "C02ZK1ABMD6T"
      "IOPlatformUUID" = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"
      "IOBusyInterest" = "IOCommand is not serializable"
      "model" = <"MacBookPro18,3">
    }
`;
const REG = '\r\nHKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Cryptography\r\n    MachineGuid    REG_SZ    9b1f0c4e-2d6a-4f3b-8e7c-5a1d2b3c4e5f\r\n\r\n';

describe('start times and machine ids off Linux, from recorded outputs', () => {
  it('ps -o lstart (macOS, TZ=UTC): UTC seconds; a one-digit day; nothing for a pid that is gone; null for what it does not understand', () => {
    expect(parsePsLstart(PS_LSTART)).toBe('1795506724');
    expect(parsePsLstart(PS_LSTART_SPACE)).toBe('1740992707');
    expect(parsePsLstart('')).toBe('');
    expect(parsePsLstart('  \n')).toBe('');
    expect(parsePsLstart('lun 24 nov 07:52:04 2026')).toBeNull(); // a localised ps: the caller sets LC_ALL=C
  });

  it('wmic and PowerShell CreationDate (Windows): the same UTC seconds whatever the offset or the digits after the second', () => {
    expect(parseWmiDate(WMIC)).toBe('1795506724'); // 08:52:04 at +60 min = 07:52:04 UTC
    expect(parseWmiDate(POWERSHELL)).toBe('1795506724');
    expect(parseWmiDate('20261124025204.999999-300')).toBe('1795506724'); // 02:52 at -5 h
    expect(parseWmiDate('')).toBe(''); // wmic says "No Instance(s) Available." on stderr only
    expect(parseWmiDate('CreationDate=\r\n')).toBe('');
    expect(parseWmiDate('garbage')).toBeNull();
  });

  it('ioreg IOPlatformUUID (macOS) and the registry MachineGuid (Windows): the id, or "" when absent', () => {
    expect(parseIoregPlatformUuid(IOREG)).toBe('3F2504E0-4F89-11D3-9A0C-0305E82C3301');
    expect(parseIoregPlatformUuid('+-o VMware7,1 <class IOPlatformExpertDevice>\n    {\n    }\n')).toBe('');
    expect(parseRegMachineGuid(REG)).toBe('9b1f0c4e-2d6a-4f3b-8e7c-5a1d2b3c4e5f');
    expect(parseRegMachineGuid('ERROR: The system was unable to find the specified registry key or value.')).toBe('');
  });
});

describe('the commands behind them (platform faked, spawnSync stubbed)', () => {
  const platform = process.platform;
  const fake = (p: NodeJS.Platform): void => void Object.defineProperty(process, 'platform', { value: p, configurable: true });
  afterEach(() => {
    fake(platform);
    spawnSync.mockReset();
  });
  const answer = (stdout: string, status = 0) => ({ pid: 1, output: [], stdout, stderr: '', status, signal: null });

  it('macOS: ps in UTC and the C locale for a live pid; the UUID from ioreg', () => {
    fake('darwin');
    spawnSync.mockReturnValueOnce(answer(PS_LSTART) as never);
    expect(otherPlatformProcessStart(process.pid)).toBe('1795506724');
    const [cmd, args, opts] = spawnSync.mock.calls[0]!;
    expect([cmd, args]).toEqual(['ps', ['-o', 'lstart=', '-p', String(process.pid)]]);
    expect((opts as { env: Record<string, string> }).env).toMatchObject({ TZ: 'UTC', LC_ALL: 'C' });
    // Asked again within a few seconds: the cached answer, no second command.
    expect(otherPlatformProcessStart(process.pid)).toBe('1795506724');
    expect(spawnSync).toHaveBeenCalledTimes(1);
    spawnSync.mockReturnValueOnce(answer(IOREG) as never);
    expect(otherPlatformMachineId()).toBe('3F2504E0-4F89-11D3-9A0C-0305E82C3301');
  });

  it('a pid that does not exist is answered without any command', () => {
    fake('win32');
    expect(otherPlatformProcessStart(2 ** 22 + 7)).toBeNull();
    expect(spawnSync).not.toHaveBeenCalled();
  });

  it('Windows: PowerShell first, wmic when PowerShell cannot run; the MachineGuid from reg', () => {
    fake('win32');
    const pid = process.ppid; // alive, and not cached by the macOS case
    spawnSync.mockReturnValueOnce({ ...answer(''), status: null, error: new Error('ENOENT') } as never).mockReturnValueOnce(answer(WMIC) as never);
    expect(otherPlatformProcessStart(pid)).toBe('1795506724');
    expect(spawnSync.mock.calls.map((c) => c[0])).toEqual(['powershell.exe', 'wmic']);
    expect(String((spawnSync.mock.calls[0]![1] as string[]).at(-1))).toContain(`ProcessId=${pid}`);
    spawnSync.mockReturnValueOnce(answer(REG) as never);
    expect(otherPlatformMachineId()).toBe('9b1f0c4e-2d6a-4f3b-8e7c-5a1d2b3c4e5f');
    expect(spawnSync.mock.calls[2]!.slice(0, 2)).toEqual(['reg', ['query', 'HKLM\\SOFTWARE\\Microsoft\\Cryptography', '/v', 'MachineGuid']]);
  });

  it('macOS liveness: the same pid with the same start time is alive, with another start time (a reused pid) dead', async () => {
    const child = childProcess.spawn('sleep', ['5']); // a live pid of our own, not asked about before
    try {
      fake('darwin');
      spawnSync.mockReturnValue(answer(PS_LSTART) as never);
      expect(isSessionAlive(formatSession({ ...me, pid: child.pid!, start: '1795506724' }))).toBe(true);
      expect(isSessionAlive(formatSession({ ...me, pid: child.pid!, start: '1795506725' }))).toBe(false);
      expect(isSessionAlive(formatSession({ ...me, pid: 2 ** 22 + 7, start: '1795506724' }))).toBe(false);
    } finally {
      child.kill();
    }
  });

  it('a command that cannot run means "cannot tell" (liveness then goes by the pid alone), never "dead"', () => {
    fake('darwin');
    spawnSync.mockReturnValueOnce({ ...answer(''), status: null, error: new Error('ENOENT') } as never);
    expect(otherPlatformProcessStart(1)).toBe('');
  });
});
