// `rightsize run --dry-run` on a matrix with a total budget, a Node.js version and flag sets: each
// cell's replicas, version and flags listed (caps per replica), and, where this machine cannot give
// the replicas and the load cores of their own, that said before anything starts. Docker is pointed
// nowhere, so the limits are this machine's, as on a CI machine.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src-main/cli/exit-codes.ts';
import { cli, tempDir } from '../helpers/cli.ts';

const NO_DOCKER = { DOCKER_HOST: 'unix:///nonexistent/rightsize-dry-run.sock' };
const matrix = {
  apps: ['json'],
  modes: ['cluster'],
  workers: [1],
  budget: { cpuMillicores: [2000], memoryMb: [512] },
  node: ['22'],
  nodeFlags: [[], ['--max-semi-space-size=32']],
  durationSec: 3,
  warmupSec: 1,
};

describe('rightsize run --dry-run with replicas, Node.js versions and flags', () => {
  it.runIf(os.cpus().length >= 2)('lists each cell’s replicas, version and flags, and says when cores are short', async () => {
    const file = path.join(tempDir('rightsize-dry-dims-'), 'matrix.json');
    writeFileSync(file, JSON.stringify(matrix));
    const db = path.join(tempDir('rightsize-dry-dims-db-'), 'never.db');
    const r = await cli(['--db', db, 'run', '--config', file, '--dry-run'], NO_DOCKER);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^#\s+app\s+mode\s+workers\s+replicas\s+node\s+flags\s+cpu each\s+memory each\s+load\s+duration\s+warm-up\s+rep$/m);
    const rows = r.stdout.split('\n').filter((l) => /^\d+\s+json/.test(l)).map((l) => l.trim().split(/\s{2,}/));
    expect(rows.map((x) => x.slice(4, 9))).toEqual([
      ['1', '22', 'none', '2000m', '512 MB'],
      ['2', '22', 'none', '1000m', '256 MB'],
      ['1', '22', '--max-semi-space-size=32', '2000m', '512 MB'],
      ['2', '22', '--max-semi-space-size=32', '1000m', '256 MB'],
    ]);
    expect(r.stdout).toContain('4 cells (4 configurations × 1 repetition)');
    if (os.cpus().length < 3)
      expect(r.stdout).toContain(
        `Note: the largest cell needs 3 cores to give its target and its load cores of their own; this machine has ${os.cpus().length}, so they share cores and results are pessimistic.`,
      );
    else expect(r.stdout).not.toContain('the largest cell needs');
  });
});
