import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { currentSession, describeSession, formatSession, isSessionAlive, machineIdentity, parseSession } from '../../src-main/session/session.ts';

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
