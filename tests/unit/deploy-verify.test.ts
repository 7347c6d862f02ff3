// Verification of the deployable, on constructed runs: the settings each snippet deploys (one
// derivation shared by the snippets and the verification cells), which snippets share a cell, the
// step-up sequence (never above the largest clean cap), the pass rule, the verdicts read back from
// stored cells, the snippets' verified / fallback / unverified words, and that no snippet carries a
// limit, a restart threshold or a heap size no cell ran. The engine's loop runs against a fake
// phase context on a real SQLite store.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recommend, tQuantile } from '../../src-main/analysis/index.ts';
import { configurationKey } from '../../src-main/analysis/decide/group.ts';
import { cellDeploy, deployAnswer, recommendedDeployOf } from '../../src-main/deploy/from-cell.ts';
import {
  deployedSettings, heapFlagOf, maxMemoryRestartMb, maxOldSpaceMb, settingsKey, withHeapFlag, type DeploySettings, type SnippetKind,
} from '../../src-main/deploy/settings.ts';
import { deploySnippet, recommendedDeploy, SNIPPET_KINDS, snippetDeploy, type DeployInput } from '../../src-main/deploy/snippets.ts';
import { afterFailure, comparedWords, goodputWords, gridCells, judgeVerifyCell, verdictOf, verificationOf, type VerifyDescriptor } from '../../src-main/deploy/verification.ts';
import type { PhaseContext } from '../../src-main/engine/phases.ts';
import type { CellConfig, CellResult, LoadResult } from '../../src-main/model/types.ts';
import { verifyAnswer } from '../../src-main/engine/verify.ts';
import { groupKinds, nextLimit, planSettings, planVerification, pm2ExtraMb, stepUpLimits, verifyCellConfig, type VerifyPlan } from '../../src-main/engine/verify-plan.ts';
import type { Matrix } from '../../src-main/engine/matrix.ts';
import { Store, type RunDetail, type StoredCell } from '../../src-main/store/index.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { cell, HOST, reps, run } from '../helpers/run-fixture.ts';

const require = createRequire(import.meta.url);
const pm2Common = require('pm2/lib/Common.js') as { parseConfig: (text: string, filename: string) => { apps: Record<string, unknown>[] } };
const pm2Config = require('pm2/lib/tools/Config.js') as { validateJSON: (app: Record<string, unknown>) => { errors: string[] } };
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
const MIB = 2 ** 20;

function pm2Apps(text: string): Record<string, unknown>[] {
  const file = path.join(dir, `ecosystem-${fileNo++}.config.js`);
  writeFileSync(file, text);
  const apps = pm2Common.parseConfig(text, file).apps;
  for (const a of apps) expect(pm2Config.validateJSON({ ...a }).errors).toEqual([]);
  return apps;
}

const withPeak = (c: StoredCell, mb: number): StoredCell => ({ ...c, memMaxBytes: mb * MIB });

/**
 * hello at 1 CPU, 256 and 512 MB, cluster × 1 and × 2, three repetitions each, peaks 40 MB
 * (cluster) — the knee is cluster × 1 at 256 MB; the answer's limit for it 64 MB (40 × 1.25 → 64);
 * the largest clean cap 512 MB. A PM2 twin (pm2 × 1 at 1 CPU / 256 MB) peaks 60 MB.
 */
function fixture(o: { twin?: boolean } = {}): RunDetail {
  return run([
    ...reps({ workers: 1 }, [24100, 24600, 23900]),
    ...reps({ workers: 2 }, [24300, 24800, 24000]),
    ...reps({ workers: 1, mem: 512 }, [24200, 24500, 24000]),
    ...reps({ workers: 2, mem: 512 }, [24300, 24700, 24100]),
    ...(o.twin ? reps({ mode: 'pm2', workers: 1 }, [22000, 22400, 21900]).map((c) => withPeak(c, 60)) : []),
  ], { name: 'sizing' });
}

/** A load result with `series` as its goodput per second. */
function loadOf(series: number[], p99 = 1900, failed = 0): LoadResult {
  const mean = series.reduce((a, b) => a + b, 0) / series.length;
  const n = Math.round(mean * series.length);
  return {
    model: 'closed', connections: 20, measuredSec: series.length, requests: n, bytes: 0, rpsMean: mean, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: p99 / 3, p75: p99 / 2, p90: p99 / 1.5, p97_5: p99 / 1.2, p99, p99_9: p99 * 1.5, max: p99 * 2, mean: p99 / 3, stddev: 100 },
    latencyFrom: 'send', statusCounts: { '200': n }, errors: failed, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false,
    perSecondRps: series, perSecondGood: series, goodputMean: mean,
  };
}
/** n seconds around `mean` (exactly it on average), with some spread. */
const steady = (mean: number, n = 10): number[] => Array.from({ length: n }, (_, i) => mean + (i % 2 ? 1 : -1) * (40 + (Math.floor(i / 2) % 3) * 10));

type Outcome = { kind: 'pass'; goodput?: number; peakMb?: number } | { kind: 'oom' } | { kind: 'restarts'; n: number; workerRssMb?: number } | { kind: 'slow'; goodput: number; series?: number[] } | { kind: 'failed'; failure: string } | { kind: 'cancelled' };

/** What a cell runner would return for a verification cell with this outcome. */
function resultOf(config: CellConfig, o: Outcome, at = '2026-01-02T10:02:03.000Z'): CellResult {
  const base = { config, startedAt: '2026-01-02T10:01:50.000Z', finishedAt: at };
  switch (o.kind) {
    case 'oom':
      return { ...base, status: 'oom', failure: 'OOM-killed', exit: { oomKilled: true, exitCode: 137, restarts: 0 }, flags: [{ kind: 'oom-killed', reason: 'killed' }] };
    case 'cancelled':
      return { ...base, status: 'cancelled', flags: [] };
    case 'failed':
      return { ...base, status: 'failed', failure: o.failure, exit: { oomKilled: false, exitCode: 134, restarts: 0 }, flags: [] };
    case 'restarts':
      return {
        ...base, status: 'ok', load: loadOf(steady(24000)), exit: { oomKilled: false, exitCode: null, restarts: o.n }, flags: [{ kind: 'restarts', reason: `${o.n} restarts` }],
        ...(o.workerRssMb ? { stats: { cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 30 * MIB, memMaxBytes: 35 * MIB, memLimitBytes: config.memoryMb * MIB, throttledPeriods: 0, throttledMs: 0, samples: 10, processes: [{ pid: 7, role: 'worker', command: 'node server.js', rssPeakBytes: o.workerRssMb * MIB, readings: 1 }] } as CellResult['stats'] } : {}),
      };
    case 'slow':
      return { ...base, status: 'ok', load: { ...loadOf(o.series ?? steady(o.goodput)), goodputMean: o.goodput }, exit: { oomKilled: false, exitCode: null, restarts: 0 }, flags: [] };
    case 'pass':
      return {
        ...base, status: 'ok', load: loadOf(steady(o.goodput ?? 24100)), exit: { oomKilled: false, exitCode: null, restarts: 0 }, flags: [],
        stats: { cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 30 * MIB, memMaxBytes: 35 * MIB, memLimitBytes: config.memoryMb * MIB, throttledPeriods: 0, throttledMs: 0, samples: 10, memPeakBytes: (o.peakMb ?? 41) * MIB, memPeakSource: 'cgroup' },
      };
  }
}

