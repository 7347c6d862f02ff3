// npm run bench -- dependencies: what an app's database and cache cost a cell, and where they should run.
// 1. A fresh world per cell (issue 41's reset): the fixture's PostgreSQL (with its init script) and Redis started
//    and ready, the app started and ready on their network, all removed; median of N, against a cell's measured time.
// 2. The app's goodput by where the dependencies run: on the load's core, on the app's core, wherever the kernel puts
//    them (this host's default when no core is spare), and on a core of their own where the host has one. Rounds
//    interleave the placements, so a slow minute touches each alike; medians per placement.
// Images: PG_IMAGE / REDIS_IMAGE, else Rightsize's offline ones (built once).
import os from 'node:os';
import path from 'node:path';
import { readCompose } from '../src-main/apps/compose/from-compose.ts';
import type { AppDefinition } from '../src-main/apps/catalog.ts';
import type { Dependency } from '../src-main/apps/dependencies.ts';
import { DependenciesSchema } from '../src-main/apps/dependencies.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine, docker } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { ensureDependencyImage } from '../src-main/docker/dependency-images.ts';
import { ensureFolderImage } from '../src-main/docker/folder-image.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import { runLoad } from '../src-main/load/runner.ts';
import { CellWorld } from '../src-main/providers/docker/world.ts';
import { shopFolder } from '../tests/helpers/compose-shop.ts';
import { isMain, median, printRows, row, type Row } from './stats.ts';

const N = 7;
const ROUNDS = 3;
const MEASURED_SEC = 5;

async function setUp(): Promise<{ app: AppDefinition; image: string; entry: string; deps: Dependency[] }> {
  process.env.PG_IMAGE ??= await ensureDependencyImage('postgres');
  process.env.REDIS_IMAGE ??= await ensureDependencyImage('redis');
  const dir = shopFolder();
  const read = readCompose(path.join(dir, 'docker-compose.yml'), 'api');
  if (!read.ok) throw new Error(read.problems.map((p) => p.message).join('; '));
  const src = read.app.source as { dir: string; entry: string; args: string[] };
  const app: AppDefinition = {
    name: 'shop', version: '1', description: '', stresses: '', entry: src.entry, port: read.app.port,
    health: read.app.health ?? '/', env: read.app.env ?? {}, dir: src.dir, builtIn: false,
    requests: [{ method: 'GET', path: '/products/7' }, { method: 'POST', path: '/orders', status: 201 }],
    source: { kind: 'folder', args: [], cwd: '' },
  };
  const image = await ensureFolderImage(app, await ensureBaseImage());
  return { app, image: image.tag, entry: image.entry, deps: DependenciesSchema.parse(read.app.dependencies) };
}

/** The world and the app on it, pinned as asked; ready. */
async function start(
  s: Awaited<ReturnType<typeof setUp>>,
  o: { appCpus?: string; depCpus?: string },
): Promise<{ world: CellWorld; app: TargetContainer; worldMs: number; appMs: number }> {
  const t0 = performance.now();
  const world = await CellWorld.start({ dependencies: s.deps, labels: { app: 'bench', run: 'bench' }, ...(o.depCpus ? { cpuset: o.depCpus } : {}) }, docker(), !o.depCpus);
  await world.ready(120_000);
  const t1 = performance.now();
  const app = await TargetContainer.start({
    image: s.image, launch: { mode: 'cluster', workers: 2, entry: s.entry, name: 'shop', args: [] }, port: s.app.port,
    env: s.app.env, cpuMillis: 1000, memoryMb: 256, publish: false, network: world.network,
    ...(o.appCpus ? { cpuset: o.appCpus } : {}), labels: { app: 'bench', run: 'bench' },
  });
  try {
    await waitReady(app.address, { path: s.app.health, processes: 1, deadlineMs: 30_000, exited: app.exited });
  } catch (e) {
    console.error((await app.logTail(20)).join('\n'));
    await app.remove();
    await world.remove();
    throw e;
  }
  return { world, app, worldMs: t1 - t0, appMs: performance.now() - t1 };
}

export async function benchDependencies(): Promise<Row[]> {
  const engine = await checkEngine();
  if (!engine.bridgeRoutable) throw new Error('this benchmark reaches the app by its bridge IP: run it on Linux');
  const s = await setUp();
  const worldMs: number[] = [];
  const appMs: number[] = [];
  const removeMs: number[] = [];
  for (let i = 0; i < N; i++) {
    const w = await start(s, {});
    worldMs.push(w.worldMs);
    appMs.push(w.appMs);
    const t = performance.now();
    await w.app.remove();
    await w.world.remove();
    removeMs.push(performance.now() - t);
  }
  const startRows = [
    row('dependencies start → ready (PostgreSQL + init script, Redis)', worldMs),
    row('the app (cluster ×2) start → ready on their network', appMs),
    row('teardown: app, dependencies, network', removeMs),
  ];
  printRows(`a fresh world per cell (median of ${N})`, startRows);
  const perCell = median(worldMs) + median(removeMs);
  console.log(
    `\nthe world's own cost per cell: ${(perCell / 1000).toFixed(1)} s (start + teardown), ` +
      `${((perCell / 1000 / MEASURED_SEC) * 100).toFixed(0)} % of a ${MEASURED_SEC} s measurement`,
  );

  // Placement: the app on core 0 (1 CPU), the load on core 1; the dependencies by placement.
  const cores = os.cpus().length;
  const placements: [string, string | undefined][] = [
    ['on the load core (1)', '1'],
    ['on the app core (0)', '0'],
    ['wherever the kernel puts them', undefined],
    ...(cores >= 3 ? ([[`apart (cores 2-${cores - 1})`, `2-${cores - 1}`]] as [string, string][]) : []),
  ];
  const goodput = new Map<string, number[]>(placements.map(([p]) => [p, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [label, depCpus] of placements) {
      const w = await start(s, { appCpus: '0', ...(depCpus ? { depCpus } : {}) });
      try {
        const res = await runLoad({
          host: w.app.address.host, port: w.app.address.port, requests: s.app.requests,
          load: { model: 'closed', connections: 16 }, durationSec: MEASURED_SEC, warmupSec: 2, timeoutSec: 10, cpus: '1',
        });
        goodput.get(label)!.push(res.goodputMean ?? res.rpsMean);
      } finally {
        await w.app.remove();
        await w.world.remove();
      }
    }
  }
  const base = median(goodput.get('wherever the kernel puts them')!);
  const rows = placements.map(([label]) => {
    const xs = goodput.get(label)!;
    return { ...row(`goodput, dependencies ${label}`, xs), note: `× ${(median(xs) / base).toFixed(2)}` };
  });
  printRows(`the app's goodput by where its dependencies run (req/s, median of ${ROUNDS} rounds, ${cores} cores)`, rows, 0);
  for (const r of rows) console.log(`  ${r.op}: ${r.note} of wherever the kernel puts them`);
  if (cores < 3) console.log('  (no core apart on this host: the run says so, and the dependencies share)');
  return [...startRows, ...rows];
}

if (isMain(import.meta.url)) await benchDependencies();
