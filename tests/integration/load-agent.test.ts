// The load agent, for real: its image built on the base image here, shipped to a second Docker
// engine (tests/helpers/second-engine.ts, its own network namespace), run there with the host
// network against a target on the main engine published on the veth's host side, so every request
// crosses from one namespace to the other. Seconds stream back live, the result is runLoad's, and
// the agent container is gone afterwards, also after a cancel. A local runLoad on the same target
// is the yardstick.
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetContainer } from '../../src-main/docker/containers.ts';
import { LABEL } from '../../src-main/docker/labels.ts';
import { waitReady } from '../../src-main/docker/readiness.ts';
import { isWarm } from '../../src-main/load/steady-state.ts';
import type { LoadResult, LoadSecond } from '../../src-main/model/types.ts';
import { prepareLoadAgent, runRemoteLoad, type AgentPlacement } from '../../src-main/load-agent/remote-load.ts';
import { runLoad, type LoadPlan } from '../../src-main/load/runner.ts';
import { currentSession } from '../../src-main/session/session.ts';
import { imageFor, requireDocker } from '../helpers/docker.ts';
import { HOST_SIDE, startSecondEngine, type SecondEngine } from '../helpers/second-engine.ts';

let second: SecondEngine;
let target: TargetContainer;
let agentImage: string;
let placement: AgentPlacement;
let plan: (over?: Partial<LoadPlan>) => LoadPlan;

