import Database from 'better-sqlite3';
import type { CellConfig, CellResult, RunStatus, Sample } from '../model/types.ts';
import type { SearchTrace } from '../model/search.ts';
import type { RunPick } from '../model/stored.ts';
import { CellQueries } from './cells.ts';
import { migrate } from './migrations.ts';
import { ensureParentDir } from './paths.ts';
import { retryWhileBusy } from './busy-retry.ts';
import { RunQueries } from './runs.ts';
import type { ListRunsQuery, NewRun, RunDetail, RunList } from '../model/stored.ts';
import { RunPickQueries } from './run-picks.ts';
import { SampleQueries } from './samples.ts';
import { ProbeQueries, type StoredCellProbe } from './probe.ts';
import type { CellProbe, ProbeSecond } from '../model/probe.ts';
import { UserAppQueries, type StoredUserApp } from './user-apps.ts';
import { TargetQueries } from './targets.ts';
import { BaselineQueries } from './baselines.ts';
import { TimingQueries } from './timings.ts';
import { describeSession } from '../session/session.ts';

export const INTERRUPTED_ERROR = 'interrupted: the process running it stopped';

/** A run still being measured by a live process cannot be deleted under it. */
export class RunInUseError extends Error {
  readonly code = 'RUN_IN_USE';
  constructor(
    readonly runId: number,
    readonly ownerSession: string,
  ) {
    super(`Run ${runId} is still running (${describeSession(ownerSession)}): cancel it before deleting it.`);
    this.name = 'RunInUseError';
  }
}

const nowIso = (): string => new Date().toISOString();

/**
 * Every run, cell and per-second sample, in one SQLite file. Several processes (the CLI, the desktop
 * app) may open the same file: WAL lets readers work while a run writes, and writes that read first
 * take the write lock up front (IMMEDIATE) so two writers wait on busy_timeout instead of failing.
 */
export class Store {
  private readonly runs: RunQueries;
  private readonly cells: CellQueries;
  private readonly samples: SampleQueries;
  private readonly probe: ProbeQueries;
  private readonly userApps: UserAppQueries;
  private readonly picks: RunPickQueries;
  /** Saved targets (where cells run): URLs and file paths, never key material. */
  readonly targets: TargetQueries;
  /** Saved baselines by app and name, and what each run was compared with. */
  readonly baselines: BaselineQueries;
  /** What earlier cells and runs took on this host, for estimates. */
  readonly timings: TimingQueries;
  private readonly settingsAll: Database.Statement<[], { key: string; value: string }>;
  private readonly settingsPut: Database.Statement<[string, string]>;

  private constructor(
    private readonly db: Database.Database,
    /** The database file, as opened. */
    readonly path: string,
  ) {
    this.runs = new RunQueries(db);
    this.cells = new CellQueries(db);
    this.samples = new SampleQueries(db);
    this.probe = new ProbeQueries(db);
    this.userApps = new UserAppQueries(db);
    this.picks = new RunPickQueries(db);
    this.targets = new TargetQueries(db);
    this.baselines = new BaselineQueries(db);
    this.timings = new TimingQueries(db);
    this.settingsAll = db.prepare<[], { key: string; value: string }>('SELECT key, value FROM settings');
    this.settingsPut = db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
  }

  /** Opens (creating if needed) and migrates the database. Errors name the file. */
  static open(file: string): Store {
    if (file !== ':memory:') ensureParentDir(file);
    let db: Database.Database | undefined;
    try {
      db = new Database(file);
      const opened = db;
      // also the first read of the file: a non-SQLite file fails here
      retryWhileBusy(() => opened.pragma('journal_mode = WAL'));
      // with WAL: durable across app crashes, only a power cut may lose the last commits
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON'); // per connection, needed for ON DELETE CASCADE
      db.pragma('busy_timeout = 5000');
      migrate(db);
      return new Store(db, file);
    } catch (e) {
      db?.close();
      throw new Error(`Cannot open the Rightsize database ${file}: ${(e as Error).message}`, { cause: e });
    }
  }

