// The one run lifecycle. A matrix, an auto-size search and the phases added to a stored run are
// cell sources; the session does what every run does, once: the engine checked, the target readied
// and its limits read, the source validated against *those* limits, the lab entered (reaper, base
// image, lock), the run recorded, images built here and shipped there, the cells stored as they
// run, and at the end — whatever happened — the target cleaned of the run, the lab given back,
// the run finished in the store and `run-finished` said.
import type { AppDefinition } from '../../apps/catalog.ts';
import { appLibrary, type AppLibrary } from '../../apps/library.ts';
import type { AppImage } from '../../docker/app-image.ts';
import type { BaseStrategy } from '../../docker/base-image.ts';
import { checkEngine, withTimeout, type EngineInfo } from '../../docker/client.ts';
import { settleDependencyImages } from '../../docker/dependency-images.ts';
import { withBuildSignal } from '../../docker/image-build.ts';
import { enterLab } from '../../lab-lock/enter-lab.ts';
import type { LabHolder } from '../../lab-lock/lab-lock.ts';
import type { RunEvent, RunListener } from '../../model/events.ts';
import type { NewRun } from '../../model/stored.ts';
import type { CellConfig, CellResult, RunStatus } from '../../model/types.ts';
import { localProvider } from '../../providers/local/provider.ts';
import type { Provider, TargetSpec } from '../../providers/provider.ts';
import { currentSession } from '../../session/session.ts';
import type { Store } from '../../store/index.ts';
import { hostFacts } from '../host.ts';
import type { HostLimits } from '../matrix.ts';
import { targetSpecOf } from '../cell-runner.ts';
import { checkBandwidthCaps, checkDependenciesHosted, checkTls, limitsWhereCellsRun } from './limits.ts';
import { runCertificate, type Pem } from '../../tls/certificate.ts';
import { buildImages, imageKey, type ImageNeed, type RunImages } from './images.ts';
import { PrepareAhead } from './prepare-ahead.ts';
import { RunNoise } from '../../load/second-noise.ts';
import { runStoredCell, storeSkippedCell } from './stored-cell.ts';

export interface SessionOptions {
  store: Store;
  signal?: AbortSignal;
  onEvent?: RunListener;
  base?: BaseStrategy;
  /** Called once the run row exists (or is claimed), before images are built: a UI shows the run at once. */
  onRunId?: (runId: number) => void;
  /** When another process holds the lab: queue until it is free (true) or throw LabBusyError (default). */
  waitForLab?: boolean;
  /** Called when the run starts waiting for the lab, and whenever its holder changes. */
  onLabWait?: (holder: LabHolder) => void;
  /** Where cells run: a saved target's provider (default: this machine's engine, a provider like any other). */
  provider?: Provider;
}

/** What a source's cells run with, unless a cell says otherwise. */
export interface CellDefaults {
  /** Separate cores for the target and its load where they share a machine. */
  placement: boolean;
  timeoutSec: number;
  /** The run's certificate, for its HTTPS cells (tls/certificate.ts); absent: it has none. */
  tls?: Pem;
}

/** A run's cells, planned: what the session needs before it starts, and the cells themselves. */
export interface SourcePlan {
  /** What holds the lab, in words ("run \"quick\""). */
  what: string;
  apps: AppDefinition[];
  /** A new run's row (host and owner are the session's), or the stored run the cells are added to. */
  record: { create: Omit<NewRun, 'host' | 'ownerSession'> } | { claim: number };
  cellDefaults: CellDefaults;
  /**
   * The (app, Node.js version) pairs its cells name (CellConfig.node; `imageNeeds(cells)`), each
   * built before any cell runs. Absent: every app on the default base.
   */
  images?: ImageNeed[];
  /** The bandwidth caps its cells ask (CellLoad.networkMbps), checked against the target before anything starts. */
  networkMbps?: number[];
  /** Some of its cells speak TLS (CellLoad.tls): the run makes its certificate, and the target must serve it. */
  tls?: boolean;
  /** Some of its cells speak HTTP/2 (CellLoad.protocol): the target's readiness check must too. */
  http2?: boolean;
  /**
   * Runs the cells through the session. Throws for the run's own failure (the session says it);
   * returns an error the outcome carries without having thrown (a phase that stopped), if any.
   */
  run(s: Session): Promise<string | void>;
  /** The run's error in words for what `run` threw (a stopped search names its reason). */
  errorOf?(e: unknown): string;
  /** The run is over, any outcome: the source's last words into the store (a search's trace). */
  end?(s: Session, status: RunStatus, error: string | undefined): void;
}

/** Where a run's cells come from. Validation is the source's: it gets the limits where the cells run. */
export interface CellSource {
  plan(limits: HostLimits, lib: AppLibrary): Promise<SourcePlan>;
}

