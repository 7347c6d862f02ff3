// The CLI's progress line with several cells running at once (a Swarm with the nodes): each running
// cell by its number and phase, the finished ones as permanent lines; one cell at a time as before.
import { describe, expect, it } from 'vitest';
import { progressPrinter } from '../../src-main/cli/progress.ts';
import type { CellConfig } from '../../src-main/model/types.ts';

const cell = (index: number, workers: number): CellConfig => ({
  index, repetition: 0, app: 'hello', mode: 'cluster', workers, cpuMillis: 250, memoryMb: 128, load: { model: 'closed', connections: 4 }, durationSec: 3, warmupSec: 1, env: {},
});

function terminal(): { out: NodeJS.WriteStream; live: () => string; lines: string[] } {
  let text = '';
  const out = { isTTY: true, columns: 400, write: (s: string) => ((text += s), true) } as unknown as NodeJS.WriteStream;
  return {
    out,
    // What the terminal shows on its last line: after the last clear-line.
    live: () => text.split('\r\x1b[2K').pop()!,
    get lines() {
      return text.split('\n').map((l) => l.split('\r\x1b[2K').pop()!).slice(0, -1);
    },
  };
}

describe('progress with several running cells', () => {
  it('shows each running cell by its number and phase, and the permanent line of each finished one', () => {
    const t = terminal();
    const p = progressPrinter(t.out, false);
    p({ type: 'run-started', runId: 1, name: 'm', total: 4, cells: [], etaSec: 16 });
    p({ type: 'cell-started', runId: 1, cellId: 1, index: 0, total: 4, cell: cell(0, 1), etaSec: 16 });
    expect(t.live()).toMatch(/ 1\/4 ETA 16s {2}hello .* — starting$/);
    p({ type: 'cell-started', runId: 1, cellId: 2, index: 1, total: 4, cell: cell(1, 2), etaSec: 16 });
    p({ type: 'cell-phase', runId: 1, cellId: 2, index: 1, phase: 'warmup' });
    expect(t.live()).toMatch(/0\/4 done, 2 running, ETA 16s {2}#1 hello .* — starting │ #2 hello .* — warmup$/);
    p({ type: 'cell-finished', runId: 1, cellId: 1, index: 0, total: 4, etaSec: 12, result: { config: cell(0, 1), status: 'failed', failure: 'unreachable: gone', flags: [], startedAt: '', finishedAt: '' } });
    expect(t.lines.some((l) => /^✗ 1\/4 hello .*: failed — unreachable: gone$/.test(l))).toBe(true);
    expect(t.live()).toMatch(/ 2\/4 ETA 12s {2}hello .* — warmup$/); // one left running: the one-cell line
  });
});
