// Memory and CPU in the answer, on constructed runs with known numbers: the peak and its source,
// memory per worker (slope), the limit's headroom, the OOM boundary, GC pressure, CPU request and
// throttling, and runs stored before cells carried a peak.
import { describe, expect, it } from 'vitest';
import {
  leastSquares, limitFromPeak, MEMORY_HEADROOM, MEMORY_LIMIT_RULE, MEMORY_ROUND_MB, parseSlo, recommend, recommendedCpuMillis, recommendedMemoryLimitMb,
  tQuantile, type Recommendation, type Sizing,
} from '../../src-main/analysis/index.ts';
import { cellFreshNeed, freshNeed, freshNeedText, type MemorySizingWithFresh } from '../../src-main/analysis/size/memory.ts';
import { explain } from '../../src-main/analysis/explain/words.ts';
import { maxMemoryRestartMb } from '../../src-main/deploy/settings.ts';
import type { LoadResult, StatsSummary } from '../../src-main/model/types.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { cell, run, type CellSpec } from '../helpers/run-fixture.ts';

const MiB = 2 ** 20;

/** A finished cell with a cgroup peak (MB) and, optionally, throttling over 10 measured seconds. */
function measured(s: CellSpec & { peakMb: number; source?: 'cgroup' | 'samples'; throttledMs?: number; periods?: number; throttledPeriods?: number }): StoredCell {
  const c = cell(s);
  const stats: StatsSummary = {
    cpuPctMean: 80, cpuPctMax: 100, memMeanBytes: s.peakMb * 0.8 * MiB, memMaxBytes: s.peakMb * 0.9 * MiB, memLimitBytes: c.config.memoryMb * MiB,
    throttledPeriods: s.throttledPeriods ?? 0, throttledMs: s.throttledMs ?? 0, samples: 10,
    memPeakBytes: s.peakMb * MiB, memPeakSource: s.source ?? 'cgroup', ...(s.periods !== undefined ? { cpuPeriods: s.periods } : {}),
  };
  return { ...c, stats, load: { measuredSec: 10 } as LoadResult };
}

/** Repetitions: one cell per [req/s, peak MB] pair. */
const repsOf = (s: CellSpec, values: [number, number][], extra: Partial<Parameters<typeof measured>[0]> = {}): StoredCell[] =>
  values.map(([rps, peakMb]) => measured({ ...s, ...extra, rps, peakMb }));

const sizingOf = (rec: Recommendation, workers: number, cpu = 1000, mem = 256): Sizing =>
  rec.sizing!.find((x) => { const c = rec.configurations.find((k) => k.key === x.key)!; return c.workers === workers && c.cpuMillis === cpu && c.memoryMb === mem; })!;

describe('least squares', () => {
  it('gives the slope, intercept and the 95 % interval of the slope (worked by hand, t from the published table)', () => {
    const fit = leastSquares([[1, 2.0], [2, 4.1], [3, 5.9], [4, 8.2], [5, 9.9]].map(([x, y]) => ({ x: x!, y: y! })))!;
    expect(fit.slope).toBeCloseTo(1.99, 12);
    expect(fit.intercept).toBeCloseTo(0.05, 12);
    // SSE 0.067, s² = 0.067 / 3, Sxx = 10: se = 0.0472582, t(0.975, 3) = 3.182446.
    expect(fit.halfWidth).toBeCloseTo(3.182446 * Math.sqrt(0.067 / 3 / 10), 5);
    expect(tQuantile(0.975, 3)).toBeCloseTo(3.182446, 5);
  });

  it('has no interval through two points and no slope through one worker count', () => {
    expect(leastSquares([{ x: 1, y: 10 }, { x: 3, y: 16 }])).toEqual({ slope: 3, intercept: 7, halfWidth: null, n: 2 });
    expect(leastSquares([{ x: 2, y: 10 }, { x: 2, y: 12 }, { x: 2, y: 11 }])).toBeNull();
  });
});

