// One run at a time (two at once would fight for the same cores and both measure the fight): a
// matrix run or an auto-size search is reserved, checked, then started in the background; its
// events go on the bus, runs.cancel stops it, and close waits for its teardown.
import type { EventEmitter } from 'node:events';
import type { CallInput } from '../contract/api.ts';
import type { BaseStrategy } from '../docker/base-image.ts';
import { runSearch } from '../engine/auto-size/run-search.ts';
import { runMatrix, type RunOptions } from '../engine/run-matrix.ts';
import type { RunEvent } from '../model/events.ts';
import type { Provider } from '../providers/provider.ts';
import type { Store } from '../store/index.ts';
import { conflict, dockerUnavailable } from './errors.ts';

export interface SupervisorOptions {
  store: Store;
  /** Where 'run' events go. */
  bus: EventEmitter;
  /** The base image strategy, as the settings say when the run starts. */
  base: () => BaseStrategy;
  /** Why Docker cannot run anything now, or null when it can. */
  unavailable: () => string | null;
  /** Called when the active run changes (the engine status names it). */
  changed: () => void;
}

interface ActiveRun {
  runId: number;
  apps: string[];
  abort: AbortController;
  done: Promise<unknown>;
}

/** What every run is given by the supervisor. */
type Launch = Required<Pick<RunOptions, 'store' | 'base' | 'signal' | 'onEvent' | 'onRunId'>>;

/** Where a run goes and what it is called, as the contract asks. */
const runOptions = (input: { name?: string; preset?: string }, provider: Provider | undefined) => ({
  ...(input.name ? { name: input.name } : {}),
  ...(input.preset ? { preset: input.preset } : {}),
  ...(provider ? { provider } : {}),
});

export class RunSupervisor {
  private active?: ActiveRun;
  /** A start between its reservation and its run id (its checks, the engine's start). */
  private starting = false;
  /** Set by close(): a start still being checked then starts nothing. */
  private closed = false;

  constructor(private readonly o: SupervisorOptions) {}

  get activeRunId(): number | null {
    return this.active?.runId ?? null;
  }

  /** The run in progress if it uses the app `name`. */
  using(name: string): number | undefined {
    return this.active?.apps.includes(name) ? this.active.runId : undefined;
  }

  /**
   * `runs.start`: `check` (the matrix where its cells run) after the one-run rule and before the run,
   * with the start reserved meanwhile so that no second start can slip in.
   */
  matrix(input: CallInput<'runs.start'>, provider: Provider | undefined, check: () => Promise<void>) {
    const apps = (): string[] => (input.matrix as { apps?: string[] }).apps ?? [];
    return this.launch(check, apps, (o) => runMatrix(input.matrix, { ...o, ...runOptions(input, provider) }));
  }

  /**
   * `runs.size`: an auto-size search, a run like any other (one at a time, the lab, events per cell,
   * runs.cancel), its path in RunDetail.search.
   */
  search(input: CallInput<'runs.size'>, provider: Provider | undefined, check: () => Promise<void>) {
    const apps = (): string[] => [(input.spec as { app: string }).app];
    return this.launch(check, apps, (o) => runSearch(input.spec, { ...o, ...runOptions(input, provider) }));
  }

  /** `runs.cancel`: stops the run if it is the one in progress. */
  cancel(runId: number): boolean {
    if (this.active?.runId !== runId) return false;
    this.active.abort.abort();
    return true;
  }

  /** Cancels the run in progress and waits for its teardown. */
  async close(): Promise<void> {
    this.closed = true;
    if (!this.active) return;
    this.active.abort.abort();
    await this.active.done.catch(() => {});
  }

  /** Refuses a start during another run, or while Docker does not answer. */
  private canStart(): void {
    if (this.active || this.starting)
      throw conflict(
        `${this.active ? `Run ${this.active.runId}` : 'A run'} is in progress: wait for it or cancel it first.`,
      );
    const why = this.o.unavailable();
    if (why) throw dockerUnavailable(why);
  }

  /** Starts a run (a matrix or a search) in the background; resolves with its id as soon as it has one. */
  private async launch(
    check: () => Promise<void>,
    apps: () => string[],
    go: (o: Launch) => Promise<unknown>,
  ): Promise<{ runId: number }> {
    this.canStart();
    this.starting = true;
    try {
      await check();
      if (this.closed) throw conflict('Rightsize is closing: nothing was started.');
      return await this.begin(apps(), go);
    } finally {
      this.starting = false;
    }
  }

  private async begin(apps: string[], go: (o: Launch) => Promise<unknown>): Promise<{ runId: number }> {
    // The run registers itself as active the moment it has an id, so however fast it ends, the
    // `finally` below finds it and clears it: no stale "in progress" can block later starts.
    const active: ActiveRun = { runId: 0, apps, abort: new AbortController(), done: Promise.resolve() };
    let gotId!: (id: number) => void;
    const idKnown = new Promise<number>((resolve) => (gotId = resolve));
    const done = go({
      store: this.o.store,
      base: this.o.base(),
      signal: active.abort.signal,
      onEvent: (e: RunEvent) => this.o.bus.emit('run', e),
      onRunId: (id) => {
        active.runId = id;
        this.active = active;
        this.o.changed();
        gotId(id);
      },
    });
    // Errors after the run started become its status; only the ones before it reach the caller.
    active.done = done
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        if (this.active === active) this.active = undefined;
        this.o.changed();
      });
    return { runId: await Promise.race([idKnown, done.then(() => active.runId)]) };
  }
}
