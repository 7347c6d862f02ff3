// What an auto-size search is asked: the shape (zod, strict), then every range and host limit at
// once, with "did you mean" for misspelt fields, as engine/matrix.ts does for a matrix.
import { z } from 'zod';
import { CELL_OVERHEAD_SEC } from '../../common/thresholds.ts';
import { MEMORY_ROUND_MB } from '../../analysis/size/memory.ts';
import { PRICES_HINT, PricesSchema } from '../../common/prices-schema.ts';
import { describeValue, didYouMean, plainProblems, schemaKeysAt, type Problem } from '../../common/issues.ts';
import { connectionCountProblem, MIN_MEMORY_MB, type HostLimits } from '../matrix.ts';
import { LAUNCH_MODES, type LaunchMode } from '../../model/types.ts';
import type { SizeSpec } from '../../model/search.ts';

/**
 * Defaults (the issue's): a short cell, a budget of a dozen cells, cluster mode; CPU in steps of 125m (8 per core),
 * memory on the memory rule's rounding.
 */
export const SIZE_DEFAULTS = {
  durationSec: 8,
  warmupSec: 2,
  maxCells: 12,
  cpuStepMillis: 125,
  memoryStepMb: MEMORY_ROUND_MB,
  maxErrorPct: 0.1,
  minCpuMillis: 250,
  memory: { min: 128, max: 1024 },
} as const;
/** Fewer measured seconds than this give fewer than two batches of √n seconds: no interval to judge on. */
export const MIN_SIZE_DURATION_SEC = 5;

const range = z.strictObject({ min: z.number(), max: z.number() });

const BoundsSchema = z.strictObject({
  cpuMillis: range.optional(),
  memoryMb: range.optional(),
  workers: range.optional(),
  modes: z.array(z.enum(LAUNCH_MODES)).optional(),
});

export const SizeSpecSchema = z.strictObject({
  app: z.string(),
  slo: z.strictObject({
    p99Ms: z.number(),
    maxErrorPct: z.number().default(SIZE_DEFAULTS.maxErrorPct),
    /** The target rate is `rate`; accepted only when it says the same. */
    minRps: z.number().optional(),
  }),
  rate: z.number(),
  bounds: BoundsSchema.default({}),
  durationSec: z.number().default(SIZE_DEFAULTS.durationSec),
  warmupSec: z.number().default(SIZE_DEFAULTS.warmupSec),
  maxCells: z.number().default(SIZE_DEFAULTS.maxCells),
  cpuStepMillis: z.number().default(SIZE_DEFAULTS.cpuStepMillis),
  memoryStepMb: z.number().default(SIZE_DEFAULTS.memoryStepMb),
  /** Derived when absent (connectionsFor); accepted so a stored spec is valid input as it is. */
  connections: z.number().optional(),
  /** The runtime probe in the cells' processes (on by default; false turns it off). */
  probe: z.boolean().default(true),
  /** Search for the lowest price per hour at `prices` instead of the smallest CPU. */
  cheapest: z.boolean().default(false),
  prices: PricesSchema.optional(),
});
export type SizeSpecInput = z.input<typeof SizeSpecSchema>;

