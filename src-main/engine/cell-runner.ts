import type { AppDefinition } from '../apps/catalog.ts';
import type { EngineInfo } from '../docker/client.ts';
import type { AppImage } from '../docker/app-image.ts';
import { servingProcesses, WORKERS_LISTENING } from '../docker/launch.ts';
import { planPlacement } from '../docker/placement.ts';
import { waitReady } from '../docker/readiness.ts';
import { localProvider } from '../providers/local.ts';
import type { Provider, ProvisionedTarget } from '../providers/provider.ts';
import { currentSession } from '../session/session.ts';
import { StatsSampler } from './stats-sampler.ts';
import { runLoad } from '../load/runner.ts';
import { cellFlags } from './flags.ts';
import { parseCpuList } from '../common/cpu-list.ts';
import { contention, HostCpuRecorder, hostCpuSupported } from './host-cpu.ts';
import { isWarm, warmupCapSec } from './steady-state.ts';
import type { CellConfig, CellResult, ExitInfo, LoadResult, LoadSecond, Sample, StatsSummary } from './types.ts';

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
  const provider = ctx.provider ?? localProvider(ctx.engine);
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
  const finish = (status: CellResult['status']): Omit<CellResult, 'finishedAt'> => ({
    config: cfg,
    status,
    ...(failure ? { failure } : {}),
    ...(load ? { load } : {}),
    ...(statsSummary ? { stats: statsSummary } : {}),
    ...(exit ? { exit } : {}),
    flags: cellFlags(load, statsSummary, exit, cfg.memoryMb),
    imageTag: ctx.image.tag,
    ranOn: { target: provider.name, kind: provider.kind, ...(container?.node ? { node: container.node } : {}) },
    startedAt,
  });

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
      env: { ...ctx.app.env, ...cfg.env },
      cpuMillis: cfg.cpuMillis,
      memoryMb: cfg.memoryMb,
      ...(place.targetCpus ? { cpuset: place.targetCpus } : {}),
      labels: { run: String(ctx.runId ?? ''), cell: String(ctx.cellId ?? ''), app: cfg.app, session: currentSession() },
    });
    const target = container;
    void container.exited.then((code) => (died = code));
    try {
      await waitReady({ ...container.address, via: 'published' }, {
        path: ctx.app.health,
        processes: servingProcesses(cfg.mode, cfg.workers),
        // Apps without our pid header: the cluster launcher says when all N workers listen.
        ...(cfg.mode === 'cluster' ? { allListening: async () => (await target.logTail(200)).split('\n').some((l) => WORKERS_LISTENING.test(l)) } : {}),
        deadlineMs: 30_000 + 1000 * cfg.workers,
        exited: container.exited,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
    } catch (e) {
      if (ctx.signal?.aborted) return finish('cancelled');
      const tail = await container.logTail(20);
      exit = await container.exitInfo();
      failure = `not ready: ${(e as Error).message}${tail ? `\n${tail}` : ''}`;
      return finish(exit.oomKilled ? 'oom' : 'failed');
    }
    ctx.onPhase?.('ready');
    stats = new StatsSampler(container, cfg.cpuMillis);
    await stats.start();

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
    if (!hostSupport.ok) ctx.onWarning?.(`${hostSupport.why}: no cell can be flagged host-busy`); // the run says it once
    const host = hostSupport.ok ? new HostCpuRecorder(watchedCores(place)) : undefined;
    host?.mark();
    let hostFrom = -1;
    const warmupRps: number[] = [];
    let measuring = false;
    try {
      load = await runLoad(
        {
          host: container.address.host,
          port: container.address.port,
          requests: cfg.requests?.requests ?? ctx.app.requests,
          load: cfg.load,
          durationSec: cfg.durationSec,
          warmupSec: cfg.warmupSec,
          maxWarmupSec: warmupCapSec(cfg.warmupSec),
          timeoutSec: ctx.timeoutSec,
          ...(place.loadCpus ? { cpus: place.loadCpus } : {}),
        },
        {
          signal: stopLoad.signal,
          isWarm,
          onSecond: (s, warmup) => {
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
            }
            host?.mark();
            ctx.onSample?.(toSample(s, stats));
          },
        },
      );
    } finally {
      ctx.signal?.removeEventListener('abort', onAbort);
    }
    ctx.onPhase?.('teardown');
    stats.stop();
    load = { ...load, warmupPerSecondRps: warmupRps }; // the runner keeps only the measured seconds
    statsSummary = stats.summary(measureFrom);
    const sampler = stats;
    const hostUse = host && sampler.usage.length >= 2 ? contention(host.snapshots, hostFrom, host.cores, (a, b) => sampler.cpuSecBetween(a, b) ?? 0) : undefined;
    if (statsSummary && hostUse) statsSummary = { ...statsSummary, host: hostUse };
    exit = await container.exitInfo();
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
    failure = (e as Error).message;
    return finish('failed');
  } finally {
    stats?.stop();
    await container?.remove().catch((e: Error) => ctx.onWarning?.(`could not remove container ${container?.id}: ${e.message}`));
  }
}
