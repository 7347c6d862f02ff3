// A replicated cell's load spread per connection (connection c → replica c mod R), split among load
// threads, its per-replica counts merged per second, and the uneven-share flag.
import { describe, expect, it } from 'vitest';
import { cellFlags, unevenShareReason } from '../../src-main/engine/flags.ts';
import { Measurement } from '../../src-main/load/measurement.ts';
import type { LoadPlan, ThreadSecond } from '../../src-main/load/protocol.ts';
import { connectionsPerReplica, replicaOfConnection, shares, spreadProblem, threadTargets } from '../../src-main/load/spread.ts';
import { splitPlan } from '../../src-main/load/threads.ts';
import type { LoadResult } from '../../src-main/model/types.ts';

const addr = (n: number): { host: string; port: number }[] =>
  Array.from({ length: n }, (_, i) => ({ host: `10.0.0.${i + 1}`, port: 3000 }));

const plan = (connections: number, replicas: number, threads: number): LoadPlan => ({
  host: '10.0.0.1',
  port: 3000,
  requests: [{ method: 'GET', path: '/' }],
  load: { model: 'closed', connections },
  durationSec: 3,
  warmupSec: 1,
  timeoutSec: 10,
  threads,
  ...(replicas > 0 ? { targets: addr(replicas) } : {}),
});

describe('connection → replica', () => {
  it('goes round the replicas, as kube-proxy spreads connections', () => {
    expect([0, 1, 2, 3, 4, 5, 6].map((c) => replicaOfConnection(c, 3))).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(connectionsPerReplica(10, 3)).toEqual([4, 3, 3]);
    expect(connectionsPerReplica(64, 2)).toEqual([32, 32]);
  });

  it("groups a thread's connections by replica, with their global indexes", () => {
    expect(threadTargets(3, 4, addr(2))).toEqual([
      { host: '10.0.0.1', port: 3000, replica: 0, connections: [4, 6] },
      { host: '10.0.0.2', port: 3000, replica: 1, connections: [3, 5] },
    ]);
    // One connection reaches one replica only: the other is left out, not given an empty client set.
    expect(threadTargets(1, 1, addr(2))).toEqual([{ host: '10.0.0.2', port: 3000, replica: 1, connections: [1] }]);
  });

  it.each([
    [64, 2, 2],
    [10, 3, 4],
    [7, 2, 3],
    [5, 5, 2],
  ])('%i connections over %i replicas in %i threads: each connection once, each replica its even share', (c, r, t) => {
    const threads = splitPlan(plan(c, r, t));
    const all = threads.flatMap((th) => th.targets!.flatMap((x) => x.connections)).sort((a, b) => a - b);
    expect(all).toEqual([...Array(c).keys()]);
    const perReplica = new Array<number>(r).fill(0);
    for (const th of threads) {
      expect(th.replicas).toBe(r);
      // A thread's client sets hold exactly its share of the connections.
      expect(th.targets!.reduce((a, x) => a + x.connections.length, 0)).toBe(th.connections);
      for (const x of th.targets!) {
        expect(x.host).toBe(`10.0.0.${x.replica + 1}`);
        for (const conn of x.connections) expect(conn % r).toBe(x.replica);
        perReplica[x.replica]! += x.connections.length;
      }
    }
    expect(perReplica).toEqual(connectionsPerReplica(c, r));
  });

  it('a single target keeps the plan as before (no client sets, no replica counts)', () => {
    for (const th of splitPlan(plan(8, 0, 2))) {
      expect(th.targets).toBeUndefined();
      expect(th.replicas).toBeUndefined();
    }
    expect(splitPlan({ ...plan(8, 0, 2), targets: addr(1) })[0]!.targets).toBeUndefined();
  });

  it('refuses fewer connections than replicas, in words naming both', () => {
    expect(spreadProblem(3, 4)).toBe(
      '3 connection(s) cannot reach 4 replicas: each replica needs at least one (the load spreads per connection, ' +
        'as a Kubernetes Service does); use at least 4 connections',
    );
    expect(spreadProblem(4, 4)).toBeUndefined();
    expect(spreadProblem(1, 1)).toBeUndefined();
    expect(() => splitPlan(plan(3, 4, 1))).toThrow('3 connection(s) cannot reach 4 replicas');
  });
});

