// npm run bench -- container-spread [--runs K]: how much of the spread between repetitions comes from the
// container itself (issue 43: may repetitions share one container, warm-up paid once?). `quick`'s configuration
// (json, cluster × 1 on 1 CPU, 20 connections): K fresh containers (default 5), each warmed up once (the
// engine's adaptive warm-up), then 3 measured windows of 5 s with fresh connections. One-way analysis of
// variance on the windows' goodput: the spread between containers against the spread within one, the share of
// the variance that is the container's (intraclass correlation), and F with its p-value.
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { planPlacement } from '../src-main/docker/placement.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import { servingProcesses } from '../src-main/docker/launch.ts';
import { fDistributionUpperP } from './f-test.ts';
import { runLoad } from '../src-main/load/runner.ts';
import { isWarm, warmupCapSec } from '../src-main/load/steady-state.ts';
import { isMain } from './stats.ts';

const WINDOWS = 3;
const WINDOW_SEC = 5;
const CPU_MILLIS = 1000;

function option(name: string): string | undefined {
  const i = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
}

export async function benchContainerSpread(k: number): Promise<void> {
  const engine = await checkEngine();
  const app = findApp('json')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const place = planPlacement(CPU_MILLIS, engine.cpus, true);
  const groups: number[][] = [];
  const warmups: number[] = [];
  for (let c = 0; c < k; c++) {
    const t = await TargetContainer.start({
      image: image.tag, launch: { mode: 'cluster', workers: 1, entry: image.entry, name: app.name }, port: app.port, env: {},
      cpuMillis: CPU_MILLIS, memoryMb: 256, ...(place.targetCpus ? { cpuset: place.targetCpus } : {}), publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
    });
    try {
      await waitReady(t.address, { path: app.health, processes: servingProcesses('cluster', 1), deadlineMs: 30_000 });
      const windows: number[] = [];
      for (let w = 0; w < WINDOWS; w++) {
        // The first window carries the container's one warm-up (adaptive, as a cell's); the others start warm.
        const r = await runLoad(
          { host: t.address.host, port: t.address.port, requests: app.requests, load: { model: 'closed', connections: 20 }, durationSec: WINDOW_SEC, warmupSec: w === 0 ? 1 : 0, maxWarmupSec: w === 0 ? warmupCapSec(1) : 0, timeoutSec: 10, ...(place.loadCpus ? { cpus: place.loadCpus } : {}) },
          w === 0 ? { isWarm } : {},
        );
        if (w === 0) warmups.push(r.warmupUsedSec ?? 0);
        windows.push(r.goodputMean ?? r.rpsMean);
      }
      groups.push(windows);
      console.log(`  container ${c + 1}: warm-up ${warmups.at(-1)} s; windows ${windows.map((x) => x.toFixed(0)).join(', ')} req/s`);
    } finally {
      await t.remove();
    }
  }
  const n = WINDOWS;
  const all = groups.flat();
  const grand = all.reduce((a, b) => a + b, 0) / all.length;
  const means = groups.map((g) => g.reduce((a, b) => a + b, 0) / n);
  const ssWithin = groups.reduce((a, g, i) => a + g.reduce((s, x) => s + (x - means[i]!) ** 2, 0), 0);
  const ssBetween = n * means.reduce((a, m) => a + (m - grand) ** 2, 0);
  const msWithin = ssWithin / (k * (n - 1));
  const msBetween = ssBetween / (k - 1);
  const varBetween = Math.max(0, (msBetween - msWithin) / n);
  const icc = varBetween / (varBetween + msWithin);
  const f = msBetween / msWithin;
  const p = fDistributionUpperP(f, k - 1, k * (n - 1));
  const cv = (v: number): string => `${((Math.sqrt(v) / grand) * 100).toFixed(2)} %`;
  console.log(`\n### container spread (json cluster × 1 on ${CPU_MILLIS / 1000} CPU, ${k} containers × ${WINDOWS} windows of ${WINDOW_SEC} s)\n`);
  console.log('| mean goodput | within a container (SD, % of mean) | between containers (SD of the container component) | share of variance that is the container\'s (ICC) | F | p | median warm-up s |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| ${grand.toFixed(0)} | ${cv(msWithin)} | ${cv(varBetween)} | ${icc.toFixed(2)} | ${f.toFixed(2)} | ${p.toFixed(3)} | ${[...warmups].sort((a, b) => a - b)[Math.floor(warmups.length / 2)]} |`);
}

if (isMain(import.meta.url)) await benchContainerSpread(Number(option('--runs') ?? 5));
