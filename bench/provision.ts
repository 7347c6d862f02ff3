// npm run bench -- provision: image cache hit, container start → ready, and teardown for `hello`
// in each launch mode; median of 10.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { servingProcesses } from '../src-main/docker/launch.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import type { LaunchMode } from '../src-main/model/types.ts';
import { isMain, printRows, row, type Row } from './stats.ts';

const N = 10;

/** Run in a fresh process each time: a cache hit as a new `rightsize run` pays it (hashing the inputs, asking Docker). */
async function imageProbe(): Promise<void> {
  const t0 = performance.now();
  const base = await ensureBaseImage();
  const img = await ensureBuiltInImage(findApp('hello')!, base);
  if (img.built) throw new Error('the image was not cached: run the benchmark twice');
  console.log(JSON.stringify({ ms: performance.now() - t0 }));
}

export async function benchProvision(): Promise<Row[]> {
  const engine = await checkEngine();
  const app = findApp('hello')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage()); // build once, outside the timings
  const rows: Row[] = [];
  const hits: number[] = [];
  for (let i = 0; i < N; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--probe'], { encoding: 'utf8' });
    hits.push((JSON.parse(out.trim().split('\n').pop()!) as { ms: number }).ms);
  }
  rows.push(row('image cache hit (base + hello, new process)', hits));
  for (const mode of ['single', 'cluster', 'pm2'] as LaunchMode[]) {
    const workers = mode === 'single' ? 1 : 2;
    const ready: number[] = [];
    const teardown: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      const c = await TargetContainer.start({
        image: image.tag, launch: { mode, workers, entry: image.entry, name: app.name }, port: app.port, env: {},
        cpuMillis: 1000, memoryMb: 256, publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
      });
      try {
        await waitReady(c.address, { path: app.health, processes: servingProcesses(mode, workers), deadlineMs: 30_000, exited: c.exited });
        ready.push(performance.now() - t0);
      } finally {
        const t1 = performance.now();
        await c.remove();
        teardown.push(performance.now() - t1);
      }
    }
    const label = mode === 'single' ? 'single' : `${mode} ×${workers}`;
    rows.push(row(`start → ready, ${label}`, ready, mode === 'single' ? 500 : undefined));
    rows.push(row(`teardown, ${label}`, teardown, 500));
  }
  printRows(`provision (hello, N=${N}, ${path.basename(image.tag)})`, rows);
  return rows;
}

if (isMain(import.meta.url)) {
  if (process.argv.includes('--probe')) await imageProbe();
  else await benchProvision();
}
