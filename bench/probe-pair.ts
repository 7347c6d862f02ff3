// One pair of the probe benchmark: two containers of the same cell, started together on the same
// core by the product's own provider (its labels, so the reaper and the sweep know them), each under
// its own closed autocannon load from this process at the same time. Host noise then hits both at
// once, and the ratio of their goodputs over the same seconds is what the probe costs (or, with the
// probe on neither, the noise floor). Used by bench/probe.ts; its containers, load and sides are
// what bench/probe-turns.ts runs in turns.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import type { AppDefinition } from '../src-main/apps/catalog.ts';
import type { AppImage } from '../src-main/docker/app-image.ts';
import { targetSpecOf } from '../src-main/engine/cell-runner.ts';
import { stepsOf } from '../src-main/mix/routes.ts';
import { instrumentClient, type AcClient, type TimingSink } from '../src-main/load/client-timing.ts';
import { newHistogram, recordUs, summarize, type LatencyHistogram } from '../src-main/load/histogram.ts';
import type { CellConfig } from '../src-main/model/types.ts';
import { collectProbe } from '../src-main/probe/collect.ts';
import type { CellClock } from '../src-main/probe/place.ts';
import type { LocalEngineProvider } from '../src-main/providers/local/provider.ts';
import type { ProvisionedTarget } from '../src-main/providers/provider.ts';
import { currentSession } from '../src-main/session/session.ts';

/** The cell both containers run: json (server-bound on one core here; hello would be client-bound). */
export const CELL = { app: 'json', mode: 'cluster', workers: 2, cpuMillis: 1000, memoryMb: 256 } as const;
/** Connections per container (closed load): enough to keep a shared core busy with both. */
export const CONNECTIONS = 10;
/** Every container of the benchmark carries this run label: removeRun(RUN_LABEL) finds any left. */
export const RUN_LABEL = `bench-probe-${process.pid}`;
const READY_DEADLINE_MS = 30_000;

export interface PairContext {
  provider: LocalEngineProvider;
  app: AppDefinition;
  image: AppImage;
  warmupSec: number;
  measureSec: number;
  signal: AbortSignal;
  /** Targets alive now: the caller removes what is left if this process is interrupted. */
  live: Set<ProvisionedTarget>;
  /** Another file in the probe's place (bench/probe-variant.ts): its reports are not required. */
  variant: boolean;
  /** Environment for both containers (a probe variant's switches). */
  env: Record<string, string>;
  /** Each container's CPU cap: CELL's 1000m unless PROBE_BENCH_CPU sets less. */
  cpuMillis: number;
  /** Load instances running now, stopped on an interrupt. */
  loads: Set<{ stop(): void }>;
  /** The load's cores, where turns keep the containers that wait (null: no core of its own). */
  loadCpus: string | null;
}

/** One side's measured seconds. */
export interface Side {
  probe: boolean;
  /** 2xx responses a second over the measured seconds. */
  goodput: number;
  p99Ms: number;
  errors: number;
  /** Processes the probe heard from during the load (3 with the probe: the primary and 2 workers; 0 without). */
  attached: number;
  cpuset: string;
  /** The container's CPU milliseconds per 2xx response over the measured seconds (null: its cgroup was not readable). */
  cpuMsPerReq: number | null;
  /** The container's CPU seconds per second over the measured seconds: its share of the core. */
  cpuShare: number | null;
  /** 2xx responses in each second since the load began, warm-up included: where in a cell's life the cost falls. */
  perSec: number[];
}

/**
 * A container's CPU time so far (ns), read from its cgroup on this host: exact and instant (the
 * stats API waits a second for its own sample). Null where neither cgroup layout is found.
 */
function cpuNs(id: string): number | null {
  const v1 = [
    `/sys/fs/cgroup/cpuacct/docker/${id}/cpuacct.usage`,
    `/sys/fs/cgroup/cpu,cpuacct/docker/${id}/cpuacct.usage`,
  ];
  for (const f of v1) {
    try {
      return Number(readFileSync(f, 'utf8').trim());
    } catch {
      // the other layout
    }
  }
  try {
    const stat = readFileSync(`/sys/fs/cgroup/system.slice/docker-${id}.scope/cpu.stat`, 'utf8');
    const m = /^usage_usec (\d+)$/m.exec(stat);
    return m ? Number(m[1]) * 1000 : null;
  } catch {
    return null;
  }
}

