import type Database from 'better-sqlite3';
import type {
  Bottleneck,
  CellConfig,
  CellResult,
  CellStatus,
  DependencyReading,
  Flag,
  LoadResult,
  RanOn,
  StatsSummary,
} from '../model/types.ts';
import type { StoredCell } from '../model/stored.ts';
import type { ReplicaReading } from '../model/replicas.ts';
export type { StoredCell };

/** The columns of `cells` as better-sqlite3 returns them. */
interface CellRow {
  id: number;
  run_id: number;
  config_json: string;
  status: CellStatus;
  failure: string | null;
  rps_mean: number | null;
  rps_stddev: number | null;
  bytes_per_sec: number | null;
  p50_us: number | null;
  p75_us: number | null;
  p90_us: number | null;
  p97_5_us: number | null;
  p99_us: number | null;
  p99_9_us: number | null;
  max_us: number | null;
  mean_us: number | null;
  stddev_us: number | null;
  requests: number | null;
  errors: number | null;
  timeouts: number | null;
  non2xx: number | null;
  client_bound: number | null;
  cpu_pct_mean: number | null;
  cpu_pct_max: number | null;
  mem_max_bytes: number | null;
  mem_limit_bytes: number | null;
  throttled_ms: number | null;
  oom_killed: number | null;
  exit_code: number | null;
  restarts: number | null;
  load_json: string | null;
  stats_json: string | null;
  flags_json: string;
  bottleneck: Bottleneck | null;
  image_tag: string | null;
  ran_on: string | null;
  started_at: string;
  finished_at: string | null;
}

type Param = string | number | null;
const bool = (b: boolean | undefined): number | null => (b === undefined ? null : b ? 1 : 0);

// Config columns are filtered on and sorted by; config_json keeps the whole config (env, recycle…).
const START_SQL = `
  INSERT INTO cells (run_id, idx, repetition, app, mode, workers, cpu_millis, memory_mb, load_model, connections,
                     target_rate, config_json, status, started_at)
  VALUES (@run_id, @idx, @repetition, @app, @mode, @workers, @cpu_millis, @memory_mb, @load_model, @connections,
          @target_rate, @config_json, 'running', @started_at)`;

const FINISH_SQL = `
  UPDATE cells SET status = @status, failure = @failure,
    rps_mean = @rps_mean, rps_stddev = @rps_stddev, bytes_per_sec = @bytes_per_sec,
    p50_us = @p50_us, p75_us = @p75_us, p90_us = @p90_us, p97_5_us = @p97_5_us, p99_us = @p99_us,
    p99_9_us = @p99_9_us, max_us = @max_us, mean_us = @mean_us, stddev_us = @stddev_us,
    requests = @requests, errors = @errors, timeouts = @timeouts, non2xx = @non2xx, client_bound = @client_bound,
    cpu_pct_mean = @cpu_pct_mean, cpu_pct_max = @cpu_pct_max, mem_max_bytes = @mem_max_bytes,
    mem_limit_bytes = @mem_limit_bytes, throttled_ms = @throttled_ms,
    oom_killed = @oom_killed, exit_code = @exit_code, restarts = @restarts,
    load_json = @load_json, stats_json = @stats_json, flags_json = @flags_json, bottleneck = @bottleneck,
    image_tag = @image_tag,
    ran_on = @ran_on, started_at = @started_at, finished_at = @finished_at
  WHERE id = @id`;

export class CellQueries {
  private readonly insert: Database.Statement<[Record<string, Param>]>;
  private readonly update: Database.Statement<[Record<string, Param>]>;
  private readonly byRun: Database.Statement<[number], CellRow>;
  private readonly interruptRunning: Database.Statement<[string, number]>;

  constructor(db: Database.Database) {
    this.insert = db.prepare(START_SQL);
    this.update = db.prepare(FINISH_SQL);
    this.byRun = db.prepare<[number], CellRow>('SELECT * FROM cells WHERE run_id = ? ORDER BY idx');
    this.interruptRunning = db.prepare(
      `UPDATE cells SET status = 'interrupted', finished_at = ? WHERE run_id = ? AND status = 'running'`,
    );
  }

  start(runId: number, c: CellConfig, now: string): number {
    const info = this.insert.run({
      run_id: runId,
      idx: c.index,
      repetition: c.repetition,
      app: c.app,
      mode: c.mode,
      workers: c.workers,
      cpu_millis: c.cpuMillis,
      memory_mb: c.memoryMb,
      load_model: c.load.model,
      connections: c.load.connections,
      target_rate: c.load.model === 'rate' ? c.load.rate : null,
      config_json: JSON.stringify(c),
      started_at: now,
    });
    return Number(info.lastInsertRowid);
  }

