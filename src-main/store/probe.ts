// The runtime probe's rows (migration 8): per cell what it heard (probe_cells), and per cell, second
// and process what it measured (probe_seconds; t < 0 is a warm-up second). Deleting a run deletes
// them with its cells (ON DELETE CASCADE).
import type Database from 'better-sqlite3';
import type { CellProbe, ProbeSecond, ProcessRole } from '../model/probe.ts';
import type { StoredCellProbe } from '../model/stored.ts';

const COLUMNS = `t, pid, ppid, role, elu, delay_p50_ms, delay_p99_ms, delay_max_ms, gc_ms, gc_scavenge, gc_mark_sweep,
  gc_incremental, gc_weak, gc_max_ms, heap_used, heap_total, heap_limit, rss, external, array_buffers,
  active_resources, vol_switches, invol_switches, ms, gc_window_ms`;
type Row = [
  number, // t
  number, // pid
  number, // ppid
  string, // role
  number, // elu
  number,
  number,
  number, // delays
  number, // gc_ms
  number,
  number,
  number,
  number, // gc counts
  number, // gc_max_ms
  number,
  number,
  number, // heap
  number,
  number,
  number, // rss, external, array buffers
  number | null,
  number | null,
  number | null, // active, switches
  number | null, // ms
  number | null, // gc_window_ms
];

const toSecond = (r: readonly unknown[], o = 0): ProbeSecond => {
  const n = (i: number): number => r[o + i] as number;
  const t = n(0);
  const ms = r[o + 23] as number | null;
  const gcWindowMs = r[o + 24] as number | null;
  return {
    t,
    pid: n(1),
    ppid: n(2),
    role: r[o + 3] as ProcessRole,
    elu: n(4),
    delayP50Ms: n(5),
    delayP99Ms: n(6),
    delayMaxMs: n(7),
    gcMs: n(8),
    gcCounts: { scavenge: n(9), markSweepCompact: n(10), incremental: n(11), weakCallbacks: n(12) },
    gcMaxPauseMs: n(13),
    heapUsedBytes: n(14),
    heapTotalBytes: n(15),
    heapLimitBytes: n(16),
    rssBytes: n(17),
    externalBytes: n(18),
    arrayBuffersBytes: n(19),
    activeResources: r[o + 20] as number | null,
    voluntaryCtxSwitches: r[o + 21] as number | null,
    involuntaryCtxSwitches: r[o + 22] as number | null,
    ...(ms !== null ? { ms } : {}),
    ...(gcWindowMs !== null ? { gcWindowMs } : {}),
    ...(t < 0 ? { warmup: true as const } : {}),
  };
};

const params = (cellId: number, s: ProbeSecond): unknown[] => [
  cellId,
  s.t,
  s.pid,
  s.ppid,
  s.role,
  s.elu,
  s.delayP50Ms,
  s.delayP99Ms,
  s.delayMaxMs,
  s.gcMs,
  s.gcCounts.scavenge,
  s.gcCounts.markSweepCompact,
  s.gcCounts.incremental,
  s.gcCounts.weakCallbacks,
  s.gcMaxPauseMs,
  s.heapUsedBytes,
  s.heapTotalBytes,
  s.heapLimitBytes,
  s.rssBytes,
  s.externalBytes,
  s.arrayBuffersBytes,
  s.activeResources,
  s.voluntaryCtxSwitches,
  s.involuntaryCtxSwitches,
  s.ms ?? null,
  s.gcWindowMs ?? null,
];

export type { StoredCellProbe };

interface SummaryRow {
  attached: number;
  expected: number | null;
  processes_json: string;
  note: string | null;
  serving_at_once: number | null;
}

const toSummary = (r: SummaryRow): StoredCellProbe => ({
  attached: r.attached,
  expected: r.expected,
  processes: JSON.parse(r.processes_json) as StoredCellProbe['processes'],
  ...(r.note !== null ? { note: r.note } : {}),
  ...(r.serving_at_once !== null ? { servingAtOnce: r.serving_at_once } : {}),
});

export class ProbeQueries {
  private readonly putCell: Database.Statement<unknown[]>;
  private readonly putSecond: Database.Statement<unknown[]>;
  private readonly byCell: Database.Statement<[number], Row>;
  private readonly byRun: Database.Statement<[number], [number, ...Row]>;
  private readonly cellOf: Database.Statement<
    [number],
    SummaryRow
  >;
  private readonly cellsOf: Database.Statement<[number], SummaryRow & { cell_id: number }>;
  private readonly addAll: (cellId: number, probe: CellProbe) => void;

  constructor(db: Database.Database) {
    this.putCell = db.prepare(
      `INSERT INTO probe_cells (cell_id, attached, expected, processes_json, note, serving_at_once)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (cell_id) DO UPDATE SET attached = excluded.attached, expected = excluded.expected,
         processes_json = excluded.processes_json, note = excluded.note, serving_at_once = excluded.serving_at_once`,
    );
    // A retried write of the same second replaces it instead of failing the cell.
    this.putSecond = db.prepare(
      `INSERT OR REPLACE INTO probe_seconds (cell_id, ${COLUMNS})
       VALUES (${Array.from({ length: 26 }, () => '?').join(', ')})`,
    );
    this.byCell = db
      .prepare<[number], Row>(`SELECT ${COLUMNS} FROM probe_seconds WHERE cell_id = ? ORDER BY t, pid`)
      .raw();
    this.byRun = db
      .prepare<[number], [number, ...Row]>(
        `SELECT p.cell_id, ${COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1p.$2')}
         FROM cells c JOIN probe_seconds p ON p.cell_id = c.id WHERE c.run_id = ? ORDER BY c.idx, p.t, p.pid`,
      )
      .raw();
    this.cellOf = db.prepare(
      'SELECT attached, expected, processes_json, note, serving_at_once FROM probe_cells WHERE cell_id = ?',
    );
    this.cellsOf = db.prepare(
      `SELECT p.cell_id, p.attached, p.expected, p.processes_json, p.note, p.serving_at_once
       FROM cells c JOIN probe_cells p ON p.cell_id = c.id WHERE c.run_id = ?`,
    );
    this.addAll = db.transaction((cellId: number, probe: CellProbe) => {
      this.putCell.run(
        cellId,
        probe.attached,
        probe.expected,
        JSON.stringify(probe.processes),
        probe.note ?? null,
        probe.servingAtOnce ?? null,
      );
      for (const s of probe.seconds ?? []) this.putSecond.run(...params(cellId, s));
    });
  }

  /** A cell's probe, summary and seconds, in one transaction (nested in the caller's, if any). */
  add(cellId: number, probe: CellProbe): void {
    this.addAll(cellId, probe);
  }

  seconds(cellId: number): ProbeSecond[] {
    return this.byCell.all(cellId).map((r) => toSecond(r));
  }

  /** Every probe second of a run, by cell id; cells without any are absent. */
  runSeconds(runId: number): Map<number, ProbeSecond[]> {
    const out = new Map<number, ProbeSecond[]>();
    for (const row of this.byRun.all(runId)) {
      let list = out.get(row[0]);
      if (!list) out.set(row[0], (list = []));
      list.push(toSecond(row, 1));
    }
    return out;
  }

  summary(cellId: number): StoredCellProbe | undefined {
    const r = this.cellOf.get(cellId);
    return r ? toSummary(r) : undefined;
  }

  /** What every cell of a run heard, by cell id (cells without a probe are absent). */
  runSummaries(runId: number): Map<number, StoredCellProbe> {
    return new Map(this.cellsOf.all(runId).map((r) => [r.cell_id, toSummary(r)]));
  }
}
