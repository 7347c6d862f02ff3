// What each configuration's processes did while it was measured, summed up from the runtime probe
// (model/probe.ts) and the container's seconds: per worker, event-loop utilization (ELU), event-loop
// delay, GC share and memory; between workers, how even the work was; for the container, CPU,
// throttling and context switches. The cause lines (causes-words.ts) are computed from these numbers
// only: where the probe recorded nothing, every function here returns null, never a guess.
import { gcShareOf } from '../../common/probe-gc.ts';
import { servingOf } from '../../common/probe-series.ts';
import { LATENCY_GROWTH_MIN_SECONDS, SATURATED_ELU, THROTTLED_PERIOD_SHARE } from '../../common/thresholds.ts';
import type { ProbeSecond, ProcessRole } from '../../model/probe.ts';
import type { CellConfig, Flag, LaunchMode, LoadResult, Sample, StatsSummary } from '../../model/types.ts';
import { configurationKey } from '../decide/group.ts';
import { mean } from '../decide/stats.ts';

/** One measured cell as the causes read it: its config, seconds and probe records, and what the cell said. */
export interface CauseCell {
  config: CellConfig;
  /** The container and load seconds (warm-up seconds, if any, are left out here). */
  samples: readonly Sample[];
  /** Every process's probe seconds (warm-up seconds, if any, are left out here). */
  probe: readonly ProbeSecond[];
  /** CFS periods and throttled periods over the measured seconds, where the provider counted them. */
  stats?: Pick<StatsSummary, 'throttledPeriods' | 'cpuPeriods'> | null;
  load?: Pick<LoadResult, 'clientElu' | 'clientBound'> | null;
  flags?: readonly Flag[];
}

/** One serving process of a configuration; with repetitions, the processes of the same rank (busiest first). */
export interface WorkerRuntime {
  /** Its pid in each repetition that had a process of this rank. */
  pids: number[];
  role: ProcessRole;
  /** Probe seconds it reported. */
  seconds: number;
  /** Mean event-loop utilization, 0–1. */
  elu: number;
  /** Mean of its per-second event-loop delay p99, ms. */
  delayP99Ms: number;
  /** Share of its time in GC pauses: Σ gcMs ÷ Σ the time the probe listened for them (common/probe-gc.ts). */
  gcShare: number;
  heapUsedPeakBytes: number;
  /** V8's heap limit (--max-old-space-size or its default). */
  heapLimitBytes: number;
  rssPeakBytes: number;
}

/** How unevenly the work fell on the workers (two or more): the busiest and the least busy event loop. */
export interface Imbalance {
  busiestElu: number;
  leastElu: number;
  /** The busiest loop's share of all the workers' busy time: 1 ÷ workers when even. */
  busiestShare: number;
}

/** A configuration's runtime over its repetitions with probe seconds. */
export interface RuntimeSummary {
  key: string;
  app: string;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  /** UV_THREADPOOL_SIZE as the cells set it; null: libuv's default. */
  threadpool: number | null;
  /** Repetitions with probe seconds. */
  cells: number;
  /** The serving processes (cluster / PM2 workers, the single process), busiest first. */
  perWorker: WorkerRuntime[];
  /** Means over the serving processes. */
  elu: number;
  delayP99Ms: number;
  gcShare: number;
  imbalance: Imbalance | null;
  /** Mean container CPU, % of the cap (100 = the whole cap); null where not measured. */
  cpuPct: number | null;
  /**
   * The serving loops' busy time (Σ ELU) ÷ the CPU the container used, both per second; null where CPU
   * was not measured. ELU is wall-clock time, so a loop preempted mid-callback counts its wait as busy:
   * about 1 when the loops had the CPU whenever they were busy, 2 when they spent half of it waiting
   * their turn (BENCHMARKS.md, Runtime probe: the presets' cause lines).
   */
  busyPerCpu: number | null;
  /** Throttled periods ÷ CFS periods; null where the periods were not counted. */
  throttledShare: number | null;
  /** Throttled: by that share where known, else by the cells' own 'throttled' flag. */
  throttled: boolean;
  /** Context switches of all the server's processes per second; null where /proc did not give them. */
  ctxPerSec: number | null;
  involuntaryPerSec: number | null;
  /** Involuntary ÷ all context switches. */
  involuntaryShare: number | null;
  /** Mean per-second request p99, µs; and its first and last thirds of the measured seconds (null: too few). */
  p99Us: number | null;
  p99Growth: { fromUs: number; toUs: number } | null;
  /** A repetition was flagged client-bound; the busiest load thread's ELU (null where not recorded). */
  clientBound: boolean;
  clientElu: number | null;
}

