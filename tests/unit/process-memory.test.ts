// Each process's resident memory: /proc parsing, roles from command lines and parents, the
// recorder's per-pid maxima and per-reading sums, and the reader on a fake /proc and cgroup tree.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessMemoryRecorder, roles } from '../../src-main/engine/process-memory.ts';
import type { ProcessReading } from '../../src-main/providers/provider.ts';
import { parseCgroupProcs, parseCmdline, parseSmapsRollup, parseStatus, readContainerProcesses } from '../../src-main/providers/docker/process-memory.ts';

const MiB = 2 ** 20;
const KiB = 1024;

/** The memory lines of a real /proc/PID/status (hello's cluster worker on this machine). */
const status = (o: { ppid: number; rssKb: number; hwmKb: number; anonKb?: number; fileKb?: number }): string =>
  [
    'Name:\tnode', 'State:\tS (sleeping)', 'Tgid:\t8142', `PPid:\t${o.ppid}`, 'VmPeak:\t 1012340 kB', 'VmSize:\t  946800 kB',
    `VmHWM:\t   ${o.hwmKb} kB`, `VmRSS:\t   ${o.rssKb} kB`,
    ...(o.anonKb !== undefined ? [`RssAnon:\t    ${o.anonKb} kB`, `RssFile:\t   ${o.fileKb} kB`, 'RssShmem:\t       0 kB'] : []),
    'VmData:\t   52432 kB', 'Threads:\t7',
  ].join('\n') + '\n';

describe('/proc parsing', () => {
  it('reads VmRSS, VmHWM, the resident set by kind and the parent; nothing for a process without memory', () => {
    expect(parseStatus(status({ ppid: 8108, rssKb: 41692, hwmKb: 41700, anonKb: 6384, fileKb: 35308 }))).toEqual({
      ppid: 8108, rssBytes: 41692 * KiB, hwmBytes: 41700 * KiB, anonBytes: 6384 * KiB, fileBytes: 35308 * KiB, shmemBytes: 0,
    });
    // A kernel before 4.5: no split by kind.
    expect(parseStatus(status({ ppid: 1, rssKb: 100, hwmKb: 120 }))).toEqual({ ppid: 1, rssBytes: 100 * KiB, hwmBytes: 120 * KiB });
    // A zombie has no Vm lines.
    expect(parseStatus('Name:\tnode\nState:\tZ (zombie)\nPPid:\t1\n')).toBeUndefined();
    const rollup = '55d0c0a00000-7ffd5a7f3000 ---p 00000000 00:00 0                          [rollup]\nRss:               41692 kB\nPss:               11493 kB\nPss_Anon:           6384 kB\n';
    expect(parseSmapsRollup(rollup)).toBe(11493 * KiB);
    expect(parseCmdline('/usr/local/bin/node\0/srv/apps/hello/server.js\0')).toBe('/usr/local/bin/node /srv/apps/hello/server.js');
    expect(parseCgroupProcs('8108\n8142\n0\n\n8143\n')).toEqual([8108, 8142, 8143]);
  });
});

describe('roles', () => {
  const r = (pid: number, ppid: number, command: string): Pick<ProcessReading, 'pid' | 'ppid' | 'command'> => ({ pid, ppid, command });
  it('cluster: the launcher is the primary, its node children workers', () => {
    expect([...roles([r(10, 0, 'node /opt/rightsize/launchers/cluster.js'), r(11, 10, '/usr/local/bin/node /srv/apps/hello/server.js'), r(12, 10, '/usr/local/bin/node /srv/apps/hello/server.js')])]).toEqual([
      [10, 'primary'], [11, 'worker'], [12, 'worker'],
    ]);
  });
  it('pm2: God (our pm2-runtime launcher, or the daemon by its title) and its instances', () => {
    expect([...roles([r(20, 0, 'node /opt/rightsize/launchers/pm2.js start /srv/apps/hello/server.js --name hello -i 2'), r(21, 20, 'node /srv/apps/hello/server.js')])]).toEqual([[20, 'pm2-daemon'], [21, 'worker']]);
    expect(roles([r(30, 0, 'PM2 v6.0.8: God Daemon (/root/.pm2)')]).get(30)).toBe('pm2-daemon');
    expect(roles([r(31, 0, 'node /usr/local/bin/pm2-runtime ecosystem.config.js')]).get(31)).toBe('pm2-daemon');
  });
  it('single: one primary; a shell and what it starts are other', () => {
    expect(roles([r(40, 0, 'node /srv/apps/hello/server.js')]).get(40)).toBe('primary');
    expect([...roles([r(50, 0, 'npm start'), r(51, 50, 'sh -c node server.js'), r(52, 51, 'node server.js')])]).toEqual([[50, 'primary'], [51, 'other'], [52, 'other']]);
  });
});

