// npm run bench -- targets: the same small matrix on each kind of target this machine can host, side
// by side in one run: this machine's engine (local), a remote Docker engine (a second dockerd in its
// own network namespace, reached over tcp), and a two-node Swarm (the two engines). Per-cell
// overhead = a cell's wall time minus the warmup it used and its measured seconds; plus the whole
// matrix's wall time and the median req/s. Both engines share this machine's 2 cores, so req/s says
// only that the cells measured the same thing, not that a remote host is faster. Needs root.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import type { CellResult } from '../src-main/engine/types.ts';
import { DockerProvider } from '../src-main/providers/docker/provider.ts';
import type { Provider } from '../src-main/providers/provider.ts';
import { SwarmProvider } from '../src-main/providers/swarm/provider.ts';
import { Store } from '../src-main/store/index.ts';
import { stopReaper } from '../src-main/reaper/reaper.ts';
import { formSwarm, startSecondEngine } from '../tests/helpers/second-engine.ts';
import { isMain, median, printRows, row, type Row } from './stats.ts';

const MATRIX = {
  name: 'targets bench', apps: ['hello'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500], memoryMb: [128],
  load: { model: 'closed', connections: [4] }, durationSec: 2, warmupSec: 1, repetitions: 2,
};

const overheadMs = (c: CellResult): number => Date.parse(c.finishedAt) - Date.parse(c.startedAt) - ((c.load?.warmupUsedSec ?? c.config.warmupSec) + c.config.durationSec) * 1000;

async function measure(label: string, store: Store, provider: Provider | undefined): Promise<{ rows: Row[]; line: string }> {
  const t0 = performance.now();
  const out = await runMatrix(MATRIX, { store, ...(provider ? { provider } : {}) });
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
    try {
      sw = await measure('Swarm (2 nodes)', store, new SwarmProvider({
        name: 'pair', manager: { url: 'unix:///var/run/docker.sock' }, source: new Docker(),
        nodeEngines: { [swarm.manager]: { url: 'unix:///var/run/docker.sock' }, [swarm.worker]: { url: second.url } },
      }));
    } finally {
      await swarm.leave();
    }
    for (const m of [local, remote, sw]) {
      rows.push(...m.rows);
      lines.push(m.line);
    }
    printRows('per-cell overhead by target (hello cluster ×1/×2, 0.5 CPU, 1 s minimum warmup + 2 s, 2 repetitions)', rows);
    console.log(['', '| target | matrix wall time | median req/s | where the cells ran |', '|---|---|---|---|', ...lines].join('\n'));
  } finally {
    store.close();
    await second.stop();
    await stopReaper();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await benchTargets();