const measured = <T extends { warmup?: true }>(xs: readonly T[]): T[] => xs.filter((x) => !x.warmup);
const maxOf = (xs: number[]): number => xs.reduce((a, b) => Math.max(a, b), 0);
const nonNull = <T>(xs: (T | null | undefined)[]): T[] => xs.filter((x): x is T => x !== null && x !== undefined);

function processRuntime(pid: number, secs: ProbeSecond[]): WorkerRuntime {
  return {
    pids: [pid],
    role: secs[0]!.role,
    seconds: secs.length,
    elu: mean(secs.map((s) => s.elu)),
    delayP99Ms: mean(secs.map((s) => s.delayP99Ms)),
    gcShare: gcShareOf(secs) ?? 0,
    heapUsedPeakBytes: maxOf(secs.map((s) => s.heapUsedBytes)),
    heapLimitBytes: maxOf(secs.map((s) => s.heapLimitBytes)),
    rssPeakBytes: maxOf(secs.map((s) => s.rssBytes)),
  };
}

/** Each process of a cell, from its measured probe seconds. */
function processesOf(probe: readonly ProbeSecond[]): WorkerRuntime[] {
  const byPid = new Map<number, ProbeSecond[]>();
  for (const s of measured(probe)) byPid.set(s.pid, [...(byPid.get(s.pid) ?? []), s]);
  return [...byPid].map(([pid, secs]) => processRuntime(pid, secs));
}

/**
 * The processes that serve requests, busiest first: workers and a single process. An image's command
 * may be its only server (reported as primary or other), so there, without either, every process but
 * PM2's daemon. A cluster's primary alone is never taken for its workers: no workers reported, none.
 */
const serving = (ps: WorkerRuntime[], mode: LaunchMode): WorkerRuntime[] =>
  servingOf(ps, mode).sort((a, b) => b.elu - a.elu);

/** Rank i over the repetitions: the i-th busiest worker of each, averaged (memory: the highest). */
function mergeRank(ws: WorkerRuntime[]): WorkerRuntime {
  return {
    pids: ws.flatMap((w) => w.pids),
    role: ws[0]!.role,
    seconds: ws.reduce((a, w) => a + w.seconds, 0),
    elu: mean(ws.map((w) => w.elu)),
    delayP99Ms: mean(ws.map((w) => w.delayP99Ms)),
    gcShare: mean(ws.map((w) => w.gcShare)),
    heapUsedPeakBytes: maxOf(ws.map((w) => w.heapUsedPeakBytes)),
    heapLimitBytes: maxOf(ws.map((w) => w.heapLimitBytes)),
    rssPeakBytes: maxOf(ws.map((w) => w.rssPeakBytes)),
  };
}

/** Per second, the switches summed over the processes that reported them; then the mean over those seconds. */
function contextSwitches(probe: readonly ProbeSecond[]): { all: number; involuntary: number } | null {
  const bySecond = new Map<number, { all: number; involuntary: number }>();
  for (const s of measured(probe)) {
    if (s.voluntaryCtxSwitches === null || s.involuntaryCtxSwitches === null) continue;
    const at = bySecond.get(s.t) ?? { all: 0, involuntary: 0 };
    at.all += s.voluntaryCtxSwitches + s.involuntaryCtxSwitches;
    at.involuntary += s.involuntaryCtxSwitches;
    bySecond.set(s.t, at);
  }
  const secs = [...bySecond.values()];
  if (!secs.length) return null;
  return { all: mean(secs.map((s) => s.all)), involuntary: mean(secs.map((s) => s.involuntary)) };
}

/** The mean p99 of the first and the last third of the measured seconds, in order. */
function p99Thirds(samples: Sample[]): { fromUs: number; toUs: number } | null {
  if (samples.length < LATENCY_GROWTH_MIN_SECONDS) return null;
  const sorted = [...samples].sort((a, b) => a.t - b.t);
  const third = Math.floor(sorted.length / 3);
  return {
    fromUs: mean(sorted.slice(0, third).map((s) => s.p99Us)),
    toUs: mean(sorted.slice(-third).map((s) => s.p99Us)),
  };
}