/** What a source gets: the run, its target, and a way to run one stored cell of it. */
export interface Session {
  readonly runId: number;
  readonly store: Store;
  readonly provider: Provider;
  readonly limits: HostLimits;
  readonly signal?: AbortSignal;
  emit: RunListener;
  log(level: 'info' | 'warn', message: string): void;
  /** Says the run has started (run-started), then what the session noticed on the way (a sweep, no reaper). */
  started(e: Omit<Extract<RunEvent, { type: 'run-started' }>, 'type' | 'runId'>): void;
  /** One cell of the run, stored as it happens (row, samples, result, events). */
  runCell(cell: CellConfig, o: CellRunOptions): Promise<{ cellId: number; result: CellResult }>;
  /**
   * One cell of the run recorded as failed without starting anything (`failure` says why it was
   * skipped); a target prepared ahead for it is removed. Absent: the source runs the cell instead.
   */
  skipCell?(cell: CellConfig, failure: string, o: CellRunOptions): Promise<{ cellId: number; result: CellResult }>;
}

export interface CellRunOptions {
  /** Cells planned, for the progress events. */
  total: number;
  /** The ETA for the events: before the cell (no argument), and after it given its wall time in seconds. */
  etaSec: (wallSec?: number) => number;
  placementHint?: TargetSpec['placement'];
  /** The cell that runs right after this one, when known: its target may be prepared ahead. */
  next?: CellConfig;
}

export interface SessionOutcome {
  runId: number;
  status: RunStatus;
  error?: string;
}

/** The end-of-run cleanup on a target must not hold the run's end when the target stopped answering. */
const REMOVE_RUN_TIMEOUT_MS = 15_000;

/**
 * Runs a source's cells as one run. Throws only before anything started (Docker unreachable, the
 * target not ready, an invalid request, the lab busy); after that, problems become cell or run
 * statuses and the outcome says what happened.
 */
