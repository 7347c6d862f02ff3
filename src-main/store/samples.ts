import type Database from 'better-sqlite3';
import type { Sample } from '../model/types.ts';

// Rows are read as arrays (raw mode) and turned into Samples here: twice as fast as better-sqlite3's
// own row objects, which matters when a chart loads tens of thousands of seconds.
const SAMPLE_COLUMNS = `s.t, s.rps, s.bytes, s.errors, s.timeouts, s.non2xx, s.p50_us, s.p90_us, s.p99_us, s.max_us,
  s.cpu_pct, s.mem_bytes, s.throttled_periods, s.routes_json, s.opened, s.resumed`;
type SampleTuple = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  string | null,
  number | null,
  number | null,
];
/** The sample in `r` from column `o` on (1 for a run's rows, which start with the cell id): no copy of the row. */
const toSample = (r: readonly (number | string | null)[], o = 0): Sample => ({
  t: r[o] as number,
  rps: r[o + 1] as number,
  bytes: r[o + 2] as number,
  errors: r[o + 3] as number,
  timeouts: r[o + 4] as number,
  non2xx: r[o + 5] as number,
  p50Us: r[o + 6] as number,
  p90Us: r[o + 7] as number,
  p99Us: r[o + 8] as number,
  maxUs: r[o + 9] as number,
  cpuPct: r[o + 10] as number | null,
  memBytes: r[o + 11] as number | null,
  throttledPeriods: r[o + 12] as number | null,
  ...(r[o + 13] ? { routes: JSON.parse(r[o + 13] as string) as Sample['routes'] } : {}),
  ...(r[o + 14] ? { opened: r[o + 14] as number } : {}),
  ...(r[o + 15] ? { resumed: r[o + 15] as number } : {}),
});

type SampleParams = [
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
  string | null,
  number | null,
  number | null,
];

export class SampleQueries {
  private readonly upsert: Database.Statement<SampleParams>;
  private readonly byCell: Database.Statement<[number], SampleTuple>;
  private readonly byRun: Database.Statement<[number], [number, ...SampleTuple]>;
  private readonly addMany: (cellId: number, samples: readonly Sample[]) => void;

  constructor(db: Database.Database) {
    // Upsert: a retried write of the same second replaces it instead of failing the whole batch.
    this.upsert = db.prepare<SampleParams>(`
      INSERT INTO samples (cell_id, t, rps, bytes, errors, timeouts, non2xx, p50_us, p90_us, p99_us, max_us,
                           cpu_pct, mem_bytes, throttled_periods, routes_json, opened, resumed)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (cell_id, t) DO UPDATE SET rps = excluded.rps, bytes = excluded.bytes, errors = excluded.errors,
        timeouts = excluded.timeouts, non2xx = excluded.non2xx, p50_us = excluded.p50_us, p90_us = excluded.p90_us,
        p99_us = excluded.p99_us, max_us = excluded.max_us, cpu_pct = excluded.cpu_pct,
        mem_bytes = excluded.mem_bytes, throttled_periods = excluded.throttled_periods,
        routes_json = excluded.routes_json, opened = excluded.opened, resumed = excluded.resumed`);
    this.byCell = db
      .prepare<[number], SampleTuple>(`SELECT ${SAMPLE_COLUMNS} FROM samples s WHERE s.cell_id = ? ORDER BY s.t`)
      .raw();
    // Ordered by the cell's idx so both indexes are walked in order (no sort step) and the map follows the matrix.
    this.byRun = db
      .prepare<[number], [number, ...SampleTuple]>(
        `SELECT s.cell_id, ${SAMPLE_COLUMNS} FROM cells c JOIN samples s ON s.cell_id = c.id
         WHERE c.run_id = ? ORDER BY c.idx, s.t`,
      )
      .raw();
    this.addMany = db.transaction((cellId: number, samples: readonly Sample[]) => {
      for (const s of samples) {
        this.upsert.run(
          cellId,
          s.t,
          s.rps,
          s.bytes,
          s.errors,
          s.timeouts,
          s.non2xx,
          s.p50Us,
          s.p90Us,
          s.p99Us,
          s.maxUs,
          s.cpuPct,
          s.memBytes,
          s.throttledPeriods,
          s.routes ? JSON.stringify(s.routes) : null,
          s.opened ?? null,
          s.resumed ?? null,
        );
      }
    });
  }

  add(cellId: number, samples: readonly Sample[]): void {
    if (samples.length > 0) this.addMany(cellId, samples);
  }

  forCell(cellId: number): Sample[] {
    return this.byCell.all(cellId).map((r) => toSample(r));
  }

  /** All samples of a run, by cell id, in one query. Cells without samples have no entry. */
  forRun(runId: number): Map<number, Sample[]> {
    const out = new Map<number, Sample[]>();
    for (const row of this.byRun.all(runId)) {
      const cellId = row[0];
      let list = out.get(cellId);
      if (!list) out.set(cellId, (list = []));
      list.push(toSample(row, 1));
    }
    return out;
  }
}