  close(): void {
    this.db.close();
  }

  /**
   * Runs `fn` in one transaction (nested calls become savepoints), e.g. to finish a cell and its samples atomically.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  createRun(r: NewRun): number {
    return this.runs.create(r, nowIso());
  }

  /** Sets the final status and finished_at. Returns false when the run does not exist. */
  finishRun(runId: number, status: RunStatus, error: string | null = null): boolean {
    return this.runs.finish(runId, status, error, nowIso());
  }

  /** Stores an auto-size run's search trace (after every step, so a crash loses nothing) and its planned cell count. */
  setRunSearch(runId: number, trace: SearchTrace, cellsTotal: number): boolean {
    return this.runs.setSearch(runId, trace, cellsTotal);
  }

  /** More cells planned for a run (a settling or verification phase). */
  growRun(runId: number, cells: number): boolean {
    return this.runs.grow(runId, cells);
  }

  /**
   * A finished run claimed by this process to append cells to it (verification of an older run): its
   * status, times and error are kept; false when it is running or gone.
   */
  claimRun(runId: number, ownerSession: string): boolean {
    return this.runs.claim(runId, ownerSession);
  }

  /** Sets the planned cell count (a phase that planned more cells than it ran). */
  setCellsTotal(runId: number, cells: number): boolean {
    return this.runs.setTotal(runId, cells);
  }

  startCell(runId: number, config: CellConfig): number {
    return this.cells.start(runId, config, nowIso());
  }

  /**
   * Stores everything in the result (the config columns were set by startCell). Returns false when the cell does not
   * exist.
   */
  finishCell(cellId: number, result: CellResult): boolean {
    return this.cells.finish(cellId, result);
  }

  /** Adds (or replaces, by second) samples of a cell, in one transaction. */
  addSamples(cellId: number, samples: readonly Sample[]): void {
    this.samples.add(cellId, samples);
  }

  /**
   * Marks 'running' runs whose owner process is gone (a crash, a kill) as interrupted, with their
   * unfinished cells; finished cells keep their results. Returns the ids of the runs marked.
   */
  markInterrupted(isOwnerAlive: (ownerSession: string) => boolean): number[] {
    return this.db
      .transaction(() => {
        const alive = new Map<string, boolean>(); // one liveness check per owner, not per run
        const marked: number[] = [];
        const now = nowIso();
        for (const { id, ownerSession } of this.runs.runningRuns()) {
          let ok = alive.get(ownerSession);
          if (ok === undefined) alive.set(ownerSession, (ok = isOwnerAlive(ownerSession)));
          if (ok) continue;
          this.cells.interrupt(id, now);
          this.runs.finish(id, 'interrupted', INTERRUPTED_ERROR, now);
          marked.push(id);
        }
        // Cells appended to a finished run (verify) by a process that is gone: interrupted, the run's own status kept.
        for (const { id, ownerSession } of this.runs.finishedWithRunningCells()) {
          let ok = alive.get(ownerSession);
          if (ok === undefined) alive.set(ownerSession, (ok = isOwnerAlive(ownerSession)));
          if (!ok) this.cells.interrupt(id, now);
        }
        return marked;
      })
      .immediate();
  }

  /**
   * A page of runs. With `pickOf` (the service's answer of a stored run), each finished run's pick is
   * given back too: from the cache while the run's cells are as they were, else worked out and cached.
   */
  listRuns(q: ListRunsQuery = {}, pickOf?: (runId: number) => RunPick | null): RunList {
    const { list, stale } = this.read(() => this.runs.list(q));
    if (!pickOf) return list;
    for (const { run, basis } of stale) {
      run.pick = pickOf(run.id);
      try {
        this.picks.put(run.id, basis, run.pick);
      } catch {
        // a busy or read-only file: the pick is still shown, and worked out again next time
      }
    }
    return list;
  }

