// Memory and CPU sizing of every measured configuration, and which one per workload the answer
// recommends (the same the deploy snippets use), so every reader of a Recommendation agrees.
import type { RunDetail } from '../store/index.ts';
import { cpuSizing } from './cpu-sizing.ts';
import { workloadKey } from './group.ts';
import { finishedCellsByKey, memorySizing } from './memory.ts';
import type { ConfigurationSummary, Recommendation, ScopeDecision, Sizing, Slo, SloOutcome } from './types.ts';

/**
 * The configuration the answer recommends for each workload: the cheapest meeting the SLO when
 * one does, else the knee of the workload's first CPU / memory pair (deploy/snippets.ts takes the
 * first pair's knee too).
 */
export function recommendedKeys(scopes: readonly ScopeDecision[], sloOutcomes: readonly SloOutcome[]): string[] {
  const out = new Map<string, string>();
  for (const o of sloOutcomes) if (o.met) out.set(workloadKey(o), o.met.key);
  for (const s of scopes) if (!out.has(workloadKey(s))) out.set(workloadKey(s), s.knee.key);
  return [...out.values()];
}

/** Sizing of every configuration with a finished repetition: recommended ones first, then knees and SLO picks, then the rest. */
export function sizeConfigurations(
  run: Pick<RunDetail, 'cells'>, configurations: readonly ConfigurationSummary[], scopes: readonly ScopeDecision[], sloOutcomes: readonly SloOutcome[], marginPct: number, slo: Slo | null,
): Sizing[] {
  const cells = finishedCellsByKey(run.cells);
  const recommended = new Set(recommendedKeys(scopes, sloOutcomes));
  const roles = new Map<string, string[]>();
  const add = (key: string, role: string): void => void roles.set(key, [...(roles.get(key) ?? []), role]);
  for (const k of recommended) add(k, 'the recommended configuration');
  for (const o of sloOutcomes) if (o.met) add(o.met.key, 'cheapest meeting the SLO');
  for (const s of scopes) add(s.knee.key, `knee of ${s.label}`);
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
      memory: memorySizing(c, configurations, cells, marginPct),
      cpu: cpuSizing(c, configurations, cells, marginPct, slo),
    }));
}

/**
 * The memory limit (MB) to deploy a configuration with: by default the recommended one (the first
 * workload's), else the configuration with this key. null when the answer has no sizing for it or
 * no peak was recorded. For the deploy snippets.
 */
export function recommendedMemoryLimitMb(rec: Recommendation, key?: string): number | null {
  const s = key === undefined ? rec.sizing?.find((x) => x.recommended) : rec.sizing?.find((x) => x.key === key);
  return s?.memory.limitMb ?? null;
}

/** The CPU request (millicores) the answer found for a configuration (default: the recommended one); null when none in the matrix did it. */
export function recommendedCpuMillis(rec: Recommendation, key?: string): number | null {
  const s = key === undefined ? rec.sizing?.find((x) => x.recommended) : rec.sizing?.find((x) => x.key === key);
  return s?.cpu.requestMillis ?? null;
}
