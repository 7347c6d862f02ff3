// What Node.js sees inside the box (issue 45), on the real engine: every process says once what it
// believes (os.cpus, availableParallelism, constrained memory, heap limit, the pool, the cgroup); the
// answer names the traps that sets, from those readings against the cells' caps; --no-probe says
// they were not checked.
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { BuildContext } from '../../src-main/docker/build-context.ts';
import { buildImage } from '../../src-main/docker/image-build.ts';
import type { RunDetail } from '../../src-main/model/stored.ts';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { PACED_LOAD, requireDocker } from '../helpers/docker.ts';

const ROOT = path.resolve(__dirname, '../..');
const MB = 2 ** 20;
const IMAGE = 'rightsize-test/web-concurrency-traps:1';
let db: string;

beforeAll(async () => {
  await requireDocker();
  db = path.join(tempDir(), 'h.db');
}, 120_000);

async function runOf(matrix: object, extra: string[] = []): Promise<RunDetail> {
  const config = path.join(tempDir(), 'm.json');
  // Paced: what the processes read inside the box does not depend on how hard they work.
  writeFileSync(config, JSON.stringify({ durationSec: 2, warmupSec: 0, load: PACED_LOAD, settleBudgetPct: 0, verify: false, ...matrix }));
  const r = await cli(['--db', db, '--json', 'run', '--config', config, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  const store = Store.open(db);
  try {
    return store.getRun((JSON.parse(r.stdout) as { runId: number }).runId)!;
  } finally {
    store.close();
  }
}

const explain = async (id: number): Promise<string> => (await cli(['--db', db, 'report', String(id), '--explain'])).stdout;

describe('what every process saw, and the traps it sets', () => {
  it('a cluster ×2 cell: each process’s reading stored; its heap above the 256 MB cap named with the flag that fits, and the snippets say so', async () => {
    const run = await runOf({ apps: ['json'], modes: ['cluster'], workers: [2], cpuMillicores: [1000], memoryMb: [256] });
    const [cell] = run.cells;
    const ps = cell!.probe!.processes;
    expect(ps.map((p) => p.role).sort()).toEqual(['primary', 'worker', 'worker']);
    for (const p of ps) {
      const r = p.runtime!;
      expect(r.cpus).toBe(os.cpus().length); // the host's, whatever the cap
      expect(r.node).toBe(cell!.nodeVersion);
      expect(r.threadpool).toBe(4);
      expect(r.constrainedMemory).toBe(256 * MB);
      expect([1, 2]).toContain(r.cgroup);
      expect(r.parallelism).toBeGreaterThanOrEqual(1);
    }
    // V8 sizes each process's heap from the whole container: two of them cannot both fit in it.
    const limit = ps.find((p) => p.role === 'worker')!.runtime!.heapLimitBytes;
    expect(2 * limit).toBeGreaterThan(256 * MB);
    const words = await explain(run.id);
    const fit = /V8's heap limit is (\d+) MB in each of its 2 serving processes \(Node [\d.]+\).* --max-old-space-size=(\d+) fits in 256 MB/.exec(words);
    expect(fit, words).not.toBeNull();
    expect(Number(fit![1])).toBe(Math.round(limit / MB));
    // Unverified, the container snippets say the trap and carry no flag; verify.test.ts runs the flag verification
    // sets at each limit (fit by the same rule), so it is not run again here.
    const k8s = (await cli(['--db', db, 'report', String(run.id), '--emit', 'kubernetes'])).stdout;
    expect(k8s).toContain("# Heap: V8 sizes each process's heap from the whole container, so its 2 serving processes");
    expect(k8s).not.toContain('NODE_OPTIONS');
  }, 120_000);

  it('a project that forks by os.cpus(), with an ecosystem file saying instances: "max": apps add warns at once, the answer names both', async () => {
    const add = await cli(['--db', db, 'apps', 'add', 'shop', '--folder', path.join(ROOT, 'tests/fixtures/forks-by-host'), '--port', '3000', '--no-try']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('warning: ecosystem.config.js says instances: "max": PM2 counts os.cpus()');
    const run = await runOf({ apps: ['shop'], modes: ['single'], workers: [1], cpuMillicores: [1000], memoryMb: [512] });
    const cores = os.cpus().length;
    expect(run.cells[0]!.probe!.processes.filter((p) => p.role === 'worker')).toHaveLength(cores);
    const words = await explain(run.id);
    expect(words).toContain(`Shop started ${cores} serving processes where the matrix asked for 1, as many as os.cpus() says (in a 1 CPU container on this ${cores}-core host, os.cpus() says ${cores})`);
    expect(words).toContain(`Shop's ecosystem.config.js says instances: "max", and PM2 counts os.cpus()`);
    const summary = (await cli(['--db', db, '--json', 'report', String(run.id)])).stdout;
    const bullets = (JSON.parse(summary) as { summary: string[] }).summary;
    expect(bullets.length).toBeLessThanOrEqual(4);
    expect(bullets.filter((b) => /os\.cpus\(\)|instances/.test(b))).toHaveLength(1);
  }, 120_000);

  it("a user's own image: its processes' readings are stored too", async () => {
    const base = await ensureBaseImage();
    const src = path.join(ROOT, 'tests/fixtures/web-concurrency-image');
    const ctx = new BuildContext().addText('Dockerfile', readFileSync(path.join(src, 'Dockerfile'), 'utf8')).addFile('server.js', path.join(src, 'server.js'));
    await buildImage(ctx, IMAGE, { kind: 'test', buildargs: { BASE_IMAGE: base.tag } });
    const add = await cli(['--db', db, 'apps', 'add', 'img', '--image', IMAGE, '--workers-env', 'WEB_CONCURRENCY', '--port', '5000', '--no-try']);
    expect(add.code, add.stderr).toBe(0);
    const run = await runOf({ apps: ['img'], modes: ['cluster'], workers: [2], cpuMillicores: [500], memoryMb: [256] });
    const ps = run.cells[0]!.probe!.processes;
    expect(ps).toHaveLength(3);
    // The image's own NODE_OPTIONS (48 MB of old space) is what its processes report.
    for (const p of ps) expect(p.runtime!.heapLimitBytes).toBeLessThan(100 * MB);
  }, 180_000);

  it('--no-probe: the answer says the traps were not checked', async () => {
    const run = await runOf({ apps: ['hello'], modes: ['single'], workers: [1], cpuMillicores: [500], memoryMb: [128] }, ['--no-probe']);
    expect(run.cells[0]!.probe).toBeUndefined();
    const out = (await cli(['--db', db, 'report', String(run.id)])).stdout;
    expect(out).toContain('The container traps were not checked: the runtime probe was off (--no-probe).');
  }, 60_000);
});
