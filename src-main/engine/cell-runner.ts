import type { AppDefinition } from '../apps/catalog.ts';
import { withTimeout, type EngineInfo } from '../docker/client.ts';
import type { AppImage } from '../docker/app-image.ts';
import { servingProcesses, WORKERS_LISTENING } from '../docker/launch.ts';
import { planPlacement } from '../docker/placement.ts';
import { waitReady } from '../docker/readiness.ts';
import { localProvider } from '../providers/local.ts';
import type { Provider, ProvisionedTarget, TargetSpec } from '../providers/provider.ts';
import { currentSession } from '../session/session.ts';
import { StatsSampler } from './stats-sampler.ts';
import { PROCESS_READ_EVERY_SEC, ProcessMemoryRecorder } from './process-memory.ts';
import { runLoad, type LoadCallbacks } from '../load/runner.ts';
import type { LoadPlan } from '../load/protocol.ts';
import { cellFlags } from './flags.ts';
import { parseCpuList } from '../common/cpu-list.ts';
import { contention, HostCpuRecorder, hostCpuSupported } from './host-cpu.ts';
import { isWarm, warmupCapSec } from '../load/steady-state.ts';
import type { CellConfig, CellResult, ExitInfo, LoadResult, LoadSecond, Sample, StatsSummary } from '../model/types.ts';

export interface CellContext {
  app: AppDefinition;
  image: AppImage;
  engine: EngineInfo;
  hostCores: number;
  placement: boolean;
  timeoutSec: number;
  runId?: number;
  cellId?: number;
  /** Where the target runs (default: this machine's engine). */
  provider?: Provider;
  /** The node (or the node to avoid) the pool's slot gave this cell, where the provider places by node. */
  placementHint?: TargetSpec['placement'];
  signal?: AbortSignal;
  /** One per measured second: load and the container's latest stats together. */
  onSample?: (s: Sample) => void;
  onWarning?: (message: string) => void;
  /** Phase changes, for progress displays. */
  onPhase?: (phase: 'starting' | 'ready' | 'warmup' | 'measuring' | 'teardown') => void;
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

/** The cores whose contention matters: the target's and the load's when pinned, otherwise all of them. */
function watchedCores(place: { targetCpus?: string; loadCpus?: string }): number[] | undefined {
  if (!place.targetCpus) return undefined;
  return [...new Set([...parseCpuList(place.targetCpus), ...(place.loadCpus ? parseCpuList(place.loadCpus) : [])])];
}

/**
 * A load run elsewhere (a load agent) streams a second about every second; silence longer than this
 * means the target's side stopped answering (a link cut, a node gone). Before the first second the
 * agent may still be starting (a pod scheduled, an image pulled), so that wait is longer.
 */
export const LOAD_SILENCE_SEC = 10;
export const LOAD_START_SILENCE_SEC = 60;
/** Teardown is bounded: a target whose engine no longer answers is left to removeRun and the sweep. */
const TEARDOWN_TIMEOUT_MS = 20_000;
export const UNREACHABLE_TEARDOWN_TIMEOUT_MS = 5_000;

/**
 * Once a load elsewhere is stopped, how long it has to give its result (the agent's grace and its removal) before the
 * cell stops waiting.
 */
const STOPPED_LOAD_GRACE_MS = 12_000;

/** `p`, or a rejection once `signal` has been aborted for `graceMs` (a request to a vanished engine never settles). */
function untilStopped<T>(p: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const onAbort = (): void =>
    void (timer = setTimeout(
      () => giveUp(new Error(`the load did not end within ${graceMs / 1000} s of being stopped`)),
      graceMs,
    ));
  let giveUp: (e: Error) => void = () => {};
  const gaveUp = new Promise<never>((_, reject) => (giveUp = reject));
  p.catch(() => {}); // given up on: its late rejection is no one's concern
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  return Promise.race([p, gaveUp]).finally(() => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  });
}

