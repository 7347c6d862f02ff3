// npm run bench -- responsiveness: the event-loop delay of the process hosting the engine (later
// Electron's main process) while a matrix runs at full load. Target: under 50 ms.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runMatrix } from '../src-main/engine/run-matrix.ts';
import { Store } from '../src-main/store/index.ts';
import { isMain, median } from './stats.ts';

export async function benchResponsiveness(rounds = 3): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-bench-'));
  const store = Store.open(path.join(dir, 'h.db'));
  const p99s: number[] = [];
  const maxes: number[] = [];
  let samples = 0;
  try {
    for (let i = 0; i < rounds; i++) {
      const h = monitorEventLoopDelay({ resolution: 10 });
      h.enable();
      await runMatrix(
        { apps: ['hello'], modes: ['single', 'cluster'], workers: [2], cpuMillicores: [1000], memoryMb: [256], load: { model: 'closed', connections: [20] }, durationSec: 8, warmupSec: 1, settleBudgetPct: 0, verify: false },
        { store, onEvent: (e) => void (e.type === 'sample' && samples++) },
      );
      h.disable();
      p99s.push(h.percentile(99) / 1e6);
      maxes.push(h.max / 1e6);
    }
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n### responsiveness (engine in this process, hello at full load, ${rounds} runs of 2 cells, ${samples} samples handled)\n`);
  console.log('| event-loop delay | median of runs (ms) | worst run (ms) | target | |');
  console.log('|---|---:|---:|---:|---|');
  console.log(`| p99 | ${median(p99s).toFixed(1)} | ${Math.max(...p99s).toFixed(1)} | < 50 | ${median(p99s) < 50 ? 'pass' : 'FAIL'} |`);
  console.log(`| max | ${median(maxes).toFixed(1)} | ${Math.max(...maxes).toFixed(1)} | < 50 | ${median(maxes) < 50 ? 'pass' : 'FAIL'} |`);
}

if (isMain(import.meta.url)) await benchResponsiveness();
