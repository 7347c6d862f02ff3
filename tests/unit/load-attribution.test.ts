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

  it('a missed rate with every connection busy and an idle thread is the server, and never flags the client', () => {
    // 4 connections, 2 ms per answer: at most 2,000 req/s; 500,000 asked (needs 1,000 connections).
    const r = attribute({ targetRate: 500_000, connections: 4, rpsMean: 2000, sentPerSec: 2000, meanServiceMs: 2, threadElu: [0.4] });
    expect(r).toEqual({ clientBound: false, shortfallBy: 'server' });
  });

  it('a missed rate whose requests went out but were not answered is the server', () => {
    const r = attribute({ targetRate: 1000, connections: 50, rpsMean: 200, sentPerSec: 1000, meanServiceMs: 1, threadElu: [0.2] });
    expect(r.shortfallBy).toBe('server');
    expect(attribute({ targetRate: 1000, connections: 50, rpsMean: 0, sentPerSec: 990, threadElu: [0.2] }).shortfallBy).toBe('server');
  });

  it('a missed rate with a saturated load thread and connections to spare is the client', () => {
    // 80,000 req/s × 0.1 ms = 8 connections needed of 10: room left, the thread set the pace.
    const r = attribute({ targetRate: 80_000, connections: 10, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.1, threadElu: [0.97] });
    expect(r).toMatchObject({ clientBound: true, shortfallBy: 'client' });
    expect(r.clientBoundReason).toMatch(/^reached 50000 of 80000 req\/s requested: the load thread was busy 97 %/);
    expect(r.clientBoundReason).not.toMatch(/server/);
  });

  describe('a busy load thread and every connection busy: one cause, from which saturated first', () => {
    // 80,000 req/s × 0.2 ms = 16 connections needed of 10: every connection was full.
    const both = { targetRate: 80_000, connections: 10, rpsMean: 50_000, sentPerSec: 50_000, meanServiceMs: 0.2, threadElu: [0.97] };
    const busy = 950; // ms of CPU in a second: ≥ 90 % of a core
    const idle = 400;
    const server = { clientBound: false, shortfallBy: 'server' };

    it('the server set the pace when the connections were full first: not client-bound', () => {
      const r = attribute({ ...both, perSecond: [{ maxThreadCpuMs: idle, meanServiceMs: 0.3 }, { maxThreadCpuMs: busy, meanServiceMs: 0.2 }] });
      expect(r).toEqual(server);
    });

    it('the load thread set the pace when it was busy in an earlier second than the connections filled: client-bound', () => {
      const r = attribute({ ...both, perSecond: [{ maxThreadCpuMs: busy, meanServiceMs: 0.1 }, { maxThreadCpuMs: busy, meanServiceMs: 0.3 }] });
      expect(r).toMatchObject({ clientBound: true, shortfallBy: 'client' });
      expect(r.clientBoundReason).toMatch(/busy 97 %.*from measured second 1; the connections filled only from second 2, after it fell behind/);
      // Busy from the start while no single second had every connection busy: the client too.
      const never = attribute({ ...both, perSecond: [{ maxThreadCpuMs: busy, meanServiceMs: 0.1 }, { maxThreadCpuMs: busy }] });
      expect(never).toMatchObject({ clientBound: true, shortfallBy: 'client' });
    });

    it('ambiguous (both from the same second, or no per-second CPU outside Linux): the server, and not client-bound', () => {
      // The full connections are the direct evidence; the busy thread may be their consequence.
      expect(attribute({ ...both, perSecond: [{ maxThreadCpuMs: busy, meanServiceMs: 0.2 }, { maxThreadCpuMs: busy, meanServiceMs: 0.2 }] })).toEqual(server);
      expect(attribute(both)).toEqual(server);
      expect(attribute({ ...both, perSecond: [{ meanServiceMs: 0.2 }, { meanServiceMs: 0.2 }] })).toEqual(server);
      // A busy overall ELU but no single second at a full core: nothing shows the thread first.
      expect(attribute({ ...both, perSecond: [{ maxThreadCpuMs: 880, meanServiceMs: 0.2 }, { maxThreadCpuMs: 890, meanServiceMs: 0.2 }] })).toEqual(server);
    });
  });

  it('never client-bound and blamed on the server; every missed rate names exactly one side (a sweep of the evidence)', () => {
    const cpu = [undefined, 300, 950];
    const service = [undefined, 0.05, 0.2, 2];
    const seconds = cpu.flatMap((c) => service.map((m) => ({ ...(c !== undefined ? { maxThreadCpuMs: c } : {}), ...(m !== undefined ? { meanServiceMs: m } : {}) })));
    let cases = 0;
    for (const targetRate of [undefined, 1000, 80_000])
      for (const rpsMean of [500, 50_000, 79_000])
        for (const sentPerSec of [500, 50_000, 80_000])
          for (const meanServiceMs of [undefined, 0.05, 0.2])
            for (const threadElu of [[0.3], [0.97], [0.5, 0.95]])
              for (const a of seconds)
                for (const b of seconds) {
                  // Widened to what a LoadResult can hold: the check is at run time, not just in the type.
                  const r: { clientBound: boolean; clientBoundReason?: string; shortfallBy?: string } = attribute({ ...(targetRate ? { targetRate } : {}), connections: 10, rpsMean, sentPerSec, ...(meanServiceMs !== undefined ? { meanServiceMs } : {}), threadElu, perSecond: [a, b] });
                  cases++;
                  expect(r.clientBound && r.shortfallBy === 'server').toBe(false);
                  expect(r.clientBound).toBe(r.clientBoundReason !== undefined);
                  const missed = targetRate !== undefined && rpsMean < targetRate * RATE_SHORTFALL;
                  if (missed) expect(r.shortfallBy).toBe(r.clientBound ? 'client' : 'server');
                  else expect(r.shortfallBy).toBeUndefined();
                }
    expect(cases).toBeGreaterThan(10_000);
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