/** A connection error (not the app's own failure), in words that say so. */
export function unreachableReason(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException | undefined;
  const codes = [
    'ECONNREFUSED',
    'ECONNRESET',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'ETIMEDOUT',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
  ];
  const msg = err?.message ?? String(e);
  if ((err?.code && codes.includes(err.code)) || /socket hang up|lost the load agent|connect E[A-Z]+/.test(msg))
    return `unreachable: ${msg}`;
  return undefined;
}

/**
 * One cell, start to finish: container under its caps → ready → warmup + measurement → teardown.
 * Never throws for a cell-level problem (not ready, crash, OOM): that becomes the cell's status,
 * and the matrix goes on. The container is removed in every case, cancel included.
 */
export async function runCell(cfg: CellConfig, ctx: CellContext): Promise<CellResult> {
  const result = await measureCell(cfg, ctx);
  return { ...result, finishedAt: new Date().toISOString() }; // after teardown, so a cell's wall time is all of it
}

async function measureCell(cfg: CellConfig, ctx: CellContext): Promise<Omit<CellResult, 'finishedAt'>> {
  const startedAt = new Date().toISOString();
  const provider: Provider = ctx.provider ?? localProvider(ctx.engine);
  const local = provider.kind === 'local';
  // Cores are pinned only on this machine, where the load shares them with the target.
  const place = planPlacement(cfg.cpuMillis, ctx.hostCores, ctx.placement && local);
  if (place.warning) ctx.onWarning?.(place.warning);
  let container: ProvisionedTarget | undefined;
  let stats: StatsSampler | undefined;
  let load: LoadResult | undefined;
  let statsSummary: StatsSummary | undefined;
  let exit: ExitInfo | undefined;
  let failure: string | undefined;
  let died: number | undefined;
  /** Set when the target's side stopped answering: the cell fails with it and teardown does not wait long. */
  let unreachable: string | undefined;
  let loadNode: string | undefined;
  const finish = (status: CellResult['status']): Omit<CellResult, 'finishedAt'> => ({
    config: cfg,
    status,
    ...(failure ? { failure } : {}),
    ...(load ? { load } : {}),
    ...(statsSummary ? { stats: statsSummary } : {}),
    ...(exit ? { exit } : {}),
    flags: cellFlags(load, statsSummary, exit, cfg.memoryMb),
    imageTag: ctx.image.tag,
    ranOn: {
      target: provider.name,
      kind: provider.kind,
      ...(container?.node ? { node: container.node } : {}),
      ...(loadNode ? { loadNode } : {}),
    },
    startedAt,
  });

  const labels = {
    run: String(ctx.runId ?? ''),
    cell: String(ctx.cellId ?? ''),
    app: cfg.app,
    session: currentSession(),
  };
  try {
    ctx.onPhase?.('starting');
    container = await provider.provision({
      image: ctx.image.tag,
      launch: {
        mode: cfg.mode,
        workers: cfg.workers,
        entry: ctx.image.entry,
        name: cfg.app,
        ...(ctx.app.source.kind === 'folder' ? { args: ctx.app.source.args } : {}),
        ...(ctx.app.source.kind === 'image' ? { workersEnv: ctx.app.source.workersEnv } : {}),
        ...(cfg.recycleRssMb ? { recycleRssMb: cfg.recycleRssMb } : {}),
      },
      port: ctx.app.port,
      health: ctx.app.health,
      env: { ...ctx.app.env, ...cfg.env },
      cpuMillis: cfg.cpuMillis,
      memoryMb: cfg.memoryMb,
      ...(place.targetCpus ? { cpuset: place.targetCpus } : {}),
      ...(ctx.placementHint ? { placement: ctx.placementHint } : {}),
      labels,
    });
    const target = container;
    void container.exited.then((code) => {
      died = code;
      // -1: the wait on the target failed, i.e. its engine stopped answering (not an exit code); on
      // Kubernetes (whose API calls are retried) it means the pod went away: evicted, deleted, removed.
      if (code === -1 && !local) {
        unreachable ??=
          provider.kind === 'kubernetes'
            ? `the target's pod went away while it ran (evicted, deleted or its node lost) on ${provider.name}`
            : `unreachable: lost the connection to ${provider.name} while the target ran`;
      }
    });
    const deadlineMs = 30_000 + 1000 * cfg.workers;
    try {
      // A target this machine cannot reach says itself when it is ready; otherwise poll its health path from here.
      if (container.waitReady)
        await container.waitReady({ workers: cfg.workers, deadlineMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      else {
        await waitReady(
          { ...container.address, via: 'published' },
          {
            path: ctx.app.health,
            processes: servingProcesses(cfg.mode, cfg.workers),
            // Apps without our pid header: the cluster launcher says when all N workers listen.
            ...(cfg.mode === 'cluster'
              ? {
                  allListening: async () =>
                    (await target.logTail(200)).split('\n').some((l) => WORKERS_LISTENING.test(l)),
                }
              : {}),
            deadlineMs,
            exited: container.exited,
            ...(ctx.signal ? { signal: ctx.signal } : {}),
          },
        );
      }
    } catch (e) {
      if (ctx.signal?.aborted) return finish('cancelled');
      if (unreachable || died === -1) {
        failure = unreachable ?? `unreachable: ${(e as Error).message}`;
        return finish('failed');
      }
      // Bounded: an engine that stopped answering must not hold the run (its silence is the reason).
      let tail: string;
      try {
        tail = await withTimeout(container.logTail(20), TEARDOWN_TIMEOUT_MS, 'no answer');
        exit = await withTimeout(container.exitInfo(), TEARDOWN_TIMEOUT_MS, 'no answer');
      } catch (le) {
        unreachable = `unreachable: ${provider.name} did not answer after the target failed to become ready (${(e as Error).message}; ${(le as Error).message})`;
        failure = unreachable;
        return finish('failed');
      }
      failure = `not ready: ${(e as Error).message}${tail ? `\n${tail}` : ''}`;
      return finish(exit.oomKilled ? 'oom' : 'failed');
    }
    ctx.onPhase?.('ready');
    stats = new StatsSampler(container, cfg.cpuMillis);
    await stats.start();
    // Each process's resident memory: once now, as measurement begins, every few measured seconds, at the end.
    const procMem = new ProcessMemoryRecorder(container);
    void procMem.read();

    // A container that dies mid-load (PID 1 OOM-killed, crash) stops the load at once.
    const stopLoad = new AbortController();
    const onAbort = (): void => stopLoad.abort();
    ctx.signal?.addEventListener('abort', onAbort, { once: true });
    void container.exited.then(() => stopLoad.abort());
    let measureFrom = Date.now() + cfg.warmupSec * 1000;
    ctx.onPhase?.(cfg.warmupSec > 0 ? 'warmup' : 'measuring');
    // Host contention: a reading at the start and at every second the load reports; the one just
    // before the first measured second is where measurement began.
    const hostSupport = hostCpuSupported(local && ctx.engine.bridgeRoutable);
    // the run says it once
    if (!hostSupport.ok) ctx.onWarning?.(`${hostSupport.why}: no cell can be flagged host-busy`);
    const host = hostSupport.ok ? new HostCpuRecorder(watchedCores(place)) : undefined;
    host?.mark();
    let hostFrom = -1;
    const warmupRps: number[] = [];
    let measuring = false;
    const plan: LoadPlan = {
      host: container.address.host,
      port: container.address.port,
      requests: cfg.requests?.requests ?? ctx.app.requests,
      load: cfg.load,
      durationSec: cfg.durationSec,
      warmupSec: cfg.warmupSec,
      maxWarmupSec: warmupCapSec(cfg.warmupSec),
      timeoutSec: ctx.timeoutSec,
      ...(place.loadCpus ? { cpus: place.loadCpus } : {}),
    };
    // A load elsewhere streams its seconds over the network: silence means the far side is gone.
    let lastSecondAt = 0;
    const startedLoadAt = Date.now();
    const watchdog = provider.runLoad
      ? setInterval(() => {
          const silentSec = (Date.now() - (lastSecondAt || startedLoadAt)) / 1000;
          if (silentSec <= (lastSecondAt ? LOAD_SILENCE_SEC : (provider.loadStartSec ?? LOAD_START_SILENCE_SEC)))
            return;
          unreachable ??= `unreachable: no second of load came from ${provider.name}${target.node ? ` (node ${target.node})` : ''} for ${Math.round(silentSec)} s`;
          stopLoad.abort();
        }, 1000)
      : undefined;
    let measured: LoadResult;
    try {
      const callbacks: LoadCallbacks = {
        signal: stopLoad.signal,
        isWarm,
        onSecond: (s, warmup) => {
          lastSecondAt = Date.now();
          if (warmup) {
            warmupRps.push(s.requests);
            host?.mark();
            return;
          }
          if (!measuring) {
            measuring = true;
            measureFrom = Date.now() - 1000;
            hostFrom = host ? host.snapshots.length - 1 : -1;
            ctx.onPhase?.('measuring');
            void procMem.read();
          } else if (s.t > 0 && s.t % PROCESS_READ_EVERY_SEC === 0) void procMem.read();
          host?.mark();
          ctx.onSample?.(toSample(s, stats));
        },
      };
      if (provider.runLoad) {
        const out = await untilStopped(
          provider.runLoad(target, plan, callbacks, { labels, ...(target.node ? { targetNode: target.node } : {}) }),
          stopLoad.signal,
          STOPPED_LOAD_GRACE_MS,
        );
        measured = out.result;
        loadNode = out.node;
      } else measured = await runLoad(plan, callbacks);
    } finally {
      clearInterval(watchdog);
      ctx.signal?.removeEventListener('abort', onAbort);
    }
    if (unreachable && !ctx.signal?.aborted) {
      failure = unreachable;
      return finish('failed');
    }
    ctx.onPhase?.('teardown');
    await procMem.read(); // the processes as the load left them (bounded: local files, or Docker's top within seconds)
    stats.stop();
    load = { ...measured, warmupPerSecondRps: warmupRps }; // the runner keeps only the measured seconds
    statsSummary = stats.summary(measureFrom);
    if (statsSummary) statsSummary = { ...statsSummary, ...procMem.summary() };
    const sampler = stats;
    const hostUse =
      host && sampler.usage.length >= 2
        ? contention(host.snapshots, hostFrom, host.cores, (a, b) => sampler.cpuSecBetween(a, b) ?? 0)
        : undefined;
    if (statsSummary && hostUse) statsSummary = { ...statsSummary, host: hostUse };
    try {
      exit = await withTimeout(container.exitInfo(), TEARDOWN_TIMEOUT_MS, 'no answer');
    } catch (e) {
      if (ctx.signal?.aborted) return finish('cancelled');
      failure =
        unreachableReason(e) ??
        `unreachable: ${provider.name} did not say how the target ended (${(e as Error).message})`;
      return finish('failed');
    }
    if (ctx.signal?.aborted) return finish('cancelled');
    if (exit.oomKilled) {
      failure = `OOM-killed under the ${cfg.memoryMb} MB cap${died !== undefined ? ` (container exited with code ${died})` : ' (a worker was killed and replaced)'}`;
      return finish('oom');
    }
    if (died !== undefined) {
      const tail = await container.logTail(20);
      failure = `the container exited with code ${died} during the load${tail ? `\n${tail}` : ''}`;
      return finish('failed');
    }
    return finish('ok');
  } catch (e) {
    if (ctx.signal?.aborted) return finish('cancelled');
    // A lost connection is the target being unreachable, not the app failing: say so.
    failure = unreachable ?? unreachableReason(e) ?? (e as Error).message;
    return finish('failed');
  } finally {
    stats?.stop();
    if (container) {
      const c = container;
      const ms = unreachable ? UNREACHABLE_TEARDOWN_TIMEOUT_MS : TEARDOWN_TIMEOUT_MS;
      await withTimeout(c.remove(), ms, 'no answer').catch((e: Error) =>
        ctx.onWarning?.(
          `could not remove ${c.id} on ${provider.name} (${e.message}): the end of the run or the next sweep removes it`,
        ),
      );
    }
  }
}