function imbalanceOf(ws: WorkerRuntime[]): Imbalance | null {
  if (ws.length < 2) return null;
  const total = ws.reduce((a, w) => a + w.elu, 0);
  if (total <= 0) return null;
  return { busiestElu: ws[0]!.elu, leastElu: ws[ws.length - 1]!.elu, busiestShare: ws[0]!.elu / total };
}

/**
 * One configuration's runtime from its cells (repetitions; verify cells are never mixed in by the
 * caller). Cells without probe seconds are left out; none with any: null.
 */
export function runtimeSummary(cells: readonly CauseCell[]): RuntimeSummary | null {
  const probed = cells.filter((c) => serving(processesOf(c.probe), c.config.mode).length > 0);
  if (!probed.length) return null;
  const c0 = probed[0]!.config;
  const ranked = probed.map((c) => serving(processesOf(c.probe), c.config.mode));
  const ranks = Math.max(...ranked.map((r) => r.length));
  const perWorker = Array.from({ length: ranks }, (_, i) => mergeRank(nonNull(ranked.map((r) => r[i]))));
  const samples = probed.flatMap((c) => measured(c.samples));
  const cpu = nonNull(samples.map((s) => s.cpuPct));
  const cpuPct = cpu.length ? mean(cpu) : null;
  const periods = probed.filter((c) => c.stats?.cpuPeriods);
  const ctx = nonNull(probed.map((c) => contextSwitches(c.probe)));
  const thirds = nonNull(probed.map((c) => p99Thirds(measured(c.samples))));
  const throttledShare = periods.length
    ? periods.reduce((a, c) => a + c.stats!.throttledPeriods, 0) / periods.reduce((a, c) => a + c.stats!.cpuPeriods!, 0)
    : null;
  const pool = Number(c0.env.UV_THREADPOOL_SIZE);
  const clientElu = nonNull(probed.map((c) => c.load?.clientElu));
  return {
    key: configurationKey(c0),
    app: c0.app,
    mode: c0.mode,
    workers: c0.workers,
    cpuMillis: c0.cpuMillis,
    memoryMb: c0.memoryMb,
    threadpool: Number.isInteger(pool) && pool > 0 ? pool : null,
    cells: probed.length,
    perWorker,
    elu: mean(perWorker.map((w) => w.elu)),
    delayP99Ms: mean(perWorker.map((w) => w.delayP99Ms)),
    gcShare: mean(perWorker.map((w) => w.gcShare)),
    imbalance: imbalanceOf(perWorker),
    cpuPct,
    busyPerCpu: busyPerCpu(perWorker, cpuPct, c0.cpuMillis),
    throttledShare,
    throttled:
      throttledShare !== null
        ? throttledShare >= THROTTLED_PERIOD_SHARE
        : probed.some((c) => c.flags?.some((f) => f.kind === 'throttled')),
    ctxPerSec: ctx.length ? mean(ctx.map((x) => x.all)) : null,
    involuntaryPerSec: ctx.length ? mean(ctx.map((x) => x.involuntary)) : null,
    involuntaryShare: ctx.length && ctx.some((x) => x.all > 0) ? sumOf(ctx, 'involuntary') / sumOf(ctx, 'all') : null,
    p99Us: samples.length ? mean(samples.map((s) => s.p99Us)) : null,
    p99Growth: thirds.length
      ? { fromUs: mean(thirds.map((x) => x.fromUs)), toUs: mean(thirds.map((x) => x.toUs)) }
      : null,
    clientBound: probed.some((c) => c.load?.clientBound || c.flags?.some((f) => f.kind === 'client-bound')),
    clientElu: clientElu.length ? maxOf(clientElu) : null,
  };
}

/** Σ ELU of the serving loops ÷ the CPUs the container used (cpuPct of a cap of cpuMillis). */
function busyPerCpu(perWorker: WorkerRuntime[], cpuPct: number | null, cpuMillis: number): number | null {
  const used = cpuPct === null ? 0 : (cpuPct / 100) * (cpuMillis / 1000);
  return used > 0 ? perWorker.reduce((a, w) => a + w.elu, 0) / used : null;
}

