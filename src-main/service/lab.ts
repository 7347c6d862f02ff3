import { EventEmitter } from 'node:events';
import { CELL_OVERHEAD_SEC } from '../common/thresholds.ts';
import { etaSec, poolSize } from '../engine/cell-pool.ts';
import { builtInApps } from '../apps/catalog.ts';
import { appLibrary, appNames, imageAppsOf } from '../apps/library.ts';
import { userAppInfo } from '../apps/app-info.ts';
import { resolveUserApp, UserAppSchema, type Resolved, type UserApp } from '../apps/user-apps.ts';
import { ensureAppImage } from '../docker/app-image.ts';
import { checkEngine, type EngineInfo } from '../docker/client.ts';
import { findImage } from '../docker/image-lookup.ts';
import type { RunEvent } from '../model/events.ts';
import { hostLimits } from '../engine/host.ts';
import { LARGE_MATRIX_CELLS, MIN_MEMORY_MB, validateMatrix, type HostLimits } from '../engine/matrix.ts';
import { runMatrix, TargetNotReadyError } from '../engine/run-matrix.ts';
import { forecastMatrix, type ClientForecast } from '../engine/client-forecast.ts';
import type { Provider } from '../providers/provider.ts';
import { runSearch } from '../engine/auto-size/run-search.ts';
import { sizeEtaSec, validateSizeSpec } from '../engine/auto-size/spec.ts';
import { recoverAtStartup, type Startup } from '../engine/startup.ts';
import { recommend } from '../analysis/index.ts';
import { cellsCsv, samplesCsv } from '../export/csv.ts';
import { htmlReport } from '../export/html-report.ts';
import { CellNotDeployableError, deployAnswer, NothingToDeployError } from '../deploy/from-cell.ts';
import { listPresets } from '../presets/presets.ts';
import { RunInUseError, Store } from '../store/index.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { enterLab } from '../lab-lock/enter-lab.ts';
import { LabBusyError } from '../lab-lock/lab-lock.ts';
import { stopReaper } from '../reaper/reaper.ts';
import { isSessionAlive } from '../session/session.ts';
import { resolveTarget, TargetRegistry, UnknownTargetError, UnreadableTargetError } from '../targets/registry.ts';
import { LOCAL_TARGET } from '../targets/settings.ts';
import {
  ContractError,
  type AppBuildLine,
  type AppCheck,
  type AppInfo,
  type CallInput,
  type CallName,
  type CallOutput,
  type EngineStatus,
  type MatrixCheck,
  type SaveFile,
  type Settings,
  type SizeCheck,
  type StreamEvent,
  type StreamInput,
  type StreamName,
} from '../contract/api.ts';

const appInvalid = (problems: { path: string; message: string }[]): ContractError =>
  new ContractError({
    code: 'APP_INVALID',
    message: `The app is not valid; nothing was saved:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`,
    fields: problems,
  });

function toCheck(r: Resolved): AppCheck {
  if (!r.ok) return { ok: false, problems: r.problems, notes: [] };
  const d = r.definition;
  return {
    ok: true,
    problems: [],
    notes: r.notes,
    resolved: {
      entry: d.entry,
      args: d.source.kind === 'folder' ? d.source.args : [],
      env: d.env,
      version: d.version,
      description: d.description,
    },
  };
}

export type Handlers = { [K in CallName]: (input: CallInput<K>) => Promise<CallOutput<K>> | CallOutput<K> };

/** What only the host can do (the Electron shell: a native save dialog). */
export interface HostHooks {
  saveFile?: (file: SaveFile) => Promise<CallOutput<'files.save'>>;
}

const DEFAULT_SETTINGS: Settings = { baseImage: 'auto' };

/** How long a target's concurrency is kept for the Builder's estimate, and how long an estimate waits for it. */
const CONCURRENCY_TTL_MS = 30_000;
const CONCURRENCY_WAIT_MS = 2_000;
interface ConcurrencyEntry {
  provider: Provider;
  askedAt: number;
  settled: boolean;
  /** The answer; undefined while it is out, or when the target failed to give one. */
  k?: number;
  answer: Promise<void>;
}

/**
 * The engine as a service: what every UI transport calls. Owns the store, the one active run (two
 * at once would fight for the same cores and both measure the fight) and the Docker status, which
 * it re-checks so a UI banner clears by itself once Docker comes up.
 */
