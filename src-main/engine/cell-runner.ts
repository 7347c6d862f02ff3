// One cell, start to finish, in named phases: start the target under its caps → wait until every
// worker is up → warmup and measurement (cell-load.ts) → how the target ended → teardown. The
// provider does everything that depends on where the cell runs; this file never asks which it is.
import { linkEnv, linkSpec, type Pem } from '../tls/certificate.ts';
import { ownCommand, type AppDefinition } from '../apps/catalog.ts';
import { withTimeout } from '../docker/client.ts';
import type { AppImage } from '../docker/app-image.ts';
import type {
  CellConfig,
  CellResult,
  DependencyReading,
  ExitInfo,
  LoadResult,
  Sample,
  StatsSummary,
} from '../model/types.ts';
import { REMOTE_LOAD_SILENCE, type Provider, type ProvisionedTarget, type TargetSpec } from '../providers/provider.ts';
import { currentSession } from '../session/session.ts';
import type { CellProbe } from '../model/probe.ts';
import { appLogTail } from '../probe/collect.ts';
import type { ReplicaReading } from '../model/replicas.ts';
import type { CellClock } from '../probe/place.ts';
import { measureLoad, TargetUnreachable } from './cell-load.ts';
import { checkClientBound } from './client-check.ts';
import { cellFlagsAndBottleneck } from './flags.ts';
import { collectCellProbe, replicaReadings } from './replica-readings.ts';

export { toSample } from './cell-load.ts';

export interface CellContext {
  app: AppDefinition;
  image: AppImage;
  /** Where the target runs: any provider (this machine's engine is one too). */
  provider: Provider;
  /** Keep the target and its load on separate cores where they share a machine (the matrix's placement 'auto'). */
  placement: boolean;
  timeoutSec: number;
  warmNoise?: number; // the host's per-second noise this run, for the warm-up (LoadPlan.warmNoise)
  /** The run's certificate, which an HTTPS cell's app serves (tls/certificate.ts). */
  tls?: Pem;
  runId?: number;
  cellId?: number;
  /** The node (or the node to avoid) the pool's slot gave this cell, where the provider places by node. */
  placementHint?: TargetSpec['placement'];
  signal?: AbortSignal;
  /** One per measured second: load and the container's latest stats together. */
  onSample?: (s: Sample) => void;
  /** One per warm-up second, for live views (never stored). */
  onWarmupSample?: (s: Sample) => void;
  onWarning?: (message: string) => void;
  /** Phase changes, for progress displays. */
  onPhase?: (phase: 'starting' | 'ready' | 'warmup' | 'measuring' | 'teardown') => void;
  /** This cell's target, already being started (prepared while the cell before it was torn down). */
  prepared?: Promise<ProvisionedTarget>;
  /** Called once the load is over (measured or not), before the target is inspected and removed. */
  onLoadEnd?: () => void;
  /** Takes the target's removal instead of waiting for it (the run awaits it before the next load). */
  deferRemoval?: (removal: Promise<void>) => void;
  /** Awaited just before the load starts: what must be over first (the cell before it removed). */
  beforeLoad?: () => Promise<void>;
}

