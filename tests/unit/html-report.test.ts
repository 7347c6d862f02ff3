import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { fmtNum, fmtUs } from '../../src-main/common/format.ts';
import type { Sample } from '../../src-main/model/types.ts';
import { cellsCsv, samplesCsv } from '../../src-main/export/csv.ts';
import type { StoredCell } from '../../src-main/store/index.ts';
import { parseCsv, parseCsvRows, unescape } from '../helpers/report.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { escapeXml, lineChart, niceTicks } from '../../src-main/export/svg-chart.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const EVIL = '<img src=x onerror=alert(1)>';

/** A realistic little run: two CPU caps, repetitions with fractional req/s, a client-bound cell, an OOM and a failure. */
function fixture() {
  return run(
    [
      ...reps({ workers: 1 }, [24100.1234, 24600.5, 23900.25], [1790, 1850, 1700]),
      ...reps({ workers: 2 }, [25309.4567, 24800.125, 25800.875], [2100, 2300, 2000]),
      cell({ workers: 4, rps: 19000.0005, p99Us: 9100, flags: [{ kind: 'client-bound', reason: `busy 96 % ${EVIL}` }] }),
      ...reps({ workers: 1, cpu: 2000, mem: 512 }, [26000.3, 26200.7, 25900.1], [1500, 1550, 1480]),
      ...reps({ workers: 2, cpu: 2000, mem: 512 }, [41000.9, 43000.2, 42000.4], [1900, 2000, 1950]),
      cell({ workers: 8, cpu: 2000, mem: 512, status: 'oom' }),
      cell({ workers: 8, cpu: 2000, mem: 512, status: 'failed', failure: `not ready: ${EVIL}\nsecond line` }),
    ],
    { name: `sizing ${EVIL}`, matrix: { name: `m ${EVIL}`, apps: ['hello'], placement: 'auto' } },
  );
}

function samplesFor(r: ReturnType<typeof fixture>): Map<number, Sample[]> {
  return new Map(
    r.cells.filter((c) => c.status === 'ok').map((c) => [
      c.id,
      [1, 2, 3].map((t) => ({ t, rps: c.rpsMean! + t, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1, cpuPct: 90, memBytes: 1, throttledPeriods: 0 })),
    ]),
  );
}

