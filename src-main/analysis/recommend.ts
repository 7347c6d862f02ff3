import type { RunDetail } from '../model/stored.ts';
import { alternativesOf } from './explain/alternatives.ts';
import { routeCauses } from './explain/route-causes.ts';
import { causesOf } from './explain/answer-causes.ts';
import { costsOf, pricesFor, searchCostLine } from './decide/cost.ts';
import { pricingAt } from './decide/contest.ts';
import { decideScopes, decideWorkloads } from './decide/decide.ts';
import { configurationKey, groupCells } from './decide/group.ts';
import { headlineOf } from './explain/headline.ts';
import { topologyNotes } from './compare/topology.ts';
import { flagNotes, versionNotes } from './compare/versions.ts';
import { http2Notes, tlsNotes } from './compare/tls.ts';
import { searchAnswer, searchSizingSlo, searchWords } from './search-answer.ts';
import { sizeConfigurations } from './size/sizing.ts';
import { anyProbed, runtimeSeen, trapsOf } from './decide/traps.ts';
import { trapNotes } from './explain/trap-words.ts';
import { sloOutcomes } from './decide/slo.ts';
import type { ConfigurationSummary, NoiseNote, Recommendation, RecommendOptions } from './types.ts';
import { methodsOf, summaryOf } from './explain/summary.ts';
import { explain, methodText, sizingWordsOf } from './explain/words.ts';

export const DEFAULT_MARGIN_PCT = 5;

/**
 * What to change when repetitions disagree, from what the run itself recorded (its matrix and its
 * cells' flags), so the answer needs nothing from the Docker layer.
 */
export function noiseNotes(configurations: ConfigurationSummary[], run: RunDetail): NoiseNote[] {
  const placement = (run.matrix as { placement?: unknown } | null)?.placement === 'off' ? 'off' : 'auto';
  return configurations
    .filter((c) => c.noisy && c.rps?.cv != null)
    .map((c) => {
      const cells = run.cells.filter((x) => c.cellIndexes.includes(x.config.index));
      const durationSec = cells[0]?.config.durationSec;
      // Host-busy repetitions left out (group.ts) still say the host was busy.
      const hostBusy = run.cells.some(
        (x) =>
          x.config.phase !== 'verify' &&
          configurationKey(x.config) === c.key &&
          x.flags.some((f) => f.kind === 'host-busy'),
      );
      const tries = [`longer cells${durationSec ? ` (now ${durationSec} s)` : ''}`, `more repetitions (now ${c.n})`];
      if (placement === 'off') tries.push('core placement ("placement": "auto")');
      if (hostBusy) tries.push('a quieter host (other processes took CPU during some repetitions: host-busy)');
      const last = tries.pop()!;
      const tail =
        placement === 'auto' && !hostBusy
          ? '; core placement was already on, so look for other load on the machine too'
          : '';
      return {
        key: c.key,
        label: c.label,
        cv: c.rps!.cv!,
        n: c.n,
        suggestion: `try ${tries.join(', ')} or ${last}${tail}`,
      };
    });
}

/** The sizing answer for a stored run: aggregates, decisions per CPU / memory pair, the SLO, and the words. */
export function recommend(run: RunDetail, options: RecommendOptions = {}): Recommendation {
  const marginPct = options.marginPct ?? DEFAULT_MARGIN_PCT;
  if (!(marginPct >= 0 && marginPct < 100))
    throw new Error(`The margin must be a percentage from 0 to below 100, got ${marginPct}.`);
  const { configurations, exclusions } = groupCells(run.cells, options.samples);
  // Prices given now, else the run's own (its matrix or search spec), else the example defaults.
  const priced = pricesFor(run.matrix, options.prices);
  // One order of cost at those prices ranks every decision below (analysis/decide/cost-order.ts).
  const pricing = pricingAt(priced.prices);
  const { scopes, undecided } = decideScopes(configurations, marginPct, pricing);
  const decisions = decideWorkloads(configurations, scopes, marginPct, pricing);
  const cellsIncluded = configurations.reduce((a, c) => a + c.n, 0);
  const outcomes = options.slo ? sloOutcomes(configurations, options.slo, pricing.order) : [];
  // An auto-size run answers with what its search found (analysis/search-answer.ts).
  const search = run.search ? searchAnswer(run.search, configurations) : null;
  const sizingSlo = options.slo ?? (search ? searchSizingSlo(search) : null);
  const costs = costsOf(configurations, sizingSlo, priced.prices, priced.source, marginPct);
  // An auto-size run is priced by what its search found, not by a contest over its cells.
  if (search) costs.cheapest = [searchCostLine(search, priced.prices)];
  const base: Omit<Recommendation, 'words' | 'sizingWords' | 'summary' | 'methods'> = {
    run: {
      id: run.id,
      name: run.name,
      status: run.status,
      cellsTotal: run.cellsTotal,
      cellsIncluded,
      // Per cell: the answer's list says skipped cells once per app (group.ts foldSkipped).
      cellsExcluded: configurations.reduce((a, c) => a + c.excluded.length, 0),
    },
    marginPct,
    slo: options.slo ?? null,
    configurations,
    scopes,
    decisions,
    undecided,
    sloOutcomes: outcomes,
    costs,
    exclusions,
    noise: noiseNotes(configurations, run),
    causes: [
      ...causesOf(run, scopes, options.probe, options.samples, exclusions),
      ...routeCauses(run, scopes, exclusions),
    ],
    // Topologies, Node.js versions, flags and TLS, each compared by the same contest as the pick.
    comparisons: [
      ...topologyNotes(configurations, scopes, run.cells, marginPct),
      ...versionNotes(configurations, scopes, marginPct),
      ...flagNotes(configurations, scopes, marginPct),
      ...tlsNotes(configurations, marginPct),
      ...http2Notes(configurations, marginPct),
    ],
    sizing: sizeConfigurations(run, configurations, scopes, outcomes, marginPct, sizingSlo, search, decisions),
    method: methodText(marginPct),
  };
  // The container traps: decided from the processes' readings against the caps, said with the pick's first.
  base.runtime = runtimeSeen(run, configurations);
  base.trapFindings = trapsOf(run, configurations, options.probe);
  base.traps = trapNotes({
    findings: base.trapFindings,
    seen: base.runtime,
    configurations,
    causes: base.causes,
    comparisons: base.comparisons ?? [],
    probed: anyProbed(run) || !run.cells.some((c) => c.load),
    probeOff: (run.matrix as { probe?: unknown } | null)?.probe === false,
    limitMb: (key) => base.sizing?.find((x) => x.key === key)?.memory.limitMb ?? null,
  });
  // Read from the decision, never deciding: the latency and throughput the pick gives up, labelled as such.
  base.alternatives = alternativesOf({ ...base, ...(search ? { search } : {}) });
  const methods = methodsOf({ ...base, ...(search ? { search } : {}) });
  if (search) {
    const w = searchWords(base, search);
    const withSearch = { search, ...base };
    // A search's headline is its found configuration's; a search that found none has no pick to head with.
    return { ...withSearch, headline: headlineOf(withSearch), ...w, summary: summaryOf(withSearch, w.words), methods };
  }
  const headline = headlineOf(base);
  const words = explain(base);
  // The headline stands apart from the words: every reader shows it first (CLI, UI, HTML, --json), then the summary.
  return { ...base, headline, summary: summaryOf(base, words), methods, words, sizingWords: sizingWordsOf(base) };
}
