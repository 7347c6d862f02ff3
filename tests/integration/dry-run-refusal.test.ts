// `run --dry-run` refuses a matrix exactly as the run does on the real engine (same words, same exit code),
// and neither creates a run; the dry run of a valid matrix starts no container and stores no run.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src-main/cli/exit-codes.ts';
import { docker } from '../../src-main/docker/client.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';

const runs = (db: string): number => {
  const s = Store.open(db);
  try {
    return s.listRuns({}).total;
  } finally {
    s.close();
  }
};
const containerIds = async (): Promise<string[]> =>
  (await docker().listContainers({ all: true })).map((c) => c.Id).sort();

describe('run --dry-run on the real engine', () => {
  it("an invalid matrix: the dry run's refusal is the run's, word for word; no run, no new container", async () => {
    const dir = tempDir('rightsize-dry-refusal-');
    const db = path.join(dir, 'h.db');
    Store.open(db).close();
    const file = path.join(dir, 'bad.json');
    const bad = { apps: ['hello', 'nope'], cpuMillicores: [1_000_000], memoryMb: [8], workers: [0], modes: ['cluster'], repetition: 2 };
    writeFileSync(file, JSON.stringify(bad));
    const before = await containerIds();
    const dry = await cli(['--db', db, 'run', '--config', file, '--dry-run']);
    expect(await containerIds()).toEqual(before);
    const real = await cli(['--db', db, 'run', '--config', file]);
    expect(real.code).toBe(EXIT.usage);
    expect(dry.code).toBe(real.code);
    expect(real.stderr).toContain('rightsize: The matrix is not valid; nothing was started:\n');
    expect(dry.stderr).toBe(real.stderr);
    expect(runs(db)).toBe(0);
  });

  it('a valid matrix: listed with its estimate, exit 0, no container started and no run stored', async () => {
    const db = path.join(tempDir('rightsize-dry-valid-'), 'h.db');
    Store.open(db).close();
    const before = await containerIds();
    const r = await cli(['--db', db, 'run', '--preset', 'quick', '--dry-run', '--yes', '--no-verify']);
    expect(r.code).toBe(EXIT.ok);
    // 57 s of grid (3 × 9 s, and 3 × 10 s: 2 workers' JIT floor is 2 s; each with the 2 s the adaptive warm-up typically
    // adds) and half the settling budget's 3 cells (14 s); no verification (engine/estimate.ts, no history).
    expect(r.stdout).toContain('6 cells (2 configurations × 3 repetitions), about 1m11s (one cell at a time).');
    expect(r.stdout).not.toContain('Docker did not answer');
    expect(await containerIds()).toEqual(before);
    expect(runs(db)).toBe(0);
  });
});
