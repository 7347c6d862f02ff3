// npm run bench -- fidelity [--threads N] [--mix] [--tls] [--h2 | --h2c]
//
// --h2 / --h2c: HTTP/2 (issue 44), over TLS or in clear: hello serves HTTP/2, and Rightsize's HTTP/2 load (h2load
// driven by a load thread, one stream per connection; and Node's http2 client, which sends what h2load cannot) is set
// against h2load itself (`-t1 -m1`, Debian's nghttp2-client), the reference.
// Target ≥ 0.95 of h2load's req/s and of its requests per load-CPU-second.
//
// --tls: the same over HTTPS (issue 44): hello serves the run's kind of certificate, and every tool speaks TLS with a
// full handshake per connection: Rightsize, the autocannon CLI, `wrk -t1` and h2load (`--h1`, Debian's
// nghttp2-client) as the reference. Target ≥ 0.95 of the autocannon CLI's requests per load-CPU-second.
//
// --mix: Rightsize with 1 load thread sending a templated weighted mix ÷ the same thread sending one fixed request,
// alternately, as requests per load-CPU-second: what drawing values per request costs the load generator (≥ 0.9).
//
// Against one `hello` container, side by side in the same run (order rotated every round):
// - Rightsize with 1 load thread ÷ the autocannon CLI (node_modules/.bin/autocannon) and ÷ `wrk -t1`,
//   all with the same connections, pinned to the same load core: what our timing, histograms and
//   per-second merge cost against the tool we build on, and against a C load generator;
// - Rightsize with 1…N threads: throughput, and requests per busy thread-second (req/s ÷ the sum of
//   the threads' event-loop utilisation), the cost of a request as threads are added.
// Medians over the rounds. Targets: ≥ 0.97 × the autocannon CLI per thread; N threads ≥ 0.9 × N × one
// thread while the target is not saturated.
import { execFileSync } from 'node:child_process';
import { findApp } from '../src-main/apps/catalog.ts';
import { ensureBuiltInImage } from '../src-main/docker/app-image.ts';
import { ensureBaseImage } from '../src-main/docker/base-image.ts';
import { checkEngine } from '../src-main/docker/client.ts';
import { TargetContainer } from '../src-main/docker/containers.ts';
import { planPlacement } from '../src-main/docker/placement.ts';
import { waitReady } from '../src-main/docker/readiness.ts';
import { parseCpuList } from '../src-main/common/cpu-list.ts';
import { runLoadDetailed } from '../src-main/load/runner.ts';
import type { MixEntry } from '../src-main/model/requests.ts';
import { isMain, median } from './stats.ts';
import { linkEnv, runCertificate } from '../src-main/tls/certificate.ts';

/** --h2 / --h2c: HTTP/2 over TLS or in clear, against h2load only (the other tools speak HTTP/1.1). */
const PROTOCOL = process.argv.includes('--h2') ? 'h2' : process.argv.includes('--h2c') ? 'h2c' : undefined;
/** --tls (or --h2): every tool over HTTPS. */
const TLS = process.argv.includes('--tls') || PROTOCOL === 'h2';

const ROUNDS = 5;
const SECONDS = 8;
const CONNECTIONS = 20;
const CPU_MILLIS = 1000;

/** `--threads N` (forwarded by scripts/bench.mjs): the most load threads to try. */
function threadsArg(): number | undefined {
  const i = process.argv.findIndex((a) => a === '--threads' || a.startsWith('--threads='));
  if (i < 0) return undefined;
  const raw = process.argv[i]!.includes('=') ? process.argv[i]!.split('=')[1] : process.argv[i + 1];
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`--threads needs a whole number of at least 1 (got "${raw ?? ''}")`);
    process.exit(2);
  }
  return n;
}

/** A tool's throughput and efficiency: mean req/s, and requests per CPU-second it used. */
interface Sample {
  rps: number;
  perCpuSec: number;
  /** Rightsize: its busiest thread's event-loop utilisation. */
  elu?: number;
}

/**
 * Runs a command (pinned to `cpus`) and returns its output and the CPU seconds it used (user + sys,
 * from bash's `times`): CPU time, unlike req/s, is barely moved by other work on the host.
 */
function run(cpus: string | undefined, cmd: string[]): { out: string; cpuSec: number } {
  const argv = cpus ? ['taskset', '-c', cpus, ...cmd] : cmd;
  const lines = execFileSync('bash', ['-c', '"$@"; times', 'bash', ...argv], { encoding: 'utf8' }).trimEnd().split('\n');
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines.pop()!); // the children's line; the shell's own is before it
  if (!m) throw new Error(`cannot read the CPU time of ${cmd[0]}`);
  lines.pop();
  return { out: lines.join('\n'), cpuSec: Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]) };
}

