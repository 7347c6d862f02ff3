// npm run bench -- targets: the same small matrix on each kind of target this machine can host, side
// by side in one run: this machine's engine (local), a remote Docker engine (a second dockerd in its
// own network namespace, reached over tcp), and a two-node Swarm (the two engines). Per-cell
// overhead = a cell's wall time minus the warmup it used and its measured seconds; plus the whole
// matrix's wall time and the median req/s. Both engines share this machine's 2 cores, so req/s says
// only that the cells measured the same thing, not that a remote host is faster. Needs root.
// Then a small matrix on the Swarm one cell at a time (K = 1) and two at once (K = 2, each target
// alone on its node, its load on the other), alternated over rounds: wall times and their ratio.
// Both "nodes" share this machine's 2 cores, so the caps are small (250m): the ratio is the
// parallelism of the run's own waits (start, readiness, warmup, teardown) plus what the two cells'
// CPU can overlap, not what two real hosts would give.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import type { RunEvent } from '../src-main/model/events.ts';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import type { CellResult } from '../src-main/model/types.ts';
import { DockerProvider } from '../src-main/providers/docker/provider.ts';
import type { Provider } from '../src-main/providers/provider.ts';
import { SwarmProvider } from '../src-main/providers/swarm/provider.ts';
import { Store } from '../src-main/store/index.ts';
import { stopReaper } from '../src-main/reaper/reaper.ts';
import { formSwarm, startSecondEngine } from '../tests/helpers/second-engine.ts';
import { isMain, median, printRows, row, type Row } from './stats.ts';

const MATRIX = {
  name: 'targets bench', apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500], memoryMb: [128],
  load: { model: 'closed', connections: [4] }, durationSec: 2, warmupSec: 1, repetitions: 2, settleBudgetPct: 0, verify: false,
};

const overheadMs = (c: CellResult): number => Date.parse(c.finishedAt) - Date.parse(c.startedAt) - ((c.load?.warmupUsedSec ?? c.config.warmupSec) + c.config.durationSec) * 1000;

/** The same small matrix as tests/integration/distributed.test.ts: 4 cells, 250m / 128 MB. */
const PARALLEL_MATRIX = {
  name: 'targets bench K', apps: ['hello'], modes: ['cluster'], workers: [1], cpuMillicores: [250], memoryMb: [128],
  load: { model: 'closed', connections: [4] }, durationSec: 3, warmupSec: 1, repetitions: 4, settleBudgetPct: 0, verify: false,
};
const ROUNDS = 3;

/**
 * This machine is shared: a run waits for the lab when another process measures, and the clock
 * starts when the run does (run-started), not while it waited.
 */
const timedFromStart = (start: (t: number) => void) => ({
  waitForLab: true,
  onEvent: (e: RunEvent) => {
    if (e.type === 'run-started') start(performance.now());
  },
});

/** The provider held to one cell at a time (everything else as it is). */
const oneAtATime = (p: Provider): Provider => Object.assign(Object.create(p) as Provider, { concurrency: async () => 1 });

/** Wall time of PARALLEL_MATRIX on `provider`, and how many cells overlapped at most. */
async function wall(store: Store, provider: Provider): Promise<{ sec: number; atOnce: number }> {
  let t0 = performance.now();
  const out = await runMatrix(PARALLEL_MATRIX, { store, provider, ...timedFromStart((t) => (t0 = t)) });
  const sec = (performance.now() - t0) / 1000;
  const bad = out.cells.filter((c) => c.status !== 'ok');
  if (bad.length) throw new Error(`${bad.length} cell(s) not ok: ${bad.map((c) => c.failure).join('; ')}`);
  const spans = out.cells.map((c) => [Date.parse(c.startedAt), Date.parse(c.finishedAt)] as const);
  const atOnce = Math.max(...spans.map(([a]) => spans.filter(([x, y]) => x <= a && a < y).length));
  return { sec, atOnce };
}

