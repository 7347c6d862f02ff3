// The measuring phase of a cell: the provider's load against a ready target (warmup, then the
// measured seconds), the target's cgroup readings beside every second, its processes' memory a few
// times, and this host's CPU where it says something. Ends with the load; never removes the target.
import { readMixData } from '../apps/mix-data.ts';
import { contention, HostCpuRecorder } from '../load/host-cpu.ts';
import type { LoadCallbacks } from '../load/runner.ts';
import type { LoadPlan } from '../load/protocol.ts';
import { isWarm } from '../load/steady-state.ts';
import type {
  CellConfig,
  DependencyReading,
  LoadResult,
  LoadSecond,
  Sample,
  StatsSecond,
  StatsSummary,
} from '../model/types.ts';
import type { DependencyTarget, Provider, ProvisionedTarget, RemoteLoadRequest } from '../providers/provider.ts';
import { PROCESS_READ_EVERY_SEC, ProcessMemoryRecorder } from './process-memory.ts';
import { samplersFor } from './replica-readings.ts';
import { StatsSampler } from './stats-sampler.ts';
import { WarmRaise } from './warm-raise.ts';

/** The target's side stopped answering: the cell fails with these words, and its teardown does not wait long. */
export class TargetUnreachable extends Error {}

/** Once a load elsewhere is stopped, how long it has to give its result (the agent's grace and its removal). */
const STOPPED_LOAD_GRACE_MS = 12_000;

export interface LoadPhaseInput {
  cfg: CellConfig;
  provider: Provider;
  target: ProvisionedTarget;
  /** The app's request set, where the cell does not name its own. */
  requests: LoadPlan['requests'];
  /** Where the mix's CSV files are named from (the app's folder; '' for an image app). */
  appDir?: string;
  timeoutSec: number;
  /** The host's per-second noise this run (LoadPlan.warmNoise). */
  warmNoise?: number;
  labels: RemoteLoadRequest['labels'];
  signal?: AbortSignal;
  onSample?: (s: Sample) => void;
  /** One per warm-up second, for live views only (not a result). */
  onWarmupSample?: (s: Sample) => void;
  onWarning?: (message: string) => void;
  onMeasuring?: () => void;
}

export interface LoadPhaseOutcome {
  load: LoadResult;
  stats?: StatsSummary;
  loadNode?: string;
  /** A replicated target: each replica's readings over the measured seconds (its cap, its own CPU). */
  replicaStats?: (StatsSummary | undefined)[];
  /** Its dependencies' readings, in the order declared (absent: none). */
  dependencies?: DependencyReading[];
  /** Set when the load's far side went silent: the cell fails with it. */
  unreachable?: string;
  /** When the load and its measurement began (this machine's clock): where the probe's reports are placed. */
  clock: { loadFromMs: number; measureFromMs: number; measuredSec: number };
}

export function toSample(s: LoadSecond, stats: StatsSampler | undefined): Sample {
  const latest = stats?.latest();
  const { requests, ...rest } = s;
  return {
    ...rest,
    rps: requests,
    cpuPct: latest ? latest.cpuPct : null,
    memBytes: latest ? latest.memBytes : null,
    throttledPeriods: latest ? latest.throttledPeriods : null,
  };
}

/** The container's readings of a sample (as paired when its second came). */
const pick3 = (s: Sample): Pick<Sample, 'cpuPct' | 'memBytes' | 'throttledPeriods'> => ({
  cpuPct: s.cpuPct,
  memBytes: s.memBytes,
  throttledPeriods: s.throttledPeriods,
});

/** `p`, or a rejection once `signal` has been aborted for `graceMs` (a request to a vanished engine never settles). */
function untilStopped<T>(p: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let giveUp: (e: Error) => void = () => {};
  const gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
  const onAbort = (): void =>
    void (timer = setTimeout(
      () => giveUp(new Error(`the load did not end within ${graceMs / 1000} s of being stopped`)),
      graceMs,
    ));
  p.catch(() => {}); // given up on: its late rejection is no one's concern
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return Promise.race([p, gaveUp]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  });
}

/** Silence from a load elsewhere longer than the provider allows stops it, with the reason. */
function silenceWatch(p: LoadPhaseInput, stop: AbortController): { heard(): void; said?: string; end(): void } {
  const silence = p.provider.loadSilence;
  const startedAt = Date.now();
  let lastAt = 0;
  const watch: { heard(): void; said?: string; end(): void } = {
    heard: () => void (lastAt = Date.now()),
    end: () => clearInterval(timer),
  };
  const timer = silence
    ? setInterval(() => {
        const silentSec = (Date.now() - (lastAt || startedAt)) / 1000;
        if (silentSec <= (lastAt ? silence.betweenSec : silence.startSec)) return;
        const node = p.target.node ? ` (node ${p.target.node})` : '';
        const silent = `for ${Math.round(silentSec)} s`;
        watch.said ??= `unreachable: no second of load came from ${p.provider.name}${node} ${silent}`;
        stop.abort();
      }, 1000)
    : undefined;
  return watch;
}

