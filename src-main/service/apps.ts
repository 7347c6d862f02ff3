// The Apps screen's side of the engine: the built-in and user apps, every check of a user app, and
// image builds on demand (so a broken Dockerfile context or install shows up there rather than at
// the start of a run), their log lines on the bus.
import type { EventEmitter } from 'node:events';
import { userAppInfo } from '../apps/app-info.ts';
import { builtInApps } from '../apps/catalog.ts';
import { appLibrary } from '../apps/library.ts';
import { resolveUserApp, UserAppSchema, type Resolved, type UserApp } from '../apps/user-apps.ts';
import type { AppDefinition } from '../apps/catalog.ts';
import type { TryOutResult } from '../apps/try-out.ts';
import { ensureAppImage } from '../docker/app-image.ts';
import type { BaseStrategy } from '../docker/base-image.ts';
import type { EngineInfo } from '../docker/client.ts';
import { withBuildSignal } from '../docker/image-build.ts';
import { findImage } from '../docker/image-lookup.ts';
import { tryOutApp } from '../engine/app-try-out.ts';
import { enterLab } from '../lab-lock/enter-lab.ts';
import { LabBusyError } from '../lab-lock/lab-lock.ts';
import type { Store } from '../store/index.ts';
import { ContractError, type AppCheck, type AppInfo } from '../contract/api.ts';
import { conflict, dockerUnavailable, invalid, notFound } from './errors.ts';

export interface AppsOptions {
  store: Store;
  /** Where 'build' lines go. */
  bus: EventEmitter;
  base: () => BaseStrategy;
  engine: () => EngineInfo | null;
  /** Why Docker cannot build now, or null when it can. */
  unavailable: () => string | null;
  /** The run in progress, if any, and whether it uses an app. */
  activeRunId: () => number | null;
  using: (name: string) => number | undefined;
}

const appInvalid = (problems: { path: string; message: string }[]) =>
  invalid('APP_INVALID', 'The app is not valid; nothing was saved', problems);

/** A build refused before it began (in use, busy lab, invalid app): no "build failed" line for it. */
const isRefusal = (e: unknown): boolean => e instanceof ContractError || e instanceof LabBusyError;

/** A build's log keeps its last lines only. */
const MAX_BUILD_LINES = 2000;

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

export class AppService {
  /**
   * The log so far of each build in progress, by app name (one build at a time per app): a
   * subscriber that arrives late (a socket still opening) gets it first.
   */
  private readonly lines = new Map<string, string[]>();
  /** Aborted by close(): stops builds started from the Apps screen. */
  private readonly builds = new AbortController();
  private readonly jobs = new Set<Promise<unknown>>();

  constructor(private readonly o: AppsOptions) {}

  /** The log so far of each build in progress. */
  buildLogs(): Iterable<[string, string[]]> {
    return this.lines;
  }

  list(): AppInfo[] {
    const lib = appLibrary(this.o.store);
    const builtIn: AppInfo[] = lib.builtIn.map(({ dir: _d, entry: _e, version: _v, source: _s, ...a }) => ({
      ...a,
      kind: 'builtin',
      fixedWorkers: false,
    }));
    return [...builtIn, ...lib.user.map(userAppInfo)];
  }

  async check(app: unknown, replacing?: string): Promise<AppCheck> {
    return toCheck(await this.resolve(app, replacing));
  }

  /**
   * Checks and saves a user app: a new one, or (`replacing`) the one of that name, which may be
   * renamed. One resolve for both the check and the save; `notes` say what was read or assumed.
   */
  async save(app: unknown, replacing?: string): Promise<{ info: AppInfo; notes: string[] }> {
    if (replacing !== undefined) {
      this.userApp(replacing);
      this.notInUse(replacing, 'edit');
    }
    const r = await this.resolve(app, replacing);
    if (!r.ok) throw appInvalid(r.problems);
    if (replacing !== undefined) this.o.store.updateUserApp(replacing, r.app.name, r.app);
    else this.o.store.addUserApp(r.app.name, r.app);
    return { info: userAppInfo(r.app), notes: r.notes };
  }

  remove(name: string): { removed: boolean } {
    this.userApp(name);
    this.notInUse(name, 'remove');
    return { removed: this.o.store.deleteUserApp(name) };
  }

  /** Stops the builds in progress (a CLI's Ctrl-C): each one's call fails with the cancellation. */
  cancelBuilds(): void {
    this.builds.abort();
  }

  /** Stops the builds in progress and waits for them (dockerd cancels each when its request closes). */
  async close(): Promise<void> {
    this.builds.abort();
    await Promise.allSettled(this.jobs);
  }

