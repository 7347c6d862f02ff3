// The answer in plain sentences, most decisive first (explain), and the method in one paragraph.
// The sentences themselves live by what they say: phrases.ts (who, numbers, flags), scope-words.ts
// (each CPU / memory pair), slo-words.ts (the objective) and sizing-words.ts (memory and CPU).
import { fmtMargin, fmtPct } from '../../common/format.ts';
import { MAX_ERROR_PCT, RUN_TO_RUN_SPREAD } from '../../common/thresholds.ts';
import { causeSentence } from './answer-causes.ts';
import { COST_ORDER_WORDS } from '../decide/cost-order.ts';
import { loadLabel, workloadKey } from '../decide/group.ts';
import { singleRunWeakness } from './phrases.ts';
import { cpuRuleSentence, scopeSentences, undecidedSentence } from './scope-words.ts';
import { recommendedSizingSentences, sizingMethodText } from './sizing-words.ts';
import { sloSentences } from './slo-words.ts';
import type { Recommendation } from '../types.ts';

export { fmtMargin, fmtPct, fmtRatio, fmtUsPm } from '../../common/format.ts';
export { flagPhrase, p99Short, p99Text, rpsShort, rpsText, singleRunWeakness } from './phrases.ts';
export { who, whoList } from '../names.ts';
export {
  limitText,
  PEAK_SOURCE_WORDS,
  perWorkerText,
  sizingMethodText,
  sizingSentences,
  sizingWordsOf,
} from './sizing-words.ts';

const MAX_LISTED_EXCLUSIONS = 10;

/**
 * The method in one paragraph, the same for every answer (docs/answer.md quotes it): what counts as
 * throughput, where intervals come from, which test decides, and what is never picked.
 */
export function methodText(marginPct: number): string {
  return (
    'How this was decided: throughput is goodput, the responses per second that had their expected status ' +
    '(failed statuses, errors and timeouts do not count). ' +
    "A configuration's 95 % interval comes from the spread of its repetitions (Student's t, on a log scale so " +
    'it never reaches zero) when it ran 3 or more times; with two there is none (too few repetitions to ' +
    'bound, and no test decides with them); ' +
    "with one repetition it comes from batch means of that cell's own seconds (consecutive seconds are " +
    'autocorrelated, so they are averaged in batches of ⌊√n⌋ seconds before the spread is taken; for p99, of ' +
    'the per-second p99s on a log scale), which is weaker: ' +
    'it cannot see run-to-run variation, and back-to-back runs of one configuration differed by up to ' +
    `${fmtPct(RUN_TO_RUN_SPREAD * 100)} in the repeatability benchmark. ` +
    "The highest goodput is compared with every other configuration by one-sided Welch's t-tests, " +
    'Holm-corrected at 5 % across those comparisons: ' +
    `a cheaper configuration is picked instead when it is shown within ${fmtMargin(marginPct)} % of the ` +
    'best, a costlier one is ruled out when it is shown below the best, and two within ' +
    `±${fmtMargin(marginPct)} % by two one-sided tests are equivalent, where the cheaper wins (` +
    `${COST_ORDER_WORDS}). ` +
    'The answer is confident when a test separates the pick from every rival, equivalent when the rest are ' +
    'shown within the margin, and undecided otherwise: then it names the contenders, runs more repetitions ' +
    'of only them while its settling budget lasts, and says what would decide it. ' +
    "A client-bound or host-busy configuration's goodput is a lower bound (the load generator or the host " +
    'set the pace, so the server was at least that fast): it can beat an estimate, but nothing is shown ' +
    'faster than it or within a margin of it. ' +
    'A repetition whose seconds drifted or stepped (unstable) is flagged and still counted: no configuration ' +
    'loses, or has no result, for data left out. ' +
    `A configuration with more than ${MAX_ERROR_PCT} % failed requests or an OOM kill is never picked.`
  );
}