const reading = (pid: number, ppid: number, command: string, mb: { rss: number; hwm?: number; anon: number; file: number; pss?: number }): ProcessReading => ({
  pid, ppid, command, rssBytes: mb.rss * MiB, hwmBytes: (mb.hwm ?? mb.rss) * MiB, anonBytes: mb.anon * MiB, fileBytes: mb.file * MiB, shmemBytes: 0,
  ...(mb.pss !== undefined ? { pssBytes: mb.pss * MiB } : {}),
});

describe('the recorder', () => {
  const primary = 'node /opt/rightsize/launchers/cluster.js';
  const worker = '/usr/local/bin/node /srv/apps/hello/server.js';

  it('keeps per pid the highest of each value, and per reading the sums: summed RSS, file pages once, PSS', () => {
    const rec = new ProcessMemoryRecorder({});
    rec.add({ ok: true, atMs: 1, processes: [reading(1, 0, primary, { rss: 40, anon: 6, file: 34, pss: 15 }), reading(2, 1, worker, { rss: 41, anon: 6, file: 35, pss: 15 })] });
    rec.add({ ok: true, atMs: 2, processes: [reading(1, 0, primary, { rss: 40, anon: 6, file: 34, pss: 14 }), reading(2, 1, worker, { rss: 45, hwm: 50, anon: 10, file: 35, pss: 20 })] });
    const s = rec.summary();
    expect(s.processesNotMeasured).toBeUndefined();
    expect(s.processes).toEqual([
      { pid: 1, role: 'primary', command: primary, rssPeakBytes: 40 * MiB, anonPeakBytes: 6 * MiB, filePeakBytes: 34 * MiB, pssPeakBytes: 15 * MiB, readings: 2 },
      { pid: 2, role: 'worker', command: worker, rssPeakBytes: 50 * MiB, anonPeakBytes: 10 * MiB, filePeakBytes: 35 * MiB, pssPeakBytes: 20 * MiB, readings: 2 },
    ]);
    expect(s.rssTotalPeakBytes).toBe(90 * MiB);
    // Once: primary max(6, 40 − 34) + worker max(10, 50 − 35) + the largest file set 35.
    expect(s.rssSharedOncePeakBytes).toBe((6 + 15 + 35) * MiB);
    expect(s.pssTotalBytes).toBe(34 * MiB);
  });

  it('does not count a replaced worker twice, and a file set shrunk under pressure does not inflate the sum', () => {
    const rec = new ProcessMemoryRecorder({});
    rec.add({ ok: true, atMs: 1, processes: [reading(1, 0, primary, { rss: 40, anon: 6, file: 34 }), reading(2, 1, worker, { rss: 60, anon: 25, file: 35 })] });
    // Worker 2 replaced by worker 3; the primary's file pages partly reclaimed (its VmHWM stays 40).
    rec.add({ ok: true, atMs: 2, processes: [reading(1, 0, primary, { rss: 20, hwm: 40, anon: 6, file: 14 }), reading(3, 1, worker, { rss: 42, anon: 7, file: 35 })] });
    const s = rec.summary();
    expect(s.processes!.map((p) => [p.pid, p.role, p.readings])).toEqual([[1, 'primary', 2], [2, 'worker', 1], [3, 'worker', 1]]);
    expect(s.rssTotalPeakBytes).toBe(100 * MiB); // 40 + 60, not 40 + 60 + 42
    expect(s.rssSharedOncePeakBytes).toBe((6 + 25 + 35) * MiB); // 66 at the first reading; the second is 6 + 7 + 35
  });

  it('an empty reading (the target stopped) changes nothing; a failed one is why nothing was measured', async () => {
    const rec = new ProcessMemoryRecorder({ processMemory: async () => ({ ok: false, why: 'not visible' }) });
    await rec.read();
    rec.add({ ok: true, atMs: 3, processes: [] });
    expect(rec.summary()).toEqual({ processesNotMeasured: 'not visible' });
    const thrown = new ProcessMemoryRecorder({ processMemory: () => Promise.reject(new Error('EACCES')) });
    await thrown.read();
    expect(thrown.summary()).toEqual({ processesNotMeasured: "reading the target's processes failed: EACCES" });
  });

  it('a provider that cannot read processes records "not measured" with the reason, and read() is a no-op', async () => {
    const rec = new ProcessMemoryRecorder({});
    await rec.read();
    expect(rec.summary()).toEqual({ processesNotMeasured: "this target's processes cannot be read from here (remote engine, Swarm or Kubernetes)" });
  });

  it('shares one read among calls made while it runs', async () => {
    let calls = 0;
    const rec = new ProcessMemoryRecorder({ processMemory: async () => (calls++, { ok: true as const, atMs: 1, processes: [reading(1, 0, primary, { rss: 40, anon: 6, file: 34 })] }) });
    await Promise.all([rec.read(), rec.read(), rec.read()]);
    expect(calls).toBe(1);
    await rec.read();
    expect(calls).toBe(2);
  });
});