describe('htmlReport', () => {
  const r = fixture();
  const rec = recommend(r, { slo: { p99Ms: 2, minRps: 20000, maxErrorPct: 1 } });
  const html = htmlReport(r, new Map(), rec);

  it('is one self-contained document: no script, no external resource', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<iframe|<object|<embed/i);
    const markup = html.replace(/"[^"]*"/g, '""'); // attribute values hold escaped data, not attributes
    expect(markup).not.toMatch(/<[^>]*\s(src|href|on\w+)\s*=/i);
    expect(html).not.toMatch(/https?:\/\//i);
    expect(html).not.toMatch(/url\(|@import/i);
    expect(html).toMatch(/<style>[\s\S]*@media print/);
  });

  it('escapes everything that comes from data', () => {
    expect(html).not.toContain(EVIL);
    expect(html).not.toMatch(/<img/i);
    expect(html).toContain('<title>Rightsize report: sizing &lt;img src=x onerror=alert(1)&gt;</title>');
    expect(html).toContain('<h1>Rightsize report: sizing &lt;img src=x onerror=alert(1)&gt;</h1>');
    expect(html).toContain('&quot;name&quot;: &quot;m &lt;img src=x onerror=alert(1)&gt;&quot;'); // the matrix JSON
    expect(html).toContain('not ready: &lt;img src=x onerror=alert(1)&gt;'); // a failure
    expect(html).toContain('busy 96 % &lt;img src=x onerror=alert(1)&gt;'); // a flag reason
  });

  it("describes the user's own apps from the run's copy, escaped", () => {
    const shop = { name: 'shop', builtIn: false, dir: '/src/<shop>', entry: 'server.js', port: 8080, health: '/health', requests: [{ method: 'POST', path: '/items', status: 201 }], source: { kind: 'folder', args: ['--x'], cwd: '', ecosystem: { file: 'ecosystem.config.js', app: 'shop' } } };
    const withApps = htmlReport({ ...r, apps: [shop, { name: 'hello', builtIn: true }] }, new Map(), rec);
    expect(withApps).toContain('<section id="apps"><h2>Your apps, as run</h2><ul><li>App shop: folder /src/&lt;shop&gt;, node server.js --x (from ecosystem.config.js); port 8080, health /health; requests POST /items → 201</li></ul></section>');
    expect(html).not.toContain('<section id="apps">'); // built-in apps only: nothing to add
  });

  it('puts the answer first, sentence by sentence', () => {
    const answer = html.indexOf('<section id="answer">');
    expect(answer).toBeGreaterThan(0);
    expect(answer).toBeLessThan(html.indexOf('<section id="winners">'));
    expect(answer).toBeLessThan(html.indexOf('<section id="cells">'));
    expect(rec.words.length).toBeGreaterThan(5);
    for (const w of rec.words) expect(html).toContain(`<li>${escapeXml(w)}</li>`);
    // Two pairs: each pair's own words answer "if you are given" it (the ± is half the log-scale interval's width).
    expect(html).toContain('<li>If you are given 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (25,303 ± 1,244 req/s, n = 3).</li>');
    expect(html).toContain('Service-level objective: p99 ≤ 2 ms, ≥ 20,000 req/s, errors ≤ 1 %.');
  });

  it('embeds one SVG chart per metric, and per-second charts when samples exist', () => {
    const svgs = html.match(/<svg(?![^>]*answer-chart)[\s\S]*?<\/svg>/g) ?? []; // the answer's own chart apart
    expect(svgs).toHaveLength(2);
    expect(svgs[0]).toContain('<title>Throughput by workers</title>');
    expect(svgs[0]).toContain('req/s (mean, 95 % CI)');
    expect(svgs[1]).toContain('<title>p99 latency by workers</title>');
    expect(svgs[1]).toContain('p99 latency (ms, mean, 95 % CI)');
    for (const svg of svgs) {
      expect(svg).toContain('1 CPU / 256 MB');
      expect(svg).toContain('2 CPUs / 512 MB');
      expect(svg).toContain('workers (processes serving requests)');
    }
    const withSamples = htmlReport(r, samplesFor(r), rec);
    expect(withSamples.match(/<svg(?![^>]*answer-chart)/g)).toHaveLength(4); // + one per CPU / memory pair's best
    expect(withSamples).toContain('<title>Req/s each second — hello cluster×2 1000m/256MB c20</title>');
  });

  it('lists every cell, failed ones too, with the same req/s and p99 as the CSV export', () => {
    const csv = parseCsv(cellsCsv(r));
    expect(csv).toHaveLength(r.cells.length);
    for (const row of csv) {
      const tr = new RegExp(`<tr data-cell-index="${row.cell_index}"([^>]*)>([\\s\\S]*?)</tr>`).exec(html);
      expect(tr, `row of cell ${row.cell_index}`).not.toBeNull();
      const attrs = tr![1]!;
      const tds = [...tr![2]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((m) => unescape(m[1]!));
      expect(tds[8]).toBe(row.status);
      if (row.rps_mean === '') {
        expect(attrs).not.toContain('data-rps');
        expect(tds[9]).toBe('—');
        expect(tds[11]).toBe('—');
        continue;
      }
      expect(Number(/data-rps="([^"]+)"/.exec(attrs)![1]).toFixed(3)).toBe(row.rps_mean);
      expect(/data-p99-us="([^"]+)"/.exec(attrs)![1]).toBe(row.latency_p99_us);
      expect(tds[9]).toBe(fmtNum(Number(row.rps_mean)));
      expect(tds[11]).toBe(fmtUs(Number(row.latency_p99_us)));
    }
    expect(csv.map((c) => c.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'oom', 'failed']);
  });

  it('shows the winners with intervals, the host and the method', () => {
    const winners = html.slice(html.indexOf('<section id="winners">'), html.indexOf('<section id="charts">'));
    expect(winners).toContain('<h2>If you are given one CPU / memory pair</h2>');
    // The client-bound 4 workers' number is a lower bound that may be higher still: the pair is undecided, and the
    // best's cell says what the contest left beside it, never a second word for how sure.
    expect(winners).toContain('<td>2 cluster workers<br><span class="value">25,303 ± 1,244 req/s</span><br><span class="muted">2 others still in the running: a lower bound stands in the way</span></td>');
    // The client-bound 4 workers stay a candidate (a lower bound): with no interval, p99 against it is means only.
    expect(winners).toContain('<td>1 cluster worker<br><span class="value">1.78 ms ± 0.19</span><br><span class="muted">no interval: means only</span></td>');
    expect(winners).toContain('<td>2 cluster workers<br><span class="value">42,001 ± 2,485 req/s</span><br><span class="muted">every other shown below it (Welch’s t-test, Holm-corrected)</span></td>');
    // One state per pair, the contest's, said once (with the pick); none of the old verdicts beside it.
    const table = winners.slice(winners.indexOf('<tbody>'), winners.indexOf('</tbody>'));
    const rows = table.split('<tr>').slice(1);
    expect(rows.map((row) => row.match(/\b(confident|equivalent|undecided)\b/g))).toEqual(
      rec.scopes.map((s) => [s.state]),
    );
    expect(winners).not.toMatch(/\bclear\b|not confident|not distinguishable from|bottlenecked/);
    expect(html).toContain('<td class="num">25,303 ± 1,244</td>'); // the configurations table
    expect(html).toContain('<td>Test CPU @ 3.0GHz, 8 cores</td>');
    expect(html).toContain('<td>27.3.1</td>');
    expect(html).toContain('<td>v2</td>');
    expect(html).toContain('How this was measured, and its limits');
    expect(html).toContain('<code>NanoCpus</code>');
    expect(html).toContain('<em>intended</em> send time');
  });
});

