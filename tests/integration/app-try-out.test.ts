import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import type { TryOutResult } from '../../src-main/apps/try-out.ts';
import { LABEL } from '../../src-main/docker/labels.ts';
import { docker } from '../../src-main/docker/client.ts';
import { runMatrix } from '../../src-main/engine/run-matrix.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, ROOT, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';

// The "bring your own app" report: a Koa-like server with /health and /items/:id, added with a
// request and no health path (so `/`, which answers 404). The try-out must say so and suggest
// /health; a matrix of it must fail its first cell and skip the others at once, while another app
// in the same matrix runs as usual.

const KOA = path.join(ROOT, 'tests/fixtures/koa-like');
/** How long a health path may give the same 404 before the cell fails (docker/readiness.ts DEFINITE_MS), and a margin. */
const READINESS_SEC = 5 + 3;

const db = path.join(tempDir(), 'h.db');

beforeAll(async () => {
  await requireDocker();
});

async function containersOfApp(app: string): Promise<string[]> {
  const list = await docker().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.app}=${app}`] }) });
  return list.map((c) => c.Id);
}

describe('`apps add` problems in the words of its options', () => {
  it('a folder that does not exist is a --folder problem, not source.dir', async () => {
    const r = await cli(['--db', path.join(tempDir(), 'h.db'), 'apps', 'add', 'bad', '--folder', '/nonexistent', '--entry', 's.js', '--port', '3000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--folder: the folder /nonexistent does not exist');
    expect(r.stderr).not.toContain('source.');
  });
});

describe('a user app whose health path answers 404', () => {
  it('`apps add --try` saves it, says the health path answered 404 and suggests --health /health (exit 5)', async () => {
    const r = await cli(['--db', db, '--json', 'apps', 'add', 'koa-like', '--folder', KOA, '--entry', 'server.js', '--port', '3000', '--request', 'GET /items/7 200', '--try']);
    expect(r.code, r.stderr).toBe(5);
    const { app, tryOut } = JSON.parse(r.stdout) as { app: { name: string }; tryOut: TryOutResult };
    expect(app.name).toBe('koa-like');
    expect(tryOut.answered).toBe(true);
    expect(tryOut.ok).toBe(false);
    const health = tryOut.probes.find((p) => p.kind === 'health')!;
    expect(health.path).toBe('/');
    expect(health.answers.map((a) => a.status)).toEqual([404, 404, 404]);
    const items = tryOut.probes.find((p) => p.kind === 'request')!;
    expect(items).toMatchObject({ method: 'GET', path: '/items/7', expected: 200, ok: true });
    expect(tryOut.suggestions[0]).toMatchObject({ kind: 'health', path: '/health' });
    // Its container is gone, and the app stays saved.
    expect(await containersOfApp('koa-like')).toEqual([]);
    const list = await cli(['--db', db, '--json', 'apps']);
    expect((JSON.parse(list.stdout) as { name: string }[]).map((a) => a.name)).toContain('koa-like');
  });

  it('`apps try` in words: what answered and the command that fixes it', async () => {
    const r = await cli(['--db', db, 'apps', 'try', 'koa-like']);
    expect(r.code, r.stderr).toBe(5);
    expect(r.stdout).toMatch(/✗ health\s+GET \/\s+404 ×3, \d+ ms \(expected 2xx\)/);
    expect(r.stdout).toMatch(/✓ guess\s+GET \/health\s+200/);
    expect(r.stdout).toMatch(/✓ request GET \/items\/7\s+200 ×3/);
    expect(r.stdout).toContain('rightsize apps edit koa-like --health /health');
  });

  it('a matrix of it fails cell 1, skips its other cells at once, and still runs hello', async () => {
    const store = Store.open(db);
    try {
      const matrix = {
        name: 'skip same failure',
        apps: ['koa-like', 'hello'],
        modes: ['single'],
        workers: [1],
        cpuMillicores: [500, 1000],
        memoryMb: [256, 512],
        load: { model: 'closed', connections: [4] },
        durationSec: 1,
        warmupSec: 0,
        settleBudgetPct: 0,
        verify: false,
      };
      const t0 = Date.now();
      const outcome = await runMatrix(matrix, { store });
      const wallSec = (Date.now() - t0) / 1000;
      expect(outcome.status).toBe('completed');
      const run = store.getRun(outcome.runId)!;
      const koa = run.cells.filter((c) => c.config.app === 'koa-like');
      const hello = run.cells.filter((c) => c.config.app === 'hello');
      expect(koa.map((c) => c.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
      expect(koa[0]!.failure).toMatch(/^not ready: the health path gave the same answer for \d+ s: a path the app does not serve \(health answered 404\)/);
      for (const c of koa.slice(1)) expect(c.failure).toBe('skipped: same failure as cell 1 (health answered 404)');
      expect(hello.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
      // Without the skip, koa-like alone would take 4 × the readiness wait; with it, one wait.
      const koaSec = koa.reduce((a, c) => a + (Date.parse(c.finishedAt!) - Date.parse(c.startedAt)) / 1000, 0);
      console.log(`koa-like cells: ${koaSec.toFixed(1)} s in all; the whole run ${wallSec.toFixed(1)} s`);
      expect(koaSec).toBeLessThan(2 * READINESS_SEC);
      expect(wallSec).toBeLessThan(4 * READINESS_SEC);

      // The answer says it once for the app, and still counts every excluded cell.
      const rec = recommend(run);
      expect(rec.run.cellsExcluded).toBe(4);
      const lines = rec.words.filter((w) => w.includes('koa-like'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/health answered 404.*its 3 other cells of koa-like skipped at once/);
      expect(rec.headline).toBeTruthy();
    } finally {
      store.close();
    }
  });
});

afterAll(async () => {
  expect(await containersOfApp('koa-like')).toEqual([]);
});
