// npm run bench -- container-spread [--runs K] [--config quick|pm2-16|pm2-16-1cpu|pm2-8-1cpu|pm2-2] [--windows W] [--compare-floor | --compare-noise]: how much of the spread between
// repetitions comes from the container itself (issue 43: may repetitions share one container, warm-up paid once?).
// K fresh containers (default 5) of one configuration, each warmed up once (the engine's adaptive warm-up), then W (3)
// measured windows with fresh connections. One-way analysis of variance on the windows' goodput: the spread between
// containers against the spread within one, the container's share of the variance (intraclass correlation), F and p.
// Then Kalibera and Jones' two-level design ("Rigorous benchmarking in reasonable time", 2013): with a container's
// cost c₁ (start, readiness, warm-up, teardown) and a window's c₂, the variance of a configuration's mean per unit of
// wall time is (σ²_between + σ²_within / W) · (c₁ + W · c₂), least at W* = √((c₁ / c₂) · σ²_within / σ²_between).
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { planPlacement } from '../src-main/docker/placement.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import { servingProcesses } from '../src-main/docker/launch.ts';
import type { LaunchMode } from '../src-main/model/types.ts';
import { fDistributionUpperP } from './f-test.ts';
import { runLoad } from '../src-main/load/runner.ts';
import { isWarm, stationarity, warmupBounds, warmupCapSec } from '../src-main/load/steady-state.ts';
import { isMain } from './stats.ts';
import { RunNoise } from '../src-main/load/second-noise.ts';


interface SpreadConfig {
  label: string;
  app?: string;
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
  connections: number;
  windowSec: number;
  warmupSec: number;
}