async function measure(label: string, store: Store, provider: Provider | undefined): Promise<{ rows: Row[]; line: string }> {
  let t0 = performance.now();
  const out = await runMatrix(MATRIX, { store, ...(provider ? { provider } : {}), ...timedFromStart((t) => (t0 = t)) });
  const wallSec = (performance.now() - t0) / 1000;
  const bad = out.cells.filter((c) => c.status !== 'ok');
  if (bad.length) throw new Error(`${label}: ${bad.length} cell(s) not ok: ${bad.map((c) => c.failure).join('; ')}`);
  const where = [...new Set(out.cells.map((c) => (c.ranOn?.node ? `${c.ranOn.target}/${c.ranOn.node}` : c.ranOn?.target ?? '?')))].join(', ');
  return {
    rows: [row(`overhead per cell, ${label} (${out.cells.length} cells)`, out.cells.map(overheadMs))],
    line: `| ${label} | ${wallSec.toFixed(1)} s | ${Math.round(median(out.cells.map((c) => c.load!.rpsMean))).toLocaleString('en-US')} | ${where} |`,
  };
}

export async function benchTargets(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
  const store = Store.open(path.join(dir, 'h.db'));
  const second = await startSecondEngine();
  try {
    const rows: Row[] = [];
    const lines: string[] = [];
    const local = await measure('local', store, undefined);
    const remote = await measure('remote Docker', store, new DockerProvider({ name: 'second', kind: 'docker', connection: { url: second.url }, source: new Docker() }));
    const swarm = await formSwarm(second);
    let sw: Awaited<ReturnType<typeof measure>>;
    const k1: number[] = [];
    const k2: number[] = [];
    const overlap: number[] = [];
    try {
      const pair = new SwarmProvider({
        name: 'pair', manager: { url: 'unix:///var/run/docker.sock' }, source: new Docker(),
        nodeEngines: { [swarm.manager]: { url: 'unix:///var/run/docker.sock' }, [swarm.worker]: { url: second.url } },
      });
      sw = await measure('Swarm (2 nodes)', store, pair);
      // Alternated, so that a busy spell of this shared machine hits both alike.
      for (let r = 0; r < ROUNDS; r++) {
        k1.push((await wall(store, oneAtATime(pair))).sec);
        const two = await wall(store, pair);
        k2.push(two.sec);
        overlap.push(two.atOnce);
      }
    } finally {
      await swarm.leave();
    }
    for (const m of [local, remote, sw]) {
      rows.push(...m.rows);
      lines.push(m.line);
    }
    printRows('per-cell overhead by target (hello cluster ×1/×2, 0.5 CPU, 1 s minimum warmup + 2 s, 2 repetitions)', rows);
    console.log(['', '| target | matrix wall time | median req/s | where the cells ran |', '|---|---|---|---|', ...lines].join('\n'));
    const ratios = k1.map((a, i) => a / k2[i]!);
    console.log([
      '', `### Swarm, one cell at a time vs two at once (hello cluster ×1, 250m / 128 MB, 1 s minimum warmup + 3 s, 4 cells, ${ROUNDS} rounds alternated)`, '',
      '| cells at once | median wall time | min | max |', '|---|---:|---:|---:|',
      `| K = 1 | ${median(k1).toFixed(1)} s | ${Math.min(...k1).toFixed(1)} | ${Math.max(...k1).toFixed(1)} |`,
      `| K = 2 | ${median(k2).toFixed(1)} s | ${Math.min(...k2).toFixed(1)} | ${Math.max(...k2).toFixed(1)} |`,
      '', `K = 1 / K = 2 wall time: median ${median(ratios).toFixed(2)}× (rounds: ${ratios.map((x) => x.toFixed(2)).join(', ')}); cells overlapping at most, K = 2: ${overlap.join(', ')}`,
    ].join('\n'));
  } finally {
    store.close();
    await second.stop();
    await stopReaper();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await benchTargets();
