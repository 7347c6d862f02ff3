// The Builder's Auto-size form as plain data: what the user has entered (a draft that survives
// switching between Matrix and Auto-size), the spec it sends, and which field each of the engine's
// problems belongs to. The rules themselves are the engine's (`size.validate`), never repeated here.
import type { LaunchMode, Problem, SizeSpec } from '../../src-main/contract/api.ts';
import { under } from './app-form.ts';
import { DEFAULT_PRICES } from '../../src-main/contract/present.ts';

export interface SizeDraft {
  app: string;
  p99Ms: number;
  maxErrorPct: number;
  /** Target rate, req/s: the constant load the objective is judged at. */
  rate: number;
  cpuMin: number;
  cpuMax: number;
  memMin: number;
  memMax: number;
  workersMin: number;
  workersMax: number;
  modes: LaunchMode[];
  maxCells: number;
  durationSec: number;
  warmupSec: number;
  name: string;
  /** The runtime probe in the cells' processes (absent or true: on, the engine's default; false: off). */
  probe?: boolean;
  /** Search for the lowest price per hour instead of the smallest CPU (absent: the smallest CPU). */
  cheapest?: boolean;
  /** Prices per vCPU-hour, GB-hour and replica-hour; absent or cleared: the example defaults (common/cost.ts). */
  cpuPrice?: number | null;
  gbPrice?: number | null;
  replicaPrice?: number | null;
}

/** The prices the draft gives, the rest from the defaults; undefined when it gives none (the run is costed at the defaults). */
export function pricesOf(d: Pick<SizeDraft, 'cpuPrice' | 'gbPrice' | 'replicaPrice'>): { cpuHour: number; gbHour: number; replicaHour: number } | undefined {
  const given = (v: number | null | undefined): v is number => typeof v === 'number' && !Number.isNaN(v);
  if (!given(d.cpuPrice) && !given(d.gbPrice) && !given(d.replicaPrice)) return undefined;
  return {
    cpuHour: given(d.cpuPrice) ? d.cpuPrice : DEFAULT_PRICES.cpuHour,
    gbHour: given(d.gbPrice) ? d.gbPrice : DEFAULT_PRICES.gbHour,
    replicaHour: given(d.replicaPrice) ? d.replicaPrice : DEFAULT_PRICES.replicaHour,
  };
}

export function defaultDraft(): SizeDraft {
  return { app: 'hello', p99Ms: 50, maxErrorPct: 0.1, rate: 1000, cpuMin: 250, cpuMax: 1000, memMin: 128, memMax: 512, workersMin: 1, workersMax: 4, modes: ['cluster'], maxCells: 12, durationSec: 8, warmupSec: 2, name: '', probe: true };
}

/** The SizeSpec the engine receives (`size.validate`, `runs.size`). A cleared number field goes as null, for the engine to name. */
export function toSpec(d: SizeDraft): unknown {
  const n = (v: number): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    app: d.app,
    slo: { p99Ms: n(d.p99Ms), maxErrorPct: n(d.maxErrorPct) }, // the rate is the objective's throughput: the engine sets slo.minRps from it
    rate: n(d.rate),
    bounds: {
      cpuMillis: { min: n(d.cpuMin), max: n(d.cpuMax) },
      memoryMb: { min: n(d.memMin), max: n(d.memMax) },
      workers: { min: n(d.workersMin), max: n(d.workersMax) },
      modes: [...d.modes],
    },
    durationSec: n(d.durationSec),
    warmupSec: n(d.warmupSec),
    maxCells: n(d.maxCells),
    ...(d.probe === false ? { probe: false } : {}),
    ...(d.cheapest ? { cheapest: true } : {}),
    ...(pricesOf(d) ? { prices: pricesOf(d) } : {}),
  };
}

/**
 * The form's fields and the spec paths each one shows problems for (`slo.minRps` would be the
 * target rate's: the form never sends it, the engine takes it from `rate`).
 */
export const SIZE_FIELDS = {
  app: ['app'],
  p99Ms: ['slo.p99Ms'],
  maxErrorPct: ['slo.maxErrorPct'],
  rate: ['rate', 'slo.minRps'],
  cpu: ['bounds.cpuMillis'],
  memory: ['bounds.memoryMb'],
  workers: ['bounds.workers'],
  modes: ['bounds.modes'],
  maxCells: ['maxCells'],
  timing: ['durationSec', 'warmupSec'],
  prices: ['prices', 'cheapest'],
} as const;
export type SizeField = keyof typeof SIZE_FIELDS;

/** Where each field sits (its data-testid) and how the Start bar names it, in form order. */
export const SIZE_PLACES = (
  [
    ['p99Ms', 'p99', 'size-objective'],
    ['maxErrorPct', 'errors', 'size-objective'],
    ['rate', 'target rate', 'size-objective'],
    ['app', 'App', 'size-app-field'],
    ['cpu', 'CPU cap', 'size-cpu'],
    ['memory', 'Memory cap', 'size-memory'],
    ['workers', 'Workers', 'size-workers'],
    ['modes', 'Launch modes', 'size-modes-field'],
    ['maxCells', 'cells at most', 'size-budget-field'],
    ['timing', 'duration / warmup', 'size-budget-field'],
    ['prices', 'prices', 'size-cost-field'],
  ] as const
).map(([field, label, testid]) => ({ label, testid, paths: SIZE_FIELDS[field] }));

/** One field's problems, joined; undefined when it has none. The same message twice (rate and slo.minRps) is said once. */
export function fieldProblem(problems: readonly Problem[], field: SizeField): string | undefined {
  const msgs = problems.filter((p) => SIZE_FIELDS[field].some((prefix) => under(p.path, prefix))).map((p) => p.message);
  return [...new Set(msgs)].join('; ') || undefined;
}

/** Problems no field shows (the spec as a whole, or a path the form has no field for): listed by Start so none is hidden. */
export function generalProblems(problems: readonly Problem[]): Problem[] {
  const all = Object.values(SIZE_FIELDS).flat();
  return problems.filter((p) => !all.some((prefix) => under(p.path, prefix)));
}

/**
 * A stored search's spec as a request again (Re-run): without what the engine derives itself
 * (`connections`, from the rate and the p99), which a request may not set.
 */
export function specInput(spec: SizeSpec): unknown {
  const { connections: _derived, ...input } = spec;
  return input;
}
