import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';
import type { LoadSecond } from '../../src-main/engine/types.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';

let engine: EngineInfo;
let target: TargetContainer;

beforeAll(async () => {
  engine = await requireDocker();
  const { app, image } = await imageFor('hello');
  target = await TargetContainer.start({
    image: image.tag,
    launch: { mode: 'single', workers: 1, entry: image.entry, name: app.name },
    port: app.port, env: {}, cpuMillis: 1000, memoryMb: 256, cpuset: '0',
    publish: !engine.bridgeRoutable, labels: { app: app.name },
  });
  await waitReady(target.address, { path: app.health, processes: 1, deadlineMs: 30_000 });
});
afterAll(async () => {
  await target?.remove();
});

const plan = (over: Partial<LoadPlan> & Pick<LoadPlan, 'load'>): LoadPlan => ({
  host: target.address.host, port: target.address.port, requests: [{ method: 'GET' as const, path: '/' }],
  durationSec: 5, warmupSec: 1, timeoutSec: 10, ...over,
});

describe('load runner against a real container', () => {
  it('constant-rate mode delivers the target rate within 5 %, latency from the intended send time', async () => {
    const seconds: LoadSecond[] = [];
    const r = await runLoad(plan({ load: { model: 'rate', rate: 2000, connections: 10 } }), { onSecond: (s, warm) => !warm && seconds.push(s) });
    console.log(`constant rate: ${r.rpsMean.toFixed(1)} of 2000 req/s, p50 ${r.latencyUs.p50} µs, p99 ${r.latencyUs.p99} µs`);
    expect(Math.abs(r.rpsMean - 2000) / 2000).toBeLessThan(0.05);
    expect(Math.abs(r.requests / r.measuredSec - 2000) / 2000).toBeLessThan(0.05);
    expect(r.latencyFrom).toBe('intended-send');
    expect(r.targetRate).toBe(2000);
    expect(r.clientBound).toBe(false);
    expect(seconds.map((s) => s.t)).toEqual([0, 1, 2, 3, 4]);
    // Sub-millisecond latency is kept: autocannon's own histogram would say 0 or 1 ms here.
    expect(r.latencyUs.p50).toBeGreaterThan(0);
    expect(r.latencyUs.p50).toBeLessThan(5000);
    expect(r.latencyUs.p50 % 1000 === 0 && r.latencyUs.p99 % 1000 === 0).toBe(false);
  });

  it('a rate the server cannot reach is flagged with the reason', async () => {
    const r = await runLoad(plan({ durationSec: 3, load: { model: 'rate', rate: 500_000, connections: 4 } }));
    expect(r.rpsMean).toBeLessThan(500_000 * 0.95);
    expect(r.clientBound).toBe(true);
    expect(r.clientBoundReason).toMatch(/reached \d+ of 500000 req\/s requested/);
  });

  it('closed loop reports every second with its own percentiles, warmup excluded', async () => {
    const all: { s: LoadSecond; warm: boolean }[] = [];
    const r = await runLoad(plan({ durationSec: 3, warmupSec: 2, load: { model: 'closed', connections: 10 } }), { onSecond: (s, warm) => all.push({ s, warm }) });
    expect(all.map((x) => [x.s.t, x.warm])).toEqual([[-2, true], [-1, true], [0, false], [1, false], [2, false]]);
    const measured = all.filter((x) => !x.warm).reduce((n, x) => n + x.s.requests, 0);
    expect(r.requests).toBeGreaterThanOrEqual(measured);
    expect(r.requests - measured).toBeLessThan(r.rpsMean * 0.05); // only responses of the last few ms differ
    expect(r.latencyUs.p99).toBeGreaterThanOrEqual(r.latencyUs.p50);
    expect(r.statusCounts['200']).toBe(r.requests);
  });

  it('cancel stops the load within 1 s', async () => {
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 1500);
    const t0 = performance.now();
    const r = await runLoad(plan({ durationSec: 30, warmupSec: 0, load: { model: 'closed', connections: 10 } }), { signal: abort.signal });
    expect(performance.now() - t0).toBeLessThan(2500);
    expect(r.measuredSec).toBeLessThan(3);
  });
});