const HINTS: Record<string, string> = {
  app: 'an app name, e.g. "hello"',
  slo: 'an object {"p99Ms": 50, "maxErrorPct": 0.1}',
  'slo.p99Ms': 'the p99 limit in ms, e.g. 50',
  'slo.maxErrorPct': 'the failed-request limit in percent, e.g. 0.1',
  'slo.minRps': 'leave it out: the target rate is "rate"',
  rate: 'the constant request rate in req/s, e.g. 2000',
  bounds: 'an object {"cpuMillis": {"min": 250, "max": 2000}, "memoryMb": {…}, "workers": {…}, "modes": ["cluster"]}',
  'bounds.cpuMillis': 'a range of CPU caps in millicores, e.g. {"min": 250, "max": 2000}',
  'bounds.memoryMb': 'a range of memory caps in MB, e.g. {"min": 128, "max": 1024}',
  'bounds.workers': 'a range of worker counts, e.g. {"min": 1, "max": 4}',
  'bounds.modes': 'a list of launch modes from "single", "cluster", "pm2", e.g. ["cluster"]',
  durationSec: `the measured seconds per cell, a whole number ≥ ${MIN_SIZE_DURATION_SEC}, e.g. 8`,
  warmupSec: 'the warm-up seconds per cell, e.g. 2',
  maxCells: 'the most cells the search may run, e.g. 12',
  cpuStepMillis: 'the CPU step in millicores, e.g. 125',
  memoryStepMb: 'the memory step in MB, e.g. 32',
  connections: 'the connections the constant rate is spread over (default: from rate × p99 limit), e.g. 100',
  probe: 'true or false (false: no runtime probe in the cells; it is on by default)',
  cheapest: 'true or false (kept for older specs: the search always ranks by the price per hour at "prices")',
  prices: PRICES_HINT,
};
const hintFor = (path: readonly PropertyKey[]): string | undefined =>
  path.every((k) => typeof k === 'string') ? HINTS[path.join('.')] : undefined;

export type SizeValidation = { ok: true; spec: SizeSpec; gridCells: number } | { ok: false; problems: Problem[] };

export class SizeSpecInvalidError extends Error {
  readonly code = 'SIZE_INVALID';
  constructor(readonly problems: Problem[]) {
    super(
      'The auto-size request is not valid; nothing was started:\n' +
        problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n'),
    );
    this.name = 'SizeSpecInvalidError';
  }
}

/** The values from min to max in steps (max included even when off the step): the CPU caps the search may try. */
export function steps(min: number, max: number, step: number): number[] {
  const out: number[] = [];
  for (let v = min; v < max; v += step) out.push(v);
  out.push(max);
  return out;
}

/** Worker counts a mode gets: one for 'single' and for an image with a fixed count. */
export function workerCounts(spec: SizeSpec, mode: LaunchMode): number[] {
  if (mode === 'single') return [1];
  const { min, max } = spec.bounds.workers;
  return Array.from({ length: max - min + 1 }, (_, i) => min + i);
}

/** The full grid over the bounds at the search's own steps: what a matrix would have to run to find the same answer. */
export function gridCellsOf(spec: SizeSpec): number {
  const cpus = steps(spec.bounds.cpuMillis.min, spec.bounds.cpuMillis.max, spec.cpuStepMillis).length;
  const mems = steps(spec.bounds.memoryMb.min, spec.bounds.memoryMb.max, spec.memoryStepMb).length;
  return cpus * mems * spec.bounds.modes.reduce((n, m) => n + workerCounts(spec, m).length, 0);
}

/**
 * Connections for the constant rate: enough that a configuration meeting the objective never waits
 * for a free connection (by Little's law the mean in flight is rate × mean latency < rate × p99),
 * at least 20 as a matrix uses, and at most one per request a second.
 */
export function connectionsFor(rate: number, p99Ms: number): number {
  return Math.max(1, Math.min(Math.floor(rate), Math.max(20, Math.min(1000, Math.ceil((rate * p99Ms) / 1000)))));
}

