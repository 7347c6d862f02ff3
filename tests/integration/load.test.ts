import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineInfo } from '../../src-main/docker/client.ts';
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import { CLIENT_BOUND_ELU, RATE_SHORTFALL } from '../../src-main/common/thresholds.ts';
import { runLoad, runLoadDetailed, type LoadPlan } from '../../src-main/load/runner.ts';
import type { LoadSecond } from '../../src-main/model/types.ts';
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

/** RIGHTSIZE_MEASURE=file: append what the bounds below come from, to measure their spread. */
const measure = (what: string, v: number): void => void (process.env.RIGHTSIZE_MEASURE && appendFileSync(process.env.RIGHTSIZE_MEASURE, `${what} ${v}\n`));

// Bounds below come from this file run 21 times on the 2-core CI machine, other work running
// beside it (RIGHTSIZE_MEASURE=file records each value):
// - constant rate, |mean − 2000| ÷ 2000 over 5 s: 0 to 0.023 (median 0.0002) → 0.05, 2× the worst;
// - p50 at 2000 req/s: 102 to 177 µs (median 133) → a floor of 20 µs, far below any real round trip through
//   the bridge and 20× above the 1 µs clamp a lost measurement would show;
// - abort → runLoad resolved: 1.2 to 19.8 ms (median 4.5) → 1000 ms, 50× the worst (a cancel that waited for
//   the 30 s it was asked to run would take seconds).
const RATE_TOLERANCE = 0.05;
const P50_FLOOR_US = 20;
const CANCEL_BOUND_MS = 1000;

const plan = (over: Partial<LoadPlan> & Pick<LoadPlan, 'load'>): LoadPlan => ({
  host: target.address.host, port: target.address.port, requests: [{ method: 'GET' as const, path: '/' }],
  durationSec: 5, warmupSec: 1, timeoutSec: 10, ...over,
});

describe('load runner against a real container', () => {
  it('constant-rate mode delivers the target rate within 5 %, latency from the intended send time', async () => {
    const seconds: LoadSecond[] = [];
    const r = await runLoad(plan({ load: { model: 'rate', rate: 2000, connections: 10 } }), { onSecond: (s, warm) => !warm && seconds.push(s) });
    console.log(`constant rate: ${r.rpsMean.toFixed(1)} of 2000 req/s, p50 ${r.latencyUs.p50} µs, p99 ${r.latencyUs.p99} µs`);
    measure('rate-dev', Math.abs(r.rpsMean - 2000) / 2000);
    measure('rate-dev-total', Math.abs(r.requests / r.measuredSec - 2000) / 2000);
    measure('p50', r.latencyUs.p50);
    expect(Math.abs(r.rpsMean - 2000) / 2000).toBeLessThan(RATE_TOLERANCE);
    expect(Math.abs(r.requests / r.measuredSec - 2000) / 2000).toBeLessThan(RATE_TOLERANCE);
    expect(r.latencyFrom).toBe('intended-send');
    expect(r.targetRate).toBe(2000);
    expect(r.clientBound).toBe(false);
    expect(seconds.map((s) => s.t)).toEqual([0, 1, 2, 3, 4]);
    // Sub-millisecond latency is kept: autocannon's own histogram would say 0 or 1 ms here. A real
    // HTTP round trip through the bridge takes tens of µs: far above the 1 µs clamp, so a latency
    // lost to clamping (or never measured) fails here.
    expect(r.latencyUs.p50).toBeGreaterThan(P50_FLOOR_US);
    expect(r.latencyUs.p50).toBeLessThan(5000);
    expect(r.latencyUs.p50 % 1000 === 0 && r.latencyUs.p99 % 1000 === 0).toBe(false);
  });

  it('a rate that cannot be reached is blamed on one side, with the evidence', async () => {
    // 4 connections, one request each in flight, carry 500,000 req/s only at 8 µs a round trip: far below
    // any real request through the bridge, so the rate is missed on any host. WHICH side set the pace
    // depends on this host (a slow host saturates the load thread sooner, a fast one the server), so
    // the test asserts what holds on every host: exactly one side is named, and a cell is never both
    // client-bound and short by the server's fault (issue 21). Which rule picks the side is pinned on
    // constructed evidence in tests/unit/load-attribution.test.ts.
    const { result: r, threadElu } = await runLoadDetailed(plan({ durationSec: 3, load: { model: 'rate', rate: 500_000, connections: 4 } }));
    console.log(`unreachable rate: ${r.rpsMean.toFixed(0)} of 500000 req/s, load thread ELU ${threadElu.map((u) => u.toFixed(2)).join(', ')}, shortfallBy ${r.shortfallBy}, clientBound ${r.clientBound}`);
    expect(r.rpsMean).toBeLessThan(500_000 * RATE_SHORTFALL);
    expect(r.shortfallBy).toMatch(/^(server|client)$/);
    // One cause: client-bound exactly when the client is named.
    expect(r.clientBound && r.shortfallBy === 'server').toBe(false);
    expect(r.clientBound).toBe(r.shortfallBy === 'client');
    if (r.shortfallBy === 'client') {
      // With the evidence: a load thread near a full core, or a load side that did not send.
      expect(r.clientBoundReason).toMatch(/^reached \d+ of 500000 req\/s requested: /);
      if (/busy \d+ %/.test(r.clientBoundReason!)) expect(Math.max(...threadElu)).toBeGreaterThanOrEqual(CLIENT_BOUND_ELU);
      else expect(r.clientBoundReason).toMatch(/sent only \d+ req\/s although its connections had room/);
    } else {
      expect(r.clientBoundReason).toBeUndefined();
    }
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

  it('cancel stops the load promptly, mid-run', async () => {
    const abort = new AbortController();
    let abortedAt = 0;
    let secondsBeforeAbort = 0;
    const r = await runLoad(plan({ durationSec: 30, warmupSec: 0, load: { model: 'closed', connections: 10 } }), {
      signal: abort.signal,
      // Cancel on the first measured second, an event, not after a guessed sleep.
      onSecond: () => {
        secondsBeforeAbort++;
        if (abortedAt) return;
        abortedAt = performance.now();
        abort.abort();
      },
    });
    const tookMs = performance.now() - abortedAt;
    measure('cancel-ms', tookMs);
    expect(abortedAt).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(CANCEL_BOUND_MS);
    expect(r.measuredSec).toBeLessThan(secondsBeforeAbort + 1); // far from the 30 s asked for
  });
});