describe('the reader', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'rs-procmem-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const id = 'c0ffee'.padEnd(64, '0');
  const proc = path.join(root, 'proc');
  const cgroup = path.join(root, 'cgroup');
  const fakeProcess = (pid: number, ppid: number, cmd: string[], kb: { rss: number; anon: number; file: number }, pssKb?: number): void => {
    mkdirSync(path.join(proc, String(pid)), { recursive: true });
    writeFileSync(path.join(proc, String(pid), 'status'), status({ ppid, rssKb: kb.rss, hwmKb: kb.rss, anonKb: kb.anon, fileKb: kb.file }));
    writeFileSync(path.join(proc, String(pid), 'cmdline'), cmd.join('\0') + '\0');
    writeFileSync(path.join(proc, String(pid), 'cgroup'), `4:memory:/docker/${id}\n`);
    if (pssKb !== undefined) writeFileSync(path.join(proc, String(pid), 'smaps_rollup'), `Rss: ${kb.rss} kB\nPss:  ${pssKb} kB\n`);
  };
  fakeProcess(500, 400, ['node', '/opt/rightsize/launchers/cluster.js'], { rss: 41296, anon: 6252, file: 35044 }, 11343);
  fakeProcess(501, 500, ['/usr/local/bin/node', '/srv/apps/hello/server.js'], { rss: 41692, anon: 6384, file: 35308 }, 11493);

  it('takes the pids from cgroup v1’s cgroup.procs, reads each from /proc, and makes the first process’s parent 0', async () => {
    mkdirSync(path.join(cgroup, 'memory', 'docker', id), { recursive: true });
    // 502 is listed but already gone: left out.
    writeFileSync(path.join(cgroup, 'memory', 'docker', id, 'cgroup.procs'), '500\n501\n502\n');
    const s = await readContainerProcesses(id, undefined, { proc, cgroup });
    expect(s.ok).toBe(true);
    if (!s.ok) return;
    expect(s.processes.map((p) => [p.pid, p.ppid, p.command, p.rssBytes / KiB, p.pssBytes! / KiB])).toEqual([
      [500, 0, 'node /opt/rightsize/launchers/cluster.js', 41296, 11343],
      [501, 500, '/usr/local/bin/node /srv/apps/hello/server.js', 41692, 11493],
    ]);
  });

  it('without the cgroup tree, Docker’s top pids are kept only where /proc shows them in this container', async () => {
    const top = async (): Promise<unknown> => ({ Titles: ['UID', 'PID', 'PPID', 'CMD'], Processes: [['root', '500', '400', 'node'], ['root', '9999', '500', 'node']] });
    const s = await readContainerProcesses(id, { top } as never, { proc, cgroup: path.join(root, 'nowhere') });
    expect(s.ok && s.processes.map((p) => p.pid)).toEqual([500]);
    // Docker Desktop: the daemon's pids mean nothing here.
    const elsewhere = async (): Promise<unknown> => ({ Titles: ['PID'], Processes: [['77777']] });
    const none = await readContainerProcesses(id, { top: elsewhere } as never, { proc, cgroup: path.join(root, 'nowhere') });
    expect(none).toEqual({ ok: false, why: expect.stringMatching(/not visible from this process/) });
  });

  it('an empty cgroup (the target stopped) is an empty reading, not a failure', async () => {
    const other = 'beef'.padEnd(64, '0');
    mkdirSync(path.join(cgroup, 'memory', 'docker', other), { recursive: true });
    writeFileSync(path.join(cgroup, 'memory', 'docker', other, 'cgroup.procs'), '');
    expect(await readContainerProcesses(other, undefined, { proc, cgroup })).toMatchObject({ ok: true, processes: [] });
  });
});

describe('the recorder’s counted-once sum', () => {
  it('is never above the summed RSS (maxima read at different moments)', () => {
    const rec = new ProcessMemoryRecorder({});
    rec.add({ ok: true, atMs: 1, processes: [reading(7, 0, 'node /srv/apps/hello/server.js', { rss: 30, anon: 9.3, file: 20 })] });
    rec.add({ ok: true, atMs: 2, processes: [reading(7, 0, 'node /srv/apps/hello/server.js', { rss: 39, anon: 7, file: 31.4 })] });
    const s = rec.summary();
    expect(s.rssTotalPeakBytes).toBe(39 * MiB);
    expect(s.rssSharedOncePeakBytes).toBe(39 * MiB); // 9.3 + 31.4 = 40.7 read at different moments: capped at the process's own peak
  });
});
