// TEMPORARY golden harness (deleted before hand-off): every text the answer, the report and the snippets produce.
import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import { recommendedDeploy, snippetFiles } from '../../src-main/deploy/snippets.ts';
import type { LoadResult, Sample, StatsSummary } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { cell, reps, run, type CellSpec } from '../helpers/run-fixture.ts';

const MiB = 2 ** 20;
function measured(s: CellSpec & { peakMb: number; throttledMs?: number; periods?: number; throttledPeriods?: number; rss?: number }): StoredCell {
  const c = cell(s);
  const stats: StatsSummary = {
    cpuPctMean: 80, cpuPctMax: 100, memMeanBytes: s.peakMb * 0.8 * MiB, memMaxBytes: s.peakMb * 0.9 * MiB, memLimitBytes: c.config.memoryMb * MiB,
    throttledPeriods: s.throttledPeriods ?? 0, throttledMs: s.throttledMs ?? 0, samples: 10,
    memPeakBytes: s.peakMb * MiB, memPeakSource: 'cgroup', ...(s.periods !== undefined ? { cpuPeriods: s.periods } : {}),
    ...(s.rss ? { rssSharedOncePeakBytes: s.rss * MiB, rssTotalPeakBytes: s.rss * 1.5 * MiB, pssTotalBytes: s.rss * 0.9 * MiB,
      processes: [{ role: 'primary', pid: 1, rssPeakBytes: 30 * MiB, anonPeakBytes: 10 * MiB }, { role: 'worker', pid: 2, rssPeakBytes: s.rss * 0.6 * MiB, anonPeakBytes: 20 * MiB }] } : {}),
  } as StatsSummary;
  return { ...c, stats, load: { measuredSec: 10, perSecondGood: [c.rpsMean! - 5, c.rpsMean!, c.rpsMean! + 5, c.rpsMean! + 1] } as LoadResult };
}
const repsOf = (s: CellSpec, values: [number, number][], extra: Record<string, number> = {}): StoredCell[] =>
  values.map(([rps, peakMb]) => measured({ ...s, ...extra, rps, peakMb }));

function samplesFor(r: ReturnType<typeof run>): Map<number, Sample[]> {
  return new Map(r.cells.filter((c) => c.status === 'ok').map((c) => [c.id,
    [1, 2, 3].map((t) => ({ t, rps: c.rpsMean! + t, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1, cpuPct: 90, memBytes: 1, throttledPeriods: 0 }))]));
}

