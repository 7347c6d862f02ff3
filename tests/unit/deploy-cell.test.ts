import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { recommend } from '../../src-main/analysis/index.ts';
import { summarizeOne } from '../../src-main/analysis/decide/stats.ts';
import { parseCellOption } from '../../src-main/cli/commands/report.ts';
import { CliError } from '../../src-main/cli/exit-codes.ts';
import { fmtNum } from '../../src-main/common/format.ts';
import { cellDeploy, CellNotDeployableError, deployAnswer, findDeployableCell, NothingToDeployError, numberRanges } from '../../src-main/deploy/from-cell.ts';
import { deploySnippet, recommendedDeploy, scopeConfidence, SNIPPET_KINDS } from '../../src-main/deploy/snippets.ts';
import type { CellResult, LoadResult } from '../../src-main/model/types.ts';
import { Lab } from '../../src-main/service/lab.ts';
import { Store, type StoredCell } from '../../src-main/store/index.ts';
import { dispatch } from '../../src-main/transports/dispatch.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { composeProblems, kubernetesContainerProblems } from '../helpers/deploy-schemas.ts';
import { cell, HOST, reps, run } from '../helpers/run-fixture.ts';

const require = createRequire(import.meta.url);
const pm2Common = require('pm2/lib/Common.js') as { parseConfig: (text: string, filename: string) => { apps: Record<string, unknown>[] } };
const pm2Config = require('pm2/lib/tools/Config.js') as { validateJSON: (app: Record<string, unknown>) => { errors: string[] } };
const dir = mkdtempSync(path.join(tmpdir(), 'rightsize-deploy-cell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A load result whose goodput per second is `series` (so the cell has a batch-means interval). */
function loadOf(series: number[], p99: number): LoadResult {
  const mean = series.reduce((a, b) => a + b, 0) / series.length;
  return {
    model: 'closed', connections: 20, measuredSec: series.length, requests: Math.round(mean * series.length), bytes: 0, rpsMean: mean, rpsStddev: 1, bytesPerSec: 0,
    latencyUs: { p50: p99 / 3, p75: p99 / 2, p90: p99 / 1.5, p97_5: p99 / 1.2, p99, p99_9: p99 * 1.5, max: p99 * 2, mean: p99 / 3, stddev: 100 },
    latencyFrom: 'send', statusCounts: { '200': Math.round(mean * series.length) }, errors: 0, timeouts: 0, non2xx: 0, clientElu: 0.3, clientBound: false,
    perSecondRps: series, perSecondGood: series, goodputMean: mean,
  };
}
const withSeries = (c: StoredCell, series: number[]): StoredCell => ({ ...c, rpsMean: series.reduce((a, b) => a + b, 0) / series.length, load: loadOf(series, c.p99Us!) });
const series = (base: number, n = 16): number[] => Array.from({ length: n }, (_, i) => base + ((i * 37) % 11) * 10 - 50);

/**
 * 1 CPU / 256 MB: workers 1 (×2 repetitions) and 2 (×2); 2 CPUs / 512 MB: workers 2 (one repetition,
 * with per-second data) and 4 (OOM-killed), plus one unstable, throttled cell (counted, flagged).
 */
function fixture() {
  return run([
    ...reps({ workers: 1 }, [24100, 24600], [1790, 1850]), // #1 #2
    ...reps({ workers: 2 }, [24300, 24800], [2100, 2300]), // #3 #4
    withSeries(cell({ workers: 2, cpu: 2000, mem: 512, rps: 41000, p99Us: 1900 }), series(41000)), // #5
    cell({ workers: 4, cpu: 2000, mem: 512, status: 'oom' }), // #6
    cell({ workers: 3, rps: 20000, p99Us: 4000, flags: [{ kind: 'unstable', reason: 'a level shift at 6 s' }, { kind: 'throttled', reason: 'throttled 30 % of periods' }] }), // #7
  ], { name: 'sizing' });
}

describe('snippets of any measured cell', () => {
  const r = fixture();
  const rec = recommend(r);
  const byNumber = (n: number): StoredCell => r.cells[n - 1]!;

  it('a cell of another pair: its own config, goodput with the batch-means interval of its seconds, p99, and "not the recommendation"', () => {
    const c = byNumber(5);
    const d = cellDeploy(r, c, rec);
    expect(d.config).toEqual({ app: 'hello', mode: 'cluster', workers: 2, cpuMillis: 2000, memoryMb: 512, ruleMemoryMb: 64 });
    expect(d.verifyCommand).toBe('rightsize verify 1 --cell 5');
    const expected = summarizeOne(c.load!.goodputMean!, c.load!.perSecondGood!);
    expect(expected.intervalFrom).toBe('batch-means');
    expect(d.provenance.goodput).toEqual({ mean: expected.mean, low: expected.ci!.low, high: expected.ci!.high });
    expect(d.provenance.p99Us).toBe(1900);
    expect(d.provenance).toMatchObject({ runId: r.id, runName: 'sizing', load: { model: 'closed', connections: 20 } });
    expect(d.provenance.confidence).toMatch(/^one measured cell, not the recommendation; its interval comes from batch means of its own seconds/);
    // It is the knee of its own pair, which is not the recommended one.
    expect(d.provenance.pick).toMatch(/^cell 5 \(repetition 1\), one repetition of the knee of 2 CPUs \/ 512 MB .* — not the recommended configuration$/);
    const text = deploySnippet('kubernetes', d);
    expect(text).toContain('# Confidence: one measured cell, not the recommendation;');
    expect(text).toContain(`# Measured under 20 connections: goodput ${fmtNum(expected.mean)} req/s (95 % CI ${fmtNum(expected.ci!.low)}–${fmtNum(expected.ci!.high)}), p99 1.90 ms.`);
  });

  it('a repetition of the recommended configuration carries the recommendation’s own confidence', () => {
    // Two pairs: the answer's decision spans both, on cost per million requests (rec.decisions).
    const decision = rec.decisions![0]!;
    expect(decision.pairs).toBe(2);
    const knee = decision.knee;
    const c = r.cells.find((x) => x.config.index === knee.cellIndexes[1])!;
    const d = cellDeploy(r, c, rec);
    // The recommended snippet carries the answer's memory limit and CPU request; a cell carries the caps it was measured under.
    const { cpuRequestMillis: _request, ...recommended } = recommendedDeploy(rec)!.config;
    expect(d.config).toEqual({ ...recommended, memoryMb: knee.memoryMb });
    expect(d.verifyCommand).toBe('rightsize verify 1'); // a repetition of the answer: the answer's verification is its
    expect(d.provenance.confidence.startsWith(`${scopeConfidence(decision)}; this cell alone: no interval`)).toBe(true);
    expect(d.provenance.pick).toBe(
      'cell 2 (repetition 2) of the recommended configuration, the leading contender on cost per million requests of the 4 configurations ' +
        'measured on 1 CPU / 256 MB and 2 CPUs / 512 MB (hello, 20 connections), undecided against 3 others',
    );
    expect(d.provenance.goodput).toEqual({ mean: c.rpsMean, low: null, high: null }); // no per-second data: no interval, said so
    expect(deploySnippet('pm2', d)).toContain('goodput 24,600 req/s (no interval)');
  });

  it('a cell outside every pick says it was picked by hand, and why to trust it less (unstable, flagged)', () => {
    const d = cellDeploy(r, byNumber(7), rec);
    expect(d.provenance.pick).toBe('cell 7 (repetition 1), picked by hand');
    // An unstable repetition is counted in the answer now (analysis/decide/group.ts), flagged: never said to be left out.
    const conf = rec.configurations.find((x) => x.workers === 3)!;
    expect(conf.n).toBe(1);
    expect(conf.flags.map((f) => f.kind)).toContain('unstable');
    expect(d.provenance.confidence).not.toContain('left out of the answer');
    expect(d.provenance.confidence).toMatch(/flagged [^;]*unstable/);
    expect(d.provenance.confidence).toMatch(/flagged [^;]*throttled/);
  });

  it('finds cells by their # in the run or by stored id; anything else is refused with the valid ones', () => {
    expect(findDeployableCell(r, 5, 'number')).toBe(byNumber(5));
    expect(findDeployableCell(r, byNumber(3).id, 'id')).toBe(byNumber(3));
    expect(() => findDeployableCell(r, 99, 'number')).toThrow(CellNotDeployableError);
    expect(() => findDeployableCell(r, 99, 'number')).toThrow('Run 1 has no cell 99. Cells with a measurement to deploy: 1–5, 7 (the # column of `rightsize show 1`).');
    expect(() => findDeployableCell(r, 6, 'number')).toThrow(/^Cell 6 of run 1 \(hello cluster×4 2000m\/512MB c20\) was OOM-killed: it has no measurement to deploy\. Cells with/);
    try {
      findDeployableCell(r, 0, 'id');
    } catch (e) {
      expect((e as CellNotDeployableError).valid).toEqual([1, 2, 3, 4, 5, 7]);
      expect((e as Error).message).toBe('Run 1 has no cell id 0. Cell ids with a measurement to deploy: 1–5, 7.');
    }
    const none = run([cell({ status: 'oom' })]);
    expect(() => findDeployableCell(none, 1, 'number')).toThrow('Cell 1 of run 1 (hello cluster×1 1000m/256MB c20) was OOM-killed: it has no measurement to deploy. No cell of it finished with a measurement, so there is nothing to deploy.');
  });

  it('writes ranges short', () => {
    expect(numberRanges([])).toBe('');
    expect(numberRanges([9, 1, 2, 3, 5, 6, 12, 13, 14, 2])).toBe('1–3, 5, 6, 9, 12–14');
  });
});

describe('deploy.snippets answer', () => {
  const r = fixture();
  const rec = recommend(r);

  it('without a cell: the recommendation, three files valid by their schemas, and every measured cell to pick from', () => {
    const a = deployAnswer(r, rec, undefined);
    expect(a.cellId).toBeNull();
    expect(a.config).toEqual(recommendedDeploy(rec)!.config);
    expect(a.snippets.map((s) => [s.kind, s.filename])).toEqual([
      ['pm2', 'rightsize-run-1-ecosystem.config.js'], ['kubernetes', 'rightsize-run-1-kubernetes.yaml'], ['compose', 'rightsize-run-1-compose.yaml'],
    ]);
    for (const s of a.snippets) expect(s.text).toBe(deploySnippet(s.kind, recommendedDeploy(rec)!));
    expect(a.choices.map((c) => c.number)).toEqual([1, 2, 3, 4, 5, 7]);
    const kneeNumbers = rec.scopes[0]!.knee.cellIndexes.map((i) => i + 1);
    expect(a.choices.filter((c) => c.recommended).map((c) => c.number)).toEqual(kneeNumbers);
    expect(a.choices[4]!.label).toBe('#5 hello cluster×2 2000m/512MB c20 — 40,996 req/s, p99 1.90 ms');
  });

  it('with a cell: that cell’s snippets under names that carry its #, each valid by PM2’s loader and schema, Kubernetes’ and Compose’s', () => {
    const c = r.cells[4]!;
    const a = deployAnswer(r, rec, undefined, c.id);
    expect(a.cellId).toBe(c.id);
    expect(a.config.cpuMillis).toBe(2000);
    const files = Object.fromEntries(a.snippets.map((s) => [s.kind, s]));
    expect(files.pm2!.filename).toBe('rightsize-run-1-cell-5-ecosystem.config.js');
    const pm2File = path.join(dir, files.pm2!.filename);
    writeFileSync(pm2File, files.pm2!.text);
    const apps = pm2Common.parseConfig(files.pm2!.text, pm2File).apps;
    // Unverified: no restart threshold or heap flag (no cell ran them); `rightsize verify 1 --cell 5` would.
    expect(apps[0]).toEqual({ name: 'hello', script: 'server.js', instances: 2, exec_mode: 'cluster' });
    expect(files.pm2!.text).toContain('Unverified — run `rightsize verify 1 --cell 5`');
    expect(a.verification.map((v) => v.state)).toEqual(['unverified', 'unverified', 'unverified']);
    expect(pm2Config.validateJSON({ ...apps[0] }).errors).toEqual([]);
    const k8s = parse(files.kubernetes!.text) as Record<string, unknown>;
    expect(kubernetesContainerProblems(k8s)).toEqual([]);
    expect(k8s).toEqual({ resources: { requests: { cpu: '2000m', memory: '512Mi' }, limits: { cpu: '2000m', memory: '512Mi' } }, env: [{ name: 'WEB_CONCURRENCY', value: '2' }] });
    expect(composeProblems(parse(files.compose!.text))).toEqual([]);
    for (const k of SNIPPET_KINDS) expect(files[k]!.text).toContain('one measured cell, not the recommendation');
  });

  it('refuses a cell without a measurement, and a run with no answer when no cell is named', () => {
    expect(() => deployAnswer(r, rec, undefined, r.cells[5]!.id)).toThrow(CellNotDeployableError);
    const none = run([cell({ status: 'oom' })]);
    expect(() => deployAnswer(none, recommend(none), undefined)).toThrow(NothingToDeployError);
  });
});

/** The fixture written to a real SQLite file through the store, as a run would write it. */
function dbWithFixture(): string {
  const db = path.join(tempDir(), 'deploy.db');
  const s = Store.open(db);
  try {
    const f = fixture();
    const id = s.createRun({ name: f.name, preset: null, matrix: f.matrix, host: HOST, ownerSession: 'lab:1:1', cellsTotal: f.cells.length });
    for (const c of f.cells) {
      const cellId = s.startCell(id, c.config);
      const load = c.load ?? (c.status === 'ok' ? { ...loadOf([c.rpsMean!], c.p99Us!), perSecondRps: undefined, perSecondGood: undefined, measuredSec: 10, requests: c.requests! } : undefined);
      const result: CellResult = {
        config: c.config, status: c.status as CellResult['status'], flags: c.flags, startedAt: c.startedAt, finishedAt: c.finishedAt!,
        ...(load ? { load } : {}), ...(c.exit ? { exit: c.exit } : {}),
      };
      s.finishCell(cellId, result);
    }
    s.finishRun(id, 'completed');
  } finally {
    s.close();
  }
  return db;
}

describe('the deploy.snippets call', () => {
  it('answers through the dispatcher from a stored run; a cell without a measurement is NOT_FOUND with the valid ids; a bad id is INVALID_INPUT', async () => {
    const lab = await Lab.open({ dbPath: dbWithFixture(), recheckMs: { down: 60_000, up: 60_000 } });
    try {
      const rec = await dispatch(lab, 'deploy.snippets', { runId: 1 });
      expect(rec.ok).toBe(true);
      const a = (rec as { value: { cellId: number | null; snippets: { kind: string; text: string }[]; choices: { cellId: number }[] } }).value;
      expect(a.cellId).toBeNull();
      expect(a.snippets.map((x) => x.kind)).toEqual(['pm2', 'kubernetes', 'compose']);
      const five = a.choices[4]!.cellId;
      const cell5 = await dispatch(lab, 'deploy.snippets', { runId: 1, cellId: five, marginPct: 10 });
      expect((cell5 as { value: { cellId: number; lines: string[] } }).value.cellId).toBe(five);
      expect((cell5 as { value: { lines: string[] } }).value.lines[1]).toMatch(/^Picked as cell 5 \(repetition 1\), one repetition of the knee of 2 CPUs \/ 512 MB .* within 10 % of the best — not the recommended configuration\.$/);
      const oom = await dispatch(lab, 'deploy.snippets', { runId: 1, cellId: five + 1 });
      expect(oom).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.stringMatching(/^Cell 6 of run 1 .* was OOM-killed: it has no measurement to deploy\. Cell ids with a measurement to deploy: /) } });
      expect(await dispatch(lab, 'deploy.snippets', { runId: 2 })).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: 'There is no run 2.' } });
      expect(await dispatch(lab, 'deploy.snippets', { runId: 1, cellId: 0 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
      expect(await dispatch(lab, 'deploy.snippets', { runId: 1, cell: 3 })).toMatchObject({ ok: false, error: { code: 'INVALID_INPUT' } });
    } finally {
      await lab.close();
    }
  });
});

