// The answer's short form: at most four bullets that agree with the decision they summarise, the
// methods apart under their titles, and nothing of the full words lost.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/recommend.ts';
import { MAX_SUMMARY, reasoningOf } from '../../src-main/analysis/explain/summary.ts';
import { formatRecommendation } from '../../src-main/cli/commands/report.ts';
import type { Flag } from '../../src-main/model/types.ts';
import { cell, reps, run } from '../helpers/run-fixture.ts';

const clientBound: Flag = { kind: 'client-bound', reason: 'load thread busy 97 %' };
const bound = <T extends { flags: Flag[] }>(cs: T[]): T[] => cs.map((c) => ({ ...c, flags: [clientBound] }));

describe('the summary under the headline', () => {
  it('confident: the pick with its interval, the rivals shown slower, at most four bullets', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9950]), ...reps({ workers: 2 }, [8000, 8100, 7950])]));
    expect(rec.summary.length).toBeGreaterThan(1);
    expect(rec.summary.length).toBeLessThanOrEqual(MAX_SUMMARY);
    const pick = rec.configurations.find((c) => c.key === rec.headline!.key)!;
    const half = Math.round(pick.rps!.ci!.halfWidth).toLocaleString('en-US');
    expect(rec.summary[0]).toContain(`1 cluster worker on 1 CPU / 256 MB: ${Math.round(pick.rps!.mean).toLocaleString('en-US')} ± ${half} req/s`);
    expect(rec.summary[0]).toContain('3 repetitions, 95 % intervals');
    expect(rec.summary[1]).toMatch(/^Significantly slower on 1 CPU \/ 256 MB: 2 cluster workers \(8,017 req\/s\)/);
  });

  it('a client-bound pick reads as a lower bound, and an undecided one never as a pick', () => {
    const rec = recommend(run([...bound(reps({ workers: 1 }, [14000, 14500, 14200])), ...bound(reps({ workers: 2 }, [13800, 14600, 14100]))]));
    expect(rec.headline!.state).toBe('undecided');
    expect(rec.summary[0]).toMatch(/≥ 14,\d{3} req\/s \(a lower bound/);
    expect(rec.summary.join(' ')).not.toMatch(/\bpick\b/i);
    expect(rec.summary[1]).toMatch(/^Not yet separable from 2 cluster workers \(≥ 14,\d{3} req\/s\)/);
  });

  it('equivalent: the tied contenders named, the cheapest picked', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [9900, 9950, 9920]), ...reps({ workers: 2 }, [10000, 10050, 10020])]));
    expect(rec.headline!.state).toBe('equivalent');
    expect(rec.summary[1]).toMatch(/^2 cluster workers \(10,023 req\/s\) is within 5 % of the best by two one-sided tests/);
  });

  it('says what was left out, and points at the other pairs', () => {
    const cells = [
      ...reps({ workers: 1, cpu: 500 }, [5000, 5050, 4990]),
      ...reps({ workers: 1 }, [10000, 10100, 9950]),
      cell({ workers: 2, status: 'oom' }),
    ];
    const rec = recommend(run(cells));
    const text = rec.summary.join('\n');
    expect(text).toContain('1 repetition left out (OOM-killed)');
    expect(rec.summary.length).toBeLessThanOrEqual(MAX_SUMMARY);
  });

  it('the methods stand apart under titles; the reasoning keeps every other sentence', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9950]), ...reps({ workers: 2 }, [8000, 8100, 7950])]));
    expect(rec.methods.map((m) => m.title)).toContain('How this was decided');
    expect(rec.methods[0]!.text).toMatch(/^throughput is goodput/);
    const reasoning = reasoningOf(rec.words, rec.methods);
    expect(reasoning.length).toBe(rec.words.length - rec.methods.length);
    expect(reasoning.join(' ')).not.toContain('How this was decided:');
  });

  it('the CLI prints the headline and the summary by default (about ten lines), everything with --explain', () => {
    const rec = recommend(run([...reps({ workers: 1 }, [10000, 10100, 9950]), ...reps({ workers: 2 }, [8000, 8100, 7950])]));
    const short = formatRecommendation(rec);
    const answer = short.split('\n\n')[0]!.split('\n');
    expect(answer.length).toBeLessThanOrEqual(1 + 1 + MAX_SUMMARY);
    expect(short).not.toContain('How this was decided');
    const long = formatRecommendation(rec, true);
    expect(long).toContain('How this was decided:');
    for (const w of reasoningOf(rec.words, rec.methods)) expect(long).toContain(w);
  });
});