/** h2load over HTTP/1.1 (`--h1`), or HTTP/2 with one stream per connection, one thread: its own count of requests done. */
function h2load(url: string, cpus: string | undefined): Sample {
  const proto = PROTOCOL ? ['-m1'] : ['--h1'];
  const { out, cpuSec } = run(cpus, ['h2load', ...proto, '-t1', `-c${CONNECTIONS}`, `-D${SECONDS}`, url]);
  const done = /requests: \d+ total, \d+ started, (\d+) done/.exec(out);
  const rps = /finished in [\d.]+m?s, ([\d.]+) req\/s/.exec(out);
  if (!done || !rps) throw new Error(`cannot read h2load output:\n${out}`);
  return { rps: Number(rps[1]), perCpuSec: Number(done[1]) / cpuSec };
}

function wrk(url: string, cpus: string | undefined): Sample {
  const { out, cpuSec } = run(cpus, ['wrk', '-t1', `-c${CONNECTIONS}`, `-d${SECONDS}s`, url]);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const total = /(\d+) requests in/.exec(out);
  if (!rps || !total) throw new Error(`cannot read wrk output:\n${out}`);
  return { rps: Number(rps[1]), perCpuSec: Number(total[1]) / cpuSec };
}

const AUTOCANNON = ['node_modules/.bin/autocannon'];

/** CPU seconds the autocannon CLI spends starting (node + its modules), taken off its measurement as ours excludes start-up. */
function autocannonStartCpu(): number {
  return median([0, 1, 2].map(() => run(undefined, [process.execPath, ...AUTOCANNON, '--version']).cpuSec));
}

/** The autocannon CLI in one process on the load core: mean of its per-second samples, as ours. */
function autocannonCli(url: string, cpus: string | undefined, startCpu: number): Sample {
  const { out, cpuSec } = run(cpus, [process.execPath, ...AUTOCANNON, '-j', '-c', String(CONNECTIONS), '-d', String(SECONDS), url]);
  const r = JSON.parse(out.trim().split('\n').pop()!) as { requests: { average: number; total: number } };
  return { rps: r.requests.average, perCpuSec: r.requests.total / (cpuSec - startCpu) };
}

/** A mix with every kind of template, a body and a header: what --mix measures against one fixed request. */
const MIX: MixEntry[] = [
  { method: 'GET', path: '/products/{{zipf 1 5000 1.1}}', weight: 6 },
  { method: 'GET', path: '/search?q={{pick shoes hats socks coats}}&page={{int 1 20}}', weight: 3 },
  { method: 'POST', path: '/orders', headers: { 'x-request-id': '{{uuid}}' }, body: '{"sku":{{int 1 900}},"n":{{seq}}}', weight: 1 },
];
const FIXED: MixEntry[] = [{ method: 'GET', path: '/' }];

async function rightsize(host: string, port: number, threads: number, cpus: string | undefined, requests = FIXED, h2Client?: 'node'): Promise<Sample> {
  const { result: r, loadCpuSec } = await runLoadDetailed({
    host, port, requests, ...(h2Client ? { h2Client } : {}),
    load: { model: 'closed', connections: CONNECTIONS, ...(TLS ? { tls: true as const } : {}), ...(PROTOCOL ? { protocol: PROTOCOL } : {}) },
    durationSec: SECONDS, warmupSec: 0, timeoutSec: 10, threads, ...(cpus ? { cpus } : {}),
  });
  return { rps: r.rpsMean, perCpuSec: r.requests / loadCpuSec, elu: r.clientElu };
}