/** Shape, then every range and host limit; all problems together. */
export function validateSizeSpec(input: unknown, host: HostLimits): SizeValidation {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      problems: [
        {
          path: '(spec)',
          message:
            'should be an object ({"app": "hello", "slo": {"p99Ms": 50}, "rate": 2000}), ' +
            `not ${describeValue(input)}.`,
        },
      ],
    };
  }
  const parsed = SizeSpecSchema.safeParse(input);
  if (!parsed.success) {
    const shape = plainProblems(parsed.error, input, {
      knownKeys: (path) => schemaKeysAt(SizeSpecSchema, path),
      hint: hintFor,
      root: '(spec)',
    });
    // The fields that parsed on their own are range-checked too, so one bad field does not hide another.
    const fields: Record<string, unknown> = {};
    const bad = new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')));
    const pick = (shape: Record<string, z.ZodType>, from: unknown, skip: Set<string>): Record<string, unknown> => {
      const out: Record<string, unknown> = {};
      if (from === null || typeof from !== 'object') return out;
      for (const [key, schema] of Object.entries(shape)) {
        if (skip.has(key)) continue;
        const one = schema.safeParse((from as Record<string, unknown>)[key]);
        if (one.success && one.data !== undefined) out[key] = one.data;
      }
      return out;
    };
    Object.assign(fields, pick(SizeSpecSchema.shape, input, bad));
    // Bounds with one bad part: the other parts are still checked.
    const boundsIssues = parsed.error.issues.filter((i) => i.path[0] === 'bounds');
    const badBounds = new Set(
      boundsIssues.flatMap((i) =>
        i.code === 'unrecognized_keys' && i.path.length === 1 ? i.keys : [String(i.path[1] ?? '')],
      ),
    );
    if (bad.has('bounds') && !badBounds.has(''))
      fields.bounds = pick(BoundsSchema.shape, (input as Record<string, unknown>).bounds, badBounds);
    return {
      ok: false,
      problems: [...shape, ...rangeProblems(fields as Partial<z.output<typeof SizeSpecSchema>>, host).problems],
    };
  }
  const { problems, spec } = rangeProblems(parsed.data, host);
  if (problems.length || !spec) return { ok: false, problems };
  return { ok: true, spec, gridCells: gridCellsOf(spec) };
}

