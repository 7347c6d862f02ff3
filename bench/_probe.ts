import { runMatrix } from '../src-main/engine/run-matrix.ts';
import { Store } from '../src-main/store/index.ts';
import fs from 'node:fs';
const dir = fs.mkdtempSync('/tmp/ov/h-');
const store = Store.open(`${dir}/h.db`);
const t0 = performance.now();
const marks: string[] = [];
const at = () => (performance.now() - t0).toFixed(0);
const out = await runMatrix({ apps: ['hello'], modes: ['single', 'cluster'], workers: [2], cpuMillicores: [500, 1000], memoryMb: [256], load: { model: 'closed', connections: [10] }, durationSec: 2, warmupSec: 1, repetitions: 1, settleBudgetPct: 0, verify: false }, {
  store,
  onEvent: (e) => {
    if (e.type === 'cell-started') marks.push(`${at()} start ${e.index}`);
    if (e.type === 'cell-phase') marks.push(`${at()}   ${e.phase} ${e.index}`);
    if (e.type === 'cell-finished') marks.push(`${at()} finished ${e.index} warm=${e.result.load?.warmupUsedSec}`);
    if (e.type === 'run-started') marks.push(`${at()} run-started`);
  },
});
console.log(marks.join('\n'));
const cells = store.getRun(out.runId)!.cells;
const over = cells.map((c) => Date.parse(c.finishedAt!) - Date.parse(c.startedAt) - ((c.load?.warmupUsedSec ?? 1) + 2) * 1000);
console.log('overheads', over.join(' '), 'total', at());
store.close();
