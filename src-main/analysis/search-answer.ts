// The answer of an auto-size run (run.search): the configuration the search found, or plainly that
// none met the objective or that it could not decide — never a knee over the scattered cells the
// search happened to run. recommend() builds it; the words, the report and the deploy snippets take it.
import { fmtNum } from '../common/format.ts';
import { RATE_SHORTFALL } from '../common/thresholds.ts';
import type { SearchTrace } from '../model/search.ts';
import { searchConfigLabel } from './names.ts';
import { withoutProgress } from './size/search-memory.ts';
import { searchMemoryWords } from './explain/sizing-words.ts';
import type { ConfigurationSummary, Recommendation, SearchAnswer, SearchConfig, Slo } from './types.ts';

/** "p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %": the objective with the rate it is measured at. */
export function searchObjective(slo: Slo, rate: number): string {
  const d = (x: number): number => (x % 1 === 0 ? 0 : (x * 10) % 1 === 0 ? 1 : 2);
  return (
    `p99 ≤ ${fmtNum(slo.p99Ms, d(slo.p99Ms))} ms at ${fmtNum(rate)} req/s, errors ≤ ` +
    `${fmtNum(slo.maxErrorPct, d(slo.maxErrorPct))} %`
  );
}

const sameConfig = (
  a: SearchConfig,
  b: Pick<ConfigurationSummary, 'mode' | 'workers' | 'cpuMillis' | 'memoryMb'>,
): boolean => a.mode === b.mode && a.workers === b.workers && a.cpuMillis === b.cpuMillis && a.memoryMb === b.memoryMb;

/** The search's answer from its stored trace and the run's configurations (for the found one's own numbers). */
export function searchAnswer(trace: SearchTrace, configurations: readonly ConfigurationSummary[]): SearchAnswer {
  const { spec } = trace;
  const slo: Slo = { p99Ms: spec.slo.p99Ms, minRps: spec.rate, maxErrorPct: spec.slo.maxErrorPct };
  const found = trace.status === 'found' && trace.found ? { ...trace.found } : null;
  const foundKey = found
    ? (configurations.find((c) => c.app === spec.app && c.n > 0 && sameConfig(found, c))?.key ?? null)
    : null;
  // How it met: the judge's words on the last cell of that configuration that met.
  const met = found ? [...trace.steps].reverse().find((s) => s.outcome === 'meets' && sameConfig(found, s)) : undefined;
  return {
    status: trace.status,
    app: spec.app,
    slo,
    rate: spec.rate,
    objective: searchObjective(slo, spec.rate),
    found,
    foundKey,
    evidence: met ? withoutProgress(met.detail) : null,
    memoryFrom: found ? (found.memoryMb < spec.bounds.memoryMb.max ? 'peak' : 'bounds') : null,
    bestSoFar: trace.bestSoFar ?? null,
    words: withoutProgress(trace.words),
    cells: trace.steps.length,
    gridCells: trace.gridCells,
  };
}

/**
 * The objective the sizing evidence of a search run is judged on when the user gives none: the
 * search's p99 and error limits, and the rate as the judge holds it (RATE_SHORTFALL of the target).
 */
export const searchSizingSlo = (s: SearchAnswer): Slo => ({
  p99Ms: s.slo.p99Ms,
  minRps: RATE_SHORTFALL * s.rate,
  maxErrorPct: s.slo.maxErrorPct,
});

/**
 * How the search's cells compare with a full grid's, said only when it saved cells: a search that repeated
 * undecided configurations can run more cells than the grid has configurations.
 */
export const gridWords = (cells: number, grid: number): string =>
  cells < grid ? ` instead of the ${fmtNum(grid)} of a full grid` : '';

/** The first sentence of a search run's answer: what it found, or plainly that it found nothing to deploy. */
export function searchHeadline(s: SearchAnswer): string {
  const n = `${s.cells} cell${s.cells === 1 ? '' : 's'}`;
  switch (s.status) {
    case 'found':
      return s.found
        ? `Auto-size answer: ${searchConfigLabel(s.found)} (${s.app}) is the cheapest configuration the ` +
            `search found meeting ${s.objective} (${n}${gridWords(s.cells, s.gridCells)}).`
        : `Auto-size answer: the search ended "found" but stored no configuration.`;
    case 'none':
      return (
        `Auto-size answer: no configuration within the bounds met ${s.objective} (${n}); ` +
        'there is nothing to deploy.'
      );
    case 'undecided': {
      const so = s.bestSoFar
        ? `; ${searchConfigLabel(s.bestSoFar)} met it, but cheaper ones were not ruled out`
        : '; none met it so far';
      return (
        'Auto-size answer: undecided — the search could not name the cheapest configuration meeting ' +
        `${s.objective} (${n})${so}. There is no answer to deploy.`
      );
    }
    case 'running':
      return `Auto-size answer: the search is still running (${n} so far); there is no answer yet.`;
    default: {
      const so = s.bestSoFar
        ? `; ${searchConfigLabel(s.bestSoFar)} had met ${s.objective}, but cheaper ones were not ruled out`
        : '';
      return `Auto-size answer: the search was ${s.status} after ${n}${so}. There is no answer to deploy.`;
    }
  }
}

/**
 * Why a search run has nothing to deploy, in words (for report --emit, the UI and the HTML report); null when it has.
 */
export function searchNothingToDeploy(runId: number, s: SearchAnswer): string | null {
  if (s.status === 'found' && s.found) return null;
  const why =
    s.status === 'none'
      ? `no configuration within the search's bounds met ${s.objective}`
      : s.status === 'undecided'
        ? `the search could not decide which configuration is the cheapest meeting ${s.objective}`
        : s.status === 'running'
          ? 'the search is still running'
          : `the search was ${s.status} before it found an answer`;
  return `Run ${runId} has no answer to deploy: ${why}.`;
}

/**
 * A search run's words: the search's answer (its own words, with the objective and rate), then the
 * memory of the configuration it found. The knee per CPU / memory pair is left out: at a constant
 * rate every configuration that holds the rate "holds the throughput", so a knee over the cells the
 * search happened to run says nothing about the objective.
 */
export function searchWords(
  rec: Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'>,
  s: SearchAnswer,
): { words: string[]; sizingWords: string[] } {
  const head = [searchHeadline(s), s.words];
  head.push('The cells the search ran are its evidence, not another answer: no knee is drawn over them.');
  // Memory of the found configuration: its peak and the limit the search set, from the sizing's one
  // account of it (limitText). The CPU is the search's too (bisected against the objective), said above.
  const sized = (rec.sizing ?? []).find((x) => x.key === s.foundKey);
  const sizing = s.found ? [searchMemoryWords(s.found, s.memoryFrom, sized)] : [];
  const rest = [
    ...rec.noise.map((n) => `${n.label} is noisy: its req/s varied over ${n.n} repetitions; ${n.suggestion}.`),
    ...rec.exclusions.slice(0, 5).map((e) => `${e.text}.`),
  ];
  return { words: [...head, ...sizing, ...rest], sizingWords: sizing };
}