const agents = async (): Promise<Docker.ContainerInfo[]> =>
  second.client.listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.kind}=load-agent`] }) });

beforeAll(async () => {
  await requireDocker();
  second = await startSecondEngine();
  const shipStart = performance.now();
  agentImage = await prepareLoadAgent(second.client, 'second');
  console.log(`load agent image ${agentImage}: built and shipped in ${Math.round(performance.now() - shipStart)} ms`);
  placement = { engine: second.client, where: 'second' };
  const { app, image } = await imageFor('hello');
  // On the main engine, published on the veth's host side: reached from the second engine's namespace.
  target = await TargetContainer.start({
    image: image.tag, launch: { mode: 'cluster', workers: 1, entry: image.entry, name: 'hello' }, port: app.port, env: app.env,
    cpuMillis: 500, memoryMb: 128, publish: true, publishOn: HOST_SIDE, labels: { run: 'load-agent-test', app: 'hello' },
  });
  await waitReady(target.address, { path: app.health, processes: 1, deadlineMs: 30_000, exited: target.exited });
  plan = (over = {}) => ({
    host: target.address.host, port: target.address.port, requests: app.requests,
    load: { model: 'closed', connections: 4 }, durationSec: 3, warmupSec: 0, timeoutSec: 5, ...over,
  });
});

afterAll(async () => {
  await target?.remove();
  await second?.stop();
});

/** runRemoteLoad, with every second and when it arrived. */
async function remote(p: LoadPlan, extra: { isWarm?: typeof isWarm; signal?: AbortSignal; onSecond?: (s: LoadSecond, warmup: boolean) => void } = {}) {
  const seconds: { s: LoadSecond; warmup: boolean; at: number }[] = [];
  const t0 = performance.now();
  const result = await runRemoteLoad(placement, p, {
    ...extra,
    onSecond: (s, warmup) => {
      seconds.push({ s, warmup, at: performance.now() - t0 });
      extra.onSecond?.(s, warmup);
    },
  }, { image: agentImage, labels: { run: 'load-agent-test', cell: '1', app: 'hello' } });
  return { result, seconds, wallMs: performance.now() - t0 };
}

function expectSane(result: LoadResult, seconds: { s: LoadSecond; warmup: boolean; at: number }[]): void {
  const measured = seconds.filter((x) => !x.warmup);
  const warm = seconds.filter((x) => x.warmup);
  // In order: warmup seconds counting up to the measurement, then 0, 1, 2 … (the steady warm-up seconds again,
  // as measured ones: LoadSecond.wasWarmup names which)
  expect(warm.map((x) => x.s.t)).toEqual(warm.map((_, i) => i - 1));
  expect(measured.map((x) => x.s.t)).toEqual([0, 1, 2]);
  expect(seconds.slice(0, warm.length).every((x) => x.warmup)).toBe(true);
  const replayed = measured.filter((x) => x.s.wasWarmup !== undefined);
  expect(replayed.map((x) => x.s.wasWarmup)).toEqual(replayed.map((_, i) => warm.length - replayed.length + i));
  // Live: each second arrived when it ended, not all at once at the end. Over the whole stream, since one second
  // delivered late through the other engine and the next on time would make a single gap short.
  const live = seconds.filter((x) => x.s.wasWarmup === undefined);
  const spanMs = live.at(-1)!.at - live[0]!.at;
  expect(spanMs, live.map((x) => Math.round(x.at)).join(' ')).toBeGreaterThan(500 * (live.length - 1));
  // The result is the streamed seconds' sum, exactly.
  expect(result.measuredSec).toBe(3);
  expect(result.requests).toBe(measured.reduce((a, x) => a + x.s.requests, 0));
  expect(result.perSecondRps).toEqual(measured.map((x) => x.s.requests));
  expect(result.warmupUsedSec).toBe(warm.length - replayed.length);
  expect(result.errors + result.timeouts + result.non2xx).toBe(0);
  expect(result.latencyUs.p50).toBeGreaterThan(20);
  expect(result.latencyUs.p50).toBeLessThanOrEqual(result.latencyUs.p99);
  expect(result.latencyUs.p99).toBeLessThanOrEqual(result.latencyUs.max);
}

describe('the load agent on another engine', () => {
  it('closed model, adaptive warmup: streams each second live, returns runLoad’s result, leaves nothing; same order of magnitude as a local load', async () => {
    const p = plan({ warmupSec: 1, maxWarmupSec: 4 });
    const r = await remote(p, { isWarm });
    expectSane(r.result, r.seconds);
    expect(r.result.model).toBe('closed');
    expect(r.result.threads).toBe(1);
    expect(await agents()).toEqual([]);

    const localStart = performance.now();
    const local = await runLoad(p, { isWarm });
    const localMs = performance.now() - localStart;
    const ratio = r.result.rpsMean / local.rpsMean;
    console.log(
      `closed, 4 connections, hello on 0.5 CPU: agent ${Math.round(r.result.rpsMean)} req/s (p50 ${r.result.latencyUs.p50} µs, warmup ${r.result.warmupUsedSec} s), ` +
        `local ${Math.round(local.rpsMean)} req/s (p50 ${local.latencyUs.p50} µs, warmup ${local.warmupUsedSec} s): ratio ${ratio.toFixed(2)}; ` +
        `first second after ${Math.round(r.seconds[0]!.at)} ms; start-up and tear-down beyond the load's own seconds: ` +
        `agent ${Math.round(r.wallMs - 1000 * (r.result.warmupUsedSec! + 3))} ms, local ${Math.round(localMs - 1000 * (local.warmupUsedSec! + 3))} ms`,
    );
    expect(ratio).toBeGreaterThan(0.1);
    expect(ratio).toBeLessThan(10);
  });

  it('rate model with a mix: keeps the rate from the other namespace, sends the mix, reports it as runLoad does', async () => {
    // A weighted mix with values drawn per request, one of them from a CSV column the plan carries.
    const requests = [
      { method: 'GET' as const, path: '/p/{{zipf 1 500 1.1}}', weight: 3, name: 'products' },
      { method: 'GET' as const, path: '/u/{{csv ids.csv id}}?r={{uuid}}', weight: 1, name: 'users' },
    ];
    const p = plan({ requests, csv: { 'ids.csv': { id: ['a', 'b', 'c'] } }, load: { model: 'rate', connections: 4, rate: 400 } });
    const r = await remote(p);
    expectSane(r.result, r.seconds);
    expect(r.result).toMatchObject({ model: 'rate', targetRate: 400, latencyFrom: 'intended-send' });
    // ~1,200 measured requests: a share is within 5 points of its weight (4 standard deviations of a binomial).
    expect(r.result.routes!.map((x) => [x.route, x.expectedShare])).toEqual([['products', 0.75], ['users', 0.25]]);
    for (const x of r.result.routes!) expect(Math.abs(x.share - x.expectedShare), x.route).toBeLessThan(0.05);
    expect(r.seconds.find((x) => !x.warmup)!.s.routes).toHaveLength(2);
    // A paced schedule: 1,200 in the 3 measured seconds, within 10 %, each second at least half its rate. A stall
    // moves requests from one second to the next (the schedule sends late ones at once), so single seconds are
    // not held to the rate.
    const perSecond = r.result.perSecondRps!; // the streamed seconds (expectSane)
    expect(Math.abs(perSecond.reduce((a, b) => a + b, 0) - 1200), perSecond.join(' ')).toBeLessThan(120);
    for (const n of perSecond) expect(n, perSecond.join(' ')).toBeGreaterThan(200);
    expect(await agents()).toEqual([]);
  });

  it('cancel mid-run returns promptly with what was measured and removes the agent', async () => {
    const stop = new AbortController();
    let abortedAt = 0;
    let running: Docker.ContainerInfo[] = [];
    const r = remote(plan({ durationSec: 60 }), {
      signal: stop.signal,
      onSecond: (_s, warmup) => {
        if (warmup || abortedAt) return;
        // Mid-run: the agent runs on the second engine with the session's labels (sweep and reaper find it).
        void agents().then((list) => {
          running = list;
          abortedAt = performance.now();
          stop.abort();
        });
      },
    });
    const { result, seconds } = await r;
    const returnMs = performance.now() - abortedAt;
    console.log(`cancel: returned ${Math.round(returnMs)} ms after the abort`);
    expect(running).toHaveLength(1);
    expect(running[0]!.Labels).toMatchObject({ [LABEL.session]: currentSession(), [LABEL.run]: 'load-agent-test', [LABEL.cell]: '1', [LABEL.kind]: 'load-agent' });
    expect(running[0]!.HostConfig.NetworkMode).toBe('host');
    expect(returnMs).toBeLessThan(3000);
    expect(result.measuredSec).toBeGreaterThan(0);
    expect(result.measuredSec).toBeLessThan(10);
    expect(result.requests).toBeGreaterThanOrEqual(seconds.filter((x) => !x.warmup).reduce((a, x) => a + x.s.requests, 0));
    expect(await agents()).toEqual([]);
  });

  it('a plan the agent cannot run fails with its message, and the agent is removed', async () => {
    await expect(remote(plan({ threads: 0 }))).rejects.toThrow('load agent on second: load threads must be a whole number of at least 1 (got 0)');
    expect(await agents()).toEqual([]);
  });
});
