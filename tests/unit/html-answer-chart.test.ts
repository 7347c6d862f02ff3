// The HTML report's answer: the headline, then the answer's chart (SVG, the same data as the UI's),
// at most four bullets, and the reasoning and methods behind "How this was decided".
import { describe, expect, it } from 'vitest';
import { answerChart, panelPoints } from '../../src-main/analysis/explain/answer-chart.ts';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import { lineChart } from '../../src-main/export/svg-chart.ts';
import type { Flag } from '../../src-main/model/types.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const unstable: Flag = { kind: 'unstable', reason: 'throughput rose 30 % over the measurement' };
const hostBusy: Flag = { kind: 'host-busy', reason: 'others took 45 % of core 1' };

// 1 worker: an unstable repetition (counted, flagged) and a host-busy one (left out: four undisturbed ones remain).
const fixture = () =>
  run([
    ...reps({ workers: 1 }, [10000, 10100, 9950], [2000, 2100, 1900]),
    cell({ workers: 1, rps: 14000, p99Us: 5000, flags: [unstable] }),
    cell({ workers: 1, rps: 6000, p99Us: 8000, flags: [hostBusy] }),
    ...reps({ workers: 2 }, [17000, 17100, 16900]).map((c) => ({ ...c, flags: [clientBound] })),
    ...reps({ workers: 2, cpu: 2000 }, [19900, 19950, 19920]),
    ...reps({ workers: 2, cpu: 2000, mode: 'pm2' }, [20000, 20050, 19980]),
  ]);

/** The opening tags of the answer chart's points in one panel SVG, as attribute maps. */
const pointsOf = (svg: string): Record<string, string>[] =>
  [...svg.matchAll(/<g class="point"([^>]*)>/g)].map((m) => Object.fromEntries([...m[1]!.matchAll(/ data-([a-z-]+)="([^"]*)"/g)].map((a) => [a[1]!, a[2]!])));

describe('the HTML report’s answer', () => {
  const r = fixture();
  const rec = recommend(r);
  const html = htmlReport(r, new Map(), rec);
  const answer = /<section id="answer">[\s\S]*?<\/section>/.exec(html)![0];
  const svgs = answer.match(/<svg[\s\S]*?<\/svg>/g) ?? [];

  it('draws the chart right after the headline: goodput and p99 for every pair', () => {
    expect(answer.indexOf('class="headline"')).toBeLessThan(answer.indexOf('<svg'));
    expect(svgs).toHaveLength(2 * rec.scopes.length);
    expect(svgs.map((s) => /data-metric="(\w+)"/.exec(s)![1])).toEqual(rec.scopes.flatMap(() => ['rps', 'p99']));
    for (const s of svgs) {
      expect(s).toContain('<rect x="0" y="0"');
      expect(s).toContain('workers (processes serving requests)');
    }
    expect(svgs[0]).toContain('goodput (req/s, mean and 95 % interval)');
    expect(svgs[1]).toContain('p99 latency (ms, mean and 95 % interval)');
  });

  it('carries the analysis’s intervals, lower bounds, pick and knee on each point', () => {
    const panels = answerChart(rec, r.cells);
    panels.forEach((panel, i) => {
      const drawn = pointsOf(svgs[2 * i]!);
      const want = panelPoints(panel);
      expect(drawn.map((d) => d.key)).toEqual(want.map((p) => p.key.replace(/"/g, '&quot;')));
      drawn.forEach((d, j) => {
        const p = want[j]!;
        expect(Number(d.mean)).toBe(p.rps!.mean);
        expect(Number(d.low)).toBe(p.rps!.low);
        expect(Number(d.high)).toBe(p.rps!.high);
        expect(d['lower-bound']).toBe(String(p.lowerBound));
        expect(d.pick).toBe(String(p.pick));
        expect(d.knee).toBe(String(p.knee));
      });
    });
    const first = pointsOf(svgs[0]!);
    expect(first.find((d) => d['lower-bound'] === 'true')!.workers).toBe('2');
    // The unstable repetition is counted (drawn with the others); only the host-busy one is drawn as excluded.
    expect(first.find((d) => d.workers === '1')).toMatchObject({ excluded: '1' });
    expect(panelPoints(panels[0]!).find((p) => p.workers === 1)!.repetitions.map((x) => x.rps)).toEqual([10000, 10100, 9950, 14000]);
    // A client-bound configuration significantly above the clean one is the confident pick, drawn as a bound.
    expect(first.find((d) => d.pick === 'true')).toMatchObject({ workers: '2', 'lower-bound': 'true', knee: 'true' });
    expect(svgs[0]).toContain('class="lower-bound"');
    expect(svgs[0]).toContain('class="excl"');
    expect(svgs[2]).toContain('<g class="group">');
    expect(svgs[2]).toContain('equivalent: within 5 % of the best');
  });

  it('then at most four bullets, and every sentence and method behind “How this was decided”', () => {
    const bullets = /<ul class="answer summary">([\s\S]*?)<\/ul>/.exec(answer)![1]!.match(/<li>/g) ?? [];
    expect(bullets.length).toBe(rec.summary.length);
    expect(bullets.length).toBeLessThanOrEqual(4);
    const details = /<details class="how"><summary>How this was decided<\/summary>([\s\S]*?)<\/details>/.exec(answer)![1]!;
    expect(details.match(/<li>/g)).toHaveLength(rec.words.length);
    for (const m of rec.methods) expect(details).toContain(m.text.slice(0, 40).replace(/'/g, '&#39;'));
    expect(answer.indexOf('answer summary')).toBeLessThan(answer.indexOf('<details'));
  });
});

describe('SVG line chart legend', () => {
  it('never cuts a name: long names wrap into more rows under the plot', () => {
    const names = [1, 2, 3].map((i) => `repetition ${i} (warm-up 12 s, host busy for a while)`);
    const svg = lineChart({ title: 't', xLabel: 'x', yLabel: 'y', xScale: 'linear', series: names.map((name) => ({ name, points: [{ x: 0, y: 1 }, { x: 1, y: 2 }] })) });
    for (const n of names) expect(svg).toContain(`>${n}</text>`);
    expect(svg).not.toContain('…');
    const ys = [...svg.matchAll(/<g class="legend">([\s\S]*?)<\/g>/g)][0]![1]!.matchAll(/<text x="[\d.]+" y="([\d.]+)"/g);
    expect(new Set([...ys].map((m) => m[1])).size).toBeGreaterThan(1);
  });
});