describe('per-replica counts', () => {
  const second = (index: number, byReplica: number[]): ThreadSecond => ({
    index,
    requests: byReplica.reduce((a, b) => a + b, 0),
    good: byReplica.reduce((a, b) => a + b, 0),
    bytes: 0,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    sent: 0,
    busyMs: 0,
    opened: 0,
    statusCounts: {},
    cpuMs: 0,
    histogram: '',
    byReplica,
  });

  it('are summed over threads and measured seconds only (warmup left out)', () => {
    const m = new Measurement(2, { warmupSec: 1, durationSec: 2 });
    const h = (s: ThreadSecond): ThreadSecond => ({ ...s, histogram: emptyHistogram });
    m.add(h(second(0, [1000, 1])));
    m.add(h(second(0, [1000, 1]))); // warmup: not counted
    for (const i of [1, 2]) {
      m.add(h(second(i, [10, 12])));
      m.add(h(second(i, [11, 9])));
    }
    expect(m.done).toBe(true);
    expect(m.totals.byReplica).toEqual([42, 42]);
    expect(m.totals.requests).toBe(84);
  });

  it('give each replica its share', () => {
    expect(shares([30, 10])).toEqual([0.75, 0.25]);
    expect(shares([0, 0])).toEqual([0, 0]);
  });
});

describe('uneven share', () => {
  it('is flagged when a replica is more than 10 % off the even share', () => {
    // Relative to the even share: 2 replicas at 56 / 44 % are 12 % off it, at 54 / 46 % 8 %.
    expect(unevenShareReason([5600, 4400])).toBe(
      'replica 1 served 56.0 %, replica 2 served 44.0 % of the responses, ' +
        'against 50.0 % each if even (more than 10 % off)',
    );
    expect(unevenShareReason([5400, 4600])).toBeUndefined();
    expect(unevenShareReason([3000, 3000, 4000])).toBe(
      'replica 3 served 40.0 % of the responses, against 33.3 % each if even (more than 10 % off)',
    );
    expect(unevenShareReason([0, 0])).toBeUndefined();
    expect(unevenShareReason([100])).toBeUndefined();
  });

  it('becomes a cell flag only for a replicated load', () => {
    const load = { requests: 10_000, errors: 0, timeouts: 0, non2xx: 0, clientBound: false, measuredSec: 3 } as LoadResult;
    expect(cellFlags({ ...load, replicaRequests: [7000, 3000] }, undefined, undefined, 128).map((f) => f.kind)).toEqual([
      'uneven-share',
    ]);
    expect(cellFlags({ ...load, replicaRequests: [5050, 4950] }, undefined, undefined, 128)).toEqual([]);
    expect(cellFlags(load, undefined, undefined, 128)).toEqual([]);
  });

  it("judges a replicated cell's summed throttling against its replicas' time together", () => {
    const load = { requests: 10_000, errors: 0, timeouts: 0, non2xx: 0, clientBound: false, measuredSec: 3 } as LoadResult;
    const stats = { throttledMs: 240 } as never; // 4 % of 2 × 3000 ms: not flagged; 8 % of one container's 3000 ms
    expect(cellFlags({ ...load, replicaRequests: [5000, 5000] }, stats, undefined, 128)).toEqual([]);
    expect(cellFlags(load, stats, undefined, 128).map((f) => f.reason)).toEqual(['CPU throttled for 240 ms of 3000 ms by its cap']);
    expect(cellFlags({ ...load, replicaRequests: [5000, 5000] }, { throttledMs: 600 } as never, undefined, 128)[0]!.reason).toBe(
      'CPU throttled for 600 ms of 6000 ms (2 replicas × 3000 ms) by its cap',
    );
  });
});

import { encodeHistogram, newHistogram } from '../../src-main/load/histogram.ts';
const emptyHistogram = encodeHistogram(newHistogram());
