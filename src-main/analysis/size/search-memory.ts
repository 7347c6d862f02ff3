// How an auto-size search set the memory and CPU of the configuration it found, read back from its
// path: the need it measured at the bounds' maximum, the rule's step, the check at that step, and the
// CPU caps it bisected. The words (limitText, sizingParts) and the caps' labels take it from here, so
// they say what the search did.
import type { SearchStep, SearchTrace } from '../../model/search.ts';
import type { StoredCell } from '../../model/stored.ts';
import { freshNeed } from './fresh-need.ts';
import { capBoundary } from './memory-caps.ts';
import { limitFromPeak, memoryStepFor } from './memory.ts';
import type {
  ConfigurationSummary,
  CpuCap,
  CpuSizing,
  MemoryCap,
  MemorySizing,
  SearchConfig,
  SearchMemory,
} from '../types.ts';

type Shape = Pick<SearchConfig, 'mode' | 'workers' | 'cpuMillis'>;
const sameShape = (a: Shape, b: Shape): boolean =>
  a.mode === b.mode && a.workers === b.workers && a.cpuMillis === b.cpuMillis;

/** Older traces ended a verdict with the search's progress ("; repeating"): that is not part of what was measured. */
export const withoutProgress = (s: string): string => s.replace(/; repeating(?=[.;]|$)/g, '');

/** The search's last word on one configuration: its final step's outcome and detail, and how many cells it ran. */
export function finalStep(
  steps: readonly SearchStep[],
  c: Shape & { memoryMb: number },
): NonNullable<SearchMemory['check']> | null {
  const at = steps.filter((s) => sameShape(s, c) && s.memoryMb === c.memoryMb);
  const last = at[at.length - 1];
  return last
    ? { memoryMb: c.memoryMb, outcome: last.outcome, detail: withoutProgress(last.detail), cells: at.length }
    : null;
}

/** How the search set the found configuration's memory (see SearchMemory). */
export function searchMemory(
  trace: Pick<SearchTrace, 'spec' | 'steps'>,
  found: SearchConfig,
  cells: readonly StoredCell[],
): SearchMemory {
  const { spec, steps } = trace;
  const bounds = spec.bounds.memoryMb;
  // What the judge measured at the bounds' maximum, where the CPU was searched: the rule's basis.
  const measured = cells.filter(
    (c) =>
      c.config.phase !== 'verify' &&
      c.config.app === spec.app &&
      sameShape(c.config, found) &&
      c.config.memoryMb === bounds.max,
  );
  const need = freshNeed(measured);
  const basisBytes = need?.bytes ?? null;
  // The memory the search checked is on its path: a step of the found shape below the maximum.
  const checked = steps.filter((s) => sameShape(s, found) && s.memoryMb < bounds.max).pop();
  const stepMb =
    found.memoryMb < bounds.max
      ? found.memoryMb
      : (checked?.memoryMb ?? (basisBytes === null ? null : memoryStepFor(basisBytes, bounds, spec.memoryStepMb)));
  const check = stepMb !== null && stepMb < bounds.max ? finalStep(steps, { ...found, memoryMb: stepMb }) : null;
  const reason: SearchMemory['reason'] =
    found.memoryMb < bounds.max
      ? 'verified'
      : check
        ? check.outcome === 'undecided'
          ? 'check-undecided'
          : 'check-missed'
        : basisBytes === null
          ? 'no-peak'
          : stepMb !== null && stepMb >= bounds.max
            ? 'not-below'
            : 'not-checked';
  return {
    reason,
    basisBytes,
    basisMeasure: need?.measure ?? null,
    ruleMb: basisBytes === null ? null : limitFromPeak(basisBytes),
    stepMb,
    memoryStepMb: spec.memoryStepMb,
    boundsMinMb: bounds.min,
    boundsMaxMb: bounds.max,
    check,
  };
}

/**
 * The memory caps of a configuration in a search run, each with the search's own verdict where it
 * checked one against the objective: a cap the judge could not decide is 'undecided', one it missed
 * (with no OOM kill or restart) is 'misses' — never "clean" because no penalty test fired.
 */
export function searchCaps(m: MemorySizing, c: Shape, steps: readonly SearchStep[]): MemorySizing {
  const hard = new Set(['oom', 'restarts', 'errors', 'no-result']);
  const caps = m.caps.map((cap): MemoryCap => {
    const f = finalStep(steps, { ...c, memoryMb: cap.memoryMb });
    if (!f || hard.has(cap.outcome) || f.outcome === 'meets') return cap;
    const cells = `${f.cells} cell${f.cells === 1 ? '' : 's'}`;
    return f.outcome === 'undecided'
      ? { ...cap, outcome: 'undecided', detail: `the search's check was undecided after ${cells}: ${f.detail}` }
      : { ...cap, outcome: 'misses', detail: `missed the objective (${cells}): ${f.detail}` };
  });
  return { ...m, caps, ...capBoundary(caps) };
}

/**
 * The found configuration's CPU as the search decided it: the caps it bisected (at the found shape
 * and the bounds' maximum memory, where the CPU was searched), each with the judge's final word; the
 * request is the found cap (deployed as request = limit).
 */
export function searchCpu(
  u: CpuSizing,
  trace: Pick<SearchTrace, 'spec' | 'steps'>,
  found: SearchConfig,
  configurations: readonly ConfigurationSummary[],
): CpuSizing {
  const max = trace.spec.bounds.memoryMb.max;
  const tried = [...new Set(trace.steps.filter((s) => sameShape({ ...s, cpuMillis: found.cpuMillis }, found)))]
    .filter((s) => s.memoryMb === max)
    .map((s) => s.cpuMillis);
  const caps = [...new Set([...tried, found.cpuMillis])]
    .sort((a, b) => a - b)
    .map((cpuMillis): CpuCap => {
      const f = finalStep(trace.steps, { ...found, cpuMillis, memoryMb: max });
      const c = configurations.find(
        (x) => x.app === trace.spec.app && x.n > 0 && sameShape(x, { ...found, cpuMillis }) && x.memoryMb === max,
      );
      const meets = cpuMillis === found.cpuMillis ? true : f ? f.outcome === 'meets' : null;
      const miss =
        !f || f.outcome === 'meets' ? null : `${f.outcome === 'undecided' ? 'undecided' : f.outcome}: ${f.detail}`;
      return {
        cpuMillis,
        meetsSlo: meets,
        holdsThroughput: null,
        rps: c?.rps?.mean ?? null,
        p99Us: c?.p99Us?.mean ?? null,
        miss,
      };
    });
  const below = caps.filter((x) => x.cpuMillis < found.cpuMillis && x.meetsSlo === false).pop();
  return {
    ...u,
    requestMillis: found.cpuMillis,
    basis: 'slo',
    evidence: null,
    caps,
    failedAtMillis: below?.cpuMillis ?? null,
    searched: true,
  };
}