/** The StoredCell a verification cell becomes once stored (as Store.getRun gives it back). */
function stored(config: CellConfig, r: CellResult, id: number): StoredCell {
  const l = r.load ?? null;
  return {
    id, runId: 1, config, status: r.status, failure: r.failure ?? null,
    rpsMean: l?.rpsMean ?? null, rpsStddev: l?.rpsStddev ?? null, bytesPerSec: l?.bytesPerSec ?? null,
    p50Us: l?.latencyUs.p50 ?? null, p75Us: null, p90Us: null, p97_5Us: null, p99Us: l?.latencyUs.p99 ?? null, p99_9Us: null, maxUs: null, meanUs: null, stddevUs: null,
    requests: l?.requests ?? null, errors: l?.errors ?? null, timeouts: l?.timeouts ?? null, non2xx: l?.non2xx ?? null, clientBound: l?.clientBound ?? null,
    cpuPctMean: null, cpuPctMax: null, memMaxBytes: r.stats?.memMaxBytes ?? null, memLimitBytes: null, throttledMs: null,
    load: l, stats: r.stats ?? null, exit: r.exit ?? null, flags: r.flags, bottleneck: l ? (r.bottleneck ?? 'server') : null, imageTag: null, ranOn: null, startedAt: r.startedAt, finishedAt: r.finishedAt,
  };
}

/** Appends verification cells to a run: each (kinds, memory limit, outcome) one attempt of a round, as engine/verify.ts would plan it. */
function withAttempts(r: RunDetail, plan: VerifyPlan, attempts: { kinds: SnippetKind[]; mb: number; outcome: Outcome; final?: boolean }[], round = '2026-01-02T10:00:00.000Z'): RunDetail {
  const cells = [...r.cells];
  const n: Partial<Record<string, number>> = {};
  for (const a of attempts) {
    const k = a.kinds.join('+');
    n[k] = (n[k] ?? 0) + 1;
    const settings = planSettings(plan, a.kinds[0]!, a.mb);
    const config = { ...verifyCellConfig(plan, a.kinds, settings, { round, attempt: n[k]!, final: a.final ?? a.mb >= plan.ceilingMb, basis: 'test' }), index: cells.length } as CellConfig;
    cells.push(stored(config, resultOf(config, a.outcome), cells.length + 1));
  }
  return { ...r, cells };
}

const planOf = (r: RunDetail): VerifyPlan => {
  const rec = recommend(r);
  const p = planVerification(r.cells, rec, rec.scopes[0]!.knee.key, 10);
  if (typeof p === 'string') throw new Error(p);
  return p;
};

describe('the settings each snippet deploys (deploy/settings.ts)', () => {
  const c = { app: 'hello', mode: 'cluster' as const, workers: 2, cpuMillis: 1000, cpuRequestMillis: 500 };

  it('PM2: pm2 × instances, the restart threshold and heap flag from each process’s share with PM2’s daemon counted', () => {
    const s = deployedSettings('pm2', c, 256, true);
    // 256 MB ÷ (2 instances + the daemon) = 85.3 MB each: 90 % → 76 MB restart, 75 % → 64 MB heap.
    expect(s).toEqual({ mode: 'pm2', workers: 2, cpuMillis: 1000, cpuRequestMillis: 500, memoryMb: 256, recycleRssMb: 76, heapMb: 64 });
    expect(maxMemoryRestartMb(256, 2)).toBe(76);
    expect(maxOldSpaceMb(256, 2)).toBe(64);
    // The motivating failure: 32 MB for one instance gave 28M / 24 — under a bare node's RSS.
    expect(deployedSettings('pm2', { ...c, mode: 'single', workers: 1 }, 64, true)).toMatchObject({ mode: 'pm2', workers: 1, recycleRssMb: 28, heapMb: 24 });
    // With a measured server-process RSS, the threshold stays above it: × 1.2, up to a multiple of 8 MB.
    expect(deployedSettings('pm2', { ...c, serverRssMb: 46 }, 128, true).recycleRssMb).toBe(56);
    // Two identical runs whose server measured 61.5 and 62.5 MB (× 1.2: 73.8 and 75) deploy the same threshold.
    expect(deployedSettings('pm2', { ...c, serverRssMb: 61.5 }, 160, true).recycleRssMb).toBe(80);
    expect(deployedSettings('pm2', { ...c, serverRssMb: 62.5 }, 160, true).recycleRssMb).toBe(80);
    // Above 2 GB per share V8's default is smaller: no heap flag.
    expect(deployedSettings('pm2', c, 8192, true).heapMb).toBeNull();
    // Without thresholds (unverified): none at all.
    expect(deployedSettings('pm2', c, 256, false)).toMatchObject({ recycleRssMb: null, heapMb: null });
  });

  it('Kubernetes and Compose: the configuration’s own mode and workers, the limits, nothing else — one cell for both', () => {
    const k = deployedSettings('kubernetes', c, 96, true);
    expect(k).toEqual({ mode: 'cluster', workers: 2, cpuMillis: 1000, cpuRequestMillis: 500, memoryMb: 96, recycleRssMb: null, heapMb: null });
    expect(settingsKey(deployedSettings('compose', c, 96, true))).toBe(settingsKey(k));
    const groups = groupKinds(SNIPPET_KINDS.map((kind) => ({ kind, settings: deployedSettings(kind, c, 96, true) })));
    expect(groups.map((g) => g.kinds)).toEqual([['pm2'], ['kubernetes', 'compose']]);
    expect(deployedSettings('kubernetes', { ...c, mode: 'single', workers: 3 }, 96, true).workers).toBe(1);
    // An own image under PM2 cannot run as emitted.
    expect(deployedSettings('pm2', { ...c, mode: 'image' }, 256, true)).toMatchObject({ mode: 'image', recycleRssMb: null, heapMb: null });
  });

  it('the heap flag travels in NODE_OPTIONS, next to what the app’s environment has', () => {
    expect(withHeapFlag({}, 48)).toEqual({ NODE_OPTIONS: '--max-old-space-size=48' });
    expect(withHeapFlag({ NODE_OPTIONS: '--enable-source-maps --max-old-space-size=900', A: '1' }, 48)).toEqual({ NODE_OPTIONS: '--enable-source-maps --max-old-space-size=48', A: '1' });
    expect(withHeapFlag({ A: '1' }, null)).toEqual({ A: '1' });
    expect(heapFlagOf({ NODE_OPTIONS: '--enable-source-maps --max-old-space-size=48' })).toBe(48);
    expect(heapFlagOf({})).toBeNull();
  });
});

