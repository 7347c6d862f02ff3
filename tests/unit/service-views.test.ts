// What the engine sends the UI beside the data (service/views.ts): the answer's words, chart and
// sizing made by analysis/'s own functions, a comparison's figures in words, and a stored search
// without the progress older traces ended their words with. The renderer imports no engine code,
// so these are the only words it has.
import { describe, expect, it } from 'vitest';
import { recommend } from '../../src-main/analysis/index.ts';
import { answerChart } from '../../src-main/analysis/explain/answer-chart.ts';
import { compareToBaseline } from '../../src-main/analysis/compare/baseline.ts';
import { answerKey } from '../../src-main/analysis/size/sizing.ts';
import { limitText, sizingParts } from '../../src-main/analysis/explain/sizing-words.ts';
import { reasoningOf } from '../../src-main/analysis/explain/summary.ts';
import { p99Short, rpsShort, rpsText, who } from '../../src-main/analysis/explain/words.ts';
import type { SearchTrace } from '../../src-main/model/search.ts';
import { shownAnswer, shownComparison, shownRun } from '../../src-main/service/views.ts';
import { reps, run } from '../helpers/run-fixture.ts';

const r = run([
  ...reps({ workers: 1 }, [24100, 24600, 23900], [1790, 1850, 1700]),
  ...reps({ workers: 2 }, [41000, 43000, 42000], [1900, 2000, 1950]),
]);

describe('the views the service adds', () => {
  it("an answer's view is the analysis's own words, chart and sizing", () => {
    const rec = recommend(r);
    const shown = shownAnswer(rec, r.cells);
    const { view, ...same } = shown;
    expect(same).toEqual(rec);
    expect(view.deployedKey).toBe(answerKey(rec));
    expect(view.reasoning).toEqual(reasoningOf(rec.words, rec.methods));
    expect(view.chart).toEqual(answerChart(rec, r.cells));
    expect(view.sizingParts).toEqual(sizingParts(rec));
    for (const c of rec.configurations)
      expect(view.configurations[c.key]).toMatchObject({ who: who(c), rps: rpsText(c), rpsShort: rpsShort(c), p99Short: p99Short(c) });
    for (const x of rec.sizing ?? []) expect(view.sizing[x.key]!.limit).toBe(limitText(x));
    // How sure the answer is, is its state alone: the view carries no second word for it.
    expect(Object.keys(view).sort()).toEqual(['chart', 'configurations', 'deployedKey', 'reasoning', 'sizing', 'sizingParts']);
    // JSON over HTTP or IPC: the same view on the other side.
    expect(JSON.parse(JSON.stringify(shown))).toEqual(shown);
  });

  it("a comparison's verdicts carry their figures in words", () => {
    const faster = run(reps({ workers: 2 }, [50000, 51000, 50500], [1900, 2000, 1950]));
    const c = shownComparison(compareToBaseline([{ run: r }], { run: faster }));
    const goodput = c.configurations[0]!.metrics.find((m) => m.metric === 'goodput')!;
    expect(goodput.words.metric).toBe('goodput');
    expect(goodput.words.change).toMatch(/^\+\d+\.\d %$/);
    expect(goodput.words.interval).toMatch(/^\+\d+\.\d % to \+\d+\.\d %$/);
  });

  it("a stored search's words and step details lose the progress older traces ended them with", () => {
    const search = {
      words: 'Could not decide: undecided; repeating. Note: 1 stayed undecided.',
      steps: [{ detail: 'p99 20–70 ms; repeating' }],
    } as unknown as SearchTrace;
    const shown = shownRun({ ...r, search });
    expect(shown.search!.words).toBe('Could not decide: undecided. Note: 1 stayed undecided.');
    expect(shown.search!.steps[0]!.detail).toBe('p99 20–70 ms');
    expect(shownRun(r)).toBe(r);
  });
});
