// The per-process memory readings of a real cell, read from this machine's /proc beside the cgroup's
// peak: one reading per process with its role, and the sums the fresh-deployment figure
// (analysis/size/memory.ts freshNeed) is made of. Checked on the probe test's cells (probe.test.ts).
import { expect } from 'vitest';
import { cellFreshNeed } from '../../src-main/analysis/size/memory.ts';
import type { CellResult } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';

const MiB = 2 ** 20;

const mb = (b: number | undefined): string => (b === undefined ? '-' : `${(b / MiB).toFixed(1)} MB`);

/** The readings in one line per process, for the log (the numbers the report quotes). */
export function describeCell(label: string, r: CellResult): void {
  const s = r.stats!;
  console.log(
    `${label}: cgroup peak ${mb(s.memPeakBytes)} (${s.memPeakSource}); RSS summed ${mb(s.rssTotalPeakBytes)}, file pages once ${mb(s.rssSharedOncePeakBytes)}, PSS summed ${mb(s.pssTotalBytes)}\n` +
      s.processes!.map((p) => `  ${p.role.padEnd(10)} pid ${p.pid}: RSS peak ${mb(p.rssPeakBytes)} (anon ${mb(p.anonPeakBytes)}, file ${mb(p.filePeakBytes)}), PSS ${mb(p.pssPeakBytes)}, ${p.readings} readings — ${p.command}`).join('\n'),
  );
}

/** Checks shared by both modes: one reading per process, plausible RSS, sums in order. */
export function expectReadings(r: CellResult, roles: string[]): void {
  expect(r.status).toBe('ok');
  const s = r.stats!;
  expect(s.processesNotMeasured).toBeUndefined();
  const ps = s.processes!;
  expect(ps.map((p) => p.role)).toEqual(roles);
  expect(new Set(ps.map((p) => p.pid)).size).toBe(ps.length);
  for (const p of ps) {
    // A bare node process holds ~40 MB resident here (35 MB of it the mapped node binary).
    expect(p.rssPeakBytes).toBeGreaterThan(20 * MiB);
    expect(p.rssPeakBytes).toBeLessThan(256 * MiB);
    expect(p.readings).toBeGreaterThanOrEqual(2); // after ready, as measurement began, at the end
    expect(p.anonPeakBytes! + p.filePeakBytes!).toBeLessThanOrEqual(p.rssPeakBytes + 1 * MiB);
    expect(p.pssPeakBytes!).toBeGreaterThan(0);
    expect(p.pssPeakBytes!).toBeLessThanOrEqual(p.rssPeakBytes);
  }
  const sum = ps.reduce((a, p) => a + p.rssPeakBytes, 0);
  expect(s.rssTotalPeakBytes!).toBeLessThanOrEqual(sum);
  expect(s.rssTotalPeakBytes!).toBeGreaterThan(60 * MiB);
  // File pages once: below the summed RSS (three processes share the node binary), above any one process.
  expect(s.rssSharedOncePeakBytes!).toBeLessThan(s.rssTotalPeakBytes!);
  expect(s.rssSharedOncePeakBytes!).toBeGreaterThanOrEqual(Math.max(...ps.map((p) => p.rssPeakBytes)));
  // The fresh need is at least the cgroup's peak and the counted-once RSS, and names its measure.
  const f = cellFreshNeed({ status: 'ok', stats: s, memMaxBytes: null } as unknown as StoredCell)!;
  expect(f.bytes).toBe(Math.max(s.memPeakBytes!, s.rssSharedOncePeakBytes!));
  expect(f.measure).toBe(s.rssSharedOncePeakBytes! > s.memPeakBytes! ? 'rss' : 'cgroup');
  expect(f.processMaxRssBytes).toBe(Math.max(...ps.filter((p) => p.role === 'worker').map((p) => p.rssPeakBytes)));
}
