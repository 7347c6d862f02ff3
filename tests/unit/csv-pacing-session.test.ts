import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../src-main/export/csv.ts';
import { ConnectionSchedule } from '../../src-main/load/pacing.ts';
import { currentSession, formatSession, isSessionAlive, parseSession } from '../../src-main/session/session.ts';
import { planPlacement } from '../../src-main/docker/placement.ts';
import { RESTART_LINE, launchCommand } from '../../src-main/docker/launch.ts';
import { cellFlags } from '../../src-main/engine/flags.ts';
import { sharedLibraries } from '../../src-main/docker/base-image.ts';

describe('toCsv (RFC 4180)', () => {
  it('quotes commas, quotes and line breaks, ends lines with CRLF', () => {
    expect(toCsv(['a', 'b'], [['x,y', 'say "hi"'], ['line\nbreak', null], [1.23456, 7]])).toBe(
      'a,b\r\n"x,y","say ""hi"""\r\n"line\nbreak",\r\n1.235,7\r\n',
    );
  });
});

describe('ConnectionSchedule', () => {
  it('spreads C connections evenly over the target rate', () => {
    const t0 = 1000;
    const s0 = new ConnectionSchedule(t0, 0, 4, 100); // 4 connections × 25 req/s: 40 ms apart each
    const s1 = new ConnectionSchedule(t0, 1, 4, 100);
    expect([s0.next(t0).due, s0.next(t0).due, s0.next(t0).due]).toEqual([1000, 1040, 1080]);
    expect(s1.next(t0).due).toBe(1010); // offset by 1/rate
  });

  it('sends at once when late, and tells how long to wait when early', () => {
    const s = new ConnectionSchedule(0, 0, 1, 10); // one every 100 ms
    expect(s.next(0)).toEqual({ delayMs: 0, due: 0 });
    expect(s.next(30)).toEqual({ delayMs: 70, due: 100 });
    expect(s.next(450)).toEqual({ delayMs: 0, due: 200 }); // 250 ms late: the wait counts as latency
  });
});

describe('sessions', () => {
  it('round-trips and knows this process is alive', () => {
    const me = currentSession();
    expect(parseSession(me)?.pid).toBe(process.pid);
    expect(isSessionAlive(me)).toBe(true);
  });

  it('a dead pid, or a reused pid with another start time, is not alive', () => {
    const me = parseSession(currentSession())!;
    expect(isSessionAlive(formatSession({ ...me, pid: 2 ** 22 + 7 }))).toBe(false);
    if (process.platform === 'linux') expect(isSessionAlive(formatSession({ ...me, start: '1' }))).toBe(false);
    expect(isSessionAlive('garbage')).toBe(false);
  });

  it("another host's session counts as alive (not ours to judge)", () => {
    expect(isSessionAlive(formatSession({ host: `${os.hostname()}-other`, pid: 1, start: '1' }))).toBe(true);
  });
});

describe('placement', () => {
  it('keeps target and load apart when there are cores to spare', () => {
    expect(planPlacement(1000, 2, true)).toEqual({ targetCpus: '0', loadCpus: '1' });
    expect(planPlacement(250, 4, true)).toEqual({ targetCpus: '0', loadCpus: '1-2' }); // a load thread per free core, one core left to the engine and UI
    expect(planPlacement(2500, 4, true)).toEqual({ targetCpus: '0-2', loadCpus: '3' });
  });
  it('warns when it cannot, and does nothing when off', () => {
    expect(planPlacement(2000, 2, true).warning).toMatch(/needs 2 core\(s\) and the load generator one more, but this host has 2/);
    expect(planPlacement(1000, 2, false)).toEqual({});
  });
});

