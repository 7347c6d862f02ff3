import { describe, expect, it } from 'vitest';
import { CLIENT_BOUND_ELU, RATE_SHORTFALL } from '../../src-main/common/thresholds.ts';
import { planPlacement } from '../../src-main/docker/placement.ts';
import { attribute } from '../../src-main/load/attribution.ts';
import { splitPlan, threadCount } from '../../src-main/load/threads.ts';
import type { LoadPlan } from '../../src-main/load/protocol.ts';

describe('who set the pace', () => {
  const idle = [0.3];
  it('closed loop: client-bound only when a load thread was near a full core, naming which', () => {
    expect(attribute({ connections: 10, rpsMean: 40_000, sentPerSec: 40_000, meanServiceMs: 0.25, threadElu: idle })).toEqual({ clientBound: false });
    const one = attribute({ connections: 10, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.2, threadElu: [0.95] });
    expect(one.clientBound).toBe(true);
    expect(one.clientBoundReason).toMatch(/the load thread was busy 95 %/);
    const two = attribute({ connections: 10, rpsMean: 90_000, sentPerSec: 90_000, meanServiceMs: 0.1, threadElu: [0.5, CLIENT_BOUND_ELU] });
    expect(two.clientBoundReason).toMatch(/load thread 2 of 2 was busy 90 %/);
    expect(two.shortfallBy).toBeUndefined();
  });

  it('a rate reached is no shortfall', () => {
    expect(attribute({ targetRate: 1000, connections: 10, rpsMean: 1000 * RATE_SHORTFALL, sentPerSec: 1000, meanServiceMs: 1, threadElu: idle })).toEqual({ clientBound: false });
  });

  it('a missed rate with every connection busy is the server, and never flags the client', () => {
    // 4 connections, 2 ms per answer: at most 2,000 req/s; 500,000 asked (needs 1,000 connections).
    const r = attribute({ targetRate: 500_000, connections: 4, rpsMean: 2000, sentPerSec: 2000, meanServiceMs: 2, threadElu: [0.4] });
    expect(r).toEqual({ clientBound: false, shortfallBy: 'server' });
  });

  it('a missed rate whose requests went out but were not answered is the server', () => {
    const r = attribute({ targetRate: 1000, connections: 50, rpsMean: 200, sentPerSec: 1000, meanServiceMs: 1, threadElu: [0.2] });
    expect(r.shortfallBy).toBe('server');
    expect(attribute({ targetRate: 1000, connections: 50, rpsMean: 0, sentPerSec: 990, threadElu: [0.2] }).shortfallBy).toBe('server');
  });

  it('a missed rate with a saturated load thread is the client, saying when the connections were full too', () => {
    const r = attribute({ targetRate: 80_000, connections: 10, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.1, threadElu: [0.97] });
    expect(r).toMatchObject({ clientBound: true, shortfallBy: 'client' });
    expect(r.clientBoundReason).toMatch(/^reached 50000 of 80000 req\/s requested: the load thread was busy 97 %/);
    expect(r.clientBoundReason).not.toMatch(/server/);
    const both = attribute({ targetRate: 80_000, connections: 10, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.2, threadElu: [0.97] });
    expect(both.clientBoundReason).toMatch(/every connection was busy as well/);
  });

  it('a missed rate with free connections and idle threads is the load side (held back by the host)', () => {
    const r = attribute({ targetRate: 2000, connections: 10, rpsMean: 1500, sentPerSec: 1500, meanServiceMs: 0.2, threadElu: [0.3] });
    expect(r).toMatchObject({ clientBound: true, shortfallBy: 'client' });
    expect(r.clientBoundReason).toMatch(/sent only 1500 req\/s although its connections had room \(0\.4 of 10 needed\)/);
  });
});

const plan = (over: Partial<LoadPlan>): LoadPlan => ({
  host: 'h', port: 1, requests: [{ method: 'GET', path: '/' }], load: { model: 'closed', connections: 10 }, durationSec: 5, warmupSec: 1, timeoutSec: 10, ...over,
});

describe('sharing the load among threads', () => {
  it('one thread per load core, unless the plan says; never more than the connections', () => {
    expect(threadCount(plan({}))).toBe(1);
    expect(threadCount(plan({ cpus: '2-3' }))).toBe(2);
    expect(threadCount(plan({ cpus: '1', threads: 3 }))).toBe(3);
    expect(threadCount(plan({ threads: 8, load: { model: 'closed', connections: 5 } }))).toBe(5);
    expect(() => threadCount(plan({ threads: 0 }))).toThrow(/at least 1/);
    expect(() => threadCount(plan({ threads: 1.5 }))).toThrow(/whole number/);
  });

  it('connections split evenly; each keeps its slot in the one shared rate schedule; a core each', () => {
    const shares = splitPlan(plan({ cpus: '1-3', load: { model: 'rate', rate: 3000, connections: 10 }, warmupSec: 2, maxWarmupSec: 8 }));
    expect(shares.map((s) => [s.connections, s.firstConnection, s.totalConnections, s.rate, s.cpus])).toEqual([
      [4, 0, 10, 3000, '1'],
      [3, 4, 10, 3000, '2'],
      [3, 7, 10, 3000, '3'],
    ]);
    expect(shares[0]!.maxSec).toBeGreaterThanOrEqual(8 + 5); // the safety stop lies past the longest warmup
  });

  it('more threads than cores: all share the listed cores', () => {
    expect(splitPlan(plan({ cpus: '1', threads: 2 })).map((s) => s.cpus)).toEqual(['1', '1']);
    expect(splitPlan(plan({ threads: 2 })).map((s) => s.cpus)).toEqual([undefined, undefined]);
  });
});

describe('placement leaves the load the cores the target does not use', () => {
  it('2 cores: target on 0, one load thread on 1; no room: unpinned', () => {
    expect(planPlacement(1000, 2, true)).toEqual({ targetCpus: '0', loadCpus: '1' });
    expect(planPlacement(2000, 2, true).loadCpus).toBeUndefined();
    expect(planPlacement(1000, 2, false)).toEqual({});
  });
  it('more cores: the load gets the rest, minus one for the engine and UI from three spare, at most two per target core', () => {
    expect(planPlacement(1000, 3, true)).toEqual({ targetCpus: '0', loadCpus: '1-2' });
    expect(planPlacement(1000, 4, true)).toEqual({ targetCpus: '0', loadCpus: '1-2' });
    expect(planPlacement(2000, 8, true)).toEqual({ targetCpus: '0-1', loadCpus: '2-5' });
    expect(planPlacement(2500, 4, true)).toEqual({ targetCpus: '0-2', loadCpus: '3' });
    expect(threadCount(plan({ cpus: planPlacement(2000, 8, true).loadCpus! }))).toBe(4);
  });
});