const runs = {
  report: run([
    ...reps({ workers: 1 }, [24100.1234, 24600.5, 23900.25], [1790, 1850, 1700]),
    ...reps({ workers: 2 }, [25309.4567, 24800.125, 25800.875], [2100, 2300, 2000]),
    cell({ workers: 4, rps: 19000.0005, p99Us: 9100, flags: [{ kind: 'client-bound', reason: 'busy 96 %' }] }),
    ...reps({ workers: 1, cpu: 2000, mem: 512 }, [26000.3, 26200.7, 25900.1], [1500, 1550, 1480]),
    ...reps({ workers: 2, cpu: 2000, mem: 512 }, [41000.9, 43000.2, 42000.4], [1900, 2000, 1950]),
    cell({ workers: 8, cpu: 2000, mem: 512, status: 'oom' }),
    cell({ workers: 8, cpu: 2000, mem: 512, status: 'failed', failure: 'not ready\nsecond line' }),
  ], { name: 'sizing', matrix: { name: 'm', apps: ['hello'], placement: 'auto' } }),
  memory: run([
    cell({ workers: 2, mem: 128, status: 'oom' }), cell({ workers: 2, mem: 128, status: 'oom' }),
    ...repsOf({ workers: 2, mem: 256 }, [[9000, 100], [9050, 102], [8950, 101]], { throttledMs: 2500, periods: 100, throttledPeriods: 30 }),
    ...repsOf({ workers: 2, mem: 512 }, [[9000, 96], [9040, 97], [8960, 95]]),
    ...repsOf({ workers: 1, mem: 256 }, [[7000, 60], [7050, 62], [6950, 61]], { rss: 90 }),
    ...repsOf({ workers: 4, mem: 256 }, [[9100, 180], [9050, 182]]),
    ...repsOf({ workers: 2, mem: 256, cpu: 500 }, [[5000, 100], [5050, 101], [4950, 99]]),
    ...repsOf({ workers: 2, mem: 256, cpu: 750 }, [[6000, 100]]),
    ...repsOf({ workers: 2, mem: 192 }, [[7000, 100], [7100, 101], [6900, 102]]),
    ...repsOf({ workers: 1, mem: 256, mode: 'pm2' }, [[6000, 80], [6100, 81]]),
    ...repsOf({ workers: 1, mem: 256, mode: 'single' }, [[5000, 40]], { rss: 45 }),
  ]),
  rate: run([
    ...reps({ workers: 1, load: { model: 'rate', rate: 1000, connections: 10 } }, [905, 910, 900], [22000, 21000, 23000]),
    ...reps({ workers: 2, load: { model: 'rate', rate: 1000, connections: 10 } }, [1000, 999, 1001], [900, 950, 1000]),
    ...reps({ workers: 1, app: 'json' }, [5000]),
    ...reps({ workers: 2, app: 'json' }, [5100], [2000]),
    cell({ workers: 4, app: 'json', rps: 5200, flags: [{ kind: 'host-busy', reason: 'other 30 %' }] }),
  ]),
  running: run([cell({ status: 'cancelled' }), cell({ workers: 2, status: 'failed', failure: 'boom' })], { status: 'interrupted' }),
  errors: run([
    ...reps({ workers: 1 }, [10000, 10100], [1000, 1100]),
    cell({ workers: 2, rps: 12000, errors: 5000 }), cell({ workers: 2, rps: 12100, errors: 4000 }),
    ...reps({ workers: 4 }, [10050, 10020], [1300, 1250]),
    cell({ workers: 8, rps: 9000, flags: [{ kind: 'unstable', reason: 'drift' }] }),
  ]),
};
const RATE = 2000;
const LOAD = { model: 'rate' as const, rate: RATE, connections: 100 };
const SPEC = {
  app: 'hello', slo: { p99Ms: 50, minRps: RATE, maxErrorPct: 0.1 }, rate: RATE,
  bounds: { cpuMillis: { min: 250, max: 2000 }, memoryMb: { min: 128, max: 1024 }, workers: { min: 1, max: 2 }, modes: ['cluster'] },
  durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 250, memoryStepMb: 32, connections: 100,
};
const PATH = [
  { workers: 2, cpu: 2000, mem: 1024, rps: 2001, p99Us: 9000, outcome: 'meets' },
  { workers: 2, cpu: 1000, mem: 1024, rps: 2000, p99Us: 21000, outcome: 'meets' },
  { workers: 2, cpu: 500, mem: 1024, rps: 1650, p99Us: 900000, outcome: 'misses' },
  { workers: 2, cpu: 750, mem: 1024, rps: 1998, p99Us: 38000, outcome: 'meets' },
  { workers: 2, cpu: 625, mem: 160, rps: 1999, p99Us: 39000, outcome: 'meets' },
];
function searchRun(status: string, found: unknown, bestSoFar: unknown = null) {
  const r = run(PATH.map((p) => cell({ workers: p.workers, cpu: p.cpu, mem: p.mem, load: LOAD, rps: p.rps, p99Us: p.p99Us })), { name: 'size hello', matrix: SPEC });
  const steps = PATH.map((p, i) => ({
    cellId: r.cells[i]!.id, mode: 'cluster', workers: p.workers, cpuMillis: p.cpu, memoryMb: p.mem, reason: `step ${i + 1}`, outcome: p.outcome,
    detail: `per-second p99 ${p.p99Us / 1000} ms (constructed), ${p.rps} of ${RATE} req/s`,
  }));
  return { ...r, search: { spec: SPEC, steps, status, found, words: 'words', gridCells: 64, bestSoFar } } as unknown as ReturnType<typeof run>;
}
const FOUND = { mode: 'cluster' as const, workers: 2, cpuMillis: 625, memoryMb: 160 };
Object.assign(runs, {
  found: searchRun('found', FOUND), none: searchRun('none', null), undecided: searchRun('undecided', null, FOUND),
  stopped: searchRun('cancelled', null, FOUND), stopped2: searchRun('failed', null),
});
const slos = [undefined, { p99Ms: 2, minRps: 20000, maxErrorPct: 1 }, { p99Ms: 20, minRps: 0, maxErrorPct: 100 }, { p99Ms: 5, minRps: 1000, maxErrorPct: 1 }];

it('golden', () => {
  const out: Record<string, unknown> = {};
  for (const [name, r] of Object.entries(runs)) {
    slos.forEach((slo, i) => {
      const rec = recommend(r, slo ? { slo } : {});
      const dep = recommendedDeploy(rec);
      out[`${name}/${i}`] = {
        words: rec.words, sizingWords: rec.sizingWords, headline: rec.headline, method: rec.method,
        sizing: rec.sizing, html: htmlReport(r, samplesFor(r), rec), csv: cellsCsv(r),
        snippets: dep ? snippetFiles(dep, null) : null, dep,
      };
    });
  }
  writeFileSync(process.env.GOLDEN_OUT ?? '/tmp/golden.json', JSON.stringify(out, null, 1));
});