/** Every range problem of the fields present, and the complete spec when there is none. */
function rangeProblems(
  s: Partial<z.output<typeof SizeSpecSchema>>,
  host: HostLimits,
): { problems: Problem[]; spec?: SizeSpec } {
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });
  const whole = (v: number): boolean => Number.isInteger(v);
  const maxMillis = host.cores * 1000;

  if (s.app !== undefined && !host.apps.includes(s.app))
    bad('app', `unknown app "${s.app}".${didYouMean(s.app, host.apps)} Known apps: ${host.apps.join(', ')}.`);
  if (s.slo) {
    if (!(s.slo.p99Ms > 0) || s.slo.p99Ms > 120_000)
      bad('slo.p99Ms', `${s.slo.p99Ms} is not a p99 limit above 0 ms (at most 120000)`);
    if (!(s.slo.maxErrorPct >= 0 && s.slo.maxErrorPct <= 100))
      bad('slo.maxErrorPct', `${s.slo.maxErrorPct} is not a percentage from 0 to 100`);
    if (s.slo.minRps !== undefined && s.rate !== undefined && s.slo.minRps !== s.rate)
      bad(
        'slo.minRps',
        `${s.slo.minRps} differs from the rate ${s.rate}: the target rate is "rate"; leave slo.minRps out`,
      );
  }
  if (s.rate !== undefined && (!(s.rate > 0) || s.rate > 1_000_000))
    bad('rate', `${s.rate} is not a rate above 0 and at most 1000000 req/s`);

  const b = s.bounds;
  const image = s.app !== undefined ? host.imageApps?.[s.app] : undefined;
  const cpu = b?.cpuMillis ?? { min: Math.min(SIZE_DEFAULTS.minCpuMillis, maxMillis), max: maxMillis };
  const mem = b?.memoryMb ?? {
    min: Math.min(SIZE_DEFAULTS.memory.min, host.memoryMb),
    max: Math.min(SIZE_DEFAULTS.memory.max, host.memoryMb),
  };
  const workers = image?.fixed ? { min: 1, max: 1 } : (b?.workers ?? { min: 1, max: Math.min(host.cores, 256) });
  const modes: LaunchMode[] = image ? ['image'] : (b?.modes ?? ['cluster']);
  if (b) {
    if (!whole(cpu.min) || !whole(cpu.max) || cpu.min <= 0)
      bad('bounds.cpuMillis', `${cpu.min}–${cpu.max} is not a range of positive whole millicores`);
    else if (cpu.max > maxMillis)
      bad('bounds.cpuMillis', `${cpu.max}m is more than this host's ${host.cores} cores (${maxMillis}m)`);
    if (cpu.min > cpu.max) bad('bounds.cpuMillis', `min ${cpu.min} is above max ${cpu.max}`);
    if (!whole(mem.min) || !whole(mem.max) || mem.min < MIN_MEMORY_MB)
      bad('bounds.memoryMb', `${mem.min}–${mem.max} MB: the minimum is ${MIN_MEMORY_MB} MB, in whole MB`);
    else if (mem.max > host.memoryMb)
      bad('bounds.memoryMb', `${mem.max} MB is more than this host's ${host.memoryMb} MB`);
    if (mem.min > mem.max) bad('bounds.memoryMb', `min ${mem.min} is above max ${mem.max}`);
    if (!whole(workers.min) || !whole(workers.max) || workers.min < 1 || workers.max > 256)
      bad('bounds.workers', `${workers.min}–${workers.max} is not a range of worker counts from 1 to 256`);
    if (workers.min > workers.max) bad('bounds.workers', `min ${workers.min} is above max ${workers.max}`);
    if (b.modes && b.modes.length === 0) bad('bounds.modes', 'needs at least one launch mode');
  }
  const { durationSec: d, warmupSec: w, maxCells: n, cpuStepMillis: cs, memoryStepMb: ms } = s;
  if (d !== undefined && (!whole(d) || d < MIN_SIZE_DURATION_SEC || d > 3600))
    bad(
      'durationSec',
      `${d} is not a whole number of seconds from ${MIN_SIZE_DURATION_SEC} ` +
        '(two batches of seconds for an interval) to 3600',
    );
  if (w !== undefined && (!whole(w) || w < 0 || w > 600))
    bad('warmupSec', `${w} is not a whole number of seconds from 0 to 600`);
  if (n !== undefined && (!whole(n) || n < 1 || n > 500))
    bad('maxCells', `${n} is not a whole number of cells from 1 to 500`);
  if (cs !== undefined && (!whole(cs) || cs < 25 || cs > 4000))
    bad('cpuStepMillis', `${cs} is not a whole number of millicores from 25 to 4000`);
  if (ms !== undefined && (!whole(ms) || ms < 16 || ms > 4096))
    bad('memoryStepMb', `${ms} is not a whole number of MB from 16 to 4096`);
  const wrongConnections = s.connections === undefined ? undefined : connectionCountProblem(s.connections);
  if (wrongConnections) bad('connections', wrongConnections);
  if (
    problems.length ||
    !s.app ||
    !s.slo ||
    s.rate === undefined ||
    d === undefined ||
    w === undefined ||
    n === undefined ||
    cs === undefined ||
    ms === undefined
  )
    return { problems };
  const spec: SizeSpec = {
    app: s.app,
    slo: { p99Ms: s.slo.p99Ms, minRps: s.rate, maxErrorPct: s.slo.maxErrorPct },
    rate: s.rate,
    bounds: { cpuMillis: { ...cpu }, memoryMb: { ...mem }, workers: { ...workers }, modes: [...new Set(modes)] },
    durationSec: d,
    warmupSec: w,
    maxCells: n,
    cpuStepMillis: cs,
    memoryStepMb: ms,
    connections: s.connections ?? connectionsFor(s.rate, s.slo.p99Ms),
    ...(s.probe === false ? { probe: false } : {}),
    ...(s.cheapest ? { cheapest: true as const } : {}),
    ...(s.prices ? { prices: { ...s.prices } } : {}),
  };
  return { problems, spec };
}

/** The longest a search can take: every cell of its budget, each warmup + duration + the measured overhead. */
export const sizeEtaSec = (spec: Pick<SizeSpec, 'maxCells' | 'warmupSec' | 'durationSec'>): number =>
  spec.maxCells * (spec.warmupSec + spec.durationSec + CELL_OVERHEAD_SEC);