const sumOf = <K extends string>(xs: Record<K, number>[], k: K): number => xs.reduce((a, x) => a + x[k], 0);

/** Every configuration of the cells with probe seconds, by configuration key (verify cells left out). */
export function runtimeSummaries(cells: readonly CauseCell[]): Map<string, RuntimeSummary> {
  const groups = new Map<string, CauseCell[]>();
  for (const c of cells) {
    if (c.config.phase === 'verify') continue;
    const k = configurationKey(c.config);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  const out = new Map<string, RuntimeSummary>();
  for (const [k, cs] of groups) {
    const s = runtimeSummary(cs);
    if (s) out.set(k, s);
  }
  return out;
}

/** Why the server was at its ceiling: busy event loops (mean over workers), a throttled container, both or neither. */
export function saturation(s: RuntimeSummary): { saturated: boolean; busyLoops: boolean; throttled: boolean } {
  const busyLoops = s.elu >= SATURATED_ELU;
  return { saturated: busyLoops || s.throttled, busyLoops, throttled: s.throttled };
}

/**
 * The server side of the client-bound rule: a load thread at its ceiling while every event loop has
 * headroom (and the container is not throttled) is client-bound — true; both at their ceiling is
 * not — false; no probe seconds — null.
 */
export function serverAgreesClientBound(s: RuntimeSummary | null): boolean | null {
  if (!s) return null;
  const everyLoopFree = s.perWorker.every((w) => w.elu < SATURATED_ELU);
  return everyLoopFree && !s.throttled;
}

/** One process's measured memory against the limits a deployment sets for it. */
export interface ProcessMemory {
  cellIndex: number;
  pid: number;
  role: ProcessRole;
  heapUsedPeakBytes: number;
  heapLimitBytes: number;
  /** Heap used at its peak ÷ the heap limit. */
  heapShare: number;
  rssPeakBytes: number;
  /** RSS at its peak ÷ the cell's max_memory_restart (recycleRssMb); null where none was set. */
  rssShareOfRestart: number | null;
}

/** The processes' measured heap and RSS, for the memory recommendation. */
export interface ProbeMemory {
  processes: ProcessMemory[];
  /** The highest over the serving processes of every cell. */
  heapUsedPeakBytes: number;
  heapShareMax: number;
  rssPeakBytes: number;
  /** max_memory_restart as the cells set it, bytes; null: none. */
  recycleRssBytes: number | null;
  rssShareOfRestartMax: number | null;
}

const MIB = 1024 * 1024;

/**
 * The heap each process used against its limit (what --max-old-space-size sets) and its RSS against a
 * PM2 max_memory_restart, from the probe's measured seconds. No probe seconds in any cell: null.
 */
export function memoryFromProbe(cells: readonly CauseCell[]): ProbeMemory | null {
  const processes = cells.flatMap((c) =>
    processesOf(c.probe).map((p): ProcessMemory => {
      const restart = c.config.recycleRssMb ? c.config.recycleRssMb * MIB : null;
      return {
        cellIndex: c.config.index,
        pid: p.pids[0]!,
        role: p.role,
        heapUsedPeakBytes: p.heapUsedPeakBytes,
        heapLimitBytes: p.heapLimitBytes,
        heapShare: p.heapLimitBytes > 0 ? p.heapUsedPeakBytes / p.heapLimitBytes : 0,
        rssPeakBytes: p.rssPeakBytes,
        rssShareOfRestart: restart ? p.rssPeakBytes / restart : null,
      };
    }),
  );
  if (!processes.length) return null;
  // PM2's daemon and a cluster primary hold no requests: the serving processes set what a worker needs.
  const servers = processes.filter((p) => p.role === 'worker' || p.role === 'single');
  const basis = servers.length ? servers : processes;
  const restarts = nonNull(cells.map((c) => c.config.recycleRssMb));
  const shares = nonNull(basis.map((p) => p.rssShareOfRestart));
  return {
    processes,
    heapUsedPeakBytes: maxOf(basis.map((p) => p.heapUsedPeakBytes)),
    heapShareMax: maxOf(basis.map((p) => p.heapShare)),
    rssPeakBytes: maxOf(basis.map((p) => p.rssPeakBytes)),
    recycleRssBytes: restarts.length ? Math.min(...restarts) * MIB : null,
    rssShareOfRestartMax: shares.length ? maxOf(shares) : null,
  };
}
