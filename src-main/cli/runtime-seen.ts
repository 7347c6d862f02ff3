// `show`'s "What Node.js saw": each distinct reading of the cells' serving processes at start, with
// the cells that saw it (a cell's processes agree unless the app set something per process).
import { runtimeLine } from '../common/runtime-words.ts';
import type { StoredCell } from '../model/stored.ts';
import { serverReading } from '../analysis/decide/traps.ts';

export function runtimeSeenLines(cells: readonly StoredCell[]): string[] {
  const byLine = new Map<string, number[]>();
  for (const c of cells) {
    const r = c.probe ? serverReading(c.probe.processes) : null;
    if (!r) continue;
    const line = runtimeLine(r);
    (byLine.get(line) ?? byLine.set(line, []).get(line)!).push(c.config.index + 1);
  }
  if (!byLine.size) return [];
  return [
    'What Node.js saw in the box (each cell’s serving processes, at start):',
    ...[...byLine].map(([line, idx]) => `  cell${idx.length > 1 ? 's' : ''} ${idx.join(', ')}: ${line}`),
  ];
}
