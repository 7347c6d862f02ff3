import { envWords, reasonsText } from '../../src-main/contract/present.ts';
import type { CellConfig, CellResult, Flag, StoredCell } from '../../src-main/contract/api.ts';
import { lineConfig, lineSet, type XY } from './charts.ts';

/** What tables and summary charts need of a cell, whether it came from the store or live from a run. */
export interface CellRow {
  id?: number;
  config: CellConfig;
  status: string;
  rpsMean: number | null;
  p50Us: number | null;
  p99Us: number | null;
  maxUs: number | null;
  cpuPctMean: number | null;
  memMaxBytes: number | null;
  errors: number | null;
  flags: Flag[];
  failure: string | null;
  /** Warm-up seconds the cell used (the configured ones, extended until steady); absent before it finished or for old cells. */
  warmupUsedSec?: number;
  /** Its first warm-up seconds ran at a raised CPU cap (load/warmup.ts): that cap and for how many seconds. */
  warmupRaise?: { cpuMillis: number; untilSec: number };
  /** Its dependencies' CPU, each as a share of its own cap over the measured seconds: "db 97% · cache 8%". */
  dependencies?: string;
  /** The server's reasons for its failed responses: `: 503 "sorry, too many clients already" (1,234)`. */
  failedWhy?: string;
  /** What its responses carried, Mbit/s (absent: not measured). */
  sentMbps?: number;
}

const sent = (bytesPerSec: number | null | undefined): { sentMbps?: number } =>
  bytesPerSec === null || bytesPerSec === undefined ? {} : { sentMbps: (bytesPerSec * 8) / 1e6 };

const raised = (load: { warmupRaise?: CellRow['warmupRaise'] } | null | undefined): Pick<CellRow, 'warmupRaise'> =>
  load?.warmupRaise ? { warmupRaise: load.warmupRaise } : {};

const failedWhy = (load: { failureReasons?: Record<string, number> } | null | undefined): { failedWhy?: string } => {
  const why = reasonsText(load?.failureReasons ?? {});
  return why ? { failedWhy: why } : {};
};

/** "db 97% · cache 8%": each dependency's mean CPU against its own cap (absent: none measured). */
function dependencyText(deps: readonly { name: string; stats?: { cpuPctMean: number } }[] | undefined): { dependencies?: string } {
  return deps?.length ? { dependencies: deps.map((d) => `${d.name} ${d.stats ? `${Math.round(d.stats.cpuPctMean)}%` : '—'}`).join(' · ') } : {};
}

export function fromStored(c: StoredCell): CellRow {
  return { id: c.id, config: c.config, status: c.status, rpsMean: c.rpsMean, p50Us: c.p50Us, p99Us: c.p99Us, maxUs: c.maxUs, cpuPctMean: c.cpuPctMean, memMaxBytes: c.memMaxBytes, errors: c.errors === null ? null : c.errors + (c.timeouts ?? 0) + (c.non2xx ?? 0), flags: c.flags, failure: c.failure, ...(c.load?.warmupUsedSec !== undefined ? { warmupUsedSec: c.load.warmupUsedSec } : {}), ...raised(c.load), ...dependencyText(c.dependencies), ...failedWhy(c.load), ...sent(c.bytesPerSec) };
}

export function fromResult(r: CellResult, id?: number): CellRow {
  const l = r.load;
  return {
    ...(id !== undefined ? { id } : {}),
    config: r.config, status: r.status, rpsMean: l?.rpsMean ?? null, p50Us: l?.latencyUs.p50 ?? null, p99Us: l?.latencyUs.p99 ?? null, maxUs: l?.latencyUs.max ?? null,
    cpuPctMean: r.stats?.cpuPctMean ?? null, memMaxBytes: r.stats?.memMaxBytes ?? null, errors: l ? l.errors + l.timeouts + l.non2xx : null, flags: r.flags, failure: r.failure ?? null,
    ...(l?.warmupUsedSec !== undefined ? { warmupUsedSec: l.warmupUsedSec } : {}),
    ...raised(l),
    ...dependencyText(r.dependencies),
    ...failedWhy(l),
    ...sent(l?.bytesPerSec),
  };
}

export type SummaryMetric = 'p99' | 'rps';

/** The series key of a cell in summary charts: everything but workers (and repetition). */
function seriesKey(c: CellConfig): string {
  const load = c.load.model === 'closed' ? `${c.load.connections} conn` : `${c.load.rate} req/s`;
  const env = c.envSet ? ` · ${envWords(c.envSet, ' · ')}` : '';
  return `${c.app}${c.requests ? ` ${c.requests.name}` : ''} · ${c.mode} · ${c.cpuMillis}m/${c.memoryMb} MB · ${load}${env}`;
}

/**
 * p99 (ms) or req/s against workers, one line per CPU / memory pair (and app, mode, load).
 * Repetitions are averaged; cells that did not finish ok, and verification cells, are left out.
 */
export function summaryConfig(cells: CellRow[], metric: SummaryMetric, title: string, prefix = '', offset = 0) {
  const groups = new Map<string, Map<number, number[]>>();
  for (const c of cells) {
    const v = metric === 'p99' ? c.p99Us : c.rpsMean;
    // A verification ran under a snippet's own limits: not a repetition of the grid's configuration.
    if (c.status !== 'ok' || v === null || c.config.phase === 'verify') continue;
    const key = prefix + seriesKey(c.config);
    const byWorkers = groups.get(key) ?? new Map<number, number[]>();
    byWorkers.set(c.config.workers, [...(byWorkers.get(c.config.workers) ?? []), metric === 'p99' ? v / 1000 : v]);
    groups.set(key, byWorkers);
  }
  const sets = [...groups].map(([key, byWorkers], i) => {
    const data: XY[] = [...byWorkers].sort((a, b) => a[0] - b[0]).map(([x, ys]) => ({ x, y: ys.reduce((s, y) => s + y, 0) / ys.length }));
    return lineSet(key, data, i + offset, { pointRadius: 4 });
  });
  return { sets, config: lineConfig(title, 'workers', metric === 'p99' ? 'p99 latency (ms)' : 'throughput (req/s)', sets, { yMin: 0 }) };
}