/** What the provider is asked to start for a cell: the app's image and launcher under the cell's caps. */
export function targetSpecOf(
  cfg: CellConfig,
  ctx: Pick<CellContext, 'app' | 'image' | 'placement' | 'placementHint' | 'signal' | 'tls'>,
  labels: TargetSpec['labels'],
): TargetSpec {
  const source = ctx.app.source;
  const env = { ...ctx.app.env, ...cfg.env, ...linkEnv(cfg.load, ctx.tls) };
  const probe = cfg.probe === true;
  const nodeOptions = env.NODE_OPTIONS ?? ctx.image.nodeOptions; // an image's own, when the app sets none
  return {
    image: ctx.image.tag,
    launch: {
      mode: cfg.mode,
      workers: cfg.workers,
      entry: ctx.image.entry,
      name: cfg.app,
      ...(source.kind === 'folder' ? { args: source.args } : {}),
      ...(ownCommand(source) ? { workersEnv: source.workersEnv } : {}),
      ...(cfg.recycleRssMb ? { recycleRssMb: cfg.recycleRssMb } : {}),
      ...(probe ? { probe } : {}),
      ...(cfg.nodeFlags?.length ? { nodeFlags: cfg.nodeFlags } : {}),
      ...(nodeOptions && (probe || cfg.nodeFlags?.length) ? { nodeOptions } : {}),
    },
    port: ctx.app.port,
    health: ctx.app.health,
    env,
    cpuMillis: cfg.cpuMillis,
    memoryMb: cfg.memoryMb,
    ...(cfg.replicas !== undefined && cfg.replicas >= 2 ? { replicas: cfg.replicas } : {}),
    ...(cfg.load.networkMbps ? { networkMbps: cfg.load.networkMbps } : {}),
    ...linkSpec(cfg.load),
    ...(ctx.app.dependencies?.length ? { dependencies: ctx.app.dependencies } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    pinCores: ctx.placement,
    ...(ctx.placementHint ? { placement: ctx.placementHint } : {}),
    labels,
  };
}

/** Silence from a load elsewhere after its first second (kept for the tests that time it). */
export const LOAD_SILENCE_SEC = REMOTE_LOAD_SILENCE.betweenSec;
/** Teardown is bounded: a target whose engine no longer answers is left to removeRun and the sweep. */
const TEARDOWN_TIMEOUT_MS = 20_000;
export const UNREACHABLE_TEARDOWN_TIMEOUT_MS = 5_000;

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
 * One cell. Never throws for a cell-level problem (not ready, crash, OOM): that becomes the cell's
 * status, and the run goes on. The target is removed in every case, cancel included.
 */
export async function runCell(cfg: CellConfig, ctx: CellContext): Promise<CellResult> {
  const result = await new CellRun(cfg, ctx).run();
  return { ...result, finishedAt: new Date().toISOString() }; // after teardown, so a cell's wall time is all of it
}

type Outcome = Omit<CellResult, 'finishedAt'>;

class CellRun {
  private readonly startedAt = new Date().toISOString();
  private readonly provider: Provider;
  private readonly labels: TargetSpec['labels'];
  private target?: ProvisionedTarget;
  private load?: LoadResult;
  private stats?: StatsSummary;
  private exit?: ExitInfo;
  private failure?: string;
  /** The exit code once the target stopped by itself. */
  private died?: number;
  /** Set when the target's side stopped answering: the cell fails with it and teardown does not wait long. */
  private unreachable?: string;
  private loadNode?: string;
  /** When the load and its measurement began, for placing the probe's reports. */
  private clock?: CellClock;
  private probe?: CellProbe;
  /** A replicated cell: each replica's readings and probe, then what the cell keeps of each. */
  private replicaStats?: (StatsSummary | undefined)[];
  private replicaProbes?: CellProbe[];
  private replicas?: ReplicaReading[];
  private dependencies?: DependencyReading[];

  constructor(
    private readonly cfg: CellConfig,
    private readonly ctx: CellContext,
  ) {
    this.provider = ctx.provider;
    this.labels = {
      run: String(ctx.runId ?? ''),
      cell: String(ctx.cellId ?? ''),
      app: cfg.app,
      session: currentSession(),
    };
  }

  async run(): Promise<Outcome> {
    try {
      const target = await this.start();
      const early = (await this.ready(target)) ?? (await this.measure(target));
      this.ctx.onLoadEnd?.();
      return early ?? (await this.ended(target));
    } catch (e) {
      if (this.ctx.signal?.aborted) return this.finish('cancelled');
      if (e instanceof TargetUnreachable) this.unreachable ??= e.message;
      // A lost connection is the target being unreachable, not the app failing: say so.
      this.failure = this.unreachable ?? unreachableReason(e) ?? (e as Error).message;
      return this.finish('failed');
    } finally {
      await this.teardown();
    }
  }

  private finish(status: CellResult['status']): Outcome {
    const { cfg, provider, target } = this;
    return {
      config: cfg,
      status,
      ...(this.failure ? { failure: this.failure } : {}),
      ...(this.load ? { load: this.load } : {}),
      ...(this.stats ? { stats: this.stats } : {}),
      ...(this.exit ? { exit: this.exit } : {}),
      ...cellFlagsAndBottleneck(
        this.load,
        this.stats,
        this.exit,
        cfg.memoryMb,
        this.dependencies,
        cfg.load.networkMbps,
      ),
      imageTag: this.ctx.image.tag,
      ...(this.ctx.image.nodeVersion ? { nodeVersion: this.ctx.image.nodeVersion } : {}),
      ranOn: {
        target: provider.name,
        kind: provider.kind,
        ...(target?.node ? { node: target.node } : {}),
        ...(this.loadNode ? { loadNode: this.loadNode } : {}),
      },
      ...(this.probe ? { probe: this.probe } : {}),
      ...(this.replicas ? { replicas: this.replicas } : {}),
      ...(this.dependencies ? { dependencies: this.dependencies } : {}),
      startedAt: this.startedAt,
    };
  }

  /** The target under its caps, where the provider puts it. */
  private async start(): Promise<ProvisionedTarget> {
    const { cfg, ctx } = this;
    ctx.onPhase?.('starting');
    // Started while the cell before it was torn down, where the provider prepares ahead; else now.
    const target = await (ctx.prepared ?? this.provider.provision(targetSpecOf(cfg, ctx, this.labels)));
    this.target = target;
    if (target.placementWarning) ctx.onWarning?.(target.placementWarning);
    void target.exited.then((code) => {
      this.died = code;
      // -1: the wait on the target failed (its engine stopped answering, its pod went away), not an exit code.
      const lost = code === -1 ? this.provider.lostTarget?.() : undefined;
      if (lost) this.unreachable ??= lost;
    });
    return target;
  }

  /** Undefined once every worker answers; otherwise the cell's outcome (not ready, OOM at start, unreachable). */
  private async ready(target: ProvisionedTarget): Promise<Outcome | undefined> {
    const { cfg, ctx } = this;
    try {
      const deadlineMs = 30_000 + 1000 * cfg.workers;
      await target.waitReady({ workers: cfg.workers, deadlineMs, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    } catch (e) {
      if (ctx.signal?.aborted) return this.finish('cancelled');
      if (this.unreachable || this.died === -1) {
        this.failure = this.unreachable ?? `unreachable: ${(e as Error).message}`;
        return this.finish('failed');
      }
      // Bounded: an engine that stopped answering must not hold the run (its silence is the reason).
      let tail: string;
      try {
        tail = await withTimeout(appLogTail(target, 20), TEARDOWN_TIMEOUT_MS, 'no answer');
        this.exit = await withTimeout(target.exitInfo(), TEARDOWN_TIMEOUT_MS, 'no answer');
      } catch (le) {
        this.unreachable =
          `unreachable: ${this.provider.name} did not answer after the target failed to become ready ` +
          `(${(e as Error).message}; ${(le as Error).message})`;
        this.failure = this.unreachable;
        return this.finish('failed');
      }
      this.failure = `not ready: ${(e as Error).message}${tail ? `\n${tail}` : ''}`;
      return this.finish(this.exit.oomKilled ? 'oom' : 'failed');
    }
    ctx.onPhase?.('ready');
    return undefined;
  }

  /** Undefined once the load ran its course; otherwise the cell's outcome (its far side went silent). */
  private async measure(target: ProvisionedTarget): Promise<Outcome | undefined> {
    const { cfg, ctx } = this;
    await ctx.beforeLoad?.(); // nothing of the cell before it still being removed while this one measures
    ctx.onPhase?.(cfg.warmupSec > 0 ? 'warmup' : 'measuring');
    const out = await measureLoad({
      cfg,
      provider: this.provider,
      target,
      requests: ctx.app.requests,
      appDir: ctx.app.dir,
      timeoutSec: ctx.timeoutSec,
      ...(ctx.warmNoise !== undefined ? { warmNoise: ctx.warmNoise } : {}),
      labels: this.labels,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onSample ? { onSample: ctx.onSample } : {}),
      ...(ctx.onWarmupSample ? { onWarmupSample: ctx.onWarmupSample } : {}),
      ...(ctx.onWarning ? { onWarning: ctx.onWarning } : {}),
      onMeasuring: () => ctx.onPhase?.('measuring'),
    });
    if (out.loadNode) this.loadNode = out.loadNode;
    if (out.unreachable) this.unreachable ??= out.unreachable;
    if (this.unreachable && !ctx.signal?.aborted) {
      this.failure = this.unreachable; // a cut-short measurement is not a result
      return this.finish('failed');
    }
    ctx.onPhase?.('teardown');
    this.load = out.load;
    this.clock = out.clock;
    if (out.stats) this.stats = out.stats;
    if (out.replicaStats) this.replicaStats = out.replicaStats;
    if (out.dependencies) this.dependencies = out.dependencies;
    return undefined;
  }

  /** What the runtime probe heard while the load ran (bounded: a slow log read costs a note, not the cell). */
  private async readProbe(target: ProvisionedTarget): Promise<void> {
    const { cfg } = this;
    if (cfg.probe !== true || !this.clock) return;
    const none = target.probeNote;
    if (none) {
      this.probe = { attached: 0, expected: null, processes: [], note: none };
      return;
    }
    const launch = { mode: cfg.mode, workers: cfg.workers };
    const heard = await withTimeout(
      collectCellProbe(target, launch, this.clock, Date.parse(this.startedAt)),
      TEARDOWN_TIMEOUT_MS,
      'no answer',
    ).catch((e: Error): { probe: CellProbe; parts?: CellProbe[] } => ({
      probe: {
        attached: 0,
        expected: null,
        processes: [],
        note: `no probe data on this target: its log was not read in time (${e.message})`,
      },
    }));
    this.probe = heard.probe;
    if (heard.parts) this.replicaProbes = heard.parts;
  }

  /** A replicated cell: what each replica did (bounded: a replica that does not answer loses its exit only). */
  private async readReplicas(target: ProvisionedTarget): Promise<void> {
    const { cfg, provider } = this;
    const ranOn = { target: provider.name, kind: provider.kind, ...(this.loadNode ? { loadNode: this.loadNode } : {}) };
    const readings = await withTimeout(
      replicaReadings({
        cfg,
        target,
        ranOn,
        ...(this.load ? { load: this.load } : {}),
        ...(this.replicaStats ? { stats: this.replicaStats } : {}),
        ...(this.replicaProbes ? { probes: this.replicaProbes } : {}),
      }),
      TEARDOWN_TIMEOUT_MS,
      'no answer',
    ).catch(() => undefined);
    if (readings) this.replicas = readings;
  }

  /** How the target ended: OOM kill, a crash during the load, or fine. */
  private async ended(target: ProvisionedTarget): Promise<Outcome> {
    const { cfg, ctx } = this;
    await this.readProbe(target);
    await this.readReplicas(target);
    if (this.load) this.load = checkClientBound(cfg, this.load, this.probe, this.stats);
    try {
      this.exit = await withTimeout(target.exitInfo(), TEARDOWN_TIMEOUT_MS, 'no answer');
    } catch (e) {
      if (ctx.signal?.aborted) return this.finish('cancelled');
      this.failure =
        unreachableReason(e) ??
        `unreachable: ${this.provider.name} did not say how the target ended (${(e as Error).message})`;
      return this.finish('failed');
    }
    if (ctx.signal?.aborted) return this.finish('cancelled');
    if (this.exit.oomKilled) {
      const how =
        this.died !== undefined ? ` (container exited with code ${this.died})` : ' (a worker was killed and replaced)';
      const killed = this.replicas?.filter((r) => r.exit?.oomKilled).map((r) => r.index + 1);
      const where = killed?.length ? ` in replica ${killed.join(' and ')} of ${this.replicas!.length}` : '';
      this.failure = `OOM-killed under the ${cfg.memoryMb} MB cap${where}${how}`;
      return this.finish('oom');
    }
    if (this.died !== undefined) {
      const tail = await appLogTail(target, 20);
      this.failure = `the container exited with code ${this.died} during the load${tail ? `\n${tail}` : ''}`;
      return this.finish('failed');
    }
    return this.finish('ok');
  }

  /** Bounded: what cannot be removed now is left to the end of the run (removeRun) and the sweep. */
  private async teardown(): Promise<void> {
    const c = this.target;
    if (!c) return;
    const ms = this.unreachable ? UNREACHABLE_TEARDOWN_TIMEOUT_MS : TEARDOWN_TIMEOUT_MS;
    const removal = withTimeout(c.remove(), ms, 'no answer').catch((e: Error) =>
      this.ctx.onWarning?.(
        `could not remove ${c.id} on ${this.provider.name} (${e.message}): ` +
          'the end of the run or the next sweep removes it',
      ),
    );
    // Measured and inspected: the removal may finish while the next cell starts (the run waits for
    // it before any load runs again, and before it ends).
    if (this.ctx.deferRemoval) this.ctx.deferRemoval(removal);
    else await removal;
  }
}
