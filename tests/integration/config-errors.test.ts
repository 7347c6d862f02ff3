import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../helpers/cli.ts';
import { callScope, requireDocker } from '../helpers/docker.ts';

// A malformed matrix through the real CLI, which asks Docker for this machine's limits before it
// checks the matrix against them: refused with exit 2, every problem named in words, and nothing
// started — no run row, no container. The table of malformed matrices, through `run --config` and
// `serve`, is tests/unit/config-errors.test.ts (no Docker needed).

beforeAll(async () => {
  await requireDocker();
});

describe('a malformed matrix through the real CLI', () => {
  it('is refused with exit 2 and all its problems; no run was created and no container started', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'history.db');
    const scope = callScope('config-errors');
    const file = path.join(dir, 'matrix.json');
    // cpuMillicores missing, beside a worker count and a memory cap out of range.
    const matrix = { apps: ['hello'], modes: ['cluster'], workers: [0], memoryMb: [8], durationSec: 2, warmupSec: 0, verify: false };
    writeFileSync(file, JSON.stringify(matrix, null, 2));
    const r = await cli(['--db', db, 'run', '--config', file], scope.env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/The matrix is not valid; nothing was started/);
    for (const w of ['cpuMillicores: is missing: give a list of CPU caps in millicores', 'workers: 0 is not a worker count', 'memoryMb: 8 MB is below the minimum'])
      expect(r.stderr).toContain(w);
    expect(r.stderr).not.toMatch(/Invalid input|expected array|received undefined|Unrecognized key/);
    expect(JSON.parse((await cli(['--db', db, 'runs', '--json'])).stdout).total).toBe(0);
    expect(await scope.containers()).toEqual([]);
  });
});
