// npm run bench -- user-app: what bringing your own project costs, on the Express fixture
// (tests/fixtures/express-app: express from its lockfile, read through its ecosystem file).
//   - first build: base present, `npm ci` from the registry in the install stage (a changed
//     package.json each time, so the install is never cached); median of 3 (network noise)
//   - rebuild after a code change: the install stage is cached; median of 5
//   - cache hit in a new process: nothing changed, as a new `rightsize run` finds it; median of 5
//   - start → ready in each launch mode (no pid header: cluster waits for the launcher's line); median of 5
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveUserApp } from '../src-main/apps/user-apps.ts';
import type { AppDefinition } from '../src-main/apps/catalog.ts';
import { ensureAppImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine, docker } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { findImage } from '../src-main/docker/image-lookup.ts';
import { servingProcesses, WORKERS_LISTENING } from '../src-main/docker/launch.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import type { LaunchMode } from '../src-main/model/types.ts';
import { isMain, printRows, row, type Row } from './stats.ts';

const FIXTURE = path.resolve(fileURLToPath(import.meta.url), '../../tests/fixtures/express-app');

async function define(dir: string): Promise<AppDefinition> {
  const r = await resolveUserApp({ name: 'bench-shop', source: { kind: 'folder', dir }, port: 8080, health: '/health' }, { taken: [], findImage: (i) => findImage(i) });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.definition;
}

function copyFixture(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-shop-'));
  cpSync(FIXTURE, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
  return dir;
}

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

async function probe(dir: string): Promise<void> {
  const ms = await timed(async () => {
    const img = await ensureAppImage(await define(dir), () => ensureBaseImage());
    if (img.built) throw new Error('not cached');
  });
  console.log(JSON.stringify({ ms }));
}

export async function benchUserApp(): Promise<Row[]> {
  const engine = await checkEngine();
  const base = await ensureBaseImage();
  const tags = new Set<string>();
  const build = async (dir: string): Promise<number> =>
    timed(async () => {
      const img = await ensureAppImage(await define(dir), async () => base);
      if (!img.built) throw new Error('expected a build');
      tags.add(img.tag);
    });
  const rows: Row[] = [];
  const dir = copyFixture();
  const pkgFile = path.join(dir, 'package.json');
  const pkg = readFileSync(pkgFile, 'utf8');
  const first: number[] = [];
  for (let i = 0; i < 3; i++) {
    writeFileSync(pkgFile, pkg.replace('"version": "1.2.0"', `"version": "1.2.${Date.now()}"`));
    first.push(await build(dir));
  }
  rows.push(row('first build (npm ci of express from the lockfile)', first));
  const server = path.join(dir, 'server.js');
  const code = readFileSync(server, 'utf8');
  const rebuild: number[] = [];
  for (let i = 0; i < 5; i++) {
    writeFileSync(server, `${code}\n// edit ${Date.now()}\n`);
    rebuild.push(await build(dir));
  }
  rows.push(row('rebuild after a code change (install cached)', rebuild));
  const hits: number[] = [];
  for (let i = 0; i < 5; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--probe', dir], { encoding: 'utf8' });
    hits.push((JSON.parse(out.trim().split('\n').pop()!) as { ms: number }).ms);
  }
  rows.push(row('cache hit, new process (resolve + hash + ask Docker)', hits));

  const app = await define(dir);
  const image = await ensureAppImage(app, async () => base);
  for (const mode of ['single', 'cluster', 'pm2'] as LaunchMode[]) {
    const workers = mode === 'single' ? 1 : 2;
    const ready: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      const c = await TargetContainer.start({
        image: image.tag, launch: { mode, workers, entry: image.entry, name: app.name, args: app.source.kind === 'folder' ? app.source.args : [] },
        port: app.port, env: app.env,
        cpuMillis: 1000, memoryMb: 256, publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
      });
      try {
        await waitReady(c.address, {
          path: app.health, processes: servingProcesses(mode, workers), deadlineMs: 30_000, exited: c.exited,
          ...(mode === 'cluster' ? { allListening: () => c.hasLogLine(WORKERS_LISTENING) } : {}),
        });
        ready.push(performance.now() - t0);
      } finally {
        await c.remove();
      }
    }
    rows.push(row(`start → ready, ${mode === 'single' ? 'single' : `${mode} ×${workers}`}`, ready));
  }
  for (const tag of tags) await docker().getImage(tag).remove({ force: true }).catch(() => {}); // the bench's own images only
  printRows('user app (tests/fixtures/express-app, offline base)', rows);
  return rows;
}

if (isMain(import.meta.url)) {
  const at = process.argv.indexOf('--probe');
  if (at > 0) await probe(process.argv[at + 1]!);
  else await benchUserApp();
}
