// What the answer deploys: with an objective, the cheapest configuration meeting it (not the first
// pair's knee), with the answer's CPU request and memory limit; for an auto-size run, the
// configuration its search found, or plainly that none met the objective. The same in the snippets,
// the deploy.snippets answer, the HTML report and `rightsize report RUN --emit`.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { answerPick, recommend, recommendedCpuMillis, recommendedMemoryLimitMb, type Slo } from '../../src-main/analysis/index.ts';
import { formatRecommendation } from '../../src-main/cli/commands/report.ts';
import { fmtLocalTime } from '../../src-main/common/format.ts';
import { deployAnswer, deployChoices, NothingToDeployError } from '../../src-main/deploy/from-cell.ts';
import { composeSnippet, deploySnippet, kubernetesSnippet, nothingToDeploy, pm2Snippet, recommendedDeploy, SNIPPET_KINDS, type DeployInput } from '../../src-main/deploy/snippets.ts';
import type { SearchStep, SearchTrace, SizeSpec } from '../../src-main/model/search.ts';
import type { CellResult, LoadResult } from '../../src-main/model/types.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { escapeXml } from '../../src-main/export/svg-chart.ts';
import { Store, type RunDetail } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { cell, HOST, reps, run } from '../helpers/run-fixture.ts';

const require = createRequire(import.meta.url);
const pm2Common = require('pm2/lib/Common.js') as { parseConfig: (text: string, filename: string) => { apps: Record<string, unknown>[] } };
const pm2Config = require('pm2/lib/tools/Config.js') as { validateJSON: (app: Record<string, unknown>) => { errors: string[] } };
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-deploy-answer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

type K8s = { resources: { requests: Record<string, string>; limits: Record<string, string> }; env: { name: string; value: string }[] };
type Compose = { services: Record<string, { deploy: { resources: { limits: Record<string, string>; reservations: Record<string, string> } } }> };

/** Every snippet of `d` passes its real schema: PM2's loader and validator, the Kubernetes OpenAPI shape, the Compose schema. */
function expectValid(d: DeployInput): void {
  const file = path.join(dir, `ecosystem-${n++}.config.js`);
  const pm2 = pm2Snippet(d);
  writeFileSync(file, pm2);
  for (const a of pm2Common.parseConfig(pm2, file).apps) expect(pm2Config.validateJSON({ ...a }).errors).toEqual([]);
  expect(kubernetesContainerProblems(parse(kubernetesSnippet(d)) as Record<string, unknown>)).toEqual([]);
  expect(composeProblems(parse(composeSnippet(d)))).toEqual([]);
}

/**
 * Two CPU / memory pairs. The first (0.5 CPU / 256 MB): 1 worker is the knee (2 add nothing), but its
 * p99 misses a 2 ms objective; 2 workers meet it. 1 CPU / 256 MB: both meet, at twice the CPU.
 * Peaks of 100 MB: the answer's memory limit is 128 MB (× 1.25, rounded up to 32 MB), below the cap.
 */
function objectiveFixture(): RunDetail {
  const peak = <T extends { memMaxBytes: number | null }>(c: T): T => ({ ...c, memMaxBytes: 100 * 2 ** 20 });
  return run([
    ...reps({ workers: 1, cpu: 500 }, [12000, 12100, 11900], [2600, 2500, 2700]),
    ...reps({ workers: 2, cpu: 500 }, [12050, 12000, 12100], [1500, 1600, 1550]),
    ...reps({ workers: 1, cpu: 1000 }, [24000, 24100, 23900], [1700, 1800, 1750]),
    ...reps({ workers: 2, cpu: 1000 }, [24300, 24200, 24400], [1400, 1450, 1500]),
  ].map(peak), { name: 'objective' });
}
const SLO: Slo = { p99Ms: 2, minRps: 10000, maxErrorPct: 1 };

