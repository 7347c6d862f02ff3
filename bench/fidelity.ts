// npm run bench -- fidelity: closed-loop req/s reported by the runner ÷ req/s measured by wrk
// against the same `hello` container, alternating in the same run. Target ≥ 0.90.
import { execFileSync } from 'node:child_process';
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import { planPlacement } from '../src-main/docker/placement.ts';
import { runLoad } from '../src-main/load/runner.ts';
import { isMain, median } from './stats.ts';

const ROUNDS = 5;
const SECONDS = 10;
const CONNECTIONS = 20;

function wrk(host: string, port: number, cpus?: string): number {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, `http://${host}:${port}/`];
  const out = cpus ? execFileSync('taskset', ['-c', cpus, 'wrk', ...args], { encoding: 'utf8' }) : execFileSync('wrk', args, { encoding: 'utf8' });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!m) throw new Error(`cannot read wrk output:\n${out}`);
  return Number(m[1]);
}

export async function benchFidelity(cpuMillis: number): Promise<{ ratio: number; runner: number; wrk: number; elu: number }> {
  const engine = await checkEngine();
  const app = findApp('hello')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const place = planPlacement(cpuMillis, engine.cpus, true);
  const c = await TargetContainer.start({
    image: image.tag, launch: { mode: 'single', workers: 1, entry: image.entry, name: app.name }, port: app.port, env: {},
    cpuMillis, memoryMb: 256, ...(place.targetCpus ? { cpuset: place.targetCpus } : {}), publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
  });
  const ratios: number[] = [];
  const runners: number[] = [];
  const wrks: number[] = [];
  const elus: number[] = [];
  try {
    await waitReady(c.address, { path: app.health, processes: 1, deadlineMs: 30_000 });
    wrk(c.address.host, c.address.port, place.loadCpus); // warm the JIT once
    for (let i = 0; i < ROUNDS; i++) {
      const r = await runLoad({
        host: c.address.host, port: c.address.port, requests: app.requests, load: { model: 'closed', connections: CONNECTIONS },
        durationSec: SECONDS, warmupSec: 0, timeoutSec: 10, ...(place.loadCpus ? { cpus: place.loadCpus } : {}),
      });
      const w = wrk(c.address.host, c.address.port, place.loadCpus);
      runners.push(r.rpsMean);
      wrks.push(w);
      elus.push(r.clientElu);
      ratios.push(r.rpsMean / w);
      console.log(`  round ${i + 1}: runner ${r.rpsMean.toFixed(0)} req/s (client ELU ${r.clientElu.toFixed(2)}), wrk ${w.toFixed(0)} req/s, ratio ${(r.rpsMean / w).toFixed(3)}`);
    }
  } finally {
    await c.remove();
  }
  return { ratio: median(ratios), runner: median(runners), wrk: median(wrks), elu: median(elus) };
}

if (isMain(import.meta.url)) {
  console.log(`\n### fidelity (hello, single, ${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} alternating rounds)\n`);
  const results: string[] = [];
  for (const cpu of [1000, 2000]) {
    console.log(`cap ${cpu}m:`);
    const f = await benchFidelity(cpu);
    results.push(`| ${cpu}m | ${f.runner.toFixed(0)} | ${f.wrk.toFixed(0)} | ${f.ratio.toFixed(3)} | ${f.elu.toFixed(2)} | ≥ 0.90 | ${f.ratio >= 0.9 ? 'pass' : 'FAIL'} |`);
  }
  console.log('\n| CPU cap | runner req/s (median) | wrk req/s (median) | ratio (median of rounds) | runner client ELU | target | |');
  console.log('|---|---:|---:|---:|---:|---|---|');
  for (const r of results) console.log(r);
}