/**
 * Warmup and measurement. A target that dies mid-load (PID 1 OOM-killed, a crash) stops the load
 * at once; so does the run's cancel. The caller reads how the target ended.
 */
export async function measureLoad(p: LoadPhaseInput): Promise<LoadPhaseOutcome> {
  const { cfg, target } = p;
  // A replicated target: the cell's totals (CPU against its whole cap) and each replica's own readings.
  const samplers = samplersFor(target, cfg.cpuMillis);
  const stats = samplers.total;
  // Each dependency's own cgroup, against its own cap: its CPU is never the host's other work.
  const deps = (target.dependencies ?? []).map((d) => ({
    d,
    sampler: new StatsSampler(d, d.cpuMillis),
    measured: [] as NonNullable<DependencyReading['measured']>,
  }));
  try {
    await Promise.all([stats.start(), ...deps.map((x) => x.sampler.start())]);
    // Each process's resident memory: once now, as measurement begins, every few measured seconds, at the end.
    const procMem = new ProcessMemoryRecorder(target);
    void procMem.read();
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    p.signal?.addEventListener('abort', onAbort, { once: true });
    void target.exited.then(() => stop.abort());
    // Host contention: a reading at the start and at every second the load reports; the one just
    // before the first measured second is where measurement began.
    const hostCpu = p.provider.hostCpu;
    if (!hostCpu.ok) p.onWarning?.(`${hostCpu.why}: no cell can be flagged host-busy`); // the run says it once
    const host = hostCpu.ok ? new HostCpuRecorder(target.cores) : undefined;
    host?.mark();
    let hostFrom = -1;
    // A cap raised for the warm-up comes back once it is over; when it did (or why not) is checked before any is kept.
    const { warmup, raised } = await WarmRaise.start(cfg, target);
    let loadFromMs = Date.now();
    // The noise is only a judge's: a warm-up that cannot extend (none asked for) judges nothing by it.
    const judgedNoise = warmup.capSec > warmup.minSec ? p.warmNoise : undefined;
    let measureFrom = Date.now() + warmup.minSec * 1000;
    const warmupRps: number[] = [];
    // Each warm-up second as it was paired when it came (its start, host reading, stats and dependencies): the
    // steady ones become measured seconds once warm-up is judged over (LoadSecond.wasWarmup).
    const warm: { fromMs: number; hostFrom: number; sample: Sample; deps: (ReturnType<typeof pick> | null)[] }[] = [];
    let measuring = false;
    const watch = silenceWatch(p, stop);
    const callbacks: LoadCallbacks = {
      signal: stop.signal,
      isWarm,
      ...(raised ? { warmFrom: raised.warmFrom } : {}),
      onSecond: (s, warmup) => {
        if (warmup) {
          watch.heard();
          const sample: Sample = { ...toSample(s, stats), t: warmupRps.length, warmup: true };
          warm.push({
            fromMs: Date.now() - 1000,
            hostFrom: host ? host.snapshots.length - 1 : -1,
            sample,
            deps: deps.map((x) => pick(x.sampler.latest())),
          });
          warmupRps.push(s.requests);
          raised?.heard(() => stats.cpuSecBetween(loadFromMs, Date.now()) ?? 0);
          p.onWarmupSample?.(sample);
          host?.mark();
          return;
        }
        const was = s.wasWarmup !== undefined ? warm[s.wasWarmup] : undefined;
        if (!measuring) {
          measuring = true;
          measureFrom = was ? was.fromMs : Date.now() - 1000;
          hostFrom = was ? was.hostFrom : host ? host.snapshots.length - 1 : -1;
          if (was) warmupRps.splice(s.wasWarmup!);
          p.onMeasuring?.();
          void procMem.read();
        } else if (s.t > 0 && s.t % PROCESS_READ_EVERY_SEC === 0) void procMem.read();
        if (was) {
          // Already heard, marked and paired when it came as a warm-up second.
          for (const [i, x] of deps.entries()) x.measured.push(was.deps[i] ?? null);
          p.onSample?.({ ...toSample(s, stats), ...pick3(was.sample) });
          return;
        }
        watch.heard();
        host?.mark();
        for (const x of deps) x.measured.push(pick(x.sampler.latest()));
        p.onSample?.(toSample(s, stats));
      },
    };
    const requests = cfg.requests?.requests ?? p.requests;
    const data = readMixData(requests, p.appDir ?? '');
    if ('problems' in data) throw new Error(`the requests' CSV files: ${data.problems.join('; ')}`);
    const plan: LoadPlan = {
      host: target.address.host,
      port: target.address.port,
      requests,
      ...(Object.keys(data.csv).length ? { csv: data.csv } : {}),
      load: cfg.load,
      durationSec: cfg.durationSec,
      warmupSec: warmup.minSec,
      maxWarmupSec: warmup.capSec,
      ...(judgedNoise !== undefined ? { warmNoise: judgedNoise } : {}),
      timeoutSec: p.timeoutSec,
      // Replicas: connection c goes to replica c mod R, and each replica's responses are counted.
      ...(target.addresses && target.addresses.length >= 2 ? { targets: [...target.addresses] } : {}),
    };
    let out: Awaited<ReturnType<Provider['runLoad']>>;
    loadFromMs = Date.now();
    try {
      const request = { labels: p.labels, ...(target.node ? { targetNode: target.node } : {}) };
      out = await untilStopped(
        p.provider.runLoad(target, plan, callbacks, request),
        stop.signal,
        STOPPED_LOAD_GRACE_MS,
      );
    } catch (e) {
      throw watch.said ? new TargetUnreachable(watch.said) : e; // the silence is the reason, not what it broke
    } finally {
      watch.end();
      p.signal?.removeEventListener('abort', onAbort);
    }
    // The processes as the load left them (bounded: local files, or Docker's top within seconds).
    await procMem.read();
    stats.stop();
    for (const x of deps) x.sampler.stop();
    if (raised && out.result.measuredSec > 0) await raised.backBefore(measureFrom);
    // The runner keeps only the measured seconds; the noise the warm-up judged by is kept with them.
    const load = {
      ...out.result,
      warmupPerSecondRps: warmupRps,
      ...(judgedNoise !== undefined ? { warmupNoise: judgedNoise } : {}),
      ...(raised ? { warmupRaise: raised.record() } : {}),
    };
    const measureTo = measureFrom + load.measuredSec * 1000;
    let summary = stats.summary(measureFrom, measureTo);
    if (summary) summary = { ...summary, ...procMem.summary() };
    const hostUse =
      host && stats.usage.length >= 2
        ? contention(host.snapshots, hostFrom, host.cores, (a, b) => knownCpuSec(stats, deps, a, b))
        : undefined;
    if (summary && hostUse) summary = { ...summary, host: hostUse };
    const replicaStats = samplers.parts?.map((part) => part.summary(measureFrom, measureTo));
    return {
      load,
      ...(replicaStats ? { replicaStats } : {}),
      clock: { loadFromMs, measureFromMs: measureFrom, measuredSec: load.measuredSec },
      ...(summary ? { stats: summary } : {}),
      ...(out.node ? { loadNode: out.node } : {}),
      ...(deps.length ? { dependencies: deps.map((x) => dependencyReading(x, measureFrom, measureTo)) } : {}),
      ...(watch.said ? { unreachable: watch.said } : {}),
    };
  } finally {
    stats.stop();
    for (const x of deps) x.sampler.stop();
  }
}