/** --mix: one thread, the templated mix against one fixed request, alternately on the same core. */
async function benchMix(): Promise<void> {
  const engine = await checkEngine();
  const app = findApp('hello')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const place = planPlacement(CPU_MILLIS, engine.cpus, true);
  const core = place.loadCpus ? String(parseCpuList(place.loadCpus)[0]) : undefined;
  const c = await TargetContainer.start({
    image: image.tag, launch: { mode: 'single', workers: 1, entry: image.entry, name: app.name }, port: app.port, env: {},
    cpuMillis: CPU_MILLIS, memoryMb: 256, ...(place.targetCpus ? { cpuset: place.targetCpus } : {}), publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
  });
  const fixed: Sample[] = [];
  const mixed: Sample[] = [];
  try {
    await waitReady(c.address, { path: app.health, processes: 1, deadlineMs: 30_000 });
    await rightsize(c.address.host, c.address.port, 1, core); // warm the target's JIT once
    for (let round = 0; round < ROUNDS; round++) {
      const steps = [
        async () => void fixed.push(await rightsize(c.address.host, c.address.port, 1, core, FIXED)),
        async () => void mixed.push(await rightsize(c.address.host, c.address.port, 1, core, MIX)),
      ];
      for (let k = 0; k < steps.length; k++) await steps[(k + round) % steps.length]!();
      console.log(`  round ${round + 1}: fixed ${fixed.at(-1)!.perCpuSec.toFixed(0)} req/CPU-s (${fixed.at(-1)!.rps.toFixed(0)} req/s) | mix ${mixed.at(-1)!.perCpuSec.toFixed(0)} req/CPU-s (${mixed.at(-1)!.rps.toFixed(0)} req/s)`);
    }
  } finally {
    await c.remove();
  }
  const e = median(mixed.map((x, i) => x.perCpuSec / fixed[i]!.perCpuSec));
  const r = median(mixed.map((x, i) => x.rps / fixed[i]!.rps));
  console.log(`\n### fidelity --mix (hello single at ${CPU_MILLIS}m, 1 load thread on ${core ?? 'any core'}, ${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} rounds, medians)\n`);
  console.log('| 1 thread | requests per load-CPU-second | req/s |');
  console.log('|---|---:|---:|');
  console.log(`| one fixed GET | ${median(fixed.map((x) => x.perCpuSec)).toFixed(0)} | ${median(fixed.map((x) => x.rps)).toFixed(0)} |`);
  console.log(`| templated weighted mix (zipf, pick, int, uuid, seq, a body and a header) | ${median(mixed.map((x) => x.perCpuSec)).toFixed(0)} | ${median(mixed.map((x) => x.rps)).toFixed(0)} |`);
  console.log(`| mix ÷ fixed | **${e.toFixed(3)}** (target ≥ 0.9: ${e >= 0.9 ? 'pass' : 'FAIL'}) | ${r.toFixed(3)} |`);
}