  /**
   * Builds an app's image now. Refused during a run: a build would take the CPU the run is
   * measuring. A failure is logged in a line, and becomes BUILD_FAILED (service/errors.ts).
   */
  async build(name: string): Promise<{ tag: string; built: boolean; seconds: number }> {
    const runId = this.o.activeRunId();
    if (runId !== null)
      throw conflict(
        `Run ${runId} is in progress: building now would disturb its measurements. Build when it is done.`,
      );
    if (this.lines.has(name)) throw conflict(`"${name}" is already being built.`);
    const engine = this.o.engine();
    if (!engine) throw dockerUnavailable(this.o.unavailable() ?? 'Docker is not available');
    const builtIn = builtInApps().find((a) => a.name === name);
    const user = builtIn ? undefined : this.userApp(name);
    const t0 = performance.now();
    const lines: string[] = [];
    const log = (line: string): void => {
      if (lines.push(line) > MAX_BUILD_LINES) lines.shift();
      this.o.bus.emit('build', { name, line });
    };
    this.lines.set(name, lines);
    const job = (async () => {
      let def = builtIn;
      if (user) {
        const r = await resolveUserApp(user, { taken: [], findImage: (image) => findImage(image, log) });
        if (!r.ok) throw appInvalid(r.problems);
        def = r.definition;
      }
      // A build takes the CPU a run would measure: like a run, it takes the lab (engine-wide).
      const { base, lease, noReaper } = await enterLab(engine, {
        what: `a build of "${name}" (history: ${this.o.store.path})`,
        strategy: this.o.base(),
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
    this.jobs.add(job);
    void job.catch(() => {}).finally(() => this.jobs.delete(job));
    try {
      return await job;
    } catch (e) {
      if (!isRefusal(e)) log(`build failed: ${(e as Error).message.split('\n')[0]}`);
      throw e;
    } finally {
      this.lines.delete(name);
    }
  }

  /**
   * Tries an app once: its image built, one container started, the health path and each request
   * asked (engine/app-try-out.ts). Refused during a run, as a build is: it would take CPU the run is
   * measuring. Its build log goes on the bus like a build's.
   */
  async tryOut(name: string): Promise<TryOutResult> {
    const runId = this.o.activeRunId();
    if (runId !== null)
      throw conflict(
        `Run ${runId} is in progress: trying "${name}" now would disturb its measurements. ` +
          'Try it when the run is done.',
      );
    if (this.lines.has(name)) throw conflict(`"${name}" is being built or tried already.`);
    const engine = this.o.engine();
    if (!engine) throw dockerUnavailable(this.o.unavailable() ?? 'Docker is not available');
    const def = await this.definition(name);
    const lines: string[] = [];
    const log = (line: string): void => {
      if (lines.push(line) > MAX_BUILD_LINES) lines.shift();
      this.o.bus.emit('build', { name, line });
    };
    this.lines.set(name, lines);
    const job = tryOutApp(def, {
      engine,
      what: `a try-out of "${name}" (history: ${this.o.store.path})`,
      strategy: this.o.base(),
      signal: this.builds.signal,
      onLog: log,
    });
    this.jobs.add(job);
    void job.catch(() => {}).finally(() => this.jobs.delete(job));
    try {
      return await job;
    } finally {
      this.lines.delete(name);
    }
  }

  /** A built-in app as it is, or a user's app resolved now (its folder or image checked again). */
  private async definition(name: string): Promise<AppDefinition> {
    const builtIn = builtInApps().find((a) => a.name === name);
    if (builtIn) return builtIn;
    const r = await resolveUserApp(this.userApp(name), { taken: [], findImage: (image) => findImage(image) });
    if (!r.ok) throw appInvalid(r.problems);
    return r.definition;
  }

  private userApp(name: string): UserApp {
    // A stored definition that no longer parses (a newer Rightsize wrote it) counts as absent, as in the app library.
    const stored = this.o.store.getUserApp(name);
    const parsed = stored ? UserAppSchema.safeParse(stored.definition) : undefined;
    if (parsed?.success) return parsed.data;
    throw notFound(
      builtInApps().some((a) => a.name === name)
        ? `"${name}" is a built-in app: it cannot be changed or removed.`
        : `There is no app named "${name}".`,
    );
  }

  private notInUse(name: string, what: string): void {
    const runId = this.o.using(name);
    if (runId !== undefined)
      throw conflict(`Run ${runId} is using "${name}": wait for it or cancel it before you ${what} the app.`);
  }

  /** Every check of a user app. `replacing`: the app being edited keeps its own name. */
  private resolve(input: unknown, replacing?: string): Promise<Resolved> {
    const taken = [
      ...builtInApps().map((a) => ({ name: a.name, builtIn: true })),
      ...this.o.store
        .listUserApps()
        .filter((a) => a.name !== replacing)
        .map((a) => ({ name: a.name, builtIn: false })),
    ];
    return resolveUserApp(input, { taken, findImage: (image) => findImage(image) });
  }
}