describe('memory per worker', () => {
  it('is the slope of every repetition’s peak against the worker count at the same mode, CPU and memory cap', () => {
    // 60 MB base + 30 MB per worker, ±2 MB between repetitions.
    const rec = recommend(run([
      ...repsOf({ workers: 1 }, [[5000, 88], [5000, 90], [5000, 92]]),
      ...repsOf({ workers: 2 }, [[9000, 118], [9000, 120], [9000, 122]]),
      ...repsOf({ workers: 4 }, [[9100, 178], [9100, 180], [9100, 182]]),
      // Another memory cap and another mode must not leak into the fit.
      ...repsOf({ workers: 8, mem: 512 }, [[9000, 900]]),
      ...repsOf({ workers: 8, mode: 'pm2' }, [[9000, 900]]),
    ]));
    const w = sizingOf(rec, 2).memory.perWorker!;
    expect(w.bytesPerWorker / MiB).toBeCloseTo(30, 9);
    expect(w.baseBytes / MiB).toBeCloseTo(60, 9);
    expect(w.workerCounts).toEqual([1, 2, 4]);
    expect(w.points).toBe(9);
    // Residuals −2, 0, +2 at each count: SSE = 24 MB², Sxx = 3·((1−7/3)² + (2−7/3)² + (4−7/3)²) = 14.
    expect(w.halfWidth! / MiB).toBeCloseTo(tQuantile(0.975, 7) * Math.sqrt(24 / 7 / 14), 9);
    expect(rec.words.join(' ')).toContain(`30 ± 1.2 MB per worker (slope of peak memory over 1, 2 and 4 workers, 9 repetitions, 95 % CI)`);
  });

  it('is not given for a single process or a single worker count, and says why', () => {
    const rec = recommend(run([...repsOf({ mode: 'single' }, [[5000, 90]]), ...repsOf({ workers: 2 }, [[9000, 120], [9000, 121]])]));
    const single = rec.sizing!.find((x) => x.key.includes('"single"'))!;
    expect(single.memory.perWorker).toBeNull();
    expect(single.memory.perWorkerNote).toMatch(/single process/);
    expect(sizingOf(rec, 2).memory.perWorker).toBeNull();
    expect(sizingOf(rec, 2).memory.perWorkerNote).toMatch(/only 2 workers/);
  });
});

describe('the memory limit', () => {
  it('is the smallest multiple of the rounding step at or above peak × the headroom, never below one step', () => {
    for (let peakMb = 0.5; peakMb <= 4096; peakMb += 7.3) {
      const limit = limitFromPeak(peakMb * MiB);
      const need = peakMb * MEMORY_HEADROOM;
      expect(limit % MEMORY_ROUND_MB, `${peakMb} MB`).toBe(0);
      expect(limit, `${peakMb} MB`).toBeGreaterThanOrEqual(need);
      if (limit > MEMORY_ROUND_MB) expect(limit - MEMORY_ROUND_MB, `${peakMb} MB`).toBeLessThan(need);
    }
  });

  it('is peak × 1.25 rounded up to 32 MB, and the rule is stated in the answer', () => {
    expect(limitFromPeak(100 * MiB)).toBe(128); // 125 → 128
    expect(limitFromPeak(204.8 * MiB)).toBe(256); // exactly 256
    expect(limitFromPeak(205 * MiB)).toBe(288);
    expect(limitFromPeak(1 * MiB)).toBe(32);
    const rec = recommend(run(repsOf({ workers: 2 }, [[9000, 150], [9000, 160], [9000, 155]])));
    const m = sizingOf(rec, 2).memory;
    expect(m.peakBytes).toBe(160 * MiB); // the highest repetition, not the mean
    expect(m.peakMeanBytes).toBe(155 * MiB);
    expect(m.limitMb).toBe(224); // 200 → 224
    expect(m.limitFrom).toBe('peak');
    expect(recommendedMemoryLimitMb(rec)).toBe(224);
    const words = rec.words.join(' ');
    expect(words).toContain('Recommended memory limit: 224 MB (peak × 1.25, rounded up to a multiple of 32 MB).');
    expect(words).toContain(MEMORY_LIMIT_RULE);
    expect(words).toContain("peak 160 MB (the cgroup's own peak, page cache included, the highest of 3 repetitions");
  });

  it('keeps each PM2 process below its restart threshold when the peak fills the recommended limit evenly (the snippets’ rule)', () => {
    // PM2 restarts a process above its threshold (a share of its slice: limit ÷ (instances + the daemon));
    // a peak spread over those processes must never reach it, at any size or instance count. (Shares of a
    // few MB, where rounding to whole MB eats the margin, are left out: a Node.js process is several times that.)
    for (let peakMb = 24; peakMb <= 4096; peakMb += 11.7)
      for (let instances = 1; instances <= 8; instances++) {
        const perProcess = peakMb / (instances + 1);
        if (perProcess < 8) continue;
        expect(maxMemoryRestartMb(limitFromPeak(peakMb * MiB), instances), `${peakMb} MB, ${instances} instances`).toBeGreaterThan(perProcess);
      }
  });
});

