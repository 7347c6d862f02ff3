// npm run bench -- warm-raise [--runs K] [--config pm2-16|pm2-8|cluster-4]: a cell under one CPU warms up at one
// (load/warmup.ts WARM_CPUS), then measures at its own cap. Does it measure what a cell warmed at its own cap
// measures, and what does it save? K cells (default 8) of one configuration through the engine's own cell runner,
// alternating: one warmed at its own cap (its target's in-place cap change hidden from the runner), one raised.
// Per rule: the cell's wall time, its warm-up, its goodput; then the raised cells' goodput against the others'
// (Welch's t on the cells' goodputs, and the ratio's 95 % interval on the log scale).
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { runCell } from '../src-main/engine/cell-runner.ts';
import { cellWarmup } from '../src-main/engine/cell-warmup.ts';
import type { CellConfig } from '../src-main/model/types.ts';
import type { Provider } from '../src-main/providers/provider.ts';
import { localProvider } from '../src-main/providers/local/provider.ts';
import { mean, stddev, tQuantile, welch } from '../src-main/analysis/decide/stats.ts';
import { isMain, median } from './stats.ts';

const CONFIGS: Record<string, Pick<CellConfig, 'mode' | 'workers' | 'cpuMillis' | 'memoryMb' | 'durationSec' | 'warmupSec'> & { connections: number; label: string }> = {
  // pm2-right-sizing's heaviest and next configurations, and cluster-vs-cpus' 4 workers on half a CPU.
  'pm2-16': { label: 'json, PM2 × 16 on 0.5 CPU / 512 MB', mode: 'pm2', workers: 16, cpuMillis: 500, memoryMb: 512, connections: 50, durationSec: 8, warmupSec: 2 },
  'pm2-8': { label: 'json, PM2 × 8 on 0.5 CPU / 512 MB', mode: 'pm2', workers: 8, cpuMillis: 500, memoryMb: 512, connections: 50, durationSec: 8, warmupSec: 2 },
  'cluster-4': { label: 'json, cluster × 4 on 0.5 CPU / 512 MB', mode: 'cluster', workers: 4, cpuMillis: 500, memoryMb: 512, connections: 50, durationSec: 8, warmupSec: 2 },
};

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
}

/** The same engine with targets whose cap cannot be changed in place: the runner then warms them at their own cap. */
function ownCapOnly(p: Provider): Provider {
  const q = Object.create(p) as Provider;
  q.provision = async (spec) => {
    const t = await p.provision(spec);
    return Object.assign(Object.create(Object.getPrototypeOf(t) as object) as object, t, { setCpuMillis: undefined });
  };
  return q;
}

export async function benchWarmRaise(k: number, name: string): Promise<void> {
  const c = CONFIGS[name];
  if (!c) throw new Error(`unknown --config ${name}: choose from ${Object.keys(CONFIGS).join(', ')}`);
  const engine = await checkEngine();
  const app = findApp('json')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const local = localProvider(engine);
  const rows: { rule: 'own cap' | 'raised'; wallSec: number; warmupSec: number; goodput: number; cpuPct: number }[] = [];
  const cfg: CellConfig = {
    index: 0, repetition: 0, app: 'json', mode: c.mode, workers: c.workers, cpuMillis: c.cpuMillis, memoryMb: c.memoryMb,
    load: { model: 'closed', connections: c.connections }, durationSec: c.durationSec, warmupSec: c.warmupSec, env: {},
  };
  console.log(`${c.label}: least warm-up ${cellWarmup(cfg, false).minSec} s at its own cap, ${cellWarmup(cfg, true).minSec} s raised`);
  for (let i = 0; i < k; i++) {
    const rule = i % 2 === 0 ? 'own cap' : 'raised';
    const t0 = performance.now();
    const r = await runCell({ ...cfg, index: i }, { app, image, provider: rule === 'raised' ? local : ownCapOnly(local), placement: true, timeoutSec: 10 });
    const wallSec = (performance.now() - t0) / 1000;
    if (r.status !== 'ok' || !r.load) throw new Error(`cell ${i + 1} (${rule}): ${r.status} ${r.failure ?? ''}`);
    if ((rule === 'raised') !== Boolean(r.load.warmupRaise)) throw new Error(`cell ${i + 1} (${rule}): raise recorded as ${JSON.stringify(r.load.warmupRaise)}`);
    const row = { rule, wallSec, warmupSec: r.load.warmupUsedSec ?? 0, goodput: r.load.goodputMean ?? r.load.rpsMean, cpuPct: r.stats?.cpuPctMean ?? NaN } as const;
    rows.push(row);
    const raised = r.load.warmupRaise ? ` (${r.load.warmupRaise.untilSec} s raised, planned ${cellWarmup(cfg, true).raise?.untilSec})` : '';
    console.log(`  cell ${i + 1} (${rule}): wall ${wallSec.toFixed(1)} s, warm-up ${row.warmupSec} s${raised}, ${row.goodput.toFixed(0)} req/s at ${row.cpuPct.toFixed(0)} % of ${c.cpuMillis}m`);
  }
  const of = (rule: string) => rows.filter((r) => r.rule === rule);
  console.log(`\n### warm at one CPU, measure at the cap (${c.label}, ${k} cells alternating)\n`);
  console.log('| warm-up | cells | wall s (median) | warm-up s (median) | measured ÷ wall (median) | goodput (mean ± SD) | CPU % of cap (median) |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const rule of ['own cap', 'raised']) {
    const xs = of(rule);
    const g = xs.map((r) => r.goodput);
    console.log(`| ${rule} | ${xs.length} | ${median(xs.map((r) => r.wallSec)).toFixed(1)} | ${median(xs.map((r) => r.warmupSec))} | ${(median(xs.map((r) => c.durationSec / r.wallSec)) * 100).toFixed(0)} % | ${mean(g).toFixed(0)} ± ${(stddev(g) ?? 0).toFixed(0)} | ${median(xs.map((r) => r.cpuPct)).toFixed(0)} |`);
  }
  // The raised cells' goodput over the others': Welch on the logs, so the ratio's interval is a ratio's.
  const est = (xs: number[]) => ({ mean: mean(xs), se: (stddev(xs) ?? 0) / Math.sqrt(xs.length), df: xs.length - 1 });
  const a = est(of('raised').map((r) => Math.log(r.goodput)));
  const b = est(of('own cap').map((r) => Math.log(r.goodput)));
  const w = welch(a, b);
  const half = tQuantile(0.975, w.df) * Math.sqrt(a.se ** 2 + b.se ** 2);
  console.log(`\nraised ÷ own cap, goodput: ${Math.exp(w.diff).toFixed(3)} (95 % interval ${Math.exp(w.diff - half).toFixed(3)}–${Math.exp(w.diff + half).toFixed(3)}), Welch p = ${w.p.toFixed(3)}; wall ${(median(of('raised').map((r) => r.wallSec)) / median(of('own cap').map((r) => r.wallSec))).toFixed(2)} of the own cap's`);
}

if (isMain(import.meta.url)) await benchWarmRaise(Number(option('--runs') ?? 8), option('--config') ?? 'pm2-16');
