import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { listOwnContainers } from '../../src-main/docker/sweep.ts';
import { cli, ROOT, tempDir } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker } from '../helpers/docker.ts';

// A project whose server is a dependency's command-line tool, as json-server is: the entry sits
// under node_modules/…/bin (a shebang script), reads a data file relative to its working directory
// and rejects any argument it does not expect (exit 2), so a launcher that adds words of its own
// to argv — pm2-runtime did, in cluster mode — fails here instead of serving by accident.
const BIN_APP = path.join(ROOT, 'tests/fixtures/bin-app');
const ENTRY = 'node_modules/tiny-rest/bin/tiny-rest.js';

beforeAll(async () => {
  await requireDocker();
});

type Out = { runId: number; cells: { config: { mode: string; workers: number }; status: string; requests: number; non2xx: number; errors: number; failure: string | null }[] };

async function sizeIt(args: string[], modes: string[]): Promise<{ code: number | null; out: Out; stderr: string }> {
  const dir = tempDir();
  const db = path.join(dir, 'h.db');
  const add = await cli(['--db', db, 'apps', 'add', 'rest', '--folder', BIN_APP, '--entry', ENTRY, ...args.flatMap((a) => ['--arg', a]), '--port', '3000', '--health', '/health', '--request', 'GET /items/2']);
  expect(add.code, add.stderr).toBe(0);
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify({ apps: ['rest'], modes, workers: [2], cpuMillicores: [1000], memoryMb: [256], durationSec: 1, warmupSec: 0, load: PACED_LOAD, settleBudgetPct: 0, verify: false }));
  const r = await cli(['--db', db, '--json', 'run', '--config', config]);
  return { code: r.code, out: JSON.parse(r.stdout) as Out, stderr: r.stderr };
}

describe('a bin script under node_modules with start arguments', () => {
  it('starts with exactly its own arguments in single, cluster and pm2 modes', async () => {
    const { code, out, stderr } = await sizeIt(['db.json', '--host', '0.0.0.0', '--port', '3000'], ['single', 'cluster', 'pm2']);
    expect(out.cells.map((c) => `${c.config.mode}×${c.config.workers}:${c.status}${c.failure ? ` ${c.failure}` : ''}`)).toEqual(['single×1:ok', 'cluster×2:ok', 'pm2×2:ok']);
    expect(code, stderr).toBe(0);
    for (const c of out.cells) {
      expect(c.requests).toBeGreaterThan(0);
      expect(c.non2xx + c.errors).toBe(0); // GET /items/2 answered from db.json, read from the working directory
    }
    expect(await listOwnContainers({ run: out.runId })).toEqual([]);
  });

  it('reports a start failure with the last lines the app printed, in pm2 mode, and skips the cells that would repeat it', async () => {
    // A stray argument: the app prints its usage and exits 2; PM2 restarts it until pm2-runtime gives up.
    const { code, out, stderr } = await sizeIt(['db.json', 'extra', '--host', '0.0.0.0', '--port', '3000'], ['pm2', 'single']);
    expect(code, stderr).toBe(4);
    const [first, second] = out.cells;
    expect(first!.status).toBe('failed');
    expect(first!.failure).toMatch(/^not ready: /);
    expect(first!.failure).toContain('tiny-rest: expected one data file, got 2: db.json extra');
    expect(second!.status).toBe('failed');
    // On a busy host (this shared lane, twice in CI replicas) pm2-runtime may still be restarting the app at the
    // readiness deadline (32 s): then cell 1 failed on time, which a cell's own CPU cap could cause, so nothing is
    // skipped (run/same-failure.ts) and cell 2 shows the app's exit at start on its own.
    const exited = 'not ready: the container exited with code 2';
    const late = /^not ready: not ready within \d+ s/.test(first!.failure!);
    if (late) expect(second!.failure).toMatch(new RegExp(`^${exited}`));
    // Otherwise the exit at start is the app's, whatever the mode: its other cell is not started to fail the same way.
    else expect(second!.failure).toMatch(/^skipped: same failure as cell 1 \(the app exited with code \d+ at start\)/);
    // The terminal shows the container's last log lines too, not only the first line of the failure, and the skip.
    const failed = late ? 'not ready: not ready within \\d+ s' : exited;
    expect(stderr).toMatch(new RegExp(`✗ 1/2 rest pm2×2 [^\\n]*${failed}[^\\n]*\\n {4}last lines of the container's log:\\n {4}│ `));
    if (!late) expect(stderr).toContain('rest single×1 1000m/256MB 200rps/c4: failed — skipped: same failure as cell 1');
  });
});
