// Saved baselines and a run's stored comparison in a real SQLite file, and the run options checked
// before anything starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src-main/store/index.ts';
import { checkBaselineOptions, thresholdOption } from '../../src-main/cli/baseline-gate.ts';
import { comparisonOf, reportBaseline, resolveBaseline, storedComparison } from '../../src-main/export/baseline-of.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { recommend } from '../../src-main/analysis/index.ts';
import { HOST } from '../helpers/run-fixture.ts';
import type { CellConfig } from '../../src-main/model/types.ts';

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rs-baseline-'));
  store = Store.open(join(dir, 'db.sqlite'));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A finished run of `app` with three ok repetitions of one configuration at these goodputs. */
function storedRun(app: string, rps: number[]): number {
  const id = store.createRun({ name: app, matrix: { apps: [app] }, host: HOST, ownerSession: 'lab:1:1', cellsTotal: 3 });
  rps.forEach((r, i) => {
    const config: CellConfig = {
      index: i, repetition: i, app, mode: 'cluster', workers: 1, cpuMillis: 1000, memoryMb: 256,
      load: { model: 'closed', connections: 20 }, durationSec: 10, warmupSec: 2, env: {},
    };
    const cellId = store.startCell(id, config);
    const lat = { p50: 500, p75: 600, p90: 700, p97_5: 800, p99: 1000 + i * 10, p99_9: 1500, max: 2000, mean: 550, stddev: 100 };
    store.finishCell(cellId, {
      config, status: 'ok', flags: [], startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:12Z',
      load: {
        model: 'closed', connections: 20, measuredSec: 10, requests: r * 10, bytes: 1, rpsMean: r, rpsStddev: 1,
        bytesPerSec: 1, latencyUs: lat, latencyFrom: 'send', statusCounts: {}, errors: 0, timeouts: 0, non2xx: 0,
        clientElu: 0.3, clientBound: false, goodputMean: r,
      },
    } as never);
  });
  store.finishRun(id, 'completed');
  return id;
}

describe('saved baselines', () => {
  it('saves a name per app, resolves it, moves it, and goes with its run', () => {
    const a = storedRun('hello', [1000, 1010, 990]);
    const b = storedRun('json', [500, 505, 495]);
    store.baselines.save('main', ['hello'], a);
    store.baselines.save('main', ['json'], b);
    const r = resolveBaseline(store, 'main', 5);
    expect(r.ok && r.spec.sides).toEqual([
      { runId: a, apps: ['hello'] },
      { runId: b, apps: ['json'] },
    ]);
    store.baselines.save('main', ['hello'], b); // moved
    expect(store.baselines.named('main').map((x) => x.runId)).toEqual([b, b]);
    expect(store.baselines.delete('main', 'json')).toBe(1);
    expect(store.baselines.delete('main', 'json')).toBe(0);
    expect(store.baselines.named('main').map((x) => x.app)).toEqual(['hello']);
    store.deleteRun(b);
    expect(store.baselines.list()).toEqual([]);
  });

  it('stores what a run was compared with, and works the verdicts out again', () => {
    const base = storedRun('hello', [1000, 1010, 990]);
    const slow = storedRun('hello', [700, 705, 695]);
    store.baselines.setSpec(slow, { sides: [{ runId: base, apps: null }], thresholdPct: 5, name: null });
    const again = storedComparison(store, slow)!;
    expect(again.result.ok && again.result.comparison.configurations[0]!.metrics[0]!.verdict).toBe('regressed');
    expect(again.result.ok && again.result.comparison.gateFailed).toBe(true);
    store.deleteRun(base);
    expect(comparisonOf(store, slow, again.spec)).toEqual({ ok: false, message: `the baseline run ${base} was deleted` });
  });

  it("the HTML report's baseline section: the verdicts worked out again, or why there are none", () => {
    const base = storedRun('hello', [1000, 1010, 990]);
    const slow = storedRun('hello', [700, 705, 695]);
    const report = () => {
      const r = store.getRun(slow)!;
      return htmlReport(r, store.getRunSamples(slow), recommend(r), new Map(), reportBaseline(store, slow));
    };
    expect(report()).not.toContain('id="baseline"');
    store.baselines.setSpec(slow, { sides: [{ runId: base, apps: null }], thresholdPct: 5, name: 'main' });
    const html = report();
    expect(html).toContain('Against the baseline');
    expect(html).toMatch(/<span class="verdict regressed"[^>]*>regressed<\/span>/);
    expect(html).toContain('−30.0 %');
    store.deleteRun(base);
    expect(report()).toContain(`the baseline run ${base} was deleted: no verdicts to show.`);
  });

  it('names the option and changes nothing for bad input', () => {
    const base = storedRun('hello', [1000, 1010, 990]);
    expect(() => checkBaselineOptions(store, { baseline: 'nightly' })).toThrow(
      '--baseline: no baseline is saved as "nightly" (none saved yet; save one with run --save-baseline NAME, or give a run id).',
    );
    expect(() => checkBaselineOptions(store, { baseline: '999' })).toThrow('--baseline: there is no run 999');
    expect(() => checkBaselineOptions(store, { baseline: String(base), threshold: 'lots' })).toThrow(
      '--threshold should be a percentage above 0 and below 100, e.g. 5; got "lots".',
    );
    expect(() => checkBaselineOptions(store, { threshold: '3' })).toThrow(/--threshold applies to --baseline/);
    expect(() => checkBaselineOptions(store, { saveBaseline: '42' })).toThrow(/--save-baseline: "42" looks like a run id/);
    expect(checkBaselineOptions(store, { baseline: `#${base}`, threshold: '3%' })).toEqual({
      sides: [{ runId: base, apps: null }],
      thresholdPct: 3,
      name: null,
    });
    expect(thresholdOption(undefined)).toBe(5);
    expect(store.baselines.list()).toEqual([]);
  });
});