/** A round: the probe on one side and on neither (the noise floor beside it). */
export interface Round {
  ab: [Side, Side]; // [with, without]
  aa: [Side, Side]; // [in the with's slot, in the without's slot]
}

/** What one container's load counted inside its measured window. */
export interface Counted {
  good: number;
  bad: number;
  p99Us: number;
  /** The window's latencies (µs): turns merge a container's windows losslessly. */
  hist: LatencyHistogram;
  /** The container's CPU ns over the window (null: unreadable). */
  cpuNs: number | null;
  /** 2xx responses in each second since the load began (warm-up included). */
  perSec: number[];
}

function cellConfig(probe: boolean, ctx: PairContext): CellConfig {
  return {
    index: 0,
    repetition: 0,
    ...CELL,
    cpuMillis: ctx.cpuMillis,
    load: { model: 'closed', connections: CONNECTIONS },
    durationSec: ctx.measureSec,
    warmupSec: ctx.warmupSec,
    env: ctx.env,
    ...(probe ? { probe: true as const } : {}),
  };
}

/**
 * One container's closed load from `leadSec` before `window` (performance.now() ms) to its end, timed by
 * the product's own client timing (load/client-timing.ts, µs histograms): only responses inside the
 * window count, so both containers are measured over exactly the same seconds.
 */
export function load(
  t: ProvisionedTarget,
  window: { from: number; to: number },
  leadSec: number,
  ctx: PairContext,
): Promise<Counted> {
  const h = newHistogram();
  let good = 0;
  let bad = 0;
  let stopped = false;
  const inside = (now: number): boolean => now >= window.from && now < window.to;
  const perSec: number[] = [];
  const loadFrom = window.from - leadSec * 1000;
  let cpuFrom: number | null = null;
  const cpuAtFrom = setTimeout(() => (cpuFrom = cpuNs(t.id)), window.from - performance.now());
  const sink: TimingSink = {
    opened: () => {},
    response: (status, _bytes, latencyMs, _serviceMs, now) => {
      const ok = status >= 200 && status < 300;
      if (ok && now >= loadFrom && now < window.to) {
        const k = Math.floor((now - loadFrom) / 1000);
        perSec[k] = (perSec[k] ?? 0) + 1;
      }
      if (!inside(now)) return;
      if (ok) {
        good++;
        recordUs(h, latencyMs * 1000);
      } else bad++;
    },
    failed: (_kind, count, _busyMs, now) => void (inside(now) && (bad += count)),
    sent: () => {},
  };
  return new Promise((resolve, reject) => {
    const inst = autocannon(
      {
        url: `http://${t.address.host}:${t.address.port}`,
        connections: CONNECTIONS,
        pipelining: 1,
        // A safety bound only: the load is stopped at the window's end.
        duration: Math.ceil((window.to - performance.now()) / 1000) + 5,
        timeout: 10,
        requests: ctx.app.requests.flatMap(stepsOf).map((r) => ({ method: r.method, path: r.path })),
        setupClient: (client) => instrumentClient(client as AcClient, sink, { stopped: () => stopped }),
      },
      (err) => {
        clearTimeout(timer);
        clearTimeout(cpuAtFrom);
        ctx.loads.delete(handle);
        if (err) reject(err);
        else if (ctx.signal.aborted) reject(new Error('interrupted'));
        else if (!stopped) reject(new Error('the load ended before its measured seconds did'));
        else resolve({ good, bad, p99Us: summarize(h).p99, hist: h, cpuNs: cpuSpent, perSec });
      },
    );
    let cpuSpent: number | null = null;
    const handle = {
      stop: () => {
        const end = cpuNs(t.id);
        if (!stopped && end !== null && cpuFrom !== null) cpuSpent = end - cpuFrom;
        stopped = true;
        inst.stop();
      },
    };
    ctx.loads.add(handle);
    const timer = setTimeout(handle.stop, window.to - performance.now());
  });
}

/** Both loads at once over the same window; `order` says which is created first (alternated by the caller). */
function loadBoth(ts: ProvisionedTarget[], order: number[], ctx: PairContext): Promise<Counted[]> {
  // A moment for both loads to be made before the warm-up counts down.
  const from = performance.now() + 50 + ctx.warmupSec * 1000;
  const window = { from, to: from + ctx.measureSec * 1000 };
  const out: Promise<Counted>[] = [];
  for (const i of order) out[i] = load(ts[i]!, window, ctx.warmupSec, ctx);
  return Promise.all(out);
}