export async function benchFidelity(maxThreads?: number): Promise<void> {
  const engine = await checkEngine();
  const app = findApp('hello')!;
  const image = await ensureBuiltInImage(app, await ensureBaseImage());
  const place = planPlacement(CPU_MILLIS, engine.cpus, true);
  const loadCores = place.loadCpus ? parseCpuList(place.loadCpus).length : 1;
  const n = maxThreads ?? Math.max(2, loadCores);
  const c = await TargetContainer.start({
    image: image.tag, launch: { mode: 'single', workers: 1, entry: image.entry, name: app.name }, port: app.port,
    env: linkEnv({ ...(TLS ? { tls: true } : {}), ...(PROTOCOL ? { protocol: PROTOCOL } : {}) }, TLS ? await runCertificate('bench') : undefined),
    cpuMillis: CPU_MILLIS, memoryMb: 256, ...(place.targetCpus ? { cpuset: place.targetCpus } : {}), publish: !engine.bridgeRoutable, labels: { app: app.name, run: 'bench' },
  });
  // The CLIs run on the first load core, as Rightsize's first thread does.
  const oneCore = place.loadCpus ? String(parseCpuList(place.loadCpus)[0]) : undefined;
  const ours: Sample[][] = Array.from({ length: n }, () => []);
  const ac: Sample[] = [];
  const wr: Sample[] = [];
  const h2: Sample[] = [];
  const nodeH2: Sample[] = []; // --h2/--h2c: Rightsize's load through Node's http2 client, as before h2load sent it
  const startCpu = autocannonStartCpu();
  try {
    const url = `${TLS ? 'https' : 'http'}://${c.address.host}:${c.address.port}/`;
    await waitReady(c.address, { path: app.health, processes: 1, deadlineMs: 30_000, tls: TLS, h2c: PROTOCOL === 'h2c' });
    if (PROTOCOL) h2load(url, oneCore); // warm the target's JIT once
    else wrk(url, oneCore);
    console.log(`hello single at ${CPU_MILLIS}m on cpuset ${place.targetCpus ?? 'any'}; load on ${place.loadCpus ?? 'any core'} (${engine.cpus} host cores); autocannon CLI start-up ${startCpu.toFixed(2)} CPU-s`);
    for (let round = 0; round < ROUNDS; round++) {
      const steps: (() => Promise<void>)[] = [
        ...(PROTOCOL ? [] : [async () => void ac.push(autocannonCli(url, oneCore, startCpu)), async () => void wr.push(wrk(url, oneCore))]),
        ...(TLS || PROTOCOL ? [async () => void h2.push(h2load(url, oneCore))] : []),
        ...(PROTOCOL ? [async () => void nodeH2.push(await rightsize(c.address.host, c.address.port, 1, oneCore, FIXED, 'node'))] : []),
        ...Array.from({ length: n }, (_, i) => async () => void ours[i]!.push(await rightsize(c.address.host, c.address.port, i + 1, i === 0 ? oneCore : place.loadCpus))),
      ];
      // Rotate the order each round so drift (other work on the host) does not favour one tool.
      for (let k = 0; k < steps.length; k++) await steps[(k + round) % steps.length]!();
      const fmt = (x: Sample): string => `${x.rps.toFixed(0)} req/s, ${x.perCpuSec.toFixed(0)} req/CPU-s${x.elu !== undefined ? `, ELU ${x.elu.toFixed(2)}` : ''}`;
      const theirs = PROTOCOL ? `h2load ${fmt(h2.at(-1)!)} | rightsize 1t, Node's client ${fmt(nodeH2.at(-1)!)}` : `autocannon CLI ${fmt(ac.at(-1)!)} | wrk ${fmt(wr.at(-1)!)}${TLS ? ` | h2load --h1 ${fmt(h2.at(-1)!)}` : ''}`;
      console.log(`  round ${round + 1}: ${theirs} | ${ours.map((s, i) => `rightsize ${i + 1}t ${fmt(s.at(-1)!)}`).join(' | ')}`);
    }
  } finally {
    await c.remove();
  }
  const one = ours[0]!;
  const med = (xs: Sample[], k: 'rps' | 'perCpuSec'): number => median(xs.map((x) => x[k]));
  const ratio = (a: Sample[], b: Sample[], k: 'rps' | 'perCpuSec'): number => median(a.map((x, i) => x[k] / b[i]![k]));
  const f0 = (x: number): string => x.toFixed(0);
  const f3 = (x: number): string => x.toFixed(3);
  const verdict = (x: number, min: number): string => (x >= min ? 'pass' : 'FAIL');
  const mode = PROTOCOL === 'h2' ? ' --h2 (HTTP/2 over TLS, one stream per connection)' : PROTOCOL ? ' --h2c (HTTP/2 in clear, one stream per connection)' : TLS ? ' --tls (HTTPS, a full handshake per connection)' : '';
  console.log(`\n### fidelity${mode} (hello single at ${CPU_MILLIS}m, ${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} rounds, medians)\n`);
  console.log('| Rightsize, 1 thread ÷ | req/s (Rightsize / other) | ratio | requests per CPU-second (Rightsize / other) | ratio | target | |');
  console.log('|---|---:|---:|---:|---:|---|---|');
  const others: [string, Sample[], number | undefined][] = PROTOCOL
    ? [['h2load -t1 -m1', h2, 0.95]]
    : [['autocannon CLI', ac, TLS ? 0.95 : 0.97], ['wrk -t1', wr, undefined], ...(TLS ? [['h2load --h1 -t1', h2, undefined] as [string, Sample[], undefined]] : [])];
  for (const [name, other, target] of others) {
    const r = ratio(one, other, 'rps');
    const e = ratio(one, other, 'perCpuSec');
    const v = target === undefined ? '' : `${verdict(r, target)} (req/s), ${verdict(e, target)} (per CPU-s)`;
    console.log(`| ${name} | ${f0(med(one, 'rps'))} / ${f0(med(other, 'rps'))} | ${f3(r)} | ${f0(med(one, 'perCpuSec'))} / ${f0(med(other, 'perCpuSec'))} | ${f3(e)} | ${target ? `≥ ${target}` : ''} | ${v} |`);
  }
  if (PROTOCOL) {
    const r = ratio(nodeH2, h2, 'rps');
    const e = ratio(nodeH2, h2, 'perCpuSec');
    console.log(`| (Node's http2 client instead) ÷ h2load -t1 -m1 | ${f0(med(nodeH2, 'rps'))} / ${f0(med(h2, 'rps'))} | ${f3(r)} | ${f0(med(nodeH2, 'perCpuSec'))} / ${f0(med(h2, 'perCpuSec'))} | ${f3(e)} | | where h2load cannot send the load |`);
  }
  console.log('\n| threads | load cores | req/s | busiest thread ELU | requests per CPU-second | req/s ÷ (N × 1 thread) | per CPU-second ÷ 1 thread |');
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (let t = 0; t < n; t++) {
    const s = ours[t]!;
    const scale = median(s.map((x, i) => x.rps / ((t + 1) * one[i]!.rps)));
    const cores = t === 0 ? oneCore ?? 'any' : place.loadCpus ?? 'any';
    console.log(`| ${t + 1} | ${cores} | ${f0(med(s, 'rps'))} | ${median(s.map((x) => x.elu ?? 0)).toFixed(2)} | ${f0(med(s, 'perCpuSec'))} | ${f3(scale)} | ${f3(ratio(s, one, 'perCpuSec'))} |`);
  }
  if (n > loadCores) {
    console.log(`\n${n} threads on ${loadCores} free core(s): they share, so req/s cannot grow with threads on this host. The last column is what a request costs as threads are added: at ≥ 0.9, N threads on N free cores carry ≥ 0.9 × N × one thread while the target keeps up.`);
  }
}

if (isMain(import.meta.url)) {
  if (process.argv.includes('--mix')) await benchMix();
  else await benchFidelity(threadsArg());
}
