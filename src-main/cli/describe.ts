import type { CellConfig } from '../engine/types.ts';
import type { StoredCell } from '../store/index.ts';
import { fmtBytes, fmtNum, fmtUs, table } from './format.ts';

/** "hello cluster×2 1000m/256MB c20", the short name of a cell used in every listing. */
export function cellLabel(c: CellConfig): string {
  const load = c.load.model === 'closed' ? `c${c.load.connections}` : `${c.load.rate}rps/c${c.load.connections}`;
  const req = c.requests ? ` [${c.requests.name}]` : '';
  return `${c.app}${req} ${c.mode}×${c.workers} ${c.cpuMillis}m/${c.memoryMb}MB ${load}${c.repetition > 0 ? ` rep${c.repetition + 1}` : ''}`;
}

export function cellsTable(cells: StoredCell[]): string {
  return table(
    ['#', 'app', 'mode', 'workers', 'cpu', 'memory', 'load', 'status', 'req/s', 'p50', 'p99', 'max', 'cpu%cap', 'mem max', 'flags'],
    cells.map((c) => [
      String(c.config.index + 1),
      c.config.app + (c.config.requests ? ` [${c.config.requests.name}]` : ''),
      c.config.mode,
      String(c.config.workers),
      `${c.config.cpuMillis}m`,
      `${c.config.memoryMb} MB`,
      c.config.load.model === 'closed' ? `${c.config.load.connections} conn` : `${c.config.load.rate} rps`,
      c.status,
      fmtNum(c.rpsMean),
      fmtUs(c.p50Us),
      fmtUs(c.p99Us),
      fmtUs(c.maxUs),
      c.cpuPctMean === null ? '—' : `${Math.round(c.cpuPctMean)}%`,
      fmtBytes(c.memMaxBytes),
      c.flags.map((f) => f.kind).join(' '),
    ]),
  );
}