describe('the memory dimension of the matrix', () => {
  it('finds the smallest clean cap and the cap that was OOM-killed, says it is clearly too small, and raises the limit over it', () => {
    const rec = recommend(run([
      cell({ workers: 2, mem: 128, status: 'oom' }), cell({ workers: 2, mem: 128, status: 'oom' }),
      ...repsOf({ workers: 2, mem: 256 }, [[9000, 100], [9050, 102], [8950, 101]]),
      ...repsOf({ workers: 2, mem: 512 }, [[9000, 96], [9040, 97], [8960, 95]]),
    ]));
    const m = sizingOf(rec, 2, 1000, 512).memory;
    expect(m.caps.map((c) => [c.memoryMb, c.outcome])).toEqual([[128, 'oom'], [256, 'ok'], [512, 'ok']]);
    expect(m.caps[0]!.detail).toBe('OOM-killed in 2 of 2 repetitions');
    expect(m.referenceMb).toBe(512);
    expect(m.smallestCleanMb).toBe(256);
    expect(m.failedAtMb).toBe(128);
    expect(m.failedOutcome).toBe('oom');
    // 97 MB × 1.25 = 121 → 128 MB, but 128 MB was OOM-killed: the smallest clean cap above it.
    expect(m.limitMb).toBe(256);
    expect(m.limitFrom).toBe('matrix');
    const words = explain({ ...rec, sizing: rec.sizing!.map((x) => ({ ...x, recommended: x === sizingOf(rec, 2, 1000, 512) })) }).join(' ');
    expect(words).toContain('In the matrix it ran without OOM kills, restarts or a latency penalty down to 256 MB; at 128 MB: OOM-killed in 2 of 2 repetitions.');
    expect(words).toContain('128 MB is clearly too small for 2 cluster workers.');
    expect(words).toContain('256 MB: peak × 1.25, rounded up to a multiple of 32 MB would be 128 MB, but 128 MB failed in the matrix');
  });

  it('names GC pressure: goodput significantly lower at a tighter cap with no OOM kill', () => {
    const rec = recommend(run([
      ...repsOf({ workers: 2, mem: 128 }, [[7000, 120], [7100, 121], [6900, 122]]),
      ...repsOf({ workers: 2, mem: 256 }, [[9950, 150], [10050, 151], [10000, 149]]),
      ...repsOf({ workers: 2, mem: 512 }, [[10000, 160], [10100, 161], [9900, 159]]),
    ]));
    const m = sizingOf(rec, 2, 1000, 128).memory;
    expect(m.caps.map((c) => c.outcome)).toEqual(['gc-pressure', 'ok', 'ok']);
    expect(m.caps[0]!.rpsRatio).toBeCloseTo(0.7, 9);
    expect(m.caps[0]!.pRps!).toBeLessThan(0.05);
    expect(m.caps[1]!.pRps!).toBeGreaterThan(0.05); // 256 MB: no loss beyond 5 %
    expect(m.smallestCleanMb).toBe(256);
    expect(m.failedAtMb).toBe(128);
    // The first pair (1 CPU / 128 MB) is the recommended one here: its own cap showed GC pressure.
    const words = rec.words.join(' ');
    expect(words).toContain('at 128 MB: goodput 30 % below 512 MB with no OOM kill or restart');
    expect(words).toContain('GC pressure at 128 MB: throughput was lost at a tighter cap with no OOM kill');
    expect(words).not.toContain('clearly too small');
  });

  it('does not call a dip within the noise GC pressure, and judges p99 the same way', () => {
    const rec = recommend(run([
      ...repsOf({ workers: 2, mem: 128 }, [[9700, 120], [10300, 121], [9900, 122]]),
      ...reps2({ workers: 2, mem: 192 }, [10000, 10000, 10000], [3000, 3100, 2900]),
      ...reps2({ workers: 2, mem: 512 }, [10000, 10100, 9900], [1000, 1010, 990]),
    ]));
    const m = sizingOf(rec, 2, 1000, 512).memory;
    expect(m.caps.map((c) => c.outcome)).toEqual(['ok', 'latency', 'ok']);
    expect(m.caps[1]!.detail).toMatch(/^p99 200 % above 512 MB \(Holm-adjusted p/);
    // The boundary walks down from the largest cap: 192 MB broke the run of clean caps.
    expect(m.smallestCleanMb).toBe(512);
    expect(m.failedAtMb).toBe(192);
  });

  it('says when the matrix tried one memory cap only', () => {
    const rec = recommend(run(repsOf({ workers: 2 }, [[9000, 100]])));
    expect(sizingOf(rec, 2).memory.caps).toHaveLength(1);
    expect(rec.words.join(' ')).toContain('The matrix tried only 256 MB for it, so nothing shows how much less would do.');
  });
});

/** Repetitions with p99 values and a fixed 100 MB peak. */
function reps2(s: CellSpec, rps: number[], p99Us: number[]): StoredCell[] {
  return rps.map((r, i) => measured({ ...s, rps: r, p99Us: p99Us[i]!, peakMb: 100 }));
}

describe('CPU', () => {
  it('finds the smallest CPU cap that meets the objective and says what the one below missed', () => {
    const rec = recommend(run([
      ...reps2({ workers: 2, cpu: 500 }, [5000, 5000, 5000], [30000, 31000, 29000]),
      ...reps2({ workers: 2, cpu: 1000 }, [5000, 5000, 5000], [10000, 10500, 9500]),
      ...reps2({ workers: 2, cpu: 2000 }, [5000, 5000, 5000], [8000, 8100, 7900]),
    ]), { slo: parseSlo('p99<=20ms,rps>=0,errors<=1%') });
    const s = rec.sizing!.find((x) => x.recommended)!;
    expect(s.cpu.basis).toBe('slo');
    expect(s.cpu.requestMillis).toBe(1000);
    expect(s.cpu.failedAtMillis).toBe(500);
    expect(s.cpu.caps.map((c) => c.meetsSlo)).toEqual([false, true, true]);
    expect(recommendedCpuMillis(rec)).toBe(1000);
    expect(rec.words.join(' ')).toContain('CPU: 1 CPU is the smallest request that meets p99 ≤ 20 ms, errors ≤ 1 % for 2 cluster workers at 256 MB (on the means); at 0.5 CPU: p99 30.0 ms over the 20 ms limit.');
  });

  it('without an objective, the smallest CPU cap that holds the throughput within the margin', () => {
    const rec = recommend(run([
      ...reps2({ workers: 2, cpu: 500 }, [5000, 5100, 4900], [1000, 1000, 1000]),
      ...reps2({ workers: 2, cpu: 1000 }, [9800, 9900, 9700], [1000, 1000, 1000]),
      ...reps2({ workers: 2, cpu: 2000 }, [10000, 10100, 9900], [1000, 1000, 1000]),
    ]));
    const s = sizingOf(rec, 2, 2000);
    expect(s.cpu.basis).toBe('throughput');
    expect(s.cpu.requestMillis).toBe(1000);
    expect(s.cpu.failedAtMillis).toBe(500);
    expect(s.cpu.evidence).toBe('test');
    expect(s.cpu.caps[0]!.miss).toMatch(/significantly more than 5 % below the best \(10,000 req\/s\)/);
  });

  it('reports the throttling seen at the cap: ms per second and the share of CFS periods', () => {
    const rec = recommend(run([
      measured({ workers: 2, rps: 9000, peakMb: 100, throttledMs: 3000, periods: 100, throttledPeriods: 40 }),
      measured({ workers: 2, rps: 9100, peakMb: 100, throttledMs: 2000, periods: 100, throttledPeriods: 20 }),
    ]));
    const u = sizingOf(rec, 2).cpu;
    expect(u.throttledMsPerSec).toBe(250); // (300 + 200) / 2 ms per second
    expect(u.throttledShare).toBeCloseTo(0.3, 12);
    expect(u.cpuPctOfCap).toBe(80);
    expect(rec.words.join(' ')).toContain('At its 1 CPU cap it used 80 % of the cap and was throttled 250 ms per second (30 % of CFS periods).');
  });
});

describe('runs stored before cells carried a peak', () => {
  it('falls back to the highest reading after warmup and says so', () => {
    const old = run([cell({ workers: 2, rps: 9000 }), cell({ workers: 2, rps: 9100 })]); // stats null, memMaxBytes 40 MiB
    const rec = recommend(old);
    const s = sizingOf(rec, 2);
    expect(s.memory.peakSource).toBe('legacy');
    expect(s.memory.peakBytes).toBe(40 * MiB);
    expect(s.memory.limitMb).toBe(64); // 50 → 64
    expect(s.cpu.throttledMsPerSec).toBeNull(); // no stats, no load result
    expect(rec.words.join(' ')).toContain('the highest 1 Hz reading after warmup: this run predates peak recording');
  });

  it('mixes sources over repetitions and names the mix', () => {
    const rec = recommend(run([measured({ workers: 2, rps: 9000, peakMb: 100 }), cell({ workers: 2, rps: 9000 })]));
    expect(sizingOf(rec, 2).memory.peakSource).toBe('mixed');
    expect(sizingOf(rec, 2).memory.peakBytes).toBe(100 * MiB);
  });

  it('an answer made before sizing existed has no limit to give, and its words still come out', () => {
    const rec = recommend(run(repsOf({ workers: 2 }, [[9000, 100]])));
    const { sizing: _gone, ...before } = rec;
    expect(recommendedMemoryLimitMb(before)).toBeNull();
    expect(recommendedCpuMillis(before)).toBeNull();
    const words = explain(before);
    expect(words.some((w) => w.startsWith('Memory for'))).toBe(false);
    expect(words.at(-1)).toBe(rec.method);
  });
});

describe('which configuration is recommended', () => {
  it('is the knee of the first pair without an objective (the one the deploy snippets use), the SLO’s pick with one', () => {
    const cells = [
      ...reps2({ workers: 1 }, [5000, 5050, 4950], [1000, 1000, 1000]),
      ...reps2({ workers: 2 }, [9900, 10000, 10100], [900, 900, 900]),
      ...reps2({ workers: 4 }, [10000, 10100, 9900], [950, 950, 950]),
    ];
    const rec = recommend(run(cells));
    const top = rec.sizing!.filter((x) => x.recommended);
    expect(top).toHaveLength(1);
    expect(top[0]!.key).toBe(rec.scopes[0]!.knee.key);
    expect(rec.sizing![0]).toBe(top[0]); // recommended first
    expect(top[0]!.roles).toEqual(['the recommended configuration', 'knee of 1 CPU / 256 MB']);
    expect(rec.sizing!.filter((x) => x.roles.length === 0).map((x) => x.label).length).toBe(2);
    const withSlo = recommend(run(cells), { slo: parseSlo('p99<=2ms,rps>=4000,errors<=1%') });
    expect(withSlo.sizing!.find((x) => x.recommended)!.key).toBe(withSlo.sloOutcomes[0]!.met!.key);
    expect(recommendedMemoryLimitMb(rec, rec.sizing![2]!.key)).toBe(128);
  });
});

describe('the HTML report', () => {
  it('has a Memory and CPU section with the limit, the caps and the method', async () => {
    const { htmlReport } = await import('../../src-main/export/html-report.ts');
    const r = run([
      cell({ workers: 2, mem: 128, status: 'oom' }),
      ...repsOf({ workers: 2, mem: 256 }, [[9000, 150], [9100, 152], [8900, 151]]),
    ]);
    const rec = recommend(r);
    const html = htmlReport(r, new Map(), rec);
    const section = /<section id="sizing">([\s\S]*?)<\/section>/.exec(html)![1]!;
    expect(section).toContain('<h2>Memory and CPU</h2>');
    expect(section).toContain(`data-limit-mb="${recommendedMemoryLimitMb(rec)}"`);
    expect(recommendedMemoryLimitMb(rec)).toBe(192); // 152 × 1.25 = 190 → 192
    expect(section).toContain('128 MB: OOM-killed');
    expect(section).toContain('<b>128 MB is clearly too small</b>');
    expect(section).toContain('How memory and CPU were sized');
    // An answer without sizing (made before it existed) has no such section.
    const { sizing: _gone, ...before } = rec;
    expect(htmlReport(r, new Map(), before)).not.toContain('id="sizing"');
  });
});

describe('caps with no result', () => {
  it('are neither clean nor the failure: a cancelled cap does not move the boundary', () => {
    const rec = recommend(run([
      cell({ workers: 2, mem: 128, status: 'oom' }),
      cell({ workers: 2, mem: 192, status: 'cancelled' }),
      ...repsOf({ workers: 2, mem: 256 }, [[9000, 100], [9050, 101]]),
    ]));
    const m = sizingOf(rec, 2, 1000, 256).memory;
    expect(m.caps.map((c) => c.outcome)).toEqual(['oom', 'no-result', 'ok']);
    expect(m.smallestCleanMb).toBe(256);
    expect(m.failedAtMb).toBe(128);
  });
});

describe('what a fresh deployment needs', () => {
  type Proc = NonNullable<StatsSummary['processes']>[number];
  const proc = (pid: number, role: Proc['role'], rssMb: number, anonMb: number, fileMb: number, pssMb?: number): Proc => ({
    pid, role, command: role === 'primary' ? 'node /opt/rightsize/launchers/cluster.js' : 'node /srv/apps/hello/server.js',
    rssPeakBytes: rssMb * MiB, anonPeakBytes: anonMb * MiB, filePeakBytes: fileMb * MiB, ...(pssMb !== undefined ? { pssPeakBytes: pssMb * MiB } : {}), readings: 4,
  });
  /** A measured cell with process readings: summed RSS, RSS with file pages once, summed PSS (MB). */
  const withProcs = (s: CellSpec & { peakMb: number }, processes: Proc[], sums: { rss: number; once: number; pss?: number }): StoredCell => {
    const c = measured(s);
    return { ...c, stats: { ...c.stats!, processes, rssTotalPeakBytes: sums.rss * MiB, rssSharedOncePeakBytes: sums.once * MiB, ...(sums.pss !== undefined ? { pssTotalBytes: sums.pss * MiB } : {}) } };
  };
  // hello, cluster × 2, as measured on this machine: a 27 MB cgroup peak (the node binary charged to earlier containers).
  const clusterProcs = [proc(101, 'primary', 40.4, 6.2, 34.2, 15), proc(102, 'worker', 48.5, 9.4, 39.1, 20.5), proc(103, 'worker', 48.3, 9.0, 39.3, 20.2)];
  const clusterCell = (peakMb = 27.5): StoredCell => withProcs({ workers: 2, mem: 256, rps: 9000, peakMb }, clusterProcs, { rss: 137.2, once: 63.8, pss: 55.6 });

  it('is the processes’ resident memory, file pages once, when it is above the cgroup’s peak, and the limit is based on it', () => {
    const c = clusterCell();
    const f = cellFreshNeed(c)!;
    expect(f.measure).toBe('rss');
    expect(f.bytes).toBe(63.8 * MiB);
    expect(f.cgroupPeakBytes).toBe(27.5 * MiB);
    expect(f.rssBytes).toBe(63.8 * MiB);
    expect(f.rssSummedBytes).toBe(137.2 * MiB);
    expect(f.pssBytes).toBe(55.6 * MiB);
    // PM2's max_memory_restart is checked per serving process: the largest worker, not the primary.
    expect(f.processMaxRssBytes).toBe(48.5 * MiB);
    expect(f.processMaxAnonBytes).toBe(9.4 * MiB);
    expect(f.pm2DaemonRssBytes).toBeNull();
    expect(f.processes).toBe(3);
    expect(f.notMeasured).toBeNull();
    expect(freshNeedText(f)).toBe("64 MB, the processes' resident memory (RSS, file-backed pages counted once: 3 processes); the cgroup's peak, 28 MB, leaves out the image's files that earlier containers had already cached");
    const rec = recommend(run([c, clusterCell(27), clusterCell(28)]));
    const m = sizingOf(rec, 2).memory as MemorySizingWithFresh;
    expect(m.peakBytes).toBe(28 * MiB); // the cgroup's peak is still reported as the peak
    expect(m.fresh!.measure).toBe('rss');
    expect(m.fresh!.repetitions).toBe(3);
    expect(m.fresh!.measuredRepetitions).toBe(3);
    expect(m.limitMb).toBe(96); // 63.8 × 1.25 = 79.75 → 96; from the cgroup's 28 MB peak it would have been 64
    expect(limitFromPeak(28 * MiB)).toBe(64);
    expect(recommendedMemoryLimitMb(rec)).toBe(96);
    // The answer says which measure the limit came from, and that a fresh deployment is what it sizes for.
    expect(rec.words.join(' ')).toContain(
      "A fresh deployment needs 64 MB, the processes' resident memory (RSS, file-backed pages counted once: 3 processes)",
    );
    expect(rec.words.join(' ')).toContain("Recommended memory limit: 96 MB (the processes' resident memory × 1.25, rounded up to a multiple of 32 MB).");
  });

  it('a single process: its RSS (41 MB) against an 11 MB cgroup peak gives 64 MB, not the 32 MB that did not start a fresh pod', () => {
    const c = withProcs({ mode: 'single', rps: 5000, peakMb: 11 }, [{ ...proc(7, 'primary', 49.2, 9.2, 39.4, 48.6), command: 'node /srv/apps/hello/server.js' }], { rss: 49.2, once: 49.2, pss: 48.6 });
    const m = recommend(run([c])).sizing![0]!.memory as MemorySizingWithFresh;
    expect(m.fresh!.measure).toBe('rss');
    expect(m.fresh!.processMaxRssBytes).toBe(49.2 * MiB); // no workers: the primary serves
    expect(m.limitMb).toBe(64);
  });

  it('pm2: the daemon counts in the limit but not in the per-process maximum', () => {
    const procs = [{ ...proc(1, 'pm2-daemon', 55.1, 14.8, 40.3), command: 'node /opt/rightsize/launchers/pm2.js start /srv/apps/hello/server.js --name hello -i 2' }, proc(2, 'worker', 54.5, 13.6, 40.8), proc(3, 'worker', 53.7, 12.7, 40.8)];
    const c = withProcs({ mode: 'pm2', workers: 2, rps: 8000, peakMb: 45.7 }, procs, { rss: 163.3, once: 82.2 });
    const f = cellFreshNeed(c)!;
    expect(f.bytes).toBe(82.2 * MiB);
    expect(f.processMaxRssBytes).toBe(54.5 * MiB);
    expect(f.pm2DaemonRssBytes).toBe(55.1 * MiB);
    expect(f.pssBytes).toBeNull(); // no PSS recorded
    expect(limitFromPeak(f.bytes)).toBe(128);
  });

  it('is the cgroup’s peak when that is larger (page cache, a spike between readings), and says so', () => {
    const c = withProcs({ workers: 2, rps: 9000, peakMb: 180 }, clusterProcs, { rss: 137.2, once: 63.8 });
    const f = cellFreshNeed(c)!;
    expect(f.measure).toBe('cgroup');
    expect(f.bytes).toBe(180 * MiB);
    expect(freshNeedText(f)).toBe("180 MB, the cgroup's peak (the processes' resident memory, file-backed pages counted once, was 64 MB)");
    expect(recommend(run([c])).sizing![0]!.memory.limitMb).toBe(256); // 225 → 256
  });

  it('keeps older cells (no process readings) as before, and says process memory was not measured', () => {
    const old = measured({ workers: 2, rps: 9000, peakMb: 150 });
    const f = cellFreshNeed(old)!;
    expect(f.measure).toBe('cgroup');
    expect(f.bytes).toBe(150 * MiB);
    expect(f.rssBytes).toBeNull();
    expect(f.processMaxRssBytes).toBeNull();
    expect(f.notMeasured).toBe('not measured: the cell predates process memory readings');
    expect(freshNeedText(f)).toMatch(/^150 MB, the cgroup's peak \(process memory not measured: the cell predates process memory readings; a fresh deployment may need more/);
    expect(recommend(run([old])).sizing![0]!.memory.limitMb).toBe(limitFromPeak(150 * MiB));
    // A remote target's cell says why.
    const remote = { ...old, stats: { ...old.stats!, processesNotMeasured: "this target's processes cannot be read from here (remote engine, Swarm or Kubernetes)" } };
    expect(cellFreshNeed(remote)!.notMeasured).toBe("not measured: this target's processes cannot be read from here (remote engine, Swarm or Kubernetes)");
  });

  it('over repetitions: the highest of each, and how many repetitions had readings', () => {
    const f = freshNeed([clusterCell(27), measured({ workers: 2, rps: 9000, peakMb: 30 })])!;
    expect(f.bytes).toBe(63.8 * MiB);
    expect(f.cgroupPeakBytes).toBe(30 * MiB);
    expect(f.measuredRepetitions).toBe(1);
    expect(f.repetitions).toBe(2);
    expect(f.notMeasured).toBe('not measured in 1 of 2 repetitions: the cell predates process memory readings');
    expect(freshNeed([])).toBeNull();
  });
});