async function cpusetOf(ctx: PairContext, t: ProvisionedTarget): Promise<string> {
  const info = await ctx.provider.client.getContainer(t.id).inspect();
  return info.HostConfig.CpusetCpus || 'any core';
}

/**
 * Starts one container per entry of `probes` (whether it has the probe) in `order`, on the same cores,
 * waits until each serves, runs `use` on them and removes them in every case. Throws when a container
 * does not start or they are not all on the same cores.
 */
export async function withContainers<T>(
  probes: boolean[],
  order: number[],
  ctx: PairContext,
  use: (ts: ProvisionedTarget[], cpusets: string[]) => Promise<T>,
): Promise<T> {
  const started: Promise<ProvisionedTarget>[] = [];
  for (const i of order) {
    const labels = { run: RUN_LABEL, cell: `${i}`, app: ctx.app.name, session: currentSession() };
    const spec = targetSpecOf(cellConfig(probes[i]!, ctx), { app: ctx.app, image: ctx.image, placement: true }, labels);
    started[i] = ctx.provider.provision(spec).then((t) => (ctx.live.add(t), t));
  }
  const settled = await Promise.allSettled(started);
  const ts = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw new Error(`a container did not start: ${(failed.reason as Error).message}`);
    await Promise.all(
      ts.map((t) => t.waitReady({ workers: CELL.workers, deadlineMs: READY_DEADLINE_MS, signal: ctx.signal })),
    );
    const cpusets = await Promise.all(ts.map((t) => cpusetOf(ctx, t)));
    if (new Set(cpusets).size > 1) throw new Error(`the containers are on different cores: ${cpusets.join(' and ')}`);
    return await use(ts, cpusets);
  } finally {
    await Promise.all(
      ts.map(async (t) => {
        await t.remove().catch(() => {});
        ctx.live.delete(t);
      }),
    );
  }
}

/**
 * One container's side from what its load counted over `measuredSec` seconds (the clock's unless
 * given: turns measure less than their span) and what its probe reported over the clock's window.
 * Throws when the probe did not report from every process (or did where it should not).
 */
export async function sideOf(
  t: ProvisionedTarget,
  probe: boolean,
  r: Counted,
  cpuset: string,
  clock: CellClock,
  ctx: PairContext,
  measuredSec = clock.measuredSec,
): Promise<Side> {
  const heard = await collectProbe(t, { mode: CELL.mode, workers: CELL.workers }, clock, clock.loadFromMs);
  const want = probe ? CELL.workers + 1 : 0;
  // A variant under study may report nothing on purpose (its reports switched off).
  if (heard.attached !== want && !(probe && ctx.variant))
    throw new Error(
      `the probe reported from ${heard.attached} processes of a container ${probe ? 'with' : 'without'} it (expected ${want})`,
    );
  return {
    probe,
    goodput: r.good / measuredSec,
    p99Ms: r.p99Us / 1000,
    errors: r.bad,
    attached: heard.attached,
    cpuset,
    cpuMsPerReq: r.cpuNs !== null && r.good > 0 ? r.cpuNs / 1e6 / r.good : null,
    cpuShare: r.cpuNs !== null ? r.cpuNs / 1e9 / measuredSec : null,
    perSec: r.perSec,
  };
}

/**
 * Runs one pair: `probes[i]` says whether container i has the probe; `flip` starts (and loads)
 * container 1 first. Returns both sides in the order of `probes`; the containers are removed in every case.
 */
export function runPair(probes: [boolean, boolean], flip: boolean, ctx: PairContext): Promise<[Side, Side]> {
  const order = flip ? [1, 0] : [0, 1];
  return withContainers(probes, order, ctx, async (ts, cpusets) => {
    const loadFromMs = Date.now();
    const clock = { loadFromMs, measureFromMs: loadFromMs + 50 + ctx.warmupSec * 1000, measuredSec: ctx.measureSec };
    const results = await loadBoth(ts, order, ctx);
    const sides = await Promise.all(results.map((r, i) => sideOf(ts[i]!, probes[i]!, r, cpusets[i]!, clock, ctx)));
    return [sides[0]!, sides[1]!];
  });
}