export async function runSession(source: CellSource, o: SessionOptions): Promise<SessionOutcome> {
  const engine = await checkEngine();
  const provider = o.provider ?? localProvider(engine);
  const lib = appLibrary(o.store);
  const { limits, swept } = await limitsWhereCellsRun(engine, lib, provider);
  const plan = await source.plan(limits, lib);
  checkDependenciesHosted(provider, plan.apps);
  checkBandwidthCaps(provider, plan.networkMbps ?? []);
  checkTls(provider, Boolean(plan.tls), Boolean(plan.http2));
  const { base, lease, noReaper } = await enterLab(engine, {
    what: `${plan.what} (history: ${o.store.path})`,
    ...(o.base ? { strategy: o.base } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    wait: Boolean(o.waitForLab),
    ...(o.onLabWait ? { onWait: o.onLabWait } : {}),
  });
  let runId: number;
  const settled: string[] = [];
  try {
    // Under the lab: an offline database image may be built here. The run records the images that will run.
    plan.apps = await withBuildSignal(o.signal, () =>
      settleDependencyImages(
        plan.apps,
        (line) => void (line.includes("using Rightsize's offline") && settled.push(line)),
      ),
    );
    runId = record(o.store, plan, engine);
    if (plan.tls) plan.cellDefaults = { ...plan.cellDefaults, tls: await runCertificate(String(runId)) };
  } catch (e) {
    await lease.release().catch(() => {});
    throw e;
  }
  o.onRunId?.(runId);
  const emit: RunListener = (e) => {
    try {
      o.onEvent?.(e);
    } catch {
      /* a listener's bug (a UI socket, the progress line) must not end the run: the store has it all */
    }
  };
  const log = (level: 'info' | 'warn', message: string): void => emit({ type: 'log', runId, level, message });
  const notes = [
    ...settled,
    ...(swept.length ? [`removed what stopped Rightsize processes left on ${provider.name}: ${swept.join(', ')}`] : []),
    ...(noReaper ? [`${noReaper}. If this process dies, the next Rightsize start removes its containers.`] : []),
  ];
  let images = new Map<string, AppImage>();
  let built: RunImages | undefined;
  const imageOf = (cell: CellConfig): AppImage | undefined => images.get(imageKey(cell.app, cell.node));
  // A cell whose image no need named (a phase's cell of another version) has it made, and shipped, first.
  const imageFor = async (cell: CellConfig): Promise<AppImage> => {
    const known = imageOf(cell);
    if (known || !built) return known!;
    const image = await withBuildSignal(o.signal, () => built!.imageFor(cell));
    await provider.prepareImage(image.tag);
    return image;
  };
  const warned = new Set<string>();
  const ahead = new PrepareAhead();
  // Targets being removed while the next cell starts: every load waits for them, and so does the end.
  const removals = new Set<Promise<void>>();
  const deferRemoval = (r: Promise<void>): void => {
    removals.add(r);
    void r.finally(() => removals.delete(r));
  };
  const removed = async (): Promise<void> => void (await Promise.all([...removals]));
  const appOf = (cell: CellConfig): AppDefinition => plan.apps.find((a) => a.name === cell.app)!;
  // The next cell's target, started as this one's load ends, where the provider has a core to spare.
  const prepareNext = (next: CellConfig | undefined, hint: TargetSpec['placement']): (() => void) | undefined =>
    next && provider.prepareAhead && imageOf(next)
      ? () => {
          if (o.signal?.aborted) return;
          const labels = { run: String(runId), cell: '', app: next.app, session: currentSession() };
          const ctx = { app: appOf(next), image: imageOf(next)!, ...plan.cellDefaults };
          ahead.prepare(next.index, () =>
            provider.provision(targetSpecOf(next, { ...ctx, ...(hint ? { placementHint: hint } : {}) }, labels)),
          );
        }
      : undefined;
  // The host's per-second noise as this run's steady cells read it: the warm-up's flat window may span it.
  const noise = new RunNoise();
  const session: Session = {
    runId,
    store: o.store,
    provider,
    limits,
    ...(o.signal ? { signal: o.signal } : {}),
    emit,
    log,
    started: (e) => {
      emit({ type: 'run-started', runId, ...e });
      for (const n of notes.splice(0)) log(n.startsWith('removed') ? 'info' : 'warn', n);
    },
    runCell: async (cell, c) => {
      const prepared = ahead.take(cell.index);
      const onLoadEnd = prepareNext(c.next, c.placementHint);
      const warmNoise = noise.get();
      const stored = await runStoredCell(cell, {
        store: o.store,
        runId,
        app: appOf(cell),
        image: await imageFor(cell),
        provider,
        ...(prepared ? { prepared } : {}),
        ...(onLoadEnd ? { onLoadEnd } : {}),
        // Where a core is spare, a target's removal overlaps the next cell's start.
        ...(provider.prepareAhead ? { deferRemoval, beforeLoad: removed } : {}),
        ...plan.cellDefaults,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(c.placementHint ? { placementHint: c.placementHint } : {}),
        ...(warmNoise !== undefined ? { warmNoise } : {}),
        emit,
        warned,
        total: c.total,
        etaSec: c.etaSec,
      });
      noise.add(stored.result);
      return stored;
    },
    skipCell: async (cell, failure, c) => {
      const prepared = ahead.take(cell.index);
      if (prepared) await prepared.then((t) => t.remove()).catch(() => {});
      return storeSkippedCell(cell, failure, { store: o.store, runId, emit, total: c.total, etaSec: c.etaSec });
    },
  };
  let status: RunStatus = 'completed';
  let error: string | undefined;
  try {
    built = await withBuildSignal(o.signal, () =>
      buildImages(plan.apps, base, (line) => log('info', line), {
        ...(plan.images ? { needs: plan.images } : {}),
        ...(o.base ? { strategy: o.base } : {}),
      }),
    );
    images = built.images;
    for (const image of images.values()) await provider.prepareImage(image.tag); // built here, shipped there
    for (const image of new Set(plan.apps.flatMap((a) => (a.dependencies ?? []).map((d) => d.image))))
      await provider.prepareImage(image); // a dependency's image too, where the target lacks it
    error = (await plan.run(session)) ?? undefined;
    if (error) status = 'failed';
  } catch (e) {
    status = 'failed';
    error = plan.errorOf ? plan.errorOf(e) : (e as Error).message;
  }
  if (o.signal?.aborted) [status, error] = ['cancelled', undefined];
  await ahead.discard(); // a target prepared for a cell that never came
  await removed();
  // Whatever a cell could not remove (its engine stopped answering mid-cell) goes now.
  await withTimeout(provider.removeRun(String(runId)), REMOVE_RUN_TIMEOUT_MS, 'no answer').then(
    (gone) => gone.length && log('info', `removed what the run left on ${provider.name}: ${gone.join(', ')}`),
    (e: Error) =>
      log('warn', `could not remove what the run left on ${provider.name} (${e.message}); the next sweep removes it`),
  );
  await lease.release().catch(() => {}); // the reaper removes it if this fails
  try {
    plan.end?.(session, status, error);
    if ('create' in plan.record) o.store.finishRun(runId, status, error ?? null);
  } catch (e) {
    // The store itself is failing: say so in the outcome; the next start marks the run interrupted.
    status = 'failed';
    error = `${error ? `${error}; ` : ''}the run's end could not be stored: ${(e as Error).message}`;
  }
  emit({ type: 'run-finished', runId, status, ...(error ? { error } : {}) });
  return { runId, status, ...(error ? { error } : {}) };
}

/** The run row, new or claimed: a claimed run's owner becomes this process. */
function record(store: Store, plan: SourcePlan, engine: EngineInfo): number {
  if ('create' in plan.record) {
    return store.createRun({
      ...plan.record.create,
      host: hostFacts(engine, plan.apps),
      ownerSession: currentSession(),
    });
  }
  const runId = plan.record.claim;
  if (!store.claimRun(runId, currentSession()))
    throw new Error(`Run ${runId} could not be taken: another process is running it, or it was deleted.`);
  return runId;
}