describe('svg line chart', () => {
  it('rounds the axis and escapes its labels', () => {
    expect(niceTicks(43_000)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(niceTicks(9.13)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0)).toEqual([0, 1]);
    const svg = lineChart({ title: 'a <b>', xLabel: 'workers', yLabel: 'req/s', series: [{ name: '"x" & <y>', points: [{ x: 1, y: 5 }, { x: 2, y: 7, low: 6, high: 8 }] }] });
    expect(svg).toContain('<title>a &lt;b&gt;</title>');
    expect(svg).toContain('&quot;x&quot; &amp; &lt;y&gt;');
    expect(svg).toContain('<rect x="0" y="0" width="720" height="360" fill="#ffffff"/>');
    expect(svg.match(/<polyline/g)).toHaveLength(1);
    expect(lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [] })).toContain('no data');
  });
});

describe('steady state and host contention in the exports', () => {
  /** 1 and 2 workers, three repetitions each; 2 workers is best. Every cell warmed 5 s (2 configured); one 1-worker cell drifted while the host was busy. */
  function steadyFixture() {
    const r = run([...reps({ workers: 1 }, [20_000, 20_500, 19_800]), ...reps({ workers: 2 }, [30_000, 30_400, 29_900])]);
    const unstable = { kind: 'unstable' as const, reason: 'not a steady state: throughput fell 38 % between the first and the second half (p < 0.001)' };
    const busy = { kind: 'host-busy' as const, reason: "other processes took 23 % of cores 0-1 (the target's and the load's) while it measured" };
    r.cells = r.cells.map((c) => ({
      ...c,
      load: { warmupUsedSec: 5, ...(c.config.index === 1 ? { warmupNoise: 0.0823, warmupRaise: { cpuMillis: 1000, untilSec: 3 } } : {}), warmupPerSecondRps: [9_000, 15_000, 22_000, 29_000, 30_100], perSecondRps: [c.rpsMean!, c.rpsMean!, c.rpsMean!] } as unknown as StoredCell['load'],
      stats: { cpuPctMean: 95, host: { cores: '0-1', otherPct: c.config.index === 1 ? 23 : 1.5, perSecondOtherPct: c.config.index === 1 ? [40, 25, 4] : [1, 2, 1.5] } } as unknown as StoredCell['stats'],
      flags: c.config.index === 1 ? [unstable, busy] : [],
    }));
    return r;
  }
  const r = steadyFixture();
  const samples = new Map(r.cells.map((c) => [c.id, [0, 1, 2].map((t) => ({ t, rps: c.rpsMean!, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1, cpuPct: 90, memBytes: 1, throttledPeriods: 0 }))]));

  it('the cells CSV has the warm-up used, the host share and the reasons', () => {
    const rows = parseCsv(cellsCsv(r));
    expect(rows[0]).toMatchObject({ warmup_s: '2', warmup_used_s: '5', warmup_noise_pct: '', warmup_raised_cpu_m: '', warmup_raised_s: '', host_cores: '0-1', host_other_pct: '1.500', flags: '', unstable_reason: '', host_busy_reason: '' });
    expect(rows[1]).toMatchObject({ warmup_noise_pct: '8.200', warmup_raised_cpu_m: '1000', warmup_raised_s: '3', host_cores: '0-1', host_other_pct: '23', flags: 'unstable host-busy' });
    expect(rows[1]!.unstable_reason).toBe('not a steady state: throughput fell 38 % between the first and the second half (p < 0.001)');
    expect(rows[1]!.host_busy_reason).toContain('other processes took 23 % of cores 0-1');
  });

  it('the samples CSV has the host share of each second', () => {
    const rows = parseCsv(samplesCsv(r, samples));
    expect(rows.filter((x) => x.cell_index === '1').map((x) => x.host_other_pct)).toEqual(['40', '25', '4']);
    expect(parseCsv(samplesCsv({ ...r, cells: r.cells.map((c) => ({ ...c, stats: null })) }, samples))[0]!.host_other_pct).toBe('');
  });

  it('the HTML report shows the warm-up used, the reasons, and marks where warm-up ended', () => {
    const html = htmlReport(r, samples, recommend(r));
    const row = new RegExp('<tr data-cell-index="1"[^>]*>([\\s\\S]*?)</tr>').exec(html)![1]!;
    expect(row).toContain('<td class="num">2 → 5 s (3 s at 1 CPU)</td>');
    expect(html).toContain('<b>unstable</b>: not a steady state: throughput fell 38 % between the first and the second half (p &lt; 0.001)');
    expect(html).toContain('<b>host-busy</b>: other processes took 23 % of cores 0-1');
    const chart = /<svg[^>]*aria-label="Req\/s each second[\s\S]*?<\/svg>/.exec(html)![0];
    expect(chart).toContain('warm-up ended');
    expect(chart).toContain('seconds from the start of measurement (warm-up before 0)');
    expect(chart).toContain('repetition 1 (warm-up 5 s)');
    // Five warm-up seconds and three measured ones on each repetition's line.
    const lines = [...chart.matchAll(/<polyline[^>]*points="([^"]*)"/g)].map((m) => m[1]!.split(' '));
    expect(lines).toHaveLength(3);
    for (const points of lines) expect(points).toHaveLength(8);
    expect(html).toContain('<code>unstable</code>');
    expect(html).toContain('<code>host-busy</code> when it exceeds 10 %');
    expect(html).toContain('for at most 12 s');
    expect(html).toContain("1 cell under one CPU warmed up at one until each process had its CPU-second (by the container's CPU readings;");
    expect(html).toContain('then measured at their own cap, from the second after the one it came back in');
  });

  it('old cells without a stored warm-up show the configured one', () => {
    const old = run(reps({ workers: 1 }, [20_000, 20_500]));
    old.cells = old.cells.map((c) => ({ ...c, load: {} as StoredCell['load'] }));
    const row = new RegExp('<tr data-cell-index="0"[^>]*>([\\s\\S]*?)</tr>').exec(htmlReport(old, new Map(), recommend(old)))![1]!;
    expect(row).toContain('<td class="num">2 s</td>');
    expect(parseCsv(cellsCsv(old))[0]!.warmup_used_s).toBe('');
  });
});