describe('the step-up sequence', () => {
  it('the next multiple of 32 MB at or above × 1.5, the ceiling last, never above it', () => {
    expect(nextLimit(64, 512)).toBe(96);
    expect(nextLimit(96, 512)).toBe(160);
    expect(nextLimit(32, 512)).toBe(64);
    expect(nextLimit(400, 512)).toBe(512);
    expect(stepUpLimits(64, 512)).toEqual([64, 96, 160, 512]);
    expect(stepUpLimits(32, 256)).toEqual([32, 64, 96, 256]);
    expect(stepUpLimits(200, 256)).toEqual([200, 256]);
    expect(stepUpLimits(256, 256)).toEqual([256]);
    expect(stepUpLimits(300, 256)).toEqual([256]);
    expect(stepUpLimits(64, 512, 2)).toEqual([64, 512]);
    for (const start of [16, 32, 48, 64, 100, 128, 250]) {
      for (const ceiling of [64, 128, 256, 512, 1024]) {
        const seq = stepUpLimits(start, ceiling);
        expect(seq.length).toBeLessThanOrEqual(4);
        expect(Math.max(...seq)).toBeLessThanOrEqual(ceiling);
        expect(seq[seq.length - 1]).toBe(ceiling >= start ? ceiling : seq[0]);
        for (let i = 1; i < seq.length; i++) expect(seq[i]).toBeGreaterThan(seq[i - 1]!);
      }
    }
  });
});