type DependencySampler = {
  d: DependencyTarget;
  sampler: StatsSampler;
  measured: NonNullable<DependencyReading['measured']>;
};

/** A dependency's reading beside one measured second of the cell (the CSV's columns). */
const pick = (s: StatsSecond | undefined): { cpuPct: number; memBytes: number } | null =>
  s ? { cpuPct: s.cpuPct, memBytes: s.memBytes } : null;

/** CPU seconds of the target and of the dependencies on its watched cores: none of it is someone else's. */
function knownCpuSec(stats: StatsSampler, deps: readonly DependencySampler[], a: number, b: number): number {
  const shared = deps.filter((x) => x.d.sharesCores);
  return shared.reduce((sum, x) => sum + (x.sampler.cpuSecBetween(a, b) ?? 0), stats.cpuSecBetween(a, b) ?? 0);
}

function dependencyReading(
  { d, sampler, measured }: DependencySampler,
  measureFrom: number,
  measureTo: number,
): DependencyReading {
  const summary = sampler.summary(measureFrom, measureTo);
  return {
    name: d.name,
    image: d.image,
    cpuMillis: d.cpuMillis,
    memoryMb: d.memoryMb,
    ...(d.maxConnections !== undefined ? { maxConnections: d.maxConnections } : {}),
    ...(summary ? { stats: summary } : {}),
    seconds: sampler.seconds.map(({ t, cpuPct, memBytes, throttledMs }) => ({ t, cpuPct, memBytes, throttledMs })),
    measured,
  };
}
