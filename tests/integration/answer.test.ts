import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Recommendation } from '../../src-main/analysis/index.ts';
import { TOO_FEW_NOTE } from '../../src-main/analysis/decide/group.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { parseCsvRows, unescape } from '../helpers/report.ts';

beforeAll(async () => {
  await requireDocker();
});

describe('the answer of a real run', () => {
  it('recommendation, HTML report and CSV agree with each other', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'h.db');
    const config = path.join(dir, 'm.json');
    writeFileSync(config, JSON.stringify({
      name: 'answer check', apps: ['pbkdf2'], modes: ['cluster'], workers: [1, 2], cpuMillicores: [500], memoryMb: [256],
      load: { model: 'closed', connections: [4] }, durationSec: 3, warmupSec: 0, repetitions: 2, order: 'shuffle', seed: 7, settleBudgetPct: 0, verify: false,
    }));
    const run = await cli(['--db', db, '--json', 'run', '--config', config, '--slo', 'p99<=2s,rps>=10,errors<=1%']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { runId: number; recommendation: Recommendation };
    const rec = out.recommendation;
    // Every cell has a result and counts: an unstable repetition is flagged, never left out.
    expect(rec.run.cellsIncluded).toBe(4);
    expect(rec.exclusions).toEqual([]);
    expect(rec.configurations).toHaveLength(2);
    // Two repetitions are too few to bound: no interval (never one from t with 1 degree of freedom), said so.
    for (const c of rec.configurations) {
      expect(c.n).toBe(2);
      expect(c.rps!.ci).toBeNull();
      expect(c.notes).toContain(TOO_FEW_NOTE);
    }
    expect(rec.summary[0]).toContain('2 repetitions: too few repetitions to bound');

    const csvFile = path.join(dir, 'cells.csv');
    const htmlFile = path.join(dir, 'report.html');
    expect((await cli(['--db', db, 'export', String(out.runId), '--csv', csvFile])).code).toBe(0);
    expect((await cli(['--db', db, 'report', String(out.runId), '--html', htmlFile, '--slo', 'p99<=2s,rps>=10,errors<=1%'])).code).toBe(0);

    // The CSV's cells, grouped by workers, give the recommendation's means.
    const [head, ...rows] = parseCsvRows(readFileSync(csvFile, 'utf8'));
    const col = (r: string[], name: string): string => r[head!.indexOf(name)]!;
    expect(rows).toHaveLength(4);
    for (const c of rec.configurations) {
      const mine = rows.filter((r) => c.cellIndexes.includes(Number(col(r, 'cell_index'))));
      expect(mine).toHaveLength(c.n);
      expect(mine.every((r) => Number(col(r, 'workers')) === c.workers)).toBe(true);
      // The answer's throughput is goodput: the CSV's goodput column, averaged over the included repetitions.
      const mean = mine.reduce((s, r) => s + Number(col(r, 'goodput_mean')), 0) / mine.length;
      expect(c.rps!.mean).toBeCloseTo(mean, 2);
    }
    // The HTML carries the same per-cell numbers as the CSV, and the same answer in words.
    const html = readFileSync(htmlFile, 'utf8');
    for (const r of rows) {
      const attrs = new RegExp(`<tr data-cell-index="${col(r, 'cell_index')}"([^>]*)>`).exec(html)![1]!;
      expect(Number(/data-rps="([^"]+)"/.exec(attrs)![1]).toFixed(3)).toBe(Number(col(r, 'rps_mean')).toFixed(3));
    }
    for (const w of rec.words) expect(unescape(html)).toContain(w);
    // The best throughput named in the answer really is the highest mean among those it could pick.
    const scope = rec.scopes[0]!;
    const candidates = rec.configurations.filter((c) => scope.candidates.includes(c.key));
    expect(candidates.length).toBeGreaterThan(0);
    expect(scope.bestRps.rps!.mean).toBe(Math.max(...candidates.map((c) => c.rps!.mean)));
    expect(rec.sloOutcomes[0]!.met).not.toBeNull();
  });
});
