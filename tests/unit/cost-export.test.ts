// The costs in the exports: the cells CSV carries the run's prices and each cell's cost, the
// configurations CSV the answer's cost figures, the HTML report a Costs section with the answer's line.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { cellsCsv } from '../../src-main/export/csv.ts';
import { configurationsCsv } from '../../src-main/export/cost-csv.ts';
import { htmlReport } from '../../src-main/export/html-report.ts';
import type { Flag } from '../../src-main/model/types.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const PRICES = { cpuHour: 0.04, gbHour: 0.005, replicaHour: 0 };
const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const rows = (csv: string): Record<string, string>[] => {
  const [head, ...lines] = csv.trim().split('\r\n').map((l) => l.split(','));
  return lines.map((l) => Object.fromEntries(head!.map((h, i) => [h, l[i]!])));
};
const fixture = () =>
  run(
    [
      ...reps({ workers: 1 }, [900, 1000, 1100]),
      ...reps({ workers: 2, cpu: 2000 }, [1500, 1510, 1490]).map((c) => ({ ...c, flags: [clientBound], clientBound: true })),
    ],
    { matrix: { apps: ['hello'], placement: 'auto', prices: PRICES } },
  );

describe('costs in the CSV and the HTML report', () => {
  it('cells CSV: the run’s prices and each cell’s cost at its own goodput, exact to six digits', () => {
    const r = rows(cellsCsv(fixture()));
    expect(r[0]).toMatchObject({ price_vcpu_hour: '0.04', price_gb_hour: '0.005', price_replica_hour: '0', price_source: 'run' });
    // 1 CPU / 256 MB: $0.04125 an hour; at 900 req/s: 0.04125e6 / 3600 / 900 = $0.0127315 per million.
    expect(r[0]).toMatchObject({ cost_per_hour: '0.04125', cost_per_million_requests: '0.0127315', cost_is_upper_bound: 'false' });
    // 2 CPU / 256 MB: 0.08 + 0.00125 = $0.08125 an hour; client-bound, so an upper bound.
    expect(r[3]).toMatchObject({ cost_per_hour: '0.08125', cost_is_upper_bound: 'true' });
  });

  it('configurations CSV: the answer’s goodput interval turned into a cost interval', () => {
    const rec = recommend(fixture());
    const r = rows(configurationsCsv(rec));
    const one = r.find((x) => x.workers === '1')!;
    // On the log scale: 1000 · e^∓(4.302653 × (100/√3) / 1000) = 780.037–1281.990 req/s
    // → 11.45833 / 1281.990 = 0.0089379 to 11.45833 / 780.037 = 0.0146895.
    expect(one).toMatchObject({ cost_per_million_requests: '0.0114583', cost_is_upper_bound: 'false' });
    expect(Number(one.cost_per_million_ci_low)).toBeCloseTo(0.0089379, 7);
    expect(Number(one.cost_per_million_ci_high)).toBeCloseTo(0.0146895, 6);
    expect(r.find((x) => x.workers === '2')).toMatchObject({ goodput_is_lower_bound: 'true', cost_is_upper_bound: 'true' });
  });

  it('HTML: a Costs section with the prices, the answer’s line and ≤ for an upper bound', () => {
    const r = fixture();
    const html = htmlReport(r, new Map(), recommend(r));
    const costs = html.slice(html.indexOf('<section id="costs">'));
    expect(costs).toContain('At $0.04 per vCPU-hour, $0.005 per GB-hour: the prices stored with the run.');
    expect(costs).toContain('≤ $0.0150');
    expect(costs).toContain('$0.0115 (0.00894–0.0147)');
    // 2 workers' cost is only an upper bound, so 1 worker cannot be shown cheaper than it.
    expect(costs).toContain('not decided');
  });
});
