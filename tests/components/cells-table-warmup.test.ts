// The cells table shows the warm-up each cell used: the configured seconds, extended until steady.
import { render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import CellsTable from '../../src-renderer/components/CellsTable.svelte';
import { fromResult, fromStored, type CellRow } from '../../src-renderer/lib/cells.ts';
import type { CellResult, StoredCell } from '../../src-main/contract/api.ts';
import { cell } from '../helpers/run-fixture.ts';

const row = (index: number, warmupUsedSec?: number): CellRow => ({
  config: { index, repetition: 0, app: 'hello', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256, load: { model: 'closed', connections: 20 }, durationSec: 5, warmupSec: 2, env: {} },
  status: 'ok', rpsMean: 1000, p50Us: 100, p99Us: 900, maxUs: 5000, cpuPctMean: 90, memMaxBytes: 2 ** 25, errors: 0, flags: [], failure: null,
  ...(warmupUsedSec !== undefined ? { warmupUsedSec } : {}),
});

describe('CellsTable: the warm-up used', () => {
  it('"2 → 5 s" when it went on past the configured 2 s, "2 s" when not, the configured one when unknown', () => {
    render(CellsTable, { props: { cells: [row(0, 5), row(1, 2), row(2)] } });
    const header = screen.getAllByRole('columnheader').map((h) => h.textContent!.trim());
    const col = header.indexOf('warm-up');
    expect(col).toBeGreaterThan(0);
    const cells = screen.getAllByRole('row').slice(1).map((r) => r.querySelectorAll('td')[col]!.textContent!.trim());
    expect(cells).toEqual(['2 → 5 s', '2 s', '2 s']);
  });

  it('a warm-up raised to one CPU says for how long, as the CLI and the report do: "2 → 11 s (9 s at 1 CPU)"', () => {
    const raisedRow: CellRow = { ...row(0, 11), warmupRaise: { cpuMillis: 1000, untilSec: 9 } };
    render(CellsTable, { props: { cells: [raisedRow, row(1, 4)] } });
    const col = screen.getAllByRole('columnheader').map((h) => h.textContent!.trim()).indexOf('warm-up');
    const cells = screen.getAllByRole('row').slice(1).map((r) => r.querySelectorAll('td')[col]!.textContent!.trim());
    expect(cells).toEqual(['2 → 11 s (9 s at 1 CPU)', '2 → 4 s']);
    const stored = { ...cell({}), load: { warmupUsedSec: 11, warmupRaise: { cpuMillis: 1000, untilSec: 9 } } } as unknown as StoredCell;
    expect(fromStored(stored).warmupRaise).toEqual({ cpuMillis: 1000, untilSec: 9 });
    expect(fromStored(cell({})).warmupRaise).toBeUndefined();
    const live = { config: stored.config, status: 'ok', flags: [], load: { rpsMean: 1, latencyUs: { p50: 1, p99: 1, max: 1 }, errors: 0, timeouts: 0, non2xx: 0, warmupUsedSec: 11, warmupRaise: { cpuMillis: 1000, untilSec: 9 } } } as unknown as CellResult;
    expect(fromResult(live).warmupRaise).toEqual({ cpuMillis: 1000, untilSec: 9 });
  });

  it('rows from the store and from a live result carry it', () => {
    const stored = { ...cell({}), load: { warmupUsedSec: 7 } } as unknown as StoredCell;
    expect(fromStored(stored).warmupUsedSec).toBe(7);
    expect(fromStored(cell({})).warmupUsedSec).toBeUndefined();
    const result = { config: stored.config, status: 'ok', flags: [], load: { rpsMean: 1, latencyUs: { p50: 1, p99: 1, max: 1 }, errors: 0, timeouts: 0, non2xx: 0, warmupUsedSec: 4 } } as unknown as CellResult;
    expect(fromResult(result).warmupUsedSec).toBe(4);
  });
});

describe('CellsTable: settings and dependencies (issue 41)', () => {
  const withDb = (index: number, pool: string, dbPct: number): CellRow => ({
    ...row(index),
    config: { ...row(index).config, app: 'catalog', envSet: { PG_POOL_SIZE: pool }, env: { PG_POOL_SIZE: pool } },
    dependencies: `db ${dbPct}% · cache 8%`,
  });

  it('each cell’s setting and its dependencies’ CPU, in columns that appear only when a cell has them', () => {
    render(CellsTable, { props: { cells: [withDb(0, '2', 41), withDb(1, '10', 97)] } });
    const header = screen.getAllByRole('columnheader').map((h) => h.textContent!.trim());
    const [settings, deps] = [header.indexOf('settings'), header.indexOf('dependencies CPU')];
    const column = (i: number): string[] => screen.getAllByRole('row').slice(1).map((r) => r.querySelectorAll('td')[i]!.textContent!.trim());
    expect(column(settings)).toEqual(['PG_POOL_SIZE=2', 'PG_POOL_SIZE=10']);
    expect(column(deps)).toEqual(['db 41% · cache 8%', 'db 97% · cache 8%']);
  });

  it('a run without them lists as before; stored and live rows say each dependency’s share of its own cap', () => {
    render(CellsTable, { props: { cells: [row(0)] } });
    const header = screen.getAllByRole('columnheader').map((h) => h.textContent!.trim());
    expect(header).not.toContain('settings');
    expect(header).not.toContain('dependencies CPU');
    const deps = [{ name: 'db', stats: { cpuPctMean: 96.6 } }, { name: 'cache' }];
    expect(fromStored({ ...cell({}), dependencies: deps } as unknown as StoredCell).dependencies).toBe('db 97% · cache —');
    const result = { config: cell({}).config, status: 'ok', flags: [], dependencies: deps } as unknown as CellResult;
    expect(fromResult(result).dependencies).toBe('db 97% · cache —');
  });
});

describe('CellsTable: the bandwidth cap (issue 44)', () => {
  it('a capped run shows what each cell sent against its link; an uncapped one has no such column', () => {
    const capped = (index: number, sentMbps?: number): CellRow => ({
      ...row(index),
      config: { ...row(index).config, app: 'static', load: { model: 'closed', connections: 20, networkMbps: 2000 } },
      ...(sentMbps !== undefined ? { sentMbps } : {}),
    });
    const { unmount } = render(CellsTable, { props: { cells: [capped(0, 1912.4), capped(1)] } });
    const header = screen.getAllByRole('columnheader').map((h) => h.textContent!.trim());
    const col = header.indexOf('sent / link');
    expect(col).toBeGreaterThan(0);
    const cells = screen.getAllByRole('row').slice(1).map((r) => r.querySelectorAll('td')[col]!.textContent!.trim());
    expect(cells).toEqual(['1,912 of 2,000 Mbit/s', '— of 2,000 Mbit/s']);
    unmount();
    render(CellsTable, { props: { cells: [row(0)] } });
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent!.trim())).not.toContain('sent / link');
  });

  it('rows from the store and from a live result carry the Mbit/s the responses carried', () => {
    expect(fromStored({ ...cell({}), bytesPerSec: 250_000_000 }).sentMbps).toBe(2000);
    const result = { config: cell({}).config, status: 'ok', flags: [], load: { rpsMean: 1, bytesPerSec: 12_500_000, latencyUs: { p50: 1, p99: 1, max: 1 }, errors: 0, timeouts: 0, non2xx: 0 } } as unknown as CellResult;
    expect(fromResult(result).sentMbps).toBe(100);
  });
});