describe('launch commands', () => {
  it('passes N explicitly in every mode', () => {
    expect(launchCommand({ mode: 'single', workers: 1, entry: '/srv/a.js', name: 'a' }).cmd).toEqual(['node', '/srv/a.js']);
    expect(launchCommand({ mode: 'cluster', workers: 4, entry: '/srv/a.js', name: 'a' }).env).toEqual({ RS_ENTRY: '/srv/a.js', RS_WORKERS: '4' });
    const pm2 = launchCommand({ mode: 'pm2', workers: 3, entry: '/srv/a.js', name: 'a', recycleRssMb: 96 });
    expect(pm2.cmd?.slice(-4)).toEqual(['-i', '3', '--max-memory-restart', '96M']);
    expect(pm2.env).toEqual({ PM2_WORKER_INTERVAL: '1000' });
  });
  it("passes a user app's arguments in every mode, and its worker count through the image's variable", () => {
    const args = ['--port-from-env', 'two words'];
    expect(launchCommand({ mode: 'single', workers: 1, entry: '/srv/app/index.js', name: 'a', args }).cmd).toEqual(['node', '/srv/app/index.js', ...args]);
    expect(launchCommand({ mode: 'cluster', workers: 2, entry: '/srv/app/index.js', name: 'a', args }).env.RS_ARGS).toBe(JSON.stringify(args));
    expect(launchCommand({ mode: 'pm2', workers: 2, entry: '/srv/app/index.js', name: 'a', args }).cmd?.slice(-3)).toEqual(['--', ...args]);
    const image = launchCommand({ mode: 'image', workers: 3, entry: '', name: 'a', workersEnv: 'WEB_CONCURRENCY' });
    expect(image).toEqual({ env: { WEB_CONCURRENCY: '3' } }); // no cmd: the image's own command runs
    expect(launchCommand({ mode: 'image', workers: 1, entry: '', name: 'a', workersEnv: null })).toEqual({ env: {} });
  });
  it('counts worker replacements from launcher and PM2 log lines, once each', () => {
    const lines = [
      'rightsize:worker-replaced pid=12 code=null signal=SIGKILL',
      'rightsize:worker-recycled pid=13 rss_mb=120',
      '2026-11-22T04:43:14: PM2 log: App [server:0] exited with code [0] via signal [SIGKILL]',
      '2026-11-22T04:43:14: PM2 log: App [server:_old_0] exited with code [0] via signal [SIGINT]',
      '2026-11-22T04:43:14: PM2 log: App [server:1] online',
      '[PM2][WORKER] Process 0 restarted because it exceeds --max-memory-restart value (current_memory=1 max_memory_limit=1 [octets])',
    ];
    expect(lines.filter((l) => RESTART_LINE.test(l))).toHaveLength(4);
  });
});

describe('cellFlags', () => {
  const load = {
    model: 'closed' as const, connections: 10, measuredSec: 10, requests: 1000, bytes: 1, rpsMean: 100, rpsStddev: 1, bytesPerSec: 1,
    latencyUs: { p50: 1, p75: 1, p90: 1, p97_5: 1, p99: 1, p99_9: 1, max: 1, mean: 1, stddev: 0 }, latencyFrom: 'send' as const,
    statusCounts: {}, errors: 5, timeouts: 5, non2xx: 0, clientElu: 0.95, clientBound: true, clientBoundReason: 'busy 95 %',
  };
  it('explains each problem', () => {
    const stats = { cpuPctMean: 100, cpuPctMax: 100, memMeanBytes: 1, memMaxBytes: 1, memLimitBytes: 1, throttledPeriods: 50, throttledMs: 2000, samples: 10 };
    const flags = cellFlags(load, stats, { oomKilled: true, exitCode: null, restarts: 2 }, 64);
    expect(flags.map((f) => f.kind)).toEqual(['client-bound', 'oom-killed', 'errors', 'throttled', 'restarts']);
    expect(flags.find((f) => f.kind === 'errors')!.reason).toBe('10 failed requests (0.99 %): 5 errors, 5 timeouts, 0 with an unexpected status');
    expect(flags.find((f) => f.kind === 'throttled')!.reason).toBe('CPU throttled for 2000 ms of 10000 ms by its cap');
  });
  it('is empty for a clean cell', () => {
    expect(cellFlags({ ...load, errors: 0, timeouts: 0, clientBound: false }, undefined, { oomKilled: false, exitCode: null, restarts: 0 }, 64)).toEqual([]);
  });
});

describe('offline base image', () => {
  it.runIf(process.platform === 'linux')('finds the shared libraries and loader of the node binary', async () => {
    const libs = await sharedLibraries(process.execPath);
    expect(libs.some((l) => /libc\.so/.test(l))).toBe(true);
    expect(libs.some((l) => /ld-linux/.test(l))).toBe(true);
  });
});