describe('the plan on a constructed run (engine/verify-plan.ts)', () => {
  it('starts Kubernetes and Compose at the answer’s limit, PM2 above it by one more process’s share, under the largest clean cap', () => {
    const r = fixture();
    const p = planOf(r);
    expect(p.label).toBe('hello cluster×1 1000m/256MB c20');
    expect(p.ceilingMb).toBe(512);
    expect(p.fallbackMb).toBe(256);
    expect(p.kinds).toEqual(['pm2', 'kubernetes', 'compose']);
    expect(p.start.kubernetes).toEqual({ memoryMb: 64, basis: "the answer's memory limit for it, 64 MB (peak × 1.25, rounded up to a multiple of 32 MB)" });
    expect(p.start.compose!.memoryMb).toBe(64);
    // cluster × 1 is two processes (primary + worker): PM2's daemon is counted as one more share, 64 / 2 = 32 → 96.
    expect(p.start.pm2!.memoryMb).toBe(96);
    expect(p.start.pm2!.basis).toMatch(/one more process's share for PM2's daemon \(the matrix ran no PM2 twin/);
    expect(p.expected.goodput).toBeCloseTo(recommend(r).scopes[0]!.knee.rps!.mean, 6);
    expect(p.expected.se).not.toBeNull();
    expect(p.expected.maxErrorPct).toBe(1);
    expect(p.durationSec).toBe(10);
  });

  it('PM2’s own memory measured in PM2 mode: the PM2 twin’s peak over the configuration’s', () => {
    const r = fixture({ twin: true });
    const rec = recommend(r);
    const knee = rec.scopes[0]!.knee;
    expect(knee.mode).toBe('cluster');
    expect(pm2ExtraMb(r.cells, knee, rec.configurations)).toBe(20);
    const p = planOf(r);
    expect(p.start.pm2).toEqual({ memoryMb: 96, basis: "the answer's memory limit for it, 64 MB (peak × 1.25, rounded up to a multiple of 32 MB) plus PM2's own memory measured in PM2 mode (its PM2 twin peaked 20 MB higher)" });
  });

  it('a verification cell runs exactly the settings: limits, mode, workers, restart threshold, NODE_OPTIONS, the worker variable', () => {
    const r = run([...reps({ workers: 2 }, [24100, 24600, 23900]).map((c) => ({ ...c, config: { ...c.config, env: { LOG: '0' }, recycleRssMb: 200 } }))]);
    const p = planOf(r);
    const pm2 = planSettings(p, 'pm2', 128);
    const a = verifyCellConfig(p, ['pm2'], pm2, { round: 'R', attempt: 1, final: false, basis: 'b' });
    expect(a).toMatchObject({ mode: 'pm2', workers: 2, cpuMillis: 1000, memoryMb: 128, recycleRssMb: pm2.recycleRssMb, phase: 'verify', repetition: 0, durationSec: 10 });
    expect(a.env).toEqual({ LOG: '0', NODE_OPTIONS: `--max-old-space-size=${pm2.heapMb}` });
    expect(a.verify).toMatchObject({ key: p.key, snippets: ['pm2'], attempt: 1, final: false, heapMb: pm2.heapMb, fallbackMb: 256, ceilingMb: 256 });
    const k8s = verifyCellConfig(p, ['kubernetes', 'compose'], planSettings(p, 'kubernetes', 96), { round: 'R', attempt: 1, final: false, basis: 'b' });
    expect(k8s).toMatchObject({ mode: 'cluster', workers: 2, memoryMb: 96, env: { LOG: '0', WEB_CONCURRENCY: '2' } });
    // The matrix's own recycle setting is not what the container snippets deploy.
    expect(k8s).not.toHaveProperty('recycleRssMb');
    expect(k8s).not.toHaveProperty('index');
  });

  it('says why there is nothing to plan', () => {
    const r = fixture();
    expect(planVerification(r.cells, recommend(r), 'no such key')).toBe('that configuration is not in the run');
  });
});

describe('the pass rule (judgeVerifyCell)', () => {
  const p = planOf(fixture());
  const cfg = { ...verifyCellConfig(p, ['kubernetes', 'compose'], planSettings(p, 'kubernetes', 64), { round: 'R', attempt: 1, final: false, basis: 'b' }), index: 12 } as CellConfig;
  const d = cfg.verify!;

  it('passes a clean run within 5 % of the matrix, and reports p99 and the peak', () => {
    const j = judgeVerifyCell(resultOf(cfg, { kind: 'pass', goodput: 24000 }), d);
    expect(j).toMatchObject({ pass: true, reasons: [], p99Us: 1900, peakBytes: 41 * MIB, restarts: 0, errorPct: 0 });
    expect(j.goodputCheck!.failed).toBe(false);
  });

  it('fails an OOM kill, restarts, too many failed requests, goodput significantly below 95 %; a cancelled cell has no verdict', () => {
    expect(judgeVerifyCell(resultOf(cfg, { kind: 'oom' }), d)).toMatchObject({ pass: false, reasons: ['OOM-killed (exit 137)'] });
    expect(judgeVerifyCell(resultOf(cfg, { kind: 'restarts', n: 3 }), d)).toMatchObject({ pass: false, reasons: ['3 restarts'] });
    const errors = { ...resultOf(cfg, { kind: 'pass' }) };
    errors.load = loadOf(steady(24100), 1900, 5000);
    expect(judgeVerifyCell(errors, d).reasons[0]).toMatch(/^2\.0 % of requests failed \(the answer allows 1\.0 %\)$/);
    const slow = judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 20000 }), d);
    expect(slow.pass).toBe(false);
    expect(slow.reasons[0]).toMatch(/^goodput 20,000 req\/s, below 95 % of the matrix's 24,200 \(one-sided p/);
    expect(judgeVerifyCell(resultOf(cfg, { kind: 'cancelled' }), d)).toMatchObject({ pass: null });
  });

  it('without intervals, the means decide nothing: goodput is not judged either way, and the words say so', () => {
    const noCi = { ...d, expected: { ...d.expected, se: null, df: null } };
    // 22,900 < 0.95 × 24,200 = 22,990 on the means, yet no test can show it: not a failure (a noisy second can do that).
    const below = judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 22900 }), noCi);
    expect(below.goodputCheck).toMatchObject({ verdict: 'means-below', failed: false });
    expect(below.pass).toBe(true);
    expect(goodputWords(below)).toBe("goodput 22,900 req/s (5 % below the matrix's 24,200, below 95 % of it on the means; goodput not judged: no interval to test)");
    const above = judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 23100 }), noCi);
    expect(goodputWords(above)).toBe("goodput 23,100 req/s (5 % below the matrix's 24,200, above 95 % of it on the means; goodput not judged: no interval to test)");
  });

  it('non-inferiority: goodput not significantly below the floor but not shown above it is no pass of goodput', () => {
    // 23,300 against 24,200 (3 repetitions, se ≈ 208): the floor is 22,990; neither one-sided test rejects at α = 0.05.
    const j = judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 23300 }), d);
    const g = j.goodputCheck!;
    expect(g.pBelow!).toBeGreaterThan(0.05);
    expect(g.pAbove!).toBeGreaterThan(0.05);
    expect(g).toMatchObject({ verdict: 'not-judged', failed: false, floor: 0.95 * p.expected.goodput });
    expect(goodputWords(j)).not.toMatch(/within 5 %|shown above/);
    // Shown above the floor is the only pass of goodput.
    const shown = judgeVerifyCell(resultOf(cfg, { kind: 'pass', goodput: 24000 }), d).goodputCheck!;
    expect(shown.verdict).toBe('shown-above');
    expect(shown.pAbove!).toBeLessThanOrEqual(0.05);
    // Shown below it fails.
    expect(judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 20000 }), d).goodputCheck).toMatchObject({ verdict: 'shown-below', failed: true });
  });

  it('an inconclusive goodput is not judged, says the interval is too wide, and does not fail the attempt', () => {
    // Seconds that swing between 0 and 60,000: this cell's interval is far wider than the floor's distance.
    const series = [18000, 0, 0, 0, 60000, 60000, 60000, 0, 0, 0];
    const j = judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 18000, series }), d);
    expect(j).toMatchObject({ pass: true, reasons: [], memoryCaused: false });
    expect(j.goodputCheck).toMatchObject({ verdict: 'not-judged', failed: false, belowShare: true });
    expect(verdictOf(j)).toBe('passed (goodput not judged: the interval is too wide)');
    const words = goodputWords(j);
    // Batch means of 3 s: 0, 60,000, 0 → se 20,000 on 2 df; the interval is taken on the log scale, so it stays
    // above zero however wide: 18,000 · e^(∓t·se/18,000) = 151–2,145,434 req/s.
    const h = (tQuantile(0.975, 2) * 20000) / 18000;
    expect(j.goodputCheck!.interval!.low).toBeCloseTo(18000 * Math.exp(-h), 6);
    expect(j.goodputCheck!.interval!.high).toBeCloseTo(18000 * Math.exp(h), 3);
    expect(j.goodputCheck!.interval!.low).toBeGreaterThan(0);
    expect(words).toBe("goodput 18,000 req/s (26 % below the matrix's 24,200; goodput not judged: the interval is too wide — this cell 151–2,145,434 req/s, the matrix 23,321–25,112, against a floor of 22,990)");
    // A matrix interval whose low end went below zero is never printed so (goodput is positive).
    const wide = { ...d, expected: { ...d.expected, low: -1200, high: 49600 } };
    const w = goodputWords(judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 18000, series }), wide));
    expect(w).toContain('the matrix 0–49,600');
    expect(`${words} ${w}`).not.toMatch(/[-−]\s?\d/);
  });

  it('words about a comparison come from its numbers: above, below, within 1 %', () => {
    expect(comparedWords(6806, 4987, "the matrix's 4,987")).toBe("36 % above the matrix's 4,987");
    expect(comparedWords(4890, 4987, "the matrix's 4,987")).toBe("2 % below the matrix's 4,987");
    expect(comparedWords(4990, 4987, "the matrix's 4,987")).toBe("within 1 % of the matrix's 4,987");
    // The motivating line: 6,806 against 4,987 said "within 5 % of the matrix's 4,987".
    const fast = { ...d, expected: { ...d.expected, goodput: 4987, se: 40, df: 2, low: 4815, high: 5159 } };
    const j = judgeVerifyCell(resultOf(cfg, { kind: 'pass', goodput: 6806 }), fast);
    expect(j.pass).toBe(true);
    expect(goodputWords(j)).toMatch(/^goodput 6,806 req\/s \(36 % above the matrix's 4,987, shown above 95 % of it: one-sided p [<\d]/);
    expect(goodputWords(judgeVerifyCell(resultOf(cfg, { kind: 'pass', goodput: 24000 }), d))).toMatch(/^goodput 24,000 req\/s \(within 1 % of the matrix's 24,200, shown above 95 %/);
  });

  it('only memory failures raise the limit: an OOM kill, restarts, a process out of memory — not goodput or failed requests', () => {
    const memory = [
      judgeVerifyCell(resultOf(cfg, { kind: 'oom' }), d),
      judgeVerifyCell(resultOf(cfg, { kind: 'restarts', n: 2 }), d),
      judgeVerifyCell(resultOf(cfg, { kind: 'failed', failure: 'the container exited with code 134 during the load\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory' }), d),
    ];
    for (const j of memory) {
      expect(j).toMatchObject({ pass: false, memoryCaused: true });
      expect(afterFailure(j, false)).toBe('step-up');
      expect(afterFailure(j, true)).toBe('step-up');
    }
    const errors = { ...resultOf(cfg, { kind: 'pass' }), load: loadOf(steady(24100), 1900, 5000) };
    const other = [
      judgeVerifyCell(resultOf(cfg, { kind: 'slow', goodput: 20000 }), d),
      judgeVerifyCell(errors, d),
      judgeVerifyCell(resultOf(cfg, { kind: 'failed', failure: 'not ready: connect ECONNREFUSED' }), d),
    ];
    for (const j of other) {
      expect(j).toMatchObject({ pass: false, memoryCaused: false });
      expect(afterFailure(j, false)).toBe('repeat');
      expect(afterFailure(j, true)).toBe('stop');
      expect(verdictOf(j)).toMatch(/: not a memory problem$/);
    }
  });
});

/** Every limit / threshold / heap size in a snippet's body, as numbers. */
function carried(kind: SnippetKind, text: string): { memoryMb: number[]; restartMb: number[]; heapMb: number[] } {
  const body = text.split('\n').filter((l) => !l.startsWith('#') && !l.startsWith('//')).join('\n');
  const all = (re: RegExp): number[] => [...body.matchAll(re)].map((m) => Number(m[1]));
  return {
    memoryMb: kind === 'kubernetes' ? all(/memory: "(\d+)Mi"/g) : kind === 'compose' ? all(/memory: (\d+)M/g) : [],
    restartMb: all(/max_memory_restart: "(\d+)M"/g),
    heapMb: all(/--max-old-space-size=(\d+)/g),
  };
}

/** No snippet carries a limit, a restart threshold or a heap size that no cell of the run ran. */
function expectNothingUnrun(r: RunDetail, input: DeployInput): void {
  const ran = r.cells.filter((c) => c.status !== 'running');
  for (const kind of SNIPPET_KINDS) {
    const text = deploySnippet(kind, input);
    const got = carried(kind, text);
    for (const mb of got.memoryMb) expect(ran.some((c) => c.config.memoryMb === mb), `${kind} carries ${mb} MB`).toBe(true);
    for (const mb of got.restartMb) expect(ran.some((c) => c.config.phase === 'verify' && c.config.recycleRssMb === mb && c.config.mode === 'pm2'), `${kind} carries max_memory_restart ${mb}M`).toBe(true);
    for (const mb of got.heapMb) expect(ran.some((c) => c.config.phase === 'verify' && heapFlagOf(c.config.env) === mb), `${kind} carries heap ${mb}`).toBe(true);
    const d = snippetDeploy(kind, input);
    expect(ran.some((c) => c.config.memoryMb === d.settings.memoryMb)).toBe(true);
  }
}

describe('verdicts read back from the stored cells, and the snippets that carry them', () => {
  it('unverified: the matrix’s cap only, no restart threshold or heap size, and the command that verifies it', () => {
    const r = fixture();
    const d = recommendedDeployOf(r, recommend(r))!;
    expect(d.verification).toBeUndefined();
    expect(d.config).toMatchObject({ memoryMb: 256, ruleMemoryMb: 64 });
    const pm2 = deploySnippet('pm2', d);
    expect(pm2).toContain('// Unverified — run `rightsize verify 1` to run it exactly as emitted; until then it carries only the 256 MB cap the matrix measured, no max_memory_restart or heap size: nothing no cell ran.');
    expect(pm2).toContain('// No max_memory_restart or node_args: no cell has run them.');
    expect(pm2Apps(pm2)[0]).toEqual({ name: 'hello', script: 'server.js', instances: 1, exec_mode: 'cluster' });
    const k8s = deploySnippet('kubernetes', d);
    expect(k8s.split('\n')[1]).toMatch(/^# Unverified — run `rightsize verify 1`/);
    expect(k8s).toContain("# Memory: limit = request 256 MB, the cap the matrix measured it under (the answer's memory rule gives limit 64 MB (peak × 1.25, rounded up to a multiple of 32 MB); measured under a 256 MB cap: a snippet carries it once verification has run it).");
    expect((parse(k8s) as { resources: { limits: { memory: string } } }).resources.limits.memory).toBe('256Mi');
    expectNothingUnrun(r, d);
  });

  it('verified after stepping up: the passing cell’s settings exactly, and what was verified in words', () => {
    const r0 = fixture();
    const p = planOf(r0);
    const r = withAttempts(r0, p, [
      { kinds: ['pm2'], mb: 96, outcome: { kind: 'restarts', n: 4 } },
      { kinds: ['kubernetes', 'compose'], mb: 64, outcome: { kind: 'pass', goodput: 24000, peakMb: 43 } },
      { kinds: ['pm2'], mb: 160, outcome: { kind: 'pass', goodput: 23500, peakMb: 88 } },
    ]);
    const v = verificationOf(r, p.key)!;
    expect(v.kinds.pm2).toMatchObject({ state: 'verified', settings: planSettings(p, 'pm2', 160) });
    expect(v.kinds.kubernetes!.state).toBe('verified');
    expect(v.kinds.compose!.passed!.cellNumber).toBe(v.kinds.kubernetes!.passed!.cellNumber);
    // The answer does not change for being verified.
    expect(recommend({ ...r, cells: gridCells(r.cells) }).scopes[0]!.knee.key).toBe(p.key);
    const d = recommendedDeployOf(r, recommend({ ...r, cells: gridCells(r.cells) }))!;
    const pm2 = deploySnippet('pm2', d);
    const s160 = planSettings(p, 'pm2', 160);
    expect(pm2.split('\n')[1]).toBe(
      `// Verified: ran 10 s exactly as emitted on 2026-01-02 10:02 UTC (cell ${v.kinds.pm2!.passed!.cellNumber}): no OOM kill, no restart, no failed requests, goodput 23,500 req/s (3 % below the matrix's 24,200; goodput not judged: the interval is too wide — this cell 23,462–23,538 req/s, the matrix 23,321–25,112, against a floor of 22,990), p99 1.90 ms, peak memory 88 MB of 160 MB. Stepped up from 96 MB (max_memory_restart ${planSettings(p, 'pm2', 96).recycleRssMb}M, --max-old-space-size=${planSettings(p, 'pm2', 96).heapMb}): 4 restarts (max_memory_restart ${planSettings(p, 'pm2', 96).recycleRssMb}M).`,
    );
    expect(pm2Apps(pm2)[0]).toEqual({ name: 'hello', script: 'server.js', instances: 1, exec_mode: 'cluster', max_memory_restart: `${s160.recycleRssMb}M`, node_args: `--max-old-space-size=${s160.heapMb}` });
    // Its one limit, and why the other targets' differ, once.
    expect(pm2).toContain("// Memory: limit of the container or host it runs in (PM2's daemon included) 160 MB, as verified; the Kubernetes snippet's is 64 MB, without PM2's daemon; the Compose snippet's is 64 MB, without PM2's daemon.");
    const k8s = parse(deploySnippet('kubernetes', d)) as { resources: { requests: Record<string, string>; limits: Record<string, string> }; env: unknown[] };
    expect(k8s.resources).toEqual({ requests: { cpu: '1000m', memory: '64Mi' }, limits: { cpu: '1000m', memory: '64Mi' } });
    expect(kubernetesContainerProblems(k8s as unknown as Record<string, unknown>)).toEqual([]);
    expect(deploySnippet('compose', d)).toContain('          memory: 64M');
    expect(composeProblems(parse(deploySnippet('compose', d)))).toEqual([]);
    expectNothingUnrun(r, d);
    // The deploy.snippets answer says the same per snippet.
    const a = deployAnswer(r, recommend({ ...r, cells: gridCells(r.cells) }), undefined);
    expect(a.verification.map((x) => [x.kind, x.state])).toEqual([['pm2', 'verified'], ['kubernetes', 'verified'], ['compose', 'verified']]);
    expect(a.snippets.find((x) => x.kind === 'pm2')!.text).toBe(pm2);
  });

  it('nothing passed: the last measured clean setting, with no threshold or heap flag, and why', () => {
    const r0 = fixture();
    const p = planOf(r0);
    const r = withAttempts(r0, p, [
      { kinds: ['pm2'], mb: 96, outcome: { kind: 'oom' } },
      { kinds: ['pm2'], mb: 160, outcome: { kind: 'restarts', n: 2 } },
      { kinds: ['pm2'], mb: 256, outcome: { kind: 'slow', goodput: 15000 } },
      { kinds: ['pm2'], mb: 512, outcome: { kind: 'oom' } },
    ]);
    const v = verificationOf(r, p.key)!;
    expect(v.kinds.pm2).toMatchObject({ state: 'fallback', settings: { mode: 'pm2', memoryMb: 256, recycleRssMb: null, heapMb: null } });
    expect(v.kinds.kubernetes).toBeUndefined();
    const d = recommendedDeployOf(r, recommend({ ...r, cells: gridCells(r.cells) }))!;
    const pm2 = deploySnippet('pm2', d);
    expect(pm2.split('\n')[1]).toMatch(/^\/\/ Not verified: nothing passed when run exactly as emitted \(2026-01-02 10:02 UTC; 96 MB \(max_memory_restart \d+M, --max-old-space-size=\d+\): OOM-killed \(exit 137\); 160 MB .*: 2 restarts .*; 256 MB .*: goodput 15,000 req\/s, below 95 % .*; 512 MB .*: OOM-killed \(exit 137\)\), so it carries the last measured clean setting: the 256 MB cap the matrix ran hello cluster×1 1000m\/256MB c20 clean at, with no restart threshold or heap flag\. An attempt at or above that cap was OOM-killed under PM2: no limit measured here is safe for this snippet; measure larger caps\.$/);
    expect(pm2).toContain('// No max_memory_restart or node_args: none that was run passed verification.');
    expect(pm2Apps(pm2)[0]).not.toHaveProperty('max_memory_restart');
    // Kubernetes was not verified in this round: it stays unverified.
    expect(snippetDeploy('kubernetes', d).state).toBe('unverified');
    expectNothingUnrun(r, d);
  });

  it('a round that stopped before a verdict leaves the snippet unverified, and a later round wins', () => {
    const r0 = fixture();
    const p = planOf(r0);
    const stopped = withAttempts(r0, p, [{ kinds: ['kubernetes', 'compose'], mb: 64, outcome: { kind: 'oom' } }, { kinds: ['kubernetes', 'compose'], mb: 96, outcome: { kind: 'cancelled' } }]);
    const v = verificationOf(stopped, p.key)!;
    expect(v.kinds.kubernetes!.state).toBe('incomplete');
    const d = recommendedDeployOf(stopped, recommend({ ...stopped, cells: gridCells(stopped.cells) }))!;
    expect(snippetDeploy('kubernetes', d)).toMatchObject({ state: 'incomplete', settings: { memoryMb: 256 } });
    expect(snippetDeploy('kubernetes', d).verification).toMatch(/^Unverified: its verification of 2026-01-02 10:00 UTC stopped after 2 attempts with none passed \(64 MB: OOM-killed \(exit 137\)\)\. Unverified — run `rightsize verify 1`/);
    expectNothingUnrun(stopped, d);
    const later = withAttempts(stopped, p, [{ kinds: ['kubernetes', 'compose'], mb: 96, outcome: { kind: 'pass' } }], '2026-01-03T09:00:00.000Z');
    expect(verificationOf(later, p.key)!.kinds.kubernetes).toMatchObject({ state: 'verified', settings: { memoryMb: 96 } });
    // An earlier settled round stays the verdict over a later one that did not finish.
    const interrupted = withAttempts(later, p, [{ kinds: ['kubernetes', 'compose'], mb: 64, outcome: { kind: 'cancelled' } }], '2026-01-04T09:00:00.000Z');
    expect(verificationOf(interrupted, p.key)!.kinds.kubernetes).toMatchObject({ state: 'verified', settings: { memoryMb: 96 } });
  });

  it('a cell’s snippets carry the verification of its configuration (`verify RUN --cell N`), and name that command when there is none', () => {
    const r = fixture();
    const rec = recommend(r);
    const other = r.cells.find((c) => c.config.workers === 2 && c.config.memoryMb === 512)!;
    const d = cellDeploy(r, other, rec);
    expect(d.verifyCommand).toBe(`rightsize verify 1 --cell ${other.config.index + 1}`);
    expect(deploySnippet('compose', d)).toContain(`# Unverified — run \`rightsize verify 1 --cell ${other.config.index + 1}\``);
    const rc = rec.configurations.find((c) => c.key === configurationKey(other.config))!;
    const p = planVerification(r.cells, rec, rc.key, 10) as VerifyPlan;
    const r2 = withAttempts(r, p, [{ kinds: ['kubernetes', 'compose'], mb: p.start.kubernetes!.memoryMb, outcome: { kind: 'pass' } }]);
    const d2 = cellDeploy(r2, other, recommend({ ...r2, cells: gridCells(r2.cells) }));
    expect(snippetDeploy('kubernetes', d2)).toMatchObject({ state: 'verified', settings: { memoryMb: p.start.kubernetes!.memoryMb } });
    // The recommendation's own snippets are not that configuration's: they stay unverified.
    expect(snippetDeploy('kubernetes', recommendedDeployOf(r2, recommend({ ...r2, cells: gridCells(r2.cells) }))!).state).toBe('unverified');
  });

  it('an own image’s PM2 snippet cannot be run as emitted, and says so', () => {
    const r = run(reps({ mode: 'image', workers: 2 }, [10000, 10100, 9900]));
    const d = recommendedDeploy(recommend(r))!;
    expect(snippetDeploy('pm2', d).state).toBe('unverifiable');
    expect(deploySnippet('pm2', d)).toContain('// Not verifiable: its own image runs its own command, not PM2');
    const p = planOf(r);
    expect(p.kinds).toEqual(['kubernetes', 'compose']);
  });
});

// ── the engine's loop, against a fake phase context on a real store ───────────────────────────

/** A stored run from fixture cells (ids and indexes as the store gives them). */
function storeWith(r: RunDetail): { store: Store; runId: number } {
  const store = Store.open(path.join(dir, `verify-${fileNo++}.db`));
  const runId = store.createRun({ name: r.name, preset: null, matrix: r.matrix, host: HOST, ownerSession: 'lab:1:1', cellsTotal: r.cells.length });
  for (const c of r.cells) {
    const id = store.startCell(runId, c.config);
    const res: CellResult = {
      config: c.config, status: 'ok', flags: c.flags, startedAt: c.startedAt, finishedAt: c.finishedAt!, exit: c.exit!,
      load: { ...loadOf([c.rpsMean!]), measuredSec: 10, perSecondGood: [], perSecondRps: [], goodputMean: c.rpsMean! },
      stats: { cpuPctMean: 90, cpuPctMax: 100, memMeanBytes: 30 * MIB, memMaxBytes: c.memMaxBytes!, memLimitBytes: c.config.memoryMb * MIB, throttledPeriods: 0, throttledMs: 0, samples: 10 },
    };
    store.finishCell(id, res);
  }
  store.finishRun(runId, 'completed');
  return { store, runId };
}

/** A phase context whose cells "run" by `outcome(config)`, stored like real ones. */
function fakeContext(store: Store, runId: number, outcome: (c: Omit<CellConfig, 'index'>) => Outcome, abortAfter?: number) {
  const ran: Omit<CellConfig, 'index'>[] = [];
  const said: string[] = [];
  const abort = new AbortController();
  let next = store.getRun(runId)!.cells.length;
  const ctx: PhaseContext = {
    store, runId, matrix: { durationSec: 10, warmupSec: 2 } as Matrix, signal: abort.signal, emit: () => {},
    log: (level, message) => said.push(`${level}: ${message}`),
    announce: (_phase, message) => said.push(`announce: ${message}`),
    runCell: async (cell) => {
      ran.push(cell);
      const config = { ...cell, index: next++ } as CellConfig;
      const id = store.startCell(runId, config);
      const res = resultOf(config, outcome(cell));
      store.finishCell(id, res);
      if (abortAfter !== undefined && ran.length >= abortAfter) abort.abort();
      return res;
    },
  };
  return { ctx, ran, said };
}

describe('verifyAnswer (engine/verify.ts) with a fake cell runner', () => {
  it('runs PM2 and Kubernetes + Compose as two cells, steps PM2 up until it passes, never above the largest clean cap', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      // PM2 passes from 160 MB up; the container snippets at their first limit.
      const { ctx, ran, said } = fakeContext(store, runId, (c) => (c.mode === 'pm2' && c.memoryMb < 160 ? { kind: 'restarts', n: 3 } : { kind: 'pass' }));
      const out = await verifyAnswer(ctx);
      expect(ran.map((c) => [c.verify!.snippets.join('+'), c.memoryMb, c.verify!.attempt])).toEqual([['pm2', 96, 1], ['kubernetes+compose', 64, 1], ['pm2', 160, 2]]);
      expect(ran.every((c) => c.phase === 'verify' && c.memoryMb <= 512 && c.durationSec === 10)).toBe(true);
      expect(ran[2]!.verify!.basis).toMatch(/^stepped up from 96 MB \(3 restarts/);
      expect(out.verification!.kinds.pm2).toMatchObject({ state: 'verified', settings: { memoryMb: 160 } });
      expect(out.verification!.kinds.compose).toMatchObject({ state: 'verified', settings: { memoryMb: 64 } });
      expect(said.filter((l) => l.startsWith('warn: verify: PM2 attempt 1, pm2 × 1, 1 CPU, 96 MB'))).toHaveLength(1);
      expect(said[said.length - 1]).toBe('announce: hello cluster×1 1000m/256MB c20 done: PM2 verified at 160 MB, Kubernetes verified at 64 MB, Compose verified at 64 MB');
      // The stored run reads back the same: the report's snippets carry it.
      const back = store.getRun(runId)!;
      expect(verificationOf(back, out.key!)).toEqual(out.verification);
    } finally {
      store.close();
    }
  });

  it('a restart loop’s measured worker RSS raises the next restart threshold above it', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      const { ctx, ran } = fakeContext(store, runId, (c) => (c.mode === 'pm2' && c.verify!.attempt === 1 ? { kind: 'restarts', n: 9, workerRssMb: 70 } : { kind: 'pass' }));
      const out = await verifyAnswer(ctx);
      const pm2 = ran.filter((c) => c.mode === 'pm2');
      // 160 MB alone would give 160 ÷ 2 × 0.9 = 72M; the worker measured 70 MB of RSS, so 70 × 1.2 = 84,
      // up to a multiple of 8: 88M.
      expect(pm2.map((c) => [c.memoryMb, c.recycleRssMb])).toEqual([[96, 43], [160, 88]]);
      expect(out.verification!.kinds.pm2!.settings!.recycleRssMb).toBe(pm2[1]!.recycleRssMb);
      const back = store.getRun(runId)!;
      const text = deploySnippet('pm2', recommendedDeployOf(back, recommend({ ...back, cells: gridCells(back.cells) }))!);
      expect(text).toContain('max_memory_restart: "88M"');
      expect(text).toContain('// max_memory_restart: above the resident memory a server process was measured at (× 1.2, up to a multiple of 8 MB), not 90 % of each process\'s share of the 160 MB limit');
    } finally {
      store.close();
    }
  });

  it('with nothing passing: four attempts, the ceiling last, then the fallback', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      const { ctx, ran } = fakeContext(store, runId, () => ({ kind: 'oom' }));
      const out = await verifyAnswer(ctx);
      expect(ran.filter((c) => c.mode === 'pm2').map((c) => c.memoryMb)).toEqual([96, 160, 256, 512]);
      expect(ran.filter((c) => c.mode !== 'pm2').map((c) => c.memoryMb)).toEqual([64, 96, 160, 512]);
      expect(ran.filter((c) => c.verify!.final).map((c) => c.memoryMb)).toEqual([512, 512]);
      for (const k of SNIPPET_KINDS) expect(out.verification!.kinds[k]).toMatchObject({ state: 'fallback', settings: { memoryMb: 256, recycleRssMb: null, heapMb: null } });
    } finally {
      store.close();
    }
  });

  it('a goodput failure never raises the memory limit: repeated once at the same limit, then reported as not a memory problem', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      const { ctx, ran, said } = fakeContext(store, runId, (c) => (c.mode === 'pm2' ? { kind: 'pass' } : { kind: 'slow', goodput: 15000 }));
      const out = await verifyAnswer(ctx);
      const k8s = ran.filter((c) => c.mode !== 'pm2');
      expect(k8s.map((c) => [c.memoryMb, c.verify!.attempt])).toEqual([[64, 1], [64, 2]]);
      expect(k8s[1]!.verify!.basis).toMatch(/^repeated at 64 MB: goodput 15,000 req\/s, below 95 % of the matrix's 24,200 \(one-sided p < 0\.001\), 38 % below it: not a memory problem \(the host may have been busy\)$/);
      expect(said.filter((l) => /^warn: verify: Kubernetes \+ Compose attempt 2, .*: failed: goodput 15,000 .*: not a memory problem$/.test(l))).toHaveLength(1);
      const v = out.verification!.kinds.kubernetes!;
      // Settled (not left unverified): the matrix's clean cap, saying the limit was not raised and why.
      expect(v).toMatchObject({ state: 'fallback', settings: { memoryMb: 256 } });
      expect(v.line).toContain('64 MB: goodput 15,000 req/s, below 95 % of the matrix\'s 24,200 (one-sided p < 0.001), 38 % below it: not a memory problem; 64 MB: goodput 15,000');
      expect(v.line).toContain('The memory limit was not raised: that failure is not a memory problem, and it failed again when repeated at 64 MB.');
      expect(out.verification!.kinds.pm2!.state).toBe('verified');
      expect(verificationOf(store.getRun(runId)!, out.key!)).toEqual(out.verification);
    } finally {
      store.close();
    }
  });

  it('a goodput failure that passes when repeated at the same limit is verified there, and says so', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      const { ctx, ran } = fakeContext(store, runId, (c) => (c.mode !== 'pm2' && c.verify!.attempt === 1 ? { kind: 'slow', goodput: 15000 } : { kind: 'pass' }));
      const out = await verifyAnswer(ctx);
      expect(ran.filter((c) => c.mode !== 'pm2').map((c) => c.memoryMb)).toEqual([64, 64]);
      const v = out.verification!.kinds.compose!;
      expect(v).toMatchObject({ state: 'verified', settings: { memoryMb: 64 } });
      expect(v.line).toMatch(/\. Passed when repeated at the same limit after 64 MB: goodput 15,000 req\/s, .*: not a memory problem\.$/);
      expect(v.line).not.toContain('Stepped up');
    } finally {
      store.close();
    }
  });

  it('an OOM kill, restarts or a process out of memory still step the limit up; a goodput failure after them does not', async () => {
    const { store, runId } = storeWith(fixture());
    try {
      const heap = 'the container exited with code 134 during the load\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory';
      const { ctx, ran } = fakeContext(store, runId, (c) => {
        if (c.mode === 'pm2') return c.memoryMb < 160 ? { kind: 'failed', failure: heap } : { kind: 'pass' };
        return c.memoryMb === 64 ? { kind: 'oom' } : c.memoryMb === 96 && c.verify!.attempt === 2 ? { kind: 'restarts', n: 2 } : { kind: 'slow', goodput: 15000 };
      });
      const out = await verifyAnswer(ctx);
      expect(ran.filter((c) => c.mode === 'pm2').map((c) => c.memoryMb)).toEqual([96, 160]);
      // 64 OOM → 96 restarts → 160 goodput → 160 again (goodput) → stop: never 512.
      expect(ran.filter((c) => c.mode !== 'pm2').map((c) => [c.memoryMb, c.verify!.attempt])).toEqual([[64, 1], [96, 2], [160, 3], [160, 4]]);
      expect(ran.filter((c) => c.mode !== 'pm2')[1]!.verify!.basis).toMatch(/^stepped up from 64 MB \(OOM-killed/);
      expect(ran.filter((c) => c.mode !== 'pm2')[2]!.verify!.basis).toMatch(/^stepped up from 96 MB \(2 restarts/);
      expect(out.verification!.kinds.pm2).toMatchObject({ state: 'verified', settings: { memoryMb: 160 } });
      expect(out.verification!.kinds.kubernetes!.state).toBe('fallback');
    } finally {
      store.close();
    }
  });

  it('a chosen configuration (--cell), and a cancel that leaves the rest unverified', async () => {
    const r = fixture();
    const { store, runId } = storeWith(r);
    try {
      const key = configurationKey(r.cells.find((c) => c.config.workers === 2 && c.config.memoryMb === 512)!.config);
      const { ctx, ran } = fakeContext(store, runId, () => ({ kind: 'oom' }), 1);
      const out = await verifyAnswer(ctx, { cellKey: key });
      expect(out.key).toBe(key);
      expect(ran).toHaveLength(1);
      expect(ran[0]).toMatchObject({ workers: 2, mode: 'pm2' });
      expect(out.stopped).toBe(true);
      expect(out.verification!.kinds.pm2!.state).toBe('incomplete');
    } finally {
      store.close();
    }
  });

  it('nothing to verify when the answer has nothing to deploy', async () => {
    const { store, runId } = storeWith(run([cell({ status: 'ok', rps: 1000 })]));
    try {
      store.finishCell(store.getRun(runId)!.cells[0]!.id, { config: store.getRun(runId)!.cells[0]!.config, status: 'oom', flags: [], startedAt: 'x', finishedAt: 'y', exit: { oomKilled: true, exitCode: 137, restarts: 0 } });
      const { ctx, ran } = fakeContext(store, runId, () => ({ kind: 'pass' }));
      const out = await verifyAnswer(ctx);
      expect(ran).toHaveLength(0);
      expect(out.skipped).toMatch(/has no answer to deploy/);
    } finally {
      store.close();
    }
  });
});

// Settings as the unit under test sees them: silence unused-type lint for DeploySettings.
export type { DeploySettings, VerifyDescriptor };
