import type Database from 'better-sqlite3';
import type { HostFacts, RunStatus } from '../model/types.ts';
import type { SearchTrace } from '../model/search.ts';
import {
  RUN_SORTS,
  type ListRunsQuery,
  type NewRun,
  type RunDetail,
  type RunList,
  type RunPick,
  type RunSort,
  type RunSummary,
  type StoredCell,
} from '../model/stored.ts';
import { PICK_BASIS_SQL } from './run-picks.ts';
interface RunRow {
  id: number;
  name: string;
  preset: string | null;
  matrix_json: string;
  host_json: string;
  owner_session: string;
  status: RunStatus;
  cells_total: number;
  started_at: string;
  finished_at: string | null;
  error: string | null;
  apps_json: string;
  search_json: string | null;
}

interface SummaryRow {
  id: number;
  name: string;
  preset: string | null;
  status: RunStatus;
  cells_total: number;
  started_at: string;
  finished_at: string | null;
  cells_done: number;
  cells_failed: number;
  best_rps: number | null;
  best_p99_us: number | null;
  /** What the pick would be worked out from now, and what the cached one was (null: none cached). */
  pick_basis: string;
  cached_basis: string | null;
  pick_json: string | null;
}

/** A page of the run list, and its finished runs whose pick is not cached or out of date. */
export interface RunListPage {
  list: RunList;
  stale: { run: RunSummary; basis: string }[];
}

// Whitelisted SQL for each sort: these are pasted into the query, so never take them from the caller.
const SORT_SQL: Record<RunSort, string> = {
  started_at: 'started_at',
  name: 'name COLLATE NOCASE',
  status: 'status',
  cells: 'cells_total',
  duration: 'julianday(finished_at) - julianday(started_at)',
};

type ListParams = { status?: string; search?: string; limit?: number; offset?: number };