export class Lab {
  private readonly bus = new EventEmitter();
  private engine: EngineInfo | null = null;
  private status: EngineStatus;
  private active?: { runId: number; apps: string[]; abort: AbortController; done: Promise<unknown> };
  /**
   * The log so far of each build in progress, by app name (one build at a time per app): a
   * subscriber that arrives late (a socket still opening) gets it first.
   */
  private readonly buildLines = new Map<string, string[]>();
  private starting = false;
  private timer?: NodeJS.Timeout;
  /** Aborted by close(): stops builds started from the Apps screen. */
  private readonly builds = new AbortController();
  private readonly buildJobs = new Set<Promise<unknown>>();
  readonly handlers: Handlers;
  /** Saved targets as providers, one client per connection. */
  readonly targets: TargetRegistry;
  /**
   * The same targets for the Builder's estimate only: concurrency() records the nodes a run's slots
   * go to (Swarm), so an estimate asked during a run must not ask the run's own provider.
   */
  private readonly estimateTargets: TargetRegistry;
  /** Each saved target's concurrency as last asked for an estimate, by name. */
  private readonly concurrency = new Map<string, ConcurrencyEntry>();

  private constructor(
    readonly store: Store,
    readonly startup: Startup,
    private readonly recheckMs: { down: number; up: number },
    private readonly hooks: HostHooks,
  ) {
    this.bus.setMaxListeners(0); // one listener per UI subscription
    this.engine = startup.engine ?? null; // start-up has just checked Docker: no need to ask again
    this.status = this.describe(startup.dockerError ?? null);
    this.targets = new TargetRegistry(store);
    this.estimateTargets = new TargetRegistry(store);
    this.handlers = this.makeHandlers();
  }

  /**
   * Opens the store at `dbPath` and recovers from an earlier crash; or takes a store a caller has
   * already opened and recovered (the CLI, which reports the recovery its own way).
   */
  static async open(
    o: ({ dbPath: string } | { store: Store; startup: Startup }) & {
      recheckMs?: { down: number; up: number };
      hooks?: HostHooks;
    },
  ): Promise<Lab> {
    const store = 'store' in o ? o.store : Store.open(o.dbPath);
    const startup = 'store' in o ? o.startup : await recoverAtStartup(store);
    const lab = new Lab(store, startup, o.recheckMs ?? { down: 3000, up: 30_000 }, o.hooks ?? {});
    const error = lab.engine ? null : (startup.dockerError ?? 'Docker is not available');
    lab.schedule(error);
    lab.publish(error);
    return lab;
  }

  /** Stops the builds in progress (a CLI's Ctrl-C): each one's call fails with the cancellation. */
  cancelBuilds(): void {
    this.builds.abort();
  }

