// README's command-line example is a real run's output (scripts/readme-example.mjs regenerates it):
// checked here against what the CLI prints today — the cells table's columns as cli/describe.ts
// makes them (warm-up included), and the start line with the quick preset's own cell count.
import { cellCostFrom, estimateRun } from '../../src-main/engine/estimate.ts';
import { expandMatrix, type Matrix } from '../../src-main/engine/matrix.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cellsTable } from '../../src-main/cli/describe.ts';
import { progressPrinter } from '../../src-main/cli/progress.ts';
import { validateMatrix } from '../../src-main/engine/matrix.ts';
import { findPreset } from '../../src-main/presets/presets.ts';
import { COMMAND, END, MAX_WIDTH, START, exampleBlock, replaceExample } from '../../scripts/readme-example.mjs';
import { cell, run } from '../helpers/run-fixture.ts';

const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');
const example = (): string[] => {
  const a = README.indexOf(START);
  const b = README.indexOf(END);
  expect(a, 'README.md has the example markers').toBeGreaterThanOrEqual(0);
  expect(b).toBeGreaterThan(a);
  return README.slice(a + START.length, b).trim().split('\n');
};
const columns = (line: string): string[] => line.trim().split(/\s{2,}/);

/** The start line the CLI prints now, for a run of `total` cells (progress.ts, fed a run-started event). */
function startLine(matrix: Matrix): string {
  let out = '';
  const printer = progressPrinter({ write: (s: string) => ((out += s), true), isTTY: false } as unknown as NodeJS.WriteStream, false);
  const cells = expandMatrix(matrix);
  const estimate = estimateRun({ cells, matrix, costOf: () => cellCostFrom([]), pastRuns: [], k: 1 });
  printer({ type: 'run-started', runId: 1, name: 'quick', total: cells.length, cells: [], etaSec: estimate.totalSec, estimate });
  return out.trim();
}

describe('README’s command-line example', () => {
  const lines = example();

  it('is the quick preset run, as the script types it', () => {
    expect(lines[0]).toBe('```text');
    expect(lines[1]).toBe(`$ npx rightsize ${COMMAND.join(' ')}`);
    expect(lines.at(-1)).toBe('```');
    expect(lines.every((l) => [...l].length <= MAX_WIDTH)).toBe(true);
  });

  it('starts with the line the CLI prints now, with the preset’s own number of cells', () => {
    const preset = findPreset('quick')!;
    const v = validateMatrix(preset.matrix, { cores: 64, memoryMb: 65536, apps: (preset.matrix as { apps: string[] }).apps });
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    // The shape of today's start line (the plan of its phases) with the example's run id and estimate put in its place.
    const shape = startLine(v.matrix).replace(/^Run 1 /, 'Run \\d+ ').replace(/about .*\.$/, 'about \\S+ \\S+\\.'); // "about 1m15s (53s–1m36s)."
    expect(lines[2]).toMatch(new RegExp(`^${shape.replace(/[()]/g, '\\$&')}$`));
  });

  it('has the cells table with the columns the CLI prints now, one row per grid cell at least', () => {
    const header = columns(cellsTable([run([cell({})]).cells[0]!]).split('\n')[0]!);
    expect(header).toContain('warm-up');
    const at = lines.findIndex((l) => l.startsWith('#') && columns(l).join('|') === header.join('|'));
    expect(at, `a line with the columns ${header.join(', ')}`).toBeGreaterThan(0);
    expect(lines[at + 1]).toMatch(/^─+(\s+─+)+$/);
    const rows = lines.slice(at + 2).filter((l, i, all) => all.slice(0, i + 1).every((x) => /^\d+/.test(x)));
    const preset = findPreset('quick')!.matrix as { workers: number[]; repetitions: number };
    expect(rows.length).toBeGreaterThanOrEqual(preset.workers.length * preset.repetitions);
    // Every row has a warm-up as the CLI says it ("1 → 4 s" past the configured one, or "4 s").
    for (const r of rows) expect(r).toMatch(/ \d+ (→ \d+ )?s /);
  });
});

describe('the example script', () => {
  it('puts a run’s output between the markers, cut to width, with nothing else changed', () => {
    const readme = `# R\n\n${START}\nold\n${END}\n\nafter\n`;
    const long = 'x'.repeat(MAX_WIDTH + 20);
    const block = exampleBlock(`Run 1 "quick": 6 cell(s), about 1m00s.\r\n\x1b[32m✓\x1b[0m ok\n${long}\nsaved in /tmp/abc/db\n\n`, '/tmp/abc');
    const next = replaceExample(readme, block);
    expect(next).toBe(
      `# R\n\n${START}\n\`\`\`text\n$ npx rightsize run --preset quick\nRun 1 "quick": 6 cell(s), about 1m00s.\n✓ ok\n${'x'.repeat(MAX_WIDTH - 1)}…\nsaved in /tmp/rightsize-example/db\n\`\`\`\n${END}\n\nafter\n`,
    );
    expect(() => replaceExample('# no markers', block)).toThrow(/markers/);
  });
});