const durationSec = (startedAt: string, finishedAt: string | null): number | null =>
  finishedAt === null ? null : (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;

/**
 * A verification cell ran the pick under a snippet's own limits, and its step-up fails on purpose:
 * neither a failed cell of the experiment nor its best.
 */
const NOT_VERIFY = `json_extract(c.config_json, '$.phase') IS NOT 'verify'`;

const summaryOf = (r: SummaryRow): RunSummary => ({
  id: r.id,
  name: r.name,
  preset: r.preset,
  status: r.status,
  cellsTotal: r.cells_total,
  cellsDone: r.cells_done,
  cellsFailed: r.cells_failed,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
  durationSec: durationSec(r.started_at, r.finished_at),
  bestRps: r.best_rps,
  bestP99Us: r.best_p99_us,
  pick: null,
});

export class RunQueries {
  private readonly insert: Database.Statement<[string, string | null, string, string, string, number, string, string]>;
  private readonly finishStmt: Database.Statement<[string, string, string | null, number]>;
  private readonly byId: Database.Statement<[number], RunRow>;
  private readonly running: Database.Statement<[], { id: number; owner_session: string }>;
  private readonly deleteStmt: Database.Statement<[number]>;
  private readonly searchStmt: Database.Statement<[string, number, number]>;
  private readonly growStmt: Database.Statement<[number, number]>;
  private readonly claimStmt: Database.Statement<[string, number]>;
  private readonly totalStmt: Database.Statement<[number, number]>;
  private readonly orphanStmt: Database.Statement<[], { id: number; owner_session: string }>;
  /** listRuns statements by (sort, order, filters): at most 40, each prepared on first use. */
  private readonly listCache = new Map<
    string,
    { page: Database.Statement<[ListParams], SummaryRow>; count: Database.Statement<[ListParams], { n: number }> }
  >();

  constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO runs (name, preset, matrix_json, host_json, owner_session, status, cells_total, started_at,
                         apps_json)
       VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
    );
    this.finishStmt = db.prepare('UPDATE runs SET status = ?, finished_at = ?, error = ? WHERE id = ?');
    this.byId = db.prepare<[number], RunRow>('SELECT * FROM runs WHERE id = ?');
    this.running = db.prepare<[], { id: number; owner_session: string }>(
      `SELECT id, owner_session FROM runs WHERE status = 'running'`,
    );
    this.deleteStmt = db.prepare('DELETE FROM runs WHERE id = ?');
    this.searchStmt = db.prepare('UPDATE runs SET search_json = ?, cells_total = ? WHERE id = ?');
    this.growStmt = db.prepare('UPDATE runs SET cells_total = cells_total + ? WHERE id = ?');
    // A finished run gets more cells (verification of an older run): its status, times and error stay
    // as they were; the process adding them owns it meanwhile, so a kill is found by its dead owner.
    this.claimStmt = db.prepare(`UPDATE runs SET owner_session = ? WHERE id = ? AND status != 'running'`);
    this.totalStmt = db.prepare('UPDATE runs SET cells_total = ? WHERE id = ?');
    this.orphanStmt = db.prepare<[], { id: number; owner_session: string }>(
      `SELECT DISTINCT r.id, r.owner_session FROM runs r JOIN cells c ON c.run_id = r.id
       WHERE r.status != 'running' AND c.status = 'running'`,
    );
  }

  /** Finished runs with a cell still running: more cells appended to them (verify) by the owner, alive or dead. */
  finishedWithRunningCells(): { id: number; ownerSession: string }[] {
    return this.orphanStmt.all().map((r) => ({ id: r.id, ownerSession: r.owner_session }));
  }

  /** The planned cell count, corrected when a phase planned more than it ran. */
  setTotal(runId: number, cells: number): boolean {
    return this.totalStmt.run(cells, runId).changes > 0;
  }

  /** A phase after the grid (settling, verification) plans more cells. */
  grow(runId: number, cells: number): boolean {
    return this.growStmt.run(cells, runId).changes > 0;
  }

  /** A finished run claimed by the process appending cells to it; false when it is running or gone. */
  claim(runId: number, ownerSession: string): boolean {
    return this.claimStmt.run(ownerSession, runId).changes > 0;
  }

  /** Replaces an auto-size run's trace, and its planned cell count (the search learns it as it goes). */
  setSearch(runId: number, trace: SearchTrace, cellsTotal: number): boolean {
    return this.searchStmt.run(JSON.stringify(trace), cellsTotal, runId).changes > 0;
  }

  create(r: NewRun, now: string): number {
    const info = this.insert.run(
      r.name,
      r.preset ?? null,
      JSON.stringify(r.matrix ?? null),
      JSON.stringify(r.host),
      r.ownerSession,
      r.cellsTotal,
      now,
      JSON.stringify(r.apps ?? []),
    );
    return Number(info.lastInsertRowid);
  }

  finish(runId: number, status: RunStatus, error: string | null, now: string): boolean {
    return this.finishStmt.run(status, now, error, runId).changes > 0;
  }

  get(runId: number, cells: StoredCell[]): RunDetail | undefined {
    const r = this.byId.get(runId);
    if (!r) return undefined;
    return {
      id: r.id,
      name: r.name,
      preset: r.preset,
      matrix: JSON.parse(r.matrix_json) as unknown,
      host: JSON.parse(r.host_json) as HostFacts,
      ownerSession: r.owner_session,
      status: r.status,
      cellsTotal: r.cells_total,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      durationSec: durationSec(r.started_at, r.finished_at),
      error: r.error,
      apps: JSON.parse(r.apps_json) as unknown[],
      cells,
      search: r.search_json === null ? null : (JSON.parse(r.search_json) as SearchTrace),
    };
  }

  runningRuns(): { id: number; ownerSession: string }[] {
    return this.running.all().map((r) => ({ id: r.id, ownerSession: r.owner_session }));
  }

  delete(runId: number): boolean {
    return this.deleteStmt.run(runId).changes > 0;
  }

  list(q: ListRunsQuery): RunListPage {
    const sort = q.sort ?? 'started_at';
    if (!RUN_SORTS.includes(sort))
      throw new Error(`Unknown run sort "${String(sort)}" (expected one of ${RUN_SORTS.join(', ')})`);
    const order = q.order ?? (sort === 'name' || sort === 'status' ? 'asc' : 'desc');
    if (order !== 'asc' && order !== 'desc')
      throw new Error(`Unknown sort order "${String(order)}" (expected asc or desc)`);
    // Values may come from a URL or IPC: anything not a finite number falls back to the default.
    const int = (v: number | undefined, fallback: number): number => (Number.isFinite(v) ? Math.trunc(v!) : fallback);
    const limit = Math.min(Math.max(int(q.limit, 100), 0), 1000);
    const offset = Math.max(int(q.offset, 0), 0);
    const search = q.search?.trim() ? `%${q.search.trim().replace(/[\\%_]/g, '\\$&')}%` : undefined;

    const { page, count } = this.listStatements(sort, order, q.status !== undefined, search !== undefined);
    const filters: ListParams = {};
    if (q.status !== undefined) filters.status = q.status;
    if (search !== undefined) filters.search = search;
    const rows = page.all({ ...filters, limit, offset });
    const stale: RunListPage['stale'] = [];
    const runs = rows.map((r) => {
      const run = summaryOf(r);
      if (r.status === 'running') return run; // no answer yet
      if (r.cached_basis === r.pick_basis) run.pick = JSON.parse(r.pick_json!) as RunPick | null;
      else stale.push({ run, basis: r.pick_basis });
      return run;
    });
    return { list: { total: count.get(filters)?.n ?? 0, runs }, stale };
  }

  private listStatements(sort: RunSort, order: 'asc' | 'desc', byStatus: boolean, bySearch: boolean) {
    const key = `${sort} ${order} ${byStatus} ${bySearch}`;
    let cached = this.listCache.get(key);
    if (cached) return cached;
    const where: string[] = [];
    if (byStatus) where.push('status = @status');
    if (bySearch) where.push(`(name LIKE @search ESCAPE '\\' OR preset LIKE @search ESCAPE '\\')`);
    const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
    // Unfinished runs have no duration: keep them at the end whichever the direction.
    const dir = order === 'asc' ? 'ASC' : 'DESC';
    const orderBy = (t: string): string =>
      `${t}sort_key ${dir}${sort === 'duration' ? ' NULLS LAST' : ''}, ${t}id ${dir}`;
    // The page is cut first and only its runs are aggregated, so the cost is one page of cells however
    // many runs exist; the aggregates read only the covering index cells_run_status.
    const page = this.db.prepare<[ListParams], SummaryRow>(`
      WITH page AS (
        SELECT id, name, preset, status, cells_total, started_at, finished_at, ${SORT_SQL[sort]} AS sort_key
        FROM runs ${whereSql} ORDER BY ${orderBy('')} LIMIT @limit OFFSET @offset)
      SELECT page.id, page.name, page.preset, page.status, page.cells_total, page.started_at, page.finished_at,
        count(c.status) FILTER (WHERE c.status <> 'running') AS cells_done,
        count(c.status) FILTER (WHERE c.status IN ('failed', 'oom') AND ${NOT_VERIFY}) AS cells_failed,
        max(c.rps_mean) FILTER (WHERE c.status = 'ok' AND ${NOT_VERIFY}) AS best_rps,
        min(c.p99_us) FILTER (WHERE c.status = 'ok' AND ${NOT_VERIFY}) AS best_p99_us,
        ${PICK_BASIS_SQL} AS pick_basis, p.basis AS cached_basis, p.pick_json
      FROM page LEFT JOIN cells c ON c.run_id = page.id LEFT JOIN run_picks p ON p.run_id = page.id
      GROUP BY page.id
      ORDER BY ${orderBy('page.')}`);
    const count = this.db.prepare<[ListParams], { n: number }>(`SELECT count(*) AS n FROM runs ${whereSql}`);
    this.listCache.set(key, (cached = { page, count }));
    return cached;
  }
}
