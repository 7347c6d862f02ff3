// The engine as a service: what every UI transport (and the CLI's app and target commands) calls.
// It owns the store and one bus, and puts together the parts that do the work: the Docker status
// poller, the run supervisor (one active run), validation where cells run, the apps and their
// builds, and the handler table that answers the contract's calls.
import { EventEmitter } from 'node:events';
import type { AppInfo, StreamEvent, StreamInput, StreamName } from '../contract/api.ts';
import { recoverAtStartup, type Startup } from '../engine/startup.ts';
import { stopReaper } from '../reaper/reaper.ts';
import { Store } from '../store/index.ts';
import { TargetRegistry } from '../targets/registry.ts';
import { AppService } from './apps.ts';
import { makeHandlers, settingsOf, type Handlers, type HostHooks } from './handlers.ts';
import { RunSupervisor } from './run-supervisor.ts';
import { StatusPoller } from './status-poller.ts';
import { subscribe } from './streams.ts';
import { Validation } from './validation.ts';

export type { Handlers, HostHooks } from './handlers.ts';

export interface LabOptions {
  /** How often Docker is checked again: while it is down, while it is up (ms). */
  recheckMs?: { down: number; up: number };
  hooks?: HostHooks;
}

export class Lab {
  /** Every event of the lab: 'status', 'run', 'build' (service/streams.ts filters them). */
  private readonly bus = new EventEmitter();
  private readonly poller: StatusPoller;
  private readonly runs: RunSupervisor;
  private readonly apps: AppService;
  readonly handlers: Handlers;
  /** Saved targets as providers, one client per connection. */
  readonly targets: TargetRegistry;

  private constructor(
    readonly store: Store,
    readonly startup: Startup,
    o: LabOptions,
  ) {
    this.bus.setMaxListeners(0); // one listener per UI subscription
    const base = () => settingsOf(store).baseImage;
    const unavailable = () => this.poller.unavailable();
    this.runs = new RunSupervisor({ store, bus: this.bus, base, unavailable, changed: () => this.poller.refresh() });
    this.poller = new StatusPoller({
      bus: this.bus,
      recheckMs: o.recheckMs ?? { down: 3000, up: 30_000 },
      activeRunId: () => this.runs.activeRunId,
      ...(startup.engine ? { engine: startup.engine } : {}),
      ...(startup.dockerError ? { error: startup.dockerError } : {}),
    });
    const engine = () => this.poller.engine;
    const activeRunId = () => this.runs.activeRunId;
    const using = (name: string) => this.runs.using(name);
    this.apps = new AppService({ store, bus: this.bus, base, engine, unavailable, activeRunId, using });
    this.targets = new TargetRegistry(store);
    // Validation asks its own providers: a run's provider records the nodes its slots go to.
    const validation = new Validation(store, engine, new TargetRegistry(store));
    const { poller, runs, apps, targets } = this;
    this.handlers = makeHandlers({ store, poller, runs, apps, validation, targets, hooks: o.hooks ?? {} });
  }

  /**
   * Opens the store at `dbPath` and recovers from an earlier crash; or takes a store a caller has
   * already opened and recovered (the CLI, which reports the recovery its own way).
   */
  static async open(o: ({ dbPath: string } | { store: Store; startup: Startup }) & LabOptions): Promise<Lab> {
    const store = 'store' in o ? o.store : Store.open(o.dbPath);
    const startup = 'store' in o ? o.startup : await recoverAtStartup(store);
    const lab = new Lab(store, startup, o);
    lab.poller.start();
    return lab;
  }

  /** Checks Docker now, then again later: often while it is down, rarely while it is up. */
  recheck() {
    return this.poller.recheck();
  }

  /** Stops the builds in progress (a CLI's Ctrl-C): each one's call fails with the cancellation. */
  cancelBuilds(): void {
    this.apps.cancelBuilds();
  }

  /**
   * Checks and saves a user app: a new one, or (`replacing`) the one of that name, which may be
   * renamed. `notes` say what was read or assumed.
   */
  saveApp(app: unknown, replacing?: string): Promise<{ info: AppInfo; notes: string[] }> {
    return this.apps.save(app, replacing);
  }

  /** Cancels a run in progress and waits for its teardown, then closes the store. */
  async close(): Promise<void> {
    this.poller.stop();
    this.apps.cancelBuilds(); // a build in progress stops: dockerd cancels it when its request closes
    await this.runs.close();
    await this.apps.close();
    await stopReaper(); // nothing of this session is left: the reaper makes its last pass and goes
    this.bus.removeAllListeners();
    this.store.close();
  }

  subscribe<K extends StreamName>(name: K, input: StreamInput<K>, listener: (e: StreamEvent<K>) => void): () => void {
    const now = { status: () => this.poller.status, buildLogs: () => this.apps.buildLogs() };
    return subscribe(this.bus, now, name, input, listener);
  }
}