describe('rightsize report RUN --emit KIND --cell N', () => {
  it('--cell takes a positive cell number and only goes with --emit', () => {
    expect(parseCellOption(undefined, 'pm2')).toBeUndefined();
    expect(parseCellOption(' 3 ', 'pm2')).toBe(3);
    expect(() => parseCellOption('3', undefined)).toThrow(/--cell goes with --emit/);
    for (const bad of ['0', '-1', '2.5', 'x', '']) expect(() => parseCellOption(bad, 'compose')).toThrow(expect.objectContaining({ exitCode: 2 }));
    expect(() => parseCellOption('x', 'compose')).toThrow(CliError);
  });

  it('prints the picked cell’s snippet; a bad cell names the valid ones and exits 2, printing nothing', async () => {
    const db = dbWithFixture();
    const ok = await cli(['--db', db, 'report', '1', '--emit', 'kubernetes', '--cell', '5']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('# Rightsize run 1 "sizing": hello, cluster × 2, 2 CPUs, measured under a 512 MB cap');
    expect(ok.stdout).toContain('# Unverified — run `rightsize verify 1 --cell 5`');
    expect(ok.stdout).toContain('# Confidence: one measured cell, not the recommendation; its interval comes from batch means');
    expect(kubernetesContainerProblems(parse(ok.stdout) as Record<string, unknown>)).toEqual([]);

    const bad = await cli(['--db', db, 'report', '1', '--emit', 'pm2', '--cell', '6']);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('Cell 6 of run 1 (hello cluster×4 2000m/512MB c20) was OOM-killed: it has no measurement to deploy. Cells with a measurement to deploy: 1–5, 7');
    const missing = await cli(['--db', db, 'report', '1', '--emit', 'pm2', '--cell', '40']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Run 1 has no cell 40.');
  });
});
