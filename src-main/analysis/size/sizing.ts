// Memory and CPU sizing of every measured configuration, and which one per workload the answer
// recommends (answerPick: the one the deploy snippets use), so every reader of a Recommendation agrees.
import type { RunDetail } from '../../model/stored.ts';
import { cpuSizing } from './cpu-sizing.ts';
import { workloadKey } from '../decide/group.ts';
import { finishedCellsByKey, memorySizing } from './memory.ts';
import { searchCaps, searchCpu, searchMemory } from './search-memory.ts';
import type {
  AnswerState,
  ConfigurationSummary,
  CpuSizing,
  MemorySizing,
  Recommendation,
  ScopeDecision,
  SearchAnswer,
  Sizing,
  Slo,
  SloOutcome,
} from '../types.ts';

/**
 * The configuration the answer recommends for each workload: for an auto-size run, the one its
 * search found (none when it found none); otherwise the cheapest meeting the SLO when one does, else
 * the knee of the workload's first CPU / memory pair. `answerPick` names the one the deploy snippets
 * deploy: the first workload's.
 */
export function recommendedKeys(
  scopes: readonly ScopeDecision[],
  sloOutcomes: readonly SloOutcome[],
  search?: SearchAnswer | null,
): string[] {
  if (search) return search.foundKey ? [search.foundKey] : [];
  const out = new Map<string, string>();
  for (const o of sloOutcomes) if (o.met) out.set(workloadKey(o), o.met.key);
  for (const s of scopes) if (!out.has(workloadKey(s))) out.set(workloadKey(s), s.knee.key);
  return [...out.values()];
}

/**
 * What the answer recommends and the snippets deploy, in one place: 'search' — an auto-size run's
 * found configuration; 'slo' — the cheapest configuration meeting the objective (of the first
 * workload: the first pair's); 'knee' — the first pair's knee, with `sloUnmet` when an objective was
 * given and nothing met it. null when the answer has nothing to deploy (nothing qualified, or a
 * search that found nothing: searchNothingToDeploy says why).
 */
export interface AnswerPick {
  basis: 'search' | 'slo' | 'knee';
  configuration: ConfigurationSummary;
  /** The first pair (for 'knee'; for 'slo' the pair of the workload's first scope, for the confidence words). */
  scope: ScopeDecision | null;
  outcome: SloOutcome | null;
  /** An objective was given and no configuration met it: the knee stands in, and says so. */
  sloUnmet: boolean;
  /**
   * How the pick stands: the scope's contest state for a knee; for an objective, 'confident' when
   * every check holds on its whole interval, else 'undecided'; a search's found configuration is
   * 'confident' (its judge decided on intervals).
   */
  state: AnswerState;
  /** Keys of the configurations still in the running when undecided (the pick first); else just the pick. */
  contenders: string[];
}

export function answerPick(
  rec: Pick<Recommendation, 'search' | 'scopes' | 'decisions' | 'sloOutcomes' | 'configurations' | 'slo'>,
): AnswerPick | null {
  if (rec.search) {
    const c = rec.search.foundKey ? rec.configurations.find((x) => x.key === rec.search!.foundKey) : undefined;
    return c
      ? {
          basis: 'search',
          configuration: c,
          scope: null,
          outcome: null,
          sloUnmet: false,
          state: 'confident',
          contenders: [c.key],
        }
      : null;
  }
  // The answer's decision across the workload's pairs (one pair: that pair's own).
  const scope = rec.decisions?.[0] ?? rec.scopes[0] ?? null;
  const first = scope ? workloadKey(scope) : rec.sloOutcomes[0] ? workloadKey(rec.sloOutcomes[0]) : null;
  const outcome = rec.sloOutcomes.find((o) => workloadKey(o) === first) ?? null;
  if (outcome?.met) {
    // A mean-only meet (an interval crossing a limit, or no interval) is not a decision.
    const sure = outcome.checks.every(
      (k) => k.sure === true || (k.criterion === 'rps' && k.limit <= 0) || k.criterion === 'errors',
    );
    return {
      basis: 'slo',
      configuration: outcome.met,
      scope,
      outcome,
      sloUnmet: false,
      state: sure ? 'confident' : 'undecided',
      contenders: [outcome.met.key],
    };
  }
  if (!scope) return null;
  return {
    basis: 'knee',
    configuration: scope.knee,
    scope,
    outcome,
    sloUnmet: rec.slo !== null,
    state: scope.state,
    contenders: scope.contenders,
  };
}

/** The key of the configuration the answer deploys (answerPick), or null. */
export const answerKey = (
  rec: Pick<Recommendation, 'search' | 'scopes' | 'decisions' | 'sloOutcomes' | 'configurations' | 'slo'>,
): string | null => answerPick(rec)?.configuration.key ?? null;

/**
 * Sizing of every configuration with a finished repetition: recommended ones first, then knees and SLO picks, then the
 * rest.
 */
