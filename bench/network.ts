// npm run bench -- network [--runs N]: the bandwidth cap (issue 44) as a resource, on this machine's engine.
// 1. How close the load side's count of the response bytes comes to each cap: the static app's 1 MiB responses
//    (cluster ×1 on one CPU, 8 connections) through 50, 200, 1,000 and 2,000 Mbit/s, N cells each in interleaved
//    rounds, beside uncapped cells (what this host serves without a cap): the share of the cap per cell, its
//    per-second spread, and how many were read as network-bound (threshold NETWORK_BOUND_SHARE).
// 2. What setting a cap costs a cell: the tc helper's run (create, start, wait, remove), median of N.
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { checkEngine, docker } from '../src-main/docker/client.ts';
import { capBandwidth, ensureShaperImage } from '../src-main/docker/net-shaper.ts';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import { Store } from '../src-main/store/index.ts';
import { NETWORK_BOUND_SHARE } from '../src-main/common/thresholds.ts';
import { median } from './stats.ts';

const arg = process.argv.indexOf('--runs');
const RUNS = arg > 0 ? Number(process.argv[arg + 1]) : 3;
const CAPS = [50, 200, 1000, 2000];

await checkEngine();
const dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-bench-network-'));
const store = Store.open(path.join(dir, 'h.db'));
const cell = (networkMbps?: number): Record<string, unknown> => ({
  apps: ['static'], modes: ['cluster'], workers: [1], cpuMillicores: [1000], memoryMb: [256],
  ...(networkMbps ? { networkMbps: [networkMbps] } : {}),
  requestSets: [{ name: '1m', requests: [{ method: 'GET', path: '/1m' }] }],
  load: { model: 'closed', connections: [8] }, durationSec: 5, warmupSec: 1, settleBudgetPct: 0, verify: false, probe: false,
});
type Got = { share: number; cv: number; bound: boolean; mbps: number };
const got = new Map<number | 'none', Got[]>();
try {
  for (let r = 0; r < RUNS; r++)
    for (const cap of [...CAPS, undefined]) {
      const out = await runMatrix(cell(cap), { store });
      const c = out.cells[0]!;
      if (c.status !== 'ok' || !c.load) throw new Error(`cell at ${cap ?? 'no'} cap: ${c.status} ${c.failure ?? ''}`);
      const mbps = (c.load.bytesPerSec * 8) / 1e6;
      const perSec = (store.getRunSamples(out.runId).values().next().value ?? []).map((s) => (s.bytes * 8) / 1e6);
      const m = perSec.reduce((a, b) => a + b, 0) / perSec.length;
      const cv = Math.sqrt(perSec.reduce((a, b) => a + (b - m) ** 2, 0) / perSec.length) / m;
      const g = { share: cap ? mbps / cap : NaN, cv, bound: c.flags.some((f) => f.kind === 'network-bound'), mbps };
      got.set(cap ?? 'none', [...(got.get(cap ?? 'none') ?? []), g]);
      console.error(`round ${r + 1}/${RUNS} cap ${cap ?? 'none'}: ${mbps.toFixed(0)} Mbit/s, per-second CV ${(cv * 100).toFixed(1)} %`);
    }
  // The helper's own cost, on a container that idles.
  const image = await ensureShaperImage();
  const ms: number[] = [];
  // The static app's image, built by the cells above: a container that only idles.
  const app = (await docker().listImages({ filters: JSON.stringify({ reference: ['rightsize/app-static'] }) }))[0]!;
  for (let i = 0; i < 7; i++) {
    const target = await docker().createContainer({ Image: app.RepoTags![0]!, Cmd: ['node', '-e', 'setTimeout(() => {}, 60000)'] });
    await target.start();
    const t0 = performance.now();
    await capBandwidth(docker(), image, target.id, 200, {});
    ms.push(performance.now() - t0);
    await target.remove({ force: true });
  }

  const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;
  console.log(`\n### The network as a resource: the load side's bytes against the cap (${RUNS} cells a cap, interleaved)\n`);
  console.log(`static 1 MiB, cluster ×1 on 1 CPU / 256 MB, 8 connections, 1 s warm-up + 5 measured s; network-bound at ≥ ${NETWORK_BOUND_SHARE * 100} % of the cap.\n`);
  console.log('| cap | share of the cap: min | median | max | per-second spread (CV, median) | network-bound |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const cap of CAPS) {
    const xs = got.get(cap)!;
    const s = xs.map((x) => x.share);
    console.log(`| ${cap} Mbit/s | ${pct(Math.min(...s))} | ${pct(median(s))} | ${pct(Math.max(...s))} | ${pct(median(xs.map((x) => x.cv)))} | ${xs.filter((x) => x.bound).length} of ${xs.length} |`);
  }
  const none = got.get('none')!;
  console.log(`| none | ${none.map((x) => `${x.mbps.toFixed(0)} Mbit/s`).join(', ')} (what this host serves uncapped) | | | ${pct(median(none.map((x) => x.cv)))} | ${none.filter((x) => x.bound).length} of ${none.length} |`);
  console.log(`\nSetting a cap (the tc helper: create, start, wait, remove): median ${median(ms).toFixed(0)} ms, min ${Math.min(...ms).toFixed(0)}, max ${Math.max(...ms).toFixed(0)} (7 runs).`);
} finally {
  store.close();
  rmSync(dir, { recursive: true, force: true });
}