/** The answer in plain sentences, most decisive first. */
export function explain(rec: Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>): string[] {
  const out: string[] = [];
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  const { run } = rec;
  // Only cells that finished with results count; cancelled, interrupted and unfinished cells are not results.
  if (run.cellsIncluded === 0) {
    const none =
      run.status === 'completed' ? `No cell of run ${run.id}` : `Run ${run.id} is ${run.status} and no cell of it`;
    out.push(`${none} finished with results: there is nothing to recommend.`);
  } else {
    if (run.status !== 'completed') {
      out.push(
        `Run ${run.id} is ${run.status}: ${run.cellsIncluded} of ${run.cellsTotal} cells finished with ` +
          'results; this answer covers only those.',
      );
    }
    if (rec.slo) {
      const multi = rec.sloOutcomes.length > 1;
      const loads = new Set(rec.configurations.map((c) => loadLabel(c.load))).size > 1;
      for (const o of rec.sloOutcomes) out.push(...sloSentences(o, rec.slo, multi, loads));
    }
    // What the cheapest costs against its runner-up: one line per workload (analysis/decide/cost.ts).
    for (const k of rec.costs?.cheapest ?? []) if (k.state !== 'none' || rec.slo) out.push(k.text);
    const withContext = new Set([...rec.scopes, ...rec.undecided].map((s) => s.context)).size > 1;
    for (const a of rec.alternatives ?? []) out.push(a.text);
    // A pair's own pick is "if you are given" only where its workload's answer spans several pairs.
    const spans = (s: { app: string; requestSet: string | null }): boolean =>
      (rec.decisions ?? []).some((d) => (d.pairs ?? 1) > 1 && workloadKey(d) === workloadKey(s));
    for (const s of rec.scopes) out.push(...scopeSentences(s, byKey, rec.marginPct, withContext, spans(s)));
    for (const u of rec.undecided) out.push(undecidedSentence(u, byKey, withContext));
    // Containers or workers, which Node.js, which flags: each pair by the same contest (topology.ts, versions.ts).
    for (const n of rec.comparisons ?? []) out.push(n.text);
    for (const c of rec.causes) out.push(causeSentence(c));
    // What Node.js believed about the box, where that sets a trap (decide/traps.ts): in full.
    for (const t of rec.traps ?? []) out.push(t.text);
    const rule = cpuRuleSentence(rec.scopes, byKey, rec.marginPct);
    if (rule) out.push(rule);
    out.push(...recommendedSizingSentences(rec));
    const measured = rec.configurations.filter((c) => c.n > 0);
    const single = measured.filter((c) => c.n === 1);
    if (single.length) {
      const bare = single.filter((c) => !c.rps!.ci).length;
      const bareNote = bare
        ? ` (${bare} of them ${bare === 1 ? 'has' : 'have'} no per-second series, so no interval at all)`
        : '';
      const weak =
        bare === single.length
          ? 'with no per-second series there is no interval at all, only means'
          : `a single run's interval comes from its own seconds (batch means) and cannot see run-to-run ` +
            `variation — a fresh container, other cores, the host's other work: ` +
            `${singleRunWeakness(single)}${bareNote}`;
      out.push(
        single.length === measured.length
          ? `Every configuration ran once: ${weak}; run 3 or more repetitions ("repetitions": 3) for the ` +
              'honest interval.'
          : `${single.length} of ${measured.length} configurations ran once: ${weak}.`,
      );
    }
  }
  for (const n of rec.noise)
    out.push(
      `${n.label} is noisy: its req/s varied by ${fmtPct(n.cv * 100)} (coefficient of variation) over ` +
        `${n.n} repetitions; ${n.suggestion}.`,
    );
  for (const e of rec.exclusions.slice(0, MAX_LISTED_EXCLUSIONS)) out.push(`${e.text}.`);
  if (rec.exclusions.length > MAX_LISTED_EXCLUSIONS)
    out.push(`…and ${rec.exclusions.length - MAX_LISTED_EXCLUSIONS} more cells excluded (see the cells table).`);
  // The method stays the last sentence; how memory and CPU were sized comes just before it.
  if ((rec.sizing ?? []).some((x) => x.recommended)) out.push(sizingMethodText(rec.marginPct));
  if (rec.scopes.length || rec.undecided.length) out.push(rec.method);
  return out;
}