  /** Cancels a run in progress and waits for its teardown, then closes the store. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.builds.abort(); // a build in progress stops: dockerd cancels it when its request closes
    if (this.active) {
      this.active.abort.abort();
      await this.active.done.catch(() => {});
    }
    await Promise.allSettled(this.buildJobs);
    await stopReaper(); // nothing of this session is left: the reaper makes its last pass and goes
    this.bus.removeAllListeners();
    this.store.close();
  }

  subscribe<K extends StreamName>(name: K, input: StreamInput<K>, listener: (e: StreamEvent<K>) => void): () => void {
    const send = listener as (e: unknown) => void;
    const forRun = (e: RunEvent): boolean => {
      const want = input as { runId?: number; cellId?: number };
      return (
        (want.runId === undefined || e.runId === want.runId) &&
        (want.cellId === undefined || ('cellId' in e && e.cellId === want.cellId))
      );
    };
    const onRun =
      (keep: (e: RunEvent) => boolean) =>
      (e: RunEvent): void =>
        void (keep(e) && forRun(e) && send(e));
    const forApp = (e: AppBuildLine): void =>
      void (((input as { name?: string }).name ?? e.name) === e.name && send(e));
    const filters: Record<
      StreamName,
      ['status', (e: EngineStatus) => void] | ['run', (e: RunEvent) => void] | ['build', typeof forApp]
    > = {
      'engine.status': ['status', send],
      'apps.buildLog': ['build', forApp],
      'run.progress': ['run', onRun((e) => e.type !== 'sample')],
      'run.samples': ['run', onRun((e) => e.type === 'sample')],
      'run.cellFinished': ['run', onRun((e) => e.type === 'cell-finished')],
    };
    const [event, fn] = filters[name] as [string, (e: unknown) => void];
    this.bus.on(event, fn);
    if (name === 'engine.status') send(this.status); // a new subscriber gets the current state at once
    if (name === 'apps.buildLog')
      for (const [app, lines] of this.buildLines) for (const line of lines) forApp({ name: app, line });
    return () => void this.bus.off(event, fn);
  }

  private limits(): HostLimits {
    const lib = appLibrary(this.store);
    return hostLimits(this.engine, appNames(lib), imageAppsOf(lib));
  }

  private describe(error: string | null): EngineStatus {
    const l = hostLimits(this.engine, []); // only cores and memory: no need to read the app library
    const e = this.engine;
    return {
      docker:
        e && !error
          ? { ok: true, version: e.version, cpus: e.cpus, memoryBytes: e.memoryBytes, cgroupVersion: e.cgroupVersion }
          : { ok: false, error: error ?? 'not checked yet' },
      limits: {
        cores: l.cores,
        memoryMb: l.memoryMb,
        minMemoryMb: MIN_MEMORY_MB,
        largeMatrixCells: LARGE_MATRIX_CELLS,
      },
      activeRunId: this.active?.runId ?? null,
      checkedAt: new Date().toISOString(),
    };
  }

  private publish(error: string | null): EngineStatus {
    const before = JSON.stringify({ ...this.status, checkedAt: '' });
    this.status = this.describe(error);
    if (JSON.stringify({ ...this.status, checkedAt: '' }) !== before) this.bus.emit('status', this.status);
    return this.status;
  }

  /** Checks Docker now, then again later: often while it is down, rarely while it is up. */
  async recheck(): Promise<EngineStatus> {
    clearTimeout(this.timer);
    const error = await this.checkDocker();
    this.schedule(error);
    return this.publish(error);
  }

  /** Asks Docker now; the error, or null when it answered. */
  private async checkDocker(): Promise<string | null> {
    try {
      this.engine = await checkEngine();
      return null;
    } catch (e) {
      this.engine = null;
      return (e as Error).message;
    }
  }