  /** Returns false when no such cell exists. */
  finish(cellId: number, r: CellResult): boolean {
    const { load, stats, exit } = r;
    const lat = load?.latencyUs;
    const info = this.update.run({
      id: cellId,
      status: r.status,
      failure: r.failure ?? null,
      rps_mean: load?.rpsMean ?? null,
      rps_stddev: load?.rpsStddev ?? null,
      bytes_per_sec: load?.bytesPerSec ?? null,
      p50_us: lat?.p50 ?? null,
      p75_us: lat?.p75 ?? null,
      p90_us: lat?.p90 ?? null,
      p97_5_us: lat?.p97_5 ?? null,
      p99_us: lat?.p99 ?? null,
      p99_9_us: lat?.p99_9 ?? null,
      max_us: lat?.max ?? null,
      mean_us: lat?.mean ?? null,
      stddev_us: lat?.stddev ?? null,
      requests: load?.requests ?? null,
      errors: load?.errors ?? null,
      timeouts: load?.timeouts ?? null,
      non2xx: load?.non2xx ?? null,
      client_bound: bool(load?.clientBound),
      cpu_pct_mean: stats?.cpuPctMean ?? null,
      cpu_pct_max: stats?.cpuPctMax ?? null,
      mem_max_bytes: stats?.memMaxBytes ?? null,
      mem_limit_bytes: stats?.memLimitBytes ?? null,
      throttled_ms: stats?.throttledMs ?? null,
      oom_killed: bool(exit?.oomKilled),
      exit_code: exit?.exitCode ?? null,
      restarts: exit?.restarts ?? null,
      load_json: load ? JSON.stringify(load) : null,
      stats_json: statsJson(stats, r.replicas, r.dependencies),
      flags_json: JSON.stringify(r.flags),
      // Decided in the engine's flags step (common/bottleneck.ts); no load result stored, no pace.
      bottleneck: load ? (r.bottleneck ?? null) : null,
      image_tag: r.imageTag ?? null,
      // The exact Node.js version rides with where the cell ran (no index needs it, so no column of its own).
      ran_on: r.ranOn ? JSON.stringify({ ...r.ranOn, ...(r.nodeVersion ? { nodeVersion: r.nodeVersion } : {}) }) : null,
      started_at: r.startedAt,
      finished_at: r.finishedAt,
    });
    return info.changes > 0;
  }

  forRun(runId: number): StoredCell[] {
    return this.byRun.all(runId).map(toStoredCell);
  }

  /** Cells of a run still 'running' become 'interrupted'; finished ones keep their results. */
  interrupt(runId: number, now: string): void {
    this.interruptRunning.run(now, runId);
  }
}

/**
 * A cell's stats as stored: the summary, with a replicated cell's per-replica readings beside it under
 * `replicas` and its dependencies' under `dependencies` (no index needs them, so no column of their own).
 */
function statsJson(
  stats: StatsSummary | undefined,
  replicas: ReplicaReading[] | undefined,
  dependencies: DependencyReading[] | undefined,
): string | null {
  if (!replicas?.length && !dependencies?.length) return stats ? JSON.stringify(stats) : null;
  return JSON.stringify({
    ...(stats ?? {}),
    ...(replicas?.length ? { replicas } : {}),
    ...(dependencies?.length ? { dependencies } : {}),
  });
}

function readStats(json: string | null): Pick<StoredCell, 'stats' | 'replicas' | 'dependencies'> {
  if (json === null) return { stats: null };
  const { replicas, dependencies, ...stats } = JSON.parse(json) as StatsSummary & {
    replicas?: ReplicaReading[];
    dependencies?: DependencyReading[];
  };
  return {
    // Only replicas or dependencies stored (a cell measured without a stats reading): no summary.
    stats: Object.keys(stats).length ? stats : null,
    ...(replicas ? { replicas } : {}),
    ...(dependencies ? { dependencies } : {}),
  };
}

function readRanOn(json: string | null): Pick<StoredCell, 'ranOn' | 'nodeVersion'> {
  if (json === null) return { ranOn: null };
  const { nodeVersion, ...ranOn } = JSON.parse(json) as RanOn & { nodeVersion?: string };
  return { ranOn, ...(nodeVersion ? { nodeVersion } : {}) };
}

function toStoredCell(r: CellRow): StoredCell {
  return {
    id: r.id,
    runId: r.run_id,
    config: JSON.parse(r.config_json) as CellConfig,
    status: r.status,
    failure: r.failure,
    rpsMean: r.rps_mean,
    rpsStddev: r.rps_stddev,
    bytesPerSec: r.bytes_per_sec,
    p50Us: r.p50_us,
    p75Us: r.p75_us,
    p90Us: r.p90_us,
    p97_5Us: r.p97_5_us,
    p99Us: r.p99_us,
    p99_9Us: r.p99_9_us,
    maxUs: r.max_us,
    meanUs: r.mean_us,
    stddevUs: r.stddev_us,
    requests: r.requests,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    clientBound: r.client_bound === null ? null : r.client_bound !== 0,
    cpuPctMean: r.cpu_pct_mean,
    cpuPctMax: r.cpu_pct_max,
    memMaxBytes: r.mem_max_bytes,
    memLimitBytes: r.mem_limit_bytes,
    throttledMs: r.throttled_ms,
    load: r.load_json === null ? null : (JSON.parse(r.load_json) as LoadResult),
    ...readStats(r.stats_json),
    // oom_killed is always set when the result had exit info, so its NULL means "no exit info".
    exit:
      r.oom_killed === null
        ? null
        : { oomKilled: r.oom_killed !== 0, exitCode: r.exit_code, restarts: r.restarts ?? 0 },
    flags: JSON.parse(r.flags_json) as Flag[],
    bottleneck: r.bottleneck,
    imageTag: r.image_tag,
    ...readRanOn(r.ran_on),
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  };
}
