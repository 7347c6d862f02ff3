// A matrix file of one short cell, for the tests of what a user's app serves (user-tls, user-h2): cluster × 1 on
// 0.5 CPU / 256 MB, 2 s with no warm-up and no phase after the grid; `m` adds the apps and the link.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { Store, type StoredCell } from '../../src-main/store/index.ts';
import { cli, tempDir } from './cli.ts';

export function oneCellMatrix(m: object): string {
  const f = path.join(tempDir(), 'm.json');
  const cell = {
    modes: ['cluster'],
    workers: [1],
    cpuMillicores: [500],
    memoryMb: [256],
    durationSec: 2,
    warmupSec: 0,
  };
  writeFileSync(f, JSON.stringify({ ...cell, settleBudgetPct: 0, verify: false, ...m }));
  return f;
}

/** Runs the one cell with 4 connections: its stored cell, checked measured (ok, requests, not one error). */
export async function measuredCell(db: string, m: object): Promise<{ runId: number; cell: StoredCell }> {
  const f = oneCellMatrix({ ...m, load: { model: 'closed', connections: [4] } });
  const r = await cli(['--db', db, '--json', 'run', '--config', f]);
  expect(r.code, r.stderr).toBe(0);
  const runId = (JSON.parse(r.stdout) as { runId: number }).runId;
  const store = Store.open(db);
  try {
    const [cell] = store.getRun(runId)!.cells;
    expect(cell!.status).toBe('ok');
    expect(cell!.requests).toBeGreaterThan(100);
    expect(cell!.errors).toBe(0);
    return { runId, cell: cell! };
  } finally {
    store.close();
  }
}
