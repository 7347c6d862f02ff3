import type Database from 'better-sqlite3';
import type { Sample } from '../engine/types.ts';

// Aliases make each row a ready Sample, with no per-row mapping.
const SAMPLE_COLUMNS = `s.t, s.rps, s.bytes, s.errors, s.timeouts, s.non2xx, s.p50_us AS p50Us, s.p90_us AS p90Us,
  s.p99_us AS p99Us, s.max_us AS maxUs, s.cpu_pct AS cpuPct, s.mem_bytes AS memBytes, s.throttled_periods AS throttledPeriods`;

type SampleParams = [number, number, number, number, number, number, number, number, number, number, number, number | null, number | null, number | null];

export class SampleQueries {
  private readonly upsert: Database.Statement<SampleParams>;
  private readonly byCell: Database.Statement<[number], Sample>;
  private readonly byRun: Database.Statement<[number], Sample & { cellId: number }>;
  private readonly addMany: (cellId: number, samples: readonly Sample[]) => void;

  constructor(db: Database.Database) {
    // Upsert: a retried write of the same second replaces it instead of failing the whole batch.
    this.upsert = db.prepare<SampleParams>(`
      INSERT INTO samples (cell_id, t, rps, bytes, errors, timeouts, non2xx, p50_us, p90_us, p99_us, max_us,
                           cpu_pct, mem_bytes, throttled_periods)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (cell_id, t) DO UPDATE SET rps = excluded.rps, bytes = excluded.bytes, errors = excluded.errors,
        timeouts = excluded.timeouts, non2xx = excluded.non2xx, p50_us = excluded.p50_us, p90_us = excluded.p90_us,
        p99_us = excluded.p99_us, max_us = excluded.max_us, cpu_pct = excluded.cpu_pct,
        mem_bytes = excluded.mem_bytes, throttled_periods = excluded.throttled_periods`);
    this.byCell = db.prepare<[number], Sample>(`SELECT ${SAMPLE_COLUMNS} FROM samples s WHERE s.cell_id = ? ORDER BY s.t`);
    // Ordered by the cell's idx so both indexes are walked in order (no sort step) and the map follows the matrix.
    this.byRun = db.prepare<[number], Sample & { cellId: number }>(
      `SELECT s.cell_id AS cellId, ${SAMPLE_COLUMNS} FROM cells c JOIN samples s ON s.cell_id = c.id
       WHERE c.run_id = ? ORDER BY c.idx, s.t`,
    );
    this.addMany = db.transaction((cellId: number, samples: readonly Sample[]) => {
      for (const s of samples) {
        this.upsert.run(cellId, s.t, s.rps, s.bytes, s.errors, s.timeouts, s.non2xx, s.p50Us, s.p90Us, s.p99Us, s.maxUs,
          s.cpuPct, s.memBytes, s.throttledPeriods);
      }
    });
  }

  add(cellId: number, samples: readonly Sample[]): void {
    if (samples.length > 0) this.addMany(cellId, samples);
  }

  forCell(cellId: number): Sample[] {
    return this.byCell.all(cellId);
  }

  /** All samples of a run, by cell id, in one query. Cells without samples have no entry. */
  forRun(runId: number): Map<number, Sample[]> {
    const out = new Map<number, Sample[]>();
    for (const { cellId, ...sample } of this.byRun.iterate(runId)) {
      let list = out.get(cellId);
      if (!list) out.set(cellId, (list = []));
      list.push(sample);
    }
    return out;
  }
}
