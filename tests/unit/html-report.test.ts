import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { fmtNum, fmtUs } from '../../src-main/common/format.ts';
import type { Sample } from '../../src-main/engine/types.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import { parseCsv, unescape } from '../helpers/report.ts';
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
    expect(html).toContain('<li>On 1 CPU / 256 MB, 2 cluster workers (2 per CPU) gave the best throughput (25,303 ± 1,243 req/s, n = 3).</li>');
    expect(html).toContain('Service-level objective: p99 ≤ 2 ms, ≥ 20,000 req/s, errors ≤ 1 %.');
  });

  it('embeds one SVG chart per metric, and per-second charts when samples exist', () => {
    const svgs = html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
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
    expect(withSamples.match(/<svg/g)).toHaveLength(4); // + one per CPU / memory pair's best
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
    expect(winners).toContain('<td>2 cluster workers<br><span class="value">25,303 ± 1,243 req/s</span><br><span class="muted">not distinguishable from 1 other</span></td>');
    expect(winners).toContain('<td>1 cluster worker<br><span class="value">1.78 ms ± 0.19</span><br><span class="muted">not distinguishable from 1 other</span></td>');
    expect(winners).toContain('<td>2 cluster workers<br><span class="value">42,001 ± 2,483 req/s</span><br><span class="muted">clear (intervals apart)</span></td>');
    expect(html).toContain('<td class="num">25,303 ± 1,243</td>'); // the configurations table
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