describe('with an objective, the answer deploys the cheapest configuration meeting it', () => {
  const r = objectiveFixture();
  const rec = recommend(r, { slo: SLO });
  const knee = rec.scopes[0]!.knee;
  const met = rec.sloOutcomes[0]!.met!;

  it('is the SLO pick (cluster × 2 on 0.5 CPU), not the first pair’s knee (cluster × 1, which misses the p99)', () => {
    expect(knee.workers).toBe(1);
    expect(met.workers).toBe(2);
    expect(met.cpuMillis).toBe(500);
    expect(answerPick(rec)).toMatchObject({ basis: 'slo', configuration: { key: met.key } });
    expect(rec.sizing!.filter((s) => s.recommended).map((s) => s.key)).toEqual([met.key]);
    const d = recommendedDeploy(rec)!;
    expect(d.config).toEqual({ app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 500, cpuRequestMillis: recommendedCpuMillis(rec, met.key), memoryMb: 256, ruleMemoryMb: recommendedMemoryLimitMb(rec, met.key) });
    expect(d.config.cpuRequestMillis).toBe(500); // the smallest cap meeting it at cluster × 2, 256 MB
    expect(d.config.ruleMemoryMb).toBe(128); // the answer's limit: where verification starts; unverified, the snippets carry the 256 MB cap
    expect(d.provenance.pick).toMatch(/^the cheapest configuration meeting p99 ≤ 2 ms, ≥ 10,000 req\/s, errors ≤ 1 % \(\d of 4 configurations meet it\)$/);
    expect(d.provenance.confidence).toMatch(/^meets it on the means/);
    expect(d.provenance.goodput!.mean).toBeCloseTo(met.rps!.mean, 6);
    const k8s = parse(kubernetesSnippet(d)) as K8s;
    expect(k8s.resources).toEqual({ requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    expect(k8s.env).toEqual([{ name: 'WEB_CONCURRENCY', value: '2' }]);
    for (const k of SNIPPET_KINDS) expect(deploySnippet(k, d)).toContain('CPU: request = limit = 0.5 CPU, the smallest cap tried that meets the objective.');
    expectValid(d);
  });

  it('without the objective the same run deploys the knee: the objective is what changed the answer', () => {
    expect(recommendedDeploy(recommend(r))!.config).toMatchObject({ workers: 1, cpuMillis: 500 });
  });

  it('the deploy.snippets answer, the choices, the HTML report and the CLI text all name that configuration', () => {
    const a = deployAnswer(r, rec, undefined);
    const d = recommendedDeploy(rec)!;
    expect(a.config).toEqual(d.config);
    for (const s of a.snippets) expect(s.text).toBe(deploySnippet(s.kind, d));
    // The cells marked as repetitions of the recommendation are the SLO pick's, not the knee's.
    expect(deployChoices(r, rec).filter((c) => c.recommended).map((c) => c.number - 1)).toEqual(met.cellIndexes);
    const html = htmlReport(r, new Map(), rec);
    for (const k of SNIPPET_KINDS) expect(html).toContain(`<pre class="snippet" data-kind="${k}">${escapeXml(deploySnippet(k, d))}</pre>`);
    expect(html).toContain(escapeXml('The recommended configuration — the cheapest configuration meeting p99 ≤ 2 ms'));
  });

  it('with an objective nothing meets, the knee stands in and the snippet says plainly it is no objective fit', () => {
    const none = recommend(r, { slo: { p99Ms: 1, minRps: 0, maxErrorPct: 100 } });
    const d = recommendedDeploy(none)!;
    expect(d.config).toMatchObject({ workers: knee.workers, cpuMillis: knee.cpuMillis });
    expect(d.provenance.pick).toMatch(/— no configuration measured meets p99 ≤ 1 ms \(closest: .*\), so this is not an objective fit$/);
  });

  it('the CPU is the deployed configuration’s own cap, never another cap’s; a larger cap is a labelled alternative', () => {
    // cluster × 1 at 256 MB: picked on 0.5 CPU. Before one answer (issue 39) its CPU request read 1 CPU
    // (the smallest cap holding the throughput) while the snippet deployed 0.5 CPU.
    const rec2 = recommend(r);
    const k = answerPick(rec2)!.configuration;
    expect(recommendedCpuMillis(rec2, k.key)).toBe(k.cpuMillis);
    const d = recommendedDeploy(rec2)!;
    expect(d.config.cpuMillis).toBe(k.cpuMillis);
    expect(d.config.cpuRequestMillis).toBe(k.cpuMillis);
    expect(d.provenance.cpuRule).toContain(`request = limit = ${k.cpuMillis === 500 ? '0.5 CPU' : '1 CPU'}`);
    expect(d.provenance.cpuRule).not.toContain('is above that cap');
    expectValid(d);
  });

  it('a request below the limit gives Kubernetes requests < limits and Compose reservations < limits, both valid', () => {
    const d = { ...recommendedDeploy(rec)!, config: { ...recommendedDeploy(rec)!.config, cpuMillis: 1000, cpuRequestMillis: 250 } };
    const k8s = parse(kubernetesSnippet(d)) as K8s;
    expect(k8s.resources.requests.cpu).toBe('250m');
    expect(k8s.resources.limits.cpu).toBe('1000m');
    expect(kubernetesSnippet(d)).toContain('Burstable QoS');
    const compose = parse(composeSnippet(d)) as Compose;
    const res = Object.values(compose.services)[0]!.deploy.resources;
    expect(res.reservations.cpus).toBe('0.25');
    expect(res.limits.cpus).toBe('1');
    expectValid(d);
  });

  it('a request above the limit is deployed at the limit: never above it, in every snippet', () => {
    const d = { ...recommendedDeploy(rec)!, config: { ...recommendedDeploy(rec)!.config, cpuMillis: 500, cpuRequestMillis: 2000 } };
    const k8s = parse(kubernetesSnippet(d)) as K8s;
    expect(k8s.resources.requests.cpu).toBe('500m');
    expect(k8s.resources.limits.cpu).toBe('500m');
    expect(kubernetesSnippet(d)).not.toContain('Burstable QoS');
    const res = Object.values((parse(composeSnippet(d)) as Compose).services)[0]!.deploy.resources;
    expect(res.limits.cpus).toBe('0.5');
    expect(res.reservations.cpus).toBe('0.5');
    expectValid(d);
  });
});

// ── auto-size runs ──────────────────────────────────────────────────────────────────────────

const RATE = 2000;
const LOAD = { model: 'rate' as const, rate: RATE, connections: 100 };
const SPEC: SizeSpec = {
  app: 'hello', slo: { p99Ms: 50, minRps: RATE, maxErrorPct: 0.1 }, rate: RATE,
  bounds: { cpuMillis: { min: 250, max: 2000 }, memoryMb: { min: 128, max: 1024 }, workers: { min: 1, max: 2 }, modes: ['cluster'] },
  durationSec: 8, warmupSec: 2, maxCells: 12, cpuStepMillis: 250, memoryStepMb: 32, connections: 100,
};

interface Probe { workers: number; cpu: number; mem: number; rps: number; p99Us: number; outcome: SearchStep['outcome'] }
/** The search's path: 2 CPUs meets, 0.5 misses, 1 and 0.75 meet, and 0.75 CPU at 160 MB (from the peak) meets. */
const PATH: Probe[] = [
  { workers: 2, cpu: 2000, mem: 1024, rps: 2001, p99Us: 9000, outcome: 'meets' },
  { workers: 2, cpu: 1000, mem: 1024, rps: 2000, p99Us: 21000, outcome: 'meets' },
  { workers: 2, cpu: 500, mem: 1024, rps: 1650, p99Us: 900000, outcome: 'misses' },
  { workers: 2, cpu: 750, mem: 1024, rps: 1998, p99Us: 38000, outcome: 'meets' },
  { workers: 2, cpu: 750, mem: 160, rps: 1999, p99Us: 39000, outcome: 'meets' },
];

function searchRun(status: SearchTrace['status'], found: SearchTrace['found'], probes = PATH): RunDetail {
  const r = run(probes.map((p) => cell({ workers: p.workers, cpu: p.cpu, mem: p.mem, load: LOAD, rps: p.rps, p99Us: p.p99Us })), { name: 'size hello', matrix: SPEC });
  const steps: SearchStep[] = probes.map((p, i) => ({
    cellId: r.cells[i]!.id, mode: 'cluster', workers: p.workers, cpuMillis: p.cpu, memoryMb: p.mem, reason: `step ${i + 1}`, outcome: p.outcome,
    detail: `per-second p99 ${p.p99Us / 1000} ms (constructed), ${p.rps} of ${RATE} req/s`,
  }));
  const words = status === 'found' ? 'cluster × 2 workers, 750m CPU, 160 MB is the cheapest configuration that meets the objective.' : status === 'none' ? 'No configuration within the bounds meets the objective: even the most CPU misses.' : 'Stopped after 12 cells.';
  return { ...r, search: { spec: SPEC, steps, status, found, words, gridCells: 64, bestSoFar: null } };
}
const FOUND = { mode: 'cluster' as const, workers: 2, cpuMillis: 750, memoryMb: 160 };

describe('an auto-size run answers and deploys what its search found', () => {
  const r = searchRun('found', FOUND);
  const rec = recommend(r);

  it('the knee over its cells would have been something else (0.5 CPU, which missed the objective)', () => {
    expect(rec.scopes[0]!.knee).toMatchObject({ cpuMillis: 500 });
  });

  it('names the found configuration with the objective and rate; no knee in the words', () => {
    expect(rec.search).toMatchObject({ status: 'found', found: FOUND, objective: 'p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %' });
    expect(rec.words[0]).toBe('Auto-size answer: cluster × 2 workers, 0.75 CPU, 160 MB (hello) is the cheapest configuration the search found meeting p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 % (5 cells instead of the 64 of a full grid).');
    expect(rec.words[1]).toBe(r.search!.words);
    expect(rec.words.join(' ')).not.toMatch(/fewest workers|the knee of|knee \(/i);
    expect(rec.sizing!.filter((s) => s.recommended).map((s) => s.label)).toEqual([rec.configurations.find((c) => c.key === rec.search!.foundKey)!.label]);
    const text = formatRecommendation(rec);
    expect(text).toContain('Answer for auto-size run 1 "size hello" (objective: p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %):');
    expect(text).not.toContain('knee (');
  });

  it('its snippets deploy exactly trace.found — request = limit = the found CPU, the found memory — at the rate it was measured under', () => {
    const d = recommendedDeploy(rec)!;
    expect(d.config).toEqual({ app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 750, cpuRequestMillis: 750, memoryMb: 160, ruleMemoryMb: 160 });
    // Its cells ran at the memory it deploys; `rightsize verify` is for matrix runs, so no command is named.
    expect(d.verifyCommand).toBeNull();
    expect(d.provenance.load).toEqual(LOAD);
    expect(d.provenance.pick).toBe('the cheapest configuration the auto-size search found meeting p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 % (5 cells instead of the 64 of a full grid)');
    expect(d.provenance.confidence).toBe(`met the objective with confidence — ${r.search!.steps[4]!.detail}`);
    const k8s = kubernetesSnippet(d);
    expect(k8s).toContain('# Measured under a constant 2,000 req/s over 100 connections:');
    expect((parse(k8s) as K8s).resources).toEqual({ requests: { cpu: '750m', memory: '160Mi' }, limits: { cpu: '750m', memory: '160Mi' } });
    expect(k8s).toContain("# Memory: limit = request 160 MB, the cap the matrix measured it under. The answer's memory rule: limit 160 MB: the search's measured peak by the memory rule, verified by a cell at that limit.");
    expect(k8s.split('\n')[1]).toBe('# Unverified as emitted: it carries only the 160 MB cap its cells ran under, no other limit: nothing no cell ran.');
    expect(k8s).toContain('# CPU: request = limit = 0.75 CPU, the smallest cap the search found meeting the objective.');
    expectValid(d);
    const a = deployAnswer(r, rec, undefined);
    expect(a.config).toEqual(d.config);
    expect(deployChoices(r, rec).filter((c) => c.recommended).map((c) => c.number)).toEqual([5]);
  });

  it('its HTML report shows the search (objective, path) and the found configuration’s snippets, and no knee table', () => {
    const html = htmlReport(r, new Map(), rec);
    const d = recommendedDeploy(rec)!;
    expect(html).toContain('<section id="search" data-status="found">');
    expect(html).toContain('Objective of the auto-size search: p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %.');
    expect(html).toContain('Found: <b>cluster × 2 workers, 0.75 CPU, 160 MB</b>.');
    expect(html).not.toContain('id="winners"');
    for (const k of SNIPPET_KINDS) expect(html).toContain(`<pre class="snippet" data-kind="${k}">${escapeXml(deploySnippet(k, d))}</pre>`);
  });

  it('says plainly that none met the objective, and deploys nothing', () => {
    const none = searchRun('none', null, PATH.slice(0, 3).map((p) => ({ ...p, outcome: 'misses' })));
    const rn = recommend(none);
    expect(rn.words[0]).toBe('Auto-size answer: no configuration within the bounds met p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 % (3 cells); there is nothing to deploy.');
    expect(recommendedDeploy(rn)).toBeNull();
    expect(rn.sizing!.some((s) => s.recommended)).toBe(false);
    expect(nothingToDeploy(rn)).toBe("Run 1 has no answer to deploy: no configuration within the search's bounds met p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %.");
    expect(() => deployAnswer(none, rn, undefined)).toThrow(NothingToDeployError);
    expect(() => deployAnswer(none, rn, undefined)).toThrow(/no configuration within the search's bounds met/);
    const html = htmlReport(none, new Map(), rn);
    expect(html).toContain(`<p data-nothing-to-deploy>${escapeXml(nothingToDeploy(rn))}</p>`);
    expect(html).not.toContain('class="snippet"');
  });

  it('an undecided search deploys nothing either, and says so', () => {
    const u = recommend({ ...searchRun('undecided', null), search: { ...searchRun('undecided', null).search!, bestSoFar: FOUND } });
    expect(u.words[0]).toMatch(/^Auto-size answer: undecided — .*; cluster × 2 workers, 0\.75 CPU, 160 MB met it, but cheaper ones were not ruled out\. There is no answer to deploy\.$/);
    expect(recommendedDeploy(u)).toBeNull();
    expect(nothingToDeploy(u)).toMatch(/the search could not decide/);
  });
});

describe('the HTML report’s times', () => {
  it('are local with the offset, as the CLI prints them (common/format.ts), not UTC', () => {
    const r = objectiveFixture();
    const html = htmlReport(r, new Map(), recommend(r));
    expect(html).toContain(`started ${escapeXml(fmtLocalTime(r.startedAt))}`);
    expect(html).not.toMatch(/\d{2}:\d{2}:\d{2} UTC(?![+−])/);
  });
});

// ── the CLI, from a stored auto-size run ────────────────────────────────────────────────────

function loadOf(rps: number, p99: number): LoadResult {
  return {
    model: 'rate', rate: RATE, connections: 100, measuredSec: 8, requests: Math.round(rps * 8), bytes: 0, rpsMean: rps, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: p99 / 3, p75: p99 / 2, p90: p99 / 1.5, p97_5: p99 / 1.2, p99, p99_9: p99 * 1.5, max: p99 * 2, mean: p99 / 3, stddev: 100 },
    latencyFrom: 'intended-send', statusCounts: { '200': Math.round(rps * 8) }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false, goodputMean: rps,
  } as LoadResult;
}

function dbWithSearch(status: SearchTrace['status'], found: SearchTrace['found'], probes: Probe[]): string {
  const db = path.join(tempDir(), 'search.db');
  const s = Store.open(db);
  try {
    const f = searchRun(status, found, probes);
    const id = s.createRun({ name: f.name, preset: null, matrix: SPEC, host: HOST, ownerSession: 'lab:1:1', cellsTotal: probes.length });
    const ids = f.cells.map((c) => {
      const cellId = s.startCell(id, c.config);
      const result: CellResult = { config: c.config, status: 'ok', flags: [], startedAt: c.startedAt, finishedAt: c.finishedAt!, load: loadOf(c.rpsMean!, c.p99Us!), exit: c.exit! };
      s.finishCell(cellId, result);
      return cellId;
    });
    s.setRunSearch(id, { ...f.search!, steps: f.search!.steps.map((st, i) => ({ ...st, cellId: ids[i]! })) }, probes.length);
    s.finishRun(id, 'completed');
  } finally {
    s.close();
  }
  return db;
}

describe('rightsize report RUN --emit on an auto-size run', () => {
  it('emits the configuration the search found; with none found, exits 2 saying so and prints nothing', async () => {
    const db = dbWithSearch('found', FOUND, PATH);
    const k8s = await cli(['--db', db, 'report', '1', '--emit', 'kubernetes']);
    expect(k8s.code, k8s.stderr).toBe(0);
    expect(k8s.stdout).toContain('# Rightsize run 1 "size hello": hello, cluster × 2, 0.75 CPU, measured under a 160 MB cap');
    expect(k8s.stdout).toContain('# Picked as the cheapest configuration the auto-size search found meeting p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %');
    const spec = parse(k8s.stdout) as K8s;
    expect(spec.resources).toEqual({ requests: { cpu: '750m', memory: '160Mi' }, limits: { cpu: '750m', memory: '160Mi' } });
    expect(kubernetesContainerProblems(spec as unknown as Record<string, unknown>)).toEqual([]);
    const text = await cli(['--db', db, 'report', '1']);
    expect(text.stdout).toContain('Auto-size answer: cluster × 2 workers, 0.75 CPU, 160 MB (hello) is the cheapest configuration the search found');

    const none = dbWithSearch('none', null, PATH.slice(0, 3).map((p) => ({ ...p, outcome: 'misses' })));
    const bad = await cli(['--db', none, 'report', '1', '--emit', 'compose']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain("Run 1 has no answer to deploy: no configuration within the search's bounds met p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %. There is nothing to emit; --cell N emits a measured cell instead.");
  });
});