/** `quick`'s configuration, and the lightest and heaviest of `pm2-right-sizing`'s (its ramp is the long one). */
const CONFIGS: Record<string, SpreadConfig> = {
  quick: { label: 'json, cluster × 1 on 1 CPU', mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256, connections: 20, windowSec: 5, warmupSec: 1 },
  'pm2-16': { label: 'json, PM2 × 16 on 0.5 CPU / 512 MB', mode: 'pm2', workers: 16, cpuMillis: 500, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
  'pm2-8': { label: 'json, PM2 × 8 on 0.5 CPU / 512 MB', mode: 'pm2', workers: 8, cpuMillis: 500, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
  'pm2-16-1cpu': { label: 'json, PM2 × 16 on 1 CPU / 512 MB', mode: 'pm2', workers: 16, cpuMillis: 1000, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
  'pm2-8-1cpu': { label: 'json, PM2 × 8 on 1 CPU / 512 MB', mode: 'pm2', workers: 8, cpuMillis: 1000, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
  'cluster-8': { label: 'json, cluster × 8 on 1 CPU / 512 MB', mode: 'cluster', workers: 8, cpuMillis: 1000, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
  'pbkdf2-6': { label: 'pbkdf2, cluster × 6 on 1 CPU / 256 MB', app: 'pbkdf2', mode: 'cluster', workers: 6, cpuMillis: 1000, memoryMb: 256, connections: 6, windowSec: 10, warmupSec: 2 },
  'pm2-2': { label: 'json, PM2 × 2 on 1 CPU / 512 MB', mode: 'pm2', workers: 2, cpuMillis: 1000, memoryMb: 512, connections: 50, windowSec: 8, warmupSec: 2 },
};

function option(name: string): string | undefined {
  const i = process.argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
}

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchContainerSpread(k: number, name = 'quick', windowCount = 3): Promise<void> {
  const cfg = CONFIGS[name];
  if (!cfg) throw new Error(`unknown --config ${name}: choose from ${Object.keys(CONFIGS).join(', ')}`);
  const engine = await checkEngine();
  const app = findApp(cfg.app ?? 'json')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const place = planPlacement(cfg.cpuMillis, engine.cpus, true);
  const groups: number[][] = [];
  const warmups: number[] = [];
  const containerCosts: number[] = []; // wall seconds of a container outside its measured windows
  const windowCosts: number[] = []; // wall seconds of a later window, fresh connections included
  // --compare-floor: every other container warms up by the rule before the JIT floor (the flatness test alone), so
  // both rules' first windows are measured side by side against the same configuration's steady level.
  const compare = process.argv.includes('--compare-floor');
  // --compare-noise: every other container judges flatness at the host's noise as the run reads it (load/second-noise.ts:
  // here, from every window measured so far), the others at a quiet host's bound; both with the JIT floor.
  const compareNoise = process.argv.includes('--compare-noise');
  if (compare && compareNoise) throw new Error('--compare-floor and --compare-noise each alternate the containers: choose one');
  const noise = new RunNoise();
  const firsts: { rule: string; warmupSec: number; share: number; noise?: number }[] = [];
  for (let c = 0; c < k; c++) {
    const t0 = performance.now();
    const floorRule = !compare || c % 2 === 1;
    const warmNoise = compareNoise && c % 2 === 1 ? noise.get() : undefined;
    const bounds = floorRule
      ? warmupBounds(cfg.warmupSec, servingProcesses(cfg.mode, cfg.workers), cfg.cpuMillis / 1000)
      : { minSec: cfg.warmupSec, capSec: warmupCapSec(cfg.warmupSec) };
    const t = await TargetContainer.start({
      image: image.tag, launch: { mode: cfg.mode, workers: cfg.workers, entry: image.entry, name: app.name }, port: app.port, env: {},
      cpuMillis: cfg.cpuMillis, memoryMb: cfg.memoryMb, ...(place.targetCpus ? { cpuset: place.targetCpus } : {}), publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
    });
    let measuredSec = 0;
    try {
      await waitReady(t.address, { path: app.health, processes: servingProcesses(cfg.mode, cfg.workers), deadlineMs: 60_000 });
      const windows: number[] = [];
      for (let w = 0; w < windowCount; w++) {
        const w0 = performance.now();
        // The first window carries the container's one warm-up (adaptive, as a cell's); the others start warm.
        const r = await runLoad(
          { host: t.address.host, port: t.address.port, requests: app.requests, load: { model: 'closed', connections: cfg.connections }, durationSec: cfg.windowSec, warmupSec: w === 0 ? bounds.minSec : 0, maxWarmupSec: w === 0 ? bounds.capSec : 0, ...(w === 0 && warmNoise !== undefined ? { warmNoise } : {}), timeoutSec: 10, ...(place.loadCpus ? { cpus: place.loadCpus } : {}) },
          w === 0 ? { isWarm } : {},
        );
        if (w === 0) warmups.push(r.warmupUsedSec ?? 0);
        else windowCosts.push((performance.now() - w0) / 1000);
        measuredSec += cfg.windowSec;
        windows.push(r.goodputMean ?? r.rpsMean);
        // As a run reads it: a window whose seconds drifted or stepped is not the host's noise.
        noise.add({ status: 'ok', flags: stationarity(r.perSecondRps ?? []).unstable ? [{ kind: 'unstable' }] : [], load: r });
      }
      groups.push(windows);
      // When the windows reach 90 % of the last third's level: the ramp's length, and each process's CPU seconds by then.
      const steady = windows.slice(-Math.max(1, Math.floor(windows.length / 3)));
      const level = steady.reduce((a, b) => a + b, 0) / steady.length;
      const at = windows.findIndex((x) => x >= 0.9 * level);
      const rampSec = (warmups.at(-1) ?? 0) + at * (cfg.windowSec + 0.4);
      const cpuSec = (rampSec * cfg.cpuMillis) / 1000 / cfg.workers;
      const rule = compareNoise
        ? c % 2 === 1 ? "at the host's noise" : "a quiet host's 12 %"
        : floorRule ? 'with the JIT floor' : 'flatness alone';
      firsts.push({ rule, warmupSec: warmups.at(-1) ?? 0, share: windows[0]! / level, ...(warmNoise !== undefined ? { noise: warmNoise } : {}) });
      console.log(
        `  container ${c + 1}${warmNoise !== undefined ? ` (noise ${(warmNoise * 100).toFixed(1)} %)` : ''}: warm-up ${warmups.at(-1)} s; windows ${windows.map((x) => x.toFixed(0)).join(', ')} req/s;` +
          ` 90 % of the last third's level by ${rampSec.toFixed(0)} s of load (${cpuSec.toFixed(2)} CPU-s a process)`,
      );
    } finally {
      await t.remove();
    }
    containerCosts.push((performance.now() - t0) / 1000 - measuredSec);
  }
  const n = windowCount;
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
  // A later window's cost over its measured seconds is the price of fresh connections; the container's cost is the
  // rest of its wall time (start, readiness, warm-up, teardown, less the later windows' overheads).
  const c2 = median(windowCosts);
  const c1 = median(containerCosts) - (windowCount - 1) * (c2 - cfg.windowSec);
  const perWindowC1 = c1 + cfg.windowSec; // a fresh container measuring one window
  const ratio = (w: number): number =>
    ((varBetween + msWithin / w) * (c1 + w * c2)) / ((varBetween + msWithin) * perWindowC1);
  const wStar = varBetween > 0 ? Math.sqrt((c1 / c2) * (msWithin / varBetween)) : Infinity;
  const share = (w: number): number => (w * cfg.windowSec) / (c1 + w * c2);
  if (compare || compareNoise) {
    console.log(`\n### the first window against the steady level (${cfg.label}, ${k} containers, rules alternating)\n`);
    console.log('| warm-up rule | containers | warm-up s (median) | first window ÷ last third of the windows (median) | each |');
    console.log('|---|---:|---:|---:|---|');
    const rules = compareNoise ? ["a quiet host's 12 %", "at the host's noise"] : ['flatness alone', 'with the JIT floor'];
    for (const rule of rules) {
      const xs = firsts.filter((f) => f.rule === rule);
      console.log(`| ${rule} | ${xs.length} | ${median(xs.map((f) => f.warmupSec))} | ${median(xs.map((f) => f.share)).toFixed(2)} | ${xs.map((f) => f.share.toFixed(2)).join(', ')} |`);
    }
  }
  console.log(`\n### container spread (${cfg.label}, ${k} containers × ${windowCount} windows of ${cfg.windowSec} s)\n`);
  console.log('| mean goodput | within a container (SD) | the container\'s own component (SD) | ICC | F | p | warm-up s (median) | c₁ container s | c₂ window s | W* | variance × time, W = 3 ÷ W = 1 | measured share W = 1 → W = 3 |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(`| ${grand.toFixed(0)} | ${cv(msWithin)} | ${cv(varBetween)} | ${icc.toFixed(2)} | ${f.toFixed(2)} | ${p.toFixed(3)} | ${median(warmups)} | ${c1.toFixed(1)} | ${c2.toFixed(1)} | ${Number.isFinite(wStar) ? wStar.toFixed(1) : '∞'} | ${ratio(3).toFixed(2)} | ${(share(1) * 100).toFixed(0)} % → ${(share(3) * 100).toFixed(0)} % |`);
}

if (isMain(import.meta.url))
  await benchContainerSpread(Number(option('--runs') ?? 5), option('--config') ?? 'quick', Number(option('--windows') ?? 3));