describe('the HTML report: a cell’s settings and dependencies (issue 41)', () => {
  it('under the cell, with the CSV saying the same', () => {
    const deps = [{ name: 'db', image: 'postgres:16', cpuMillis: 500, memoryMb: 256, seconds: [], stats: { cpuPctMean: 97.4, memMaxBytes: 45 * 2 ** 20 } }];
    const r = run(reps({ app: 'catalog', workers: 2 }, [900, 905, 910]));
    const cells = r.cells.map((c) => ({ ...c, config: { ...c.config, envSet: { PG_POOL_SIZE: '10' } }, dependencies: deps })) as unknown as StoredCell[];
    const html = htmlReport({ ...r, cells }, new Map(), recommend({ ...r, cells }));
    expect(html).toContain('<b>settings</b>: PG_POOL_SIZE=10');
    expect(html).toContain('<b>dependencies</b>: db (postgres:16) 97 % of its 0.5 CPU cap, up to 45');
    expect(cellsCsv({ ...r, cells })).toContain('db 97 % 45 MB');
    // The samples CSV: each second's reading beside the app's, columns named for the dependency.
    const measured = [{ cpuPct: 90.5, memBytes: 1000 }, null];
    const withSeconds = cells.map((c) => ({ ...c, dependencies: [{ ...deps[0]!, measured }] })) as unknown as StoredCell[];
    const sample = (t: number): Sample => ({ t, rps: 900, bytes: 1, errors: 0, timeouts: 0, non2xx: 0, p50Us: 1, p90Us: 1, p99Us: 1, maxUs: 1, cpuPct: 90, memBytes: 1, throttledPeriods: 0 });
    const samples = new Map(withSeconds.map((c) => [c.id, [sample(0), sample(1)]]));
    const rows = parseCsvRows(samplesCsv({ ...r, cells: withSeconds }, samples));
    expect(rows[0]!.slice(-2)).toEqual(['db_cpu_pct_of_cap', 'db_mem_bytes']);
    expect(rows[1]!.slice(-2)).toEqual(['90.500', '1000']);
    expect(rows[2]!.slice(-2)).toEqual(['', '']);
  });
});