  /** The next check: soon while Docker is down, rarely while it is up. */
  private schedule(error: string | null): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.recheck(), error ? this.recheckMs.down : this.recheckMs.up);
    this.timer.unref();
  }

  /** The matrix alone, estimated `k` cells at once with the run's own ETA rule (cell-pool's etaSec). */
  private check(matrix: unknown, k = 1): MatrixCheck {
    const v = validateMatrix(matrix, this.limits());
    if (!v.ok) return { ok: false, cells: 0, etaSec: 0, cellsAtOnce: 1, problems: v.problems };
    return {
      ok: true,
      cells: v.cells,
      etaSec: etaSec(new Array<number>(v.cells).fill(v.matrix.warmupSec + v.matrix.durationSec), CELL_OVERHEAD_SEC, k),
      cellsAtOnce: k,
      problems: [],
    };
  }

  /**
   * `matrix.validate`: the matrix, and for a saved target its cells at once as a run would take
   * them (poolSize over the provider's concurrency). An unknown or unreadable name is a problem at
   * 'target'; a target that does not answer within CONCURRENCY_WAIT_MS is estimated one cell at a time, in words.
   */
  private async validate(matrix: unknown, name: string | undefined): Promise<MatrixCheck> {
    const base = this.check(matrix);
    if (name === undefined || name === LOCAL_TARGET) {
      const forecast = base.ok ? this.forecast(matrix) : undefined;
      return forecast ? { ...base, forecast } : base;
    }
    let provider: Provider;
    try {
      provider = this.estimateTargets.provider(name);
    } catch (e) {
      if (!(e instanceof UnknownTargetError || e instanceof UnreadableTargetError)) throw e;
      return { ...base, ok: false, target: name, problems: [...base.problems, { path: 'target', message: e.message }] };
    }
    if (!base.ok) return { ...base, target: name };
    const asked = await this.concurrencyOf(name, provider);
    const k = await poolSize({ concurrency: () => Promise.resolve(asked ?? 1) }, base.cells);
    return {
      ...this.check(matrix, k),
      target: name,
      ...(asked === undefined ? { note: `estimate assumes one cell at a time: ${name} did not answer` } : {}),
    };
  }

  /**
   * Which cells of a valid matrix are likely client-bound on this machine (engine/client-forecast.ts),
   * from this host's history and its stored load-thread ceiling. Undefined with nothing to go on; a
   * forecast that fails (an unreadable history) never fails the validation.
   */
  private forecast(matrix: unknown): ClientForecast | undefined {
    try {
      const limits = this.limits();
      const v = validateMatrix(matrix, limits);
      return v.ok ? forecastMatrix(this.store, v.matrix, limits.cores, limits.imageApps) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A target's concurrency for estimates: asked once per CONCURRENCY_TTL_MS (per name and provider,
   * so changed settings ask again), waited on at most CONCURRENCY_WAIT_MS from the ask — a later
   * validation while the answer is still out does not wait again. Undefined: no answer (yet, or an error).
   */
  private async concurrencyOf(name: string, provider: Provider): Promise<number | undefined> {
    let e = this.concurrency.get(name);
    if (!e || e.provider !== provider || Date.now() - e.askedAt > CONCURRENCY_TTL_MS) {
      const entry: ConcurrencyEntry = { provider, askedAt: Date.now(), settled: false, answer: Promise.resolve() };
      entry.answer = Promise.resolve()
        .then(() => (provider.concurrency ? provider.concurrency() : 1))
        .then(
          (k) => void (entry.k = k),
          () => {},
        )
        .finally(() => void (entry.settled = true));
      this.concurrency.set(name, (e = entry));
    }
    const wait = e.askedAt + CONCURRENCY_WAIT_MS - Date.now();
    if (!e.settled && wait > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([e.answer, new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
    }
    return e.k;
  }

  private settings(): Settings {
    return { ...DEFAULT_SETTINGS, ...(this.store.getSettings() as Partial<Settings>) };
  }

  private run(runId: number) {
    const run = this.store.getRun(runId);
    if (!run) throw new ContractError({ code: 'NOT_FOUND', message: `There is no run ${runId}.` });
    return run;
  }

  private async start(input: CallInput<'runs.start'>): Promise<{ runId: number }> {
    const provider = this.providerFor(input.target);
    this.canStart();
    const checked = this.check(input.matrix);
    if (!checked.ok)
      throw new ContractError({
        code: 'MATRIX_INVALID',
        message: 'The matrix is not valid; nothing was started.',
        fields: checked.problems,
      });
    const apps = (input.matrix as { apps?: string[] }).apps ?? [];
    return this.launch(apps, (o) =>
      runMatrix(input.matrix, {
        ...o,
        ...(input.name ? { name: input.name } : {}),
        ...(input.preset ? { preset: input.preset } : {}),
        ...(provider ? { provider } : {}),
      }),
    );
  }

  /**
   * An auto-size search: a run like any other (one at a time, the lab, events per cell, runs.cancel), its path in
   * RunDetail.search.
   */
  private async size(input: CallInput<'runs.size'>): Promise<{ runId: number }> {
    const provider = this.providerFor(input.target);
    this.canStart();
    const checked = this.checkSize(input.spec);
    if (!checked.ok)
      throw new ContractError({
        code: 'SIZE_INVALID',
        message: 'The auto-size request is not valid; nothing was started.',
        fields: checked.problems,
      });
    const app = (input.spec as { app: string }).app;
    return this.launch([app], (o) =>
      runSearch(input.spec, { ...o, ...(input.name ? { name: input.name } : {}), ...(provider ? { provider } : {}) }),
    );
  }

  private checkSize(spec: unknown): SizeCheck {
    const v = validateSizeSpec(spec, this.limits());
    if (!v.ok) return { ok: false, problems: v.problems, gridCells: 0, maxCells: 0, etaSec: 0 };
    return { ok: true, problems: [], gridCells: v.gridCells, maxCells: v.spec.maxCells, etaSec: sizeEtaSec(v.spec) };
  }

  /** A target by name in contract terms: an unknown name is NOT_FOUND with did-you-mean and the saved ones. */
  private target<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof UnknownTargetError) throw new ContractError({ code: 'NOT_FOUND', message: e.message });
      if (e instanceof UnreadableTargetError) throw new ContractError({ code: 'CONFLICT', message: e.message });
      throw e;
    }
  }

  /**
   * Where a run asked to go: undefined for this machine's engine, else the saved target's provider (unknown:
   * NOT_FOUND).
   */
  private providerFor(name: string | undefined): Provider | undefined {
    if (name === undefined || name === LOCAL_TARGET) return undefined;
    return this.target(() => this.targets.provider(name));
  }

  private canStart(): void {
    if (this.active || this.starting) {
      const which = this.active ? `Run ${this.active.runId}` : 'A run';
      throw new ContractError({
        code: 'CONFLICT',
        message: `${which} is in progress: wait for it or cancel it first.`,
      });
    }
    if (!this.engine)
      throw new ContractError({
        code: 'DOCKER_UNAVAILABLE',
        message: this.status.docker.ok ? 'Docker is not available' : this.status.docker.error,
      });
  }

  /** Starts a run (a matrix or a search) in the background; resolves with its id as soon as it has one. */
  private async launch(
    apps: string[],
    go: (o: {
      store: Store;
      base: Settings['baseImage'];
      signal: AbortSignal;
      onEvent: (e: RunEvent) => void;
      onRunId: (id: number) => void;
    }) => Promise<unknown>,
  ): Promise<{ runId: number }> {
    this.starting = true;
    // The run registers itself as active the moment it has an id, so however fast it ends, the
    // `finally` below finds it and clears it: no stale "in progress" can block later starts.
    const active = { runId: 0, apps, abort: new AbortController(), done: Promise.resolve() as Promise<unknown> };
    let gotId!: (id: number) => void;
    const idKnown = new Promise<number>((resolve) => (gotId = resolve));
    const done = go({
      store: this.store,
      base: this.settings().baseImage,
      signal: active.abort.signal,
      onEvent: (e) => this.bus.emit('run', e),
      onRunId: (id) => {
        active.runId = id;
        this.active = active;
        this.publish(this.status.docker.ok ? null : this.status.docker.error);
        gotId(id);
      },
    });
    // Errors after the run started become its status; only the ones before it reach the caller below.
    active.done = done
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        if (this.active === active) this.active = undefined;
        this.publish(this.status.docker.ok ? null : this.status.docker.error);
      });
    try {
      return { runId: await Promise.race([idKnown, done.then(() => active.runId)]) };
    } catch (e) {
      if (e instanceof LabBusyError)
        throw new ContractError({ code: 'CONFLICT', message: `${e.message} Try again when it is done.` });
      if (e instanceof TargetNotReadyError) throw new ContractError({ code: 'CONFLICT', message: e.message });
      throw e;
    } finally {
      this.starting = false;
    }
  }

  private listApps(): AppInfo[] {
    const lib = appLibrary(this.store);
    const builtIn: AppInfo[] = lib.builtIn.map(({ dir: _d, entry: _e, version: _v, source: _s, ...a }) => ({
      ...a,
      kind: 'builtin',
      fixedWorkers: false,
    }));
    return [...builtIn, ...lib.user.map(userAppInfo)];
  }

  private userApp(name: string): UserApp {
    // A stored definition that no longer parses (a newer Rightsize wrote it) counts as absent, as in the app library.
    const stored = this.store.getUserApp(name);
    const parsed = stored ? UserAppSchema.safeParse(stored.definition) : undefined;
    const app = parsed?.success ? parsed.data : undefined;
    if (!app) {
      const builtIn = builtInApps().some((a) => a.name === name);
      throw new ContractError({
        code: 'NOT_FOUND',
        message: builtIn
          ? `"${name}" is a built-in app: it cannot be changed or removed.`
          : `There is no app named "${name}".`,
      });
    }
    return app;
  }

  private notInUse(name: string, what: string): void {
    if (this.active?.apps.includes(name)) {
      throw new ContractError({
        code: 'CONFLICT',
        message: `Run ${this.active.runId} is using "${name}": wait for it or cancel it before you ${what} the app.`,
      });
    }
  }

  /** Every check of a user app. `replacing`: the app being edited keeps its own name. */
  private resolveApp(input: unknown, replacing?: string): Promise<Resolved> {
    const taken = [
      ...builtInApps().map((a) => ({ name: a.name, builtIn: true })),
      ...this.store
        .listUserApps()
        .filter((a) => a.name !== replacing)
        .map((a) => ({ name: a.name, builtIn: false })),
    ];
    return resolveUserApp(input, { taken, findImage: (image) => findImage(image) });
  }

  /**
   * Checks and saves a user app: a new one, or (`replacing`) the one of that name, which may be
   * renamed. One resolve for both the check and the save; `notes` say what was read or assumed.
   */
  async saveApp(app: unknown, replacing?: string): Promise<{ info: AppInfo; notes: string[] }> {
    if (replacing !== undefined) {
      this.userApp(replacing);
      this.notInUse(replacing, 'edit');
    }
    const r = await this.resolveApp(app, replacing);
    if (!r.ok) throw appInvalid(r.problems);
    if (replacing !== undefined) this.store.updateUserApp(replacing, r.app.name, r.app);
    else this.store.addUserApp(r.app.name, r.app);
    return { info: userAppInfo(r.app), notes: r.notes };
  }

  /**
   * Builds an app's image now, so a broken Dockerfile context or install shows up on the Apps
   * screen rather than at the start of a run. Refused during a run: a build would take the CPU
   * the run is measuring.
   */
  private async buildApp(name: string): Promise<{ tag: string; built: boolean; seconds: number }> {
    if (this.active)
      throw new ContractError({
        code: 'CONFLICT',
        message: `Run ${this.active.runId} is in progress: building now would disturb its measurements. Build when it is done.`,
      });
    if (this.buildLines.has(name))
      throw new ContractError({ code: 'CONFLICT', message: `"${name}" is already being built.` });
    if (!this.engine)
      throw new ContractError({
        code: 'DOCKER_UNAVAILABLE',
        message: this.status.docker.ok ? 'Docker is not available' : this.status.docker.error,
      });
    const builtIn = builtInApps().find((a) => a.name === name);
    const user = builtIn ? undefined : this.userApp(name);
    const t0 = performance.now();
    const lines: string[] = [];
    const log = (line: string): void => {
      if (lines.push(line) > 2000) lines.shift();
      this.bus.emit('build', { name, line });
    };
    this.buildLines.set(name, lines);
    const job = (async () => {
      let def = builtIn;
      if (user) {
        const r = await resolveUserApp(user, { taken: [], findImage: (image) => findImage(image, log) });
        if (!r.ok) throw appInvalid(r.problems);
        def = r.definition;
      }
      const strategy = this.settings().baseImage;
      // A build takes the CPU a run would measure: like a run, it takes the lab (engine-wide).
      const { base, lease, noReaper } = await enterLab(this.engine!, {
        what: `a build of "${name}" (history: ${this.store.path})`,
        strategy,
        signal: this.builds.signal,
        onLog: log,
      });
      if (noReaper) log(`warning: ${noReaper}; if this process dies, the next Rightsize start removes what it left`);
      try {
        const img = await withBuildSignal(this.builds.signal, () =>
          ensureAppImage(def!, () => Promise.resolve(base), log),
        );
        log(img.built ? `built ${img.tag}` : `${img.tag} is up to date`);
        return { tag: img.tag, built: img.built, seconds: (performance.now() - t0) / 1000 };
      } finally {
        await lease.release().catch(() => {});
      }
    })();
    this.buildJobs.add(job);
    void job.catch(() => {}).finally(() => this.buildJobs.delete(job));
    try {
      return await job;
    } catch (e) {
      if (e instanceof ContractError) throw e;
      if (e instanceof LabBusyError)
        throw new ContractError({ code: 'CONFLICT', message: `${e.message} Build when it is done.` });
      log(`build failed: ${(e as Error).message.split('\n')[0]}`);
      throw new ContractError({ code: 'BUILD_FAILED', message: (e as Error).message });
    } finally {
      this.buildLines.delete(name);
    }
  }

  private makeHandlers(): Handlers {
    return {
      'engine.status': () => this.status,
      'engine.recheck': () => this.recheck(),
      'apps.list': () => this.listApps(),
      'apps.check': async ({ app, replacing }) => toCheck(await this.resolveApp(app, replacing)),
      'apps.add': async ({ app }) => (await this.saveApp(app)).info,
      'apps.update': async ({ name, app }) => (await this.saveApp(app, name)).info,
      'apps.remove': ({ name }) => {
        this.userApp(name);
        this.notInUse(name, 'remove');
        return { removed: this.store.deleteUserApp(name) };
      },
      'apps.build': ({ name }) => this.buildApp(name),
      'presets.list': () => listPresets(),
      'matrix.validate': ({ matrix, target }) => this.validate(matrix, target),
      'runs.start': (input) => this.start(input),
      'size.validate': ({ spec }) => this.checkSize(spec),
      'runs.size': (input) => this.size(input),
      'runs.cancel': ({ runId }) => {
        if (this.active?.runId !== runId) return { cancelled: false };
        this.active.abort.abort();
        return { cancelled: true };
      },
      'runs.list': (q) => this.store.listRuns(q),
      'runs.get': ({ runId }) => this.run(runId),
      'runs.delete': ({ runId }) => {
        if (this.active?.runId === runId)
          throw new ContractError({
            code: 'CONFLICT',
            message: `Run ${runId} is in progress: cancel it before deleting it.`,
          });
        let deleted: boolean;
        try {
          deleted = this.store.deleteRun(runId, isSessionAlive); // another process may be running it
        } catch (e) {
          if (e instanceof RunInUseError) throw new ContractError({ code: 'CONFLICT', message: e.message });
          throw e;
        }
        if (!deleted) throw new ContractError({ code: 'NOT_FOUND', message: `There is no run ${runId}.` });
        return { deleted: true };
      },
      'runs.samples': ({ runId }) =>
        [...this.store.getRunSamples(this.run(runId).id)].map(([cellId, samples]) => ({ cellId, samples })),
      'cells.samples': ({ cellId }) => this.store.getSamples(cellId),
      'export.csv': ({ runId, kind }) => {
        const run = this.run(runId);
        const content = kind === 'cells' ? cellsCsv(run) : samplesCsv(run, this.store.getRunSamples(runId));
        return { filename: `rightsize-run-${runId}-${kind}.csv`, mime: 'text/csv', content };
      },
      'files.save': (file) =>
        this.hooks.saveFile?.(file) ?? {
          saved: false,
          reason: 'this host has no save dialog: the browser downloads the file',
        },
      'runs.recommend': ({ runId, marginPct, slo }) =>
        recommend(this.run(runId), {
          samples: this.store.getRunSamples(runId),
          ...(marginPct !== undefined ? { marginPct } : {}),
          ...(slo ? { slo } : {}),
        }),
      'export.html': ({ runId, marginPct, slo }) => {
        const run = this.run(runId);
        const samples = this.store.getRunSamples(runId);
        const rec = recommend(run, {
          samples,
          ...(marginPct !== undefined ? { marginPct } : {}),
          ...(slo ? { slo } : {}),
        });
        return {
          filename: `rightsize-run-${runId}-report.html`,
          mime: 'text/html',
          content: htmlReport(run, samples, rec),
        };
      },
      'deploy.snippets': ({ runId, marginPct, slo, cellId }) => {
        const run = this.run(runId);
        const samples = this.store.getRunSamples(runId);
        const rec = recommend(run, {
          samples,
          ...(marginPct !== undefined ? { marginPct } : {}),
          ...(slo ? { slo } : {}),
        });
        try {
          return deployAnswer(run, rec, samples, cellId);
        } catch (e) {
          if (e instanceof CellNotDeployableError || e instanceof NothingToDeployError)
            throw new ContractError({ code: 'NOT_FOUND', message: e.message });
          throw e;
        }
      },
      'settings.get': () => this.settings(),
      'settings.set': (values) => {
        this.store.setSettings(values);
        return this.settings();
      },
      'targets.list': () => this.targets.list(),
      'targets.add': async ({ target }) => {
        const r = await this.targets.add(target);
        if (!r.ok)
          throw new ContractError({
            code: 'INVALID_INPUT',
            message: `The target is not valid; nothing was saved:\n${r.problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`,
            fields: r.problems,
          });
        return r.info;
      },
      'targets.remove': ({ name }) => {
        if (name === LOCAL_TARGET)
          throw new ContractError({
            code: 'CONFLICT',
            message: '"local" is this machine\'s Docker engine: it is always there and cannot be removed.',
          });
        return { removed: this.target(() => this.targets.remove(name)) };
      },
      'targets.check': ({ name }) => {
        this.target(() => resolveTarget(this.store, name)); // an unknown name is NOT_FOUND, before any connection
        return this.targets.check(name);
      },
    };
  }
}