  /** The run with its cells (ordered by idx), or undefined. */
  getRun(runId: number): RunDetail | undefined {
    return this.read(() => {
      // Each cell with what its probe heard: the processes and what each believed about its box.
      const probes = this.probe.runSummaries(runId);
      const cells = this.cells.forRun(runId).map((c) => {
        const probe = probes.get(c.id);
        return probe ? { ...c, probe } : c;
      });
      return this.runs.get(runId, cells);
    });
  }

  getSamples(cellId: number): Sample[] {
    return this.samples.forCell(cellId);
  }

  /** A cell's runtime probe: what it heard, and its seconds (t < 0: warm-up), in one transaction. */
  addProbe(cellId: number, probe: CellProbe): void {
    this.probe.add(cellId, probe);
  }

  /** A cell's probe seconds, per process, ordered by second then pid. */
  getProbeSeconds(cellId: number): ProbeSecond[] {
    return this.probe.seconds(cellId);
  }

  /** Every probe second of a run in one query, keyed by cell id (cells without any are absent). */
  getRunProbeSeconds(runId: number): Map<number, ProbeSecond[]> {
    return this.probe.runSeconds(runId);
  }

  /** What a cell's probe heard (processes against expected, a note), or undefined: the probe was off. */
  getProbe(cellId: number): StoredCellProbe | undefined {
    return this.probe.summary(cellId);
  }

  /** Every sample of a run in one query, keyed by cell id (cells without samples are absent). */
  getRunSamples(runId: number): Map<number, Sample[]> {
    return this.samples.forRun(runId);
  }

  /**
   * Deletes the run, its cells and their samples. Returns false when there was no such run. With
   * `isOwnerAlive` (the Lab and the CLI pass isSessionAlive), a run still running in a live process
   * (this one or another) is refused with RunInUseError, as its cells would fail on every sample;
   * a 'running' run whose owner died is deleted (it was interrupted). Check and delete are one
   * write transaction, so the run cannot start being owned in between.
   */
  deleteRun(runId: number, isOwnerAlive?: (ownerSession: string) => boolean): boolean {
    return this.db
      .transaction(() => {
        const running = isOwnerAlive ? this.runs.runningRuns().find((r) => r.id === runId) : undefined;
        if (running && isOwnerAlive!(running.ownerSession)) throw new RunInUseError(runId, running.ownerSession);
        return this.runs.delete(runId);
      })
      .immediate();
  }

  /** Every stored setting, JSON-decoded. */
  getSettings(): Record<string, unknown> {
    const rows = this.settingsAll.all();
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }

  /** Upserts the given settings in one transaction. */
  setSettings(values: Record<string, unknown>): void {
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(values)) this.settingsPut.run(k, JSON.stringify(v));
    })();
  }

  /** The user's own apps, by name. */
  listUserApps(): StoredUserApp[] {
    return this.userApps.list();
  }

  getUserApp(name: string): StoredUserApp | undefined {
    return this.userApps.get(name);
  }

  addUserApp(name: string, definition: unknown): void {
    this.userApps.add(name, definition, nowIso());
  }

  /** Replaces the app stored as `oldName` (the new definition may carry a new name). False when there is none. */
  updateUserApp(oldName: string, name: string, definition: unknown): boolean {
    return this.userApps.replace(oldName, name, definition, nowIso());
  }

  deleteUserApp(name: string): boolean {
    return this.userApps.delete(name);
  }

  /** 'ok' when the file is sound, else SQLite's list of problems, one per line. */
  integrityCheck(): string {
    return (this.db.pragma('integrity_check') as { integrity_check: string }[])
      .map((r) => r.integrity_check)
      .join('\n');
  }

  /** Several reads from one snapshot, so a concurrent writer cannot make them disagree. */
  private read<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred();
  }
}