export function sizeConfigurations(
  run: Pick<RunDetail, 'cells'> & Partial<Pick<RunDetail, 'search'>>,
  configurations: readonly ConfigurationSummary[],
  scopes: readonly ScopeDecision[],
  sloOutcomes: readonly SloOutcome[],
  marginPct: number,
  slo: Slo | null,
  search?: SearchAnswer | null,
  decisions: readonly ScopeDecision[] = scopes,
): Sizing[] {
  const cells = finishedCellsByKey(run.cells);
  const recommended = new Set(recommendedKeys(decisions, sloOutcomes, search));
  const roles = new Map<string, string[]>();
  const add = (key: string, role: string): void => void roles.set(key, [...(roles.get(key) ?? []), role]);
  for (const k of recommended) add(k, 'the recommended configuration');
  if (search?.foundKey) add(search.foundKey, 'found by the auto-size search');
  // A search run's answer is its search: no knee or SLO pick is drawn over the cells it happened to run.
  if (!search) for (const o of sloOutcomes) if (o.met) add(o.met.key, 'cheapest meeting the SLO');
  if (!search) for (const s of scopes) add(s.knee.key, `knee of ${s.label}`);
  const rank = (c: ConfigurationSummary): number => (recommended.has(c.key) ? 0 : roles.has(c.key) ? 1 : 2);
  return configurations
    .filter((c) => c.n > 0)
    .map((c, i) => ({ c, i }))
    .sort((a, b) => rank(a.c) - rank(b.c) || a.i - b.i)
    .map(({ c }) => ({
      key: c.key,
      label: c.label,
      app: c.app,
      requestSet: c.requestSet,
      roles: roles.get(c.key) ?? [],
      recommended: recommended.has(c.key),
      memory: searchMemorySizing(memorySizing(c, configurations, cells, marginPct), c, run, search),
      cpu: foundCpu(
        deployedCpu(cpuSizing(c, configurations, cells, marginPct, slo), c, recommended, search),
        c,
        run,
        search,
        configurations,
      ),
    }));
}

/**
 * In an auto-size run, each memory cap the search checked carries the search's verdict, and the
 * found configuration is deployed with the memory its search set: the sizing says the same number
 * and how the search came to it.
 */
function searchMemorySizing(
  m: MemorySizing,
  c: ConfigurationSummary,
  run: Pick<RunDetail, 'cells'> & Partial<Pick<RunDetail, 'search'>>,
  search: SearchAnswer | null | undefined,
): MemorySizing {
  const trace = run.search;
  if (!search || !trace) return m;
  const checked = searchCaps(m, c, trace.steps);
  if (!search.found || c.key !== search.foundKey) return checked;
  return {
    ...checked,
    limitMb: search.found.memoryMb,
    limitFrom: 'search',
    search: searchMemory(trace, search.found, run.cells),
  };
}

/**
 * The configuration the answer deploys runs on the CPU cap it was measured under and picked at: one
 * answer, so its CPU is never another cap's. The other caps tried stay in `caps`, read as alternatives.
 */
function deployedCpu(
  u: CpuSizing,
  c: ConfigurationSummary,
  recommended: ReadonlySet<string>,
  search: SearchAnswer | null | undefined,
): CpuSizing {
  if (search || !recommended.has(c.key) || u.requestMillis === c.cpuMillis) return u;
  return { ...u, requestMillis: c.cpuMillis, basis: 'pick', evidence: null, failedAtMillis: null };
}

/** An auto-size run's found configuration has the CPU its search bisected to: the sizing says so. */
function foundCpu(
  u: CpuSizing,
  c: ConfigurationSummary,
  run: Partial<Pick<RunDetail, 'search'>>,
  search: SearchAnswer | null | undefined,
  configurations: readonly ConfigurationSummary[],
): CpuSizing {
  if (!search?.found || !run.search || c.key !== search.foundKey) return u;
  return searchCpu(u, run.search, search.found, configurations);
}

/**
 * The memory limit (MB) to deploy a configuration with: by default the one the answer deploys
 * (answerPick), else the configuration with this key. For an auto-size run's found configuration,
 * the memory the search set (its peak by the memory rule, verified by a cell, or the bounds'
 * maximum). null when the answer has no sizing for it or no peak was recorded. For the deploy snippets.
 */
export function recommendedMemoryLimitMb(rec: Recommendation, key?: string): number | null {
  const k = key ?? answerKey(rec);
  if (k === null) return null;
  if (rec.search?.found && k === rec.search.foundKey) return rec.search.found.memoryMb;
  return rec.sizing?.find((x) => x.key === k)?.memory.limitMb ?? null;
}

/**
 * The CPU request (millicores) the answer found for a configuration (default: the one it deploys):
 * the smallest CPU cap tried that meets the objective, or without one holds the throughput; for an
 * auto-size run's found configuration, the cap its search found. null when none in the matrix did it.
 */
export function recommendedCpuMillis(rec: Recommendation, key?: string): number | null {
  const k = key ?? answerKey(rec);
  if (k === null) return null;
  if (rec.search?.found && k === rec.search.foundKey) return rec.search.found.cpuMillis;
  return rec.sizing?.find((x) => x.key === k)?.cpu.requestMillis ?? null;
}
