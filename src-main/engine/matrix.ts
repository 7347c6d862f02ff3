import { z } from 'zod';
import { dimensionAppProblems } from './dimension-apps.ts';
import { LAUNCH_MODES, type CellConfig, type CellLoad, type LaunchMode } from '../model/types.ts';
import { MixSchema } from '../apps/request-schema.ts';
import { PRICES_HINT, PricesSchema } from '../common/prices-schema.ts';
import type { ImageApps } from '../model/types.ts';
export type { ImageApps };
import { describeValue, didYouMean, plainProblems, schemaKeysAt, type Problem } from '../common/issues.ts';
import {
  cellDimensions,
  DIMENSION_FIELDS,
  DIMENSION_HINTS,
  dimensionProblems,
  envSetsOf,
  linksOf,
  networkCapsOf,
  flagSetsOf,
  MIN_MEMORY_MB,
  nodeVersionsOf,
  topologies,
} from './matrix-dimensions.ts';
export { MIN_MEMORY_MB };
import { LOAD_HINTS, LoadSchema, loadProblems, withResume } from './matrix-load.ts';
export { connectionCountProblem, DEFAULT_LOAD, MAX_CONNECTIONS, MAX_STREAMS } from './matrix-load.ts';
import { shuffleInPlace } from './seeded-shuffle.ts';
export { seededShuffle } from './seeded-shuffle.ts';

/** A matrix larger than this needs `confirmLarge: true` (CLI: --yes): it would run for hours. */
export const LARGE_MATRIX_CELLS = 500;

const nums = z.array(z.number());

/** Settling may add up to this share of the grid's measured time by default (percent). */
export const DEFAULT_SETTLE_BUDGET_PCT = 50;

/**
 * The matrix a user asks for (UI sliders, a preset or a JSON file). Shapes only, and strict: a
 * misspelt field (`cpu`, `repetition`) is an error with a suggestion, never an option silently
 * ignored. Ranges and the host's limits are checked by validateMatrix, so every problem is
 * reported at once.
 */
export const MatrixSchema = z.strictObject({
  name: z.string().max(200).optional(),
  apps: z.array(z.string()),
  /** Per replica; absent only with a `budget`, which gives the totals instead. */
  cpuMillicores: nums.optional(),
  memoryMb: nums.optional(),
  workers: nums,
  modes: z.array(z.enum(LAUNCH_MODES)),
  /** replicas, budget, node, nodeFlags, envMatrix (engine/matrix-dimensions.ts). */
  ...DIMENSION_FIELDS,
  load: LoadSchema,
  durationSec: z.number().default(10),
  warmupSec: z.number().default(2),
  repetitions: z.number().default(1),
  order: z.enum(['fixed', 'shuffle']).default('fixed'),
  /** Seed of the shuffle, so a shuffled run can be repeated exactly. */
  seed: z.number().int().optional(),
  /** Environment for every cell, over the app's defaults (e.g. UV_THREADPOOL_SIZE). */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * Requests to send instead of the app's own, as a dimension: each named set is its own cells (e.g. static's /1k vs
   * /32k).
   */
  requestSets: z.array(z.strictObject({ name: z.string().min(1), requests: MixSchema })).optional(),
  recycleRssMb: z.number().optional(),
  placement: z.enum(['auto', 'off']).default('auto'),
  timeoutSec: z.number().default(10),
  /**
   * Settling: while the answer is undecided after the grid, extra repetitions of only the contenders
   * may take up to this share of the grid's measured time (percent; 0 turns settling off).
   */
  settleBudgetPct: z.number().default(DEFAULT_SETTLE_BUDGET_PCT),
  /** After the decision, run the picked configuration exactly as its deploy snippets deploy it. */
  verify: z.boolean().default(true),
  /**
   * The runtime probe in every Node.js process of a cell (event loop, GC, heap, per second): on by default, its
   * measured cost is about 1.5 % of goodput (BENCHMARKS.md, runtime probe; target 1 %). false: no probe.
   */
  probe: z.boolean().default(true),
  /** Prices the answer costs each configuration at (common/cost.ts); absent: the example defaults. */
  prices: PricesSchema.optional(),
  confirmLarge: z.boolean().default(false),
});
export type MatrixInput = z.input<typeof MatrixSchema>;
export type Matrix = z.output<typeof MatrixSchema>;
export type { Problem };

/** What each field holds, for "is missing: give …" and "should be …". */
const HINTS: Record<string, string> = {
  apps: 'a list of app names, e.g. ["hello"]',
  cpuMillicores: 'a list of CPU caps in millicores (1000 = one core), e.g. [500, 1000]',
  memoryMb: 'a list of memory caps in MB, e.g. [256, 512]',
  workers: 'a list of worker counts, e.g. [1, 2, 4]',
  modes: 'a list of launch modes from "single", "cluster", "pm2", e.g. ["cluster"]',
  ...LOAD_HINTS,
  durationSec: 'the measured seconds per cell, a whole number, e.g. 10',
  warmupSec: 'the warm-up seconds per cell, e.g. 2',
  repetitions: 'how many times to run every configuration, e.g. 3',
  env: 'an object of variable names to text values, e.g. {"UV_THREADPOOL_SIZE": "4"}',
  requestSets: 'a list of {"name": "…", "requests": [{"method": "GET", "path": "/"}]}',
  recycleRssMb: 'a memory size in MB, e.g. 96',
  timeoutSec: 'seconds to wait for the app to be ready, e.g. 10',
  confirmLarge: 'true or false',
  prices: PRICES_HINT,
  settleBudgetPct: "a percentage of the grid's measured time settling may add, e.g. 50 (0 turns it off)",
  verify: 'true or false',
  probe: "true or false (false: no runtime probe in the cells' processes; it is on by default)",
  seed: 'a whole number',
  name: 'text',
  ...DIMENSION_HINTS,
};
const hintFor = (path: readonly PropertyKey[]): string | undefined =>
  path.every((k) => typeof k === 'string') ? HINTS[path.join('.')] : undefined;

export class MatrixInvalidError extends Error {
  readonly code = 'MATRIX_INVALID';
  constructor(readonly problems: Problem[]) {
    super(
      `The matrix is not valid; nothing was started:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`,
    );
    this.name = 'MatrixInvalidError';
  }
}

export interface HostLimits {
  cores: number;
  memoryMb: number;
  apps: string[];
  /** Apps that are existing images: they run in their own 'image' mode; `fixed` ones ignore the workers dimension. */
  imageApps?: ImageApps;
}

export type ValidationResult = { ok: true; matrix: Matrix; cells: number } | { ok: false; problems: Problem[] };

/**
 * Shape, then every range and host limit; returns all problems together. When the shape is wrong
 * somewhere, the fields that are right are still range-checked, so one missing field does not
 * hide a bad value next to it.
 */
export function validateMatrix(input: unknown, host: HostLimits): ValidationResult {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return {
      ok: false,
      problems: [
        {
          path: '(matrix)',
          message:
            'should be an object ({"apps": […], "cpuMillicores": […], "memoryMb": […], ' +
            `"workers": […], "modes": […]}), not ${describeValue(input)}.`,
        },
      ],
    };
  }
  const parsed = MatrixSchema.safeParse(input);
  const present = (key: string): boolean => (input as Record<string, unknown>)[key] !== undefined;
  if (parsed.success) {
    const problems = rangeProblems(parsed.data, host, present);
    if (problems.length) return { ok: false, problems };
    const m = parsed.data;
    const cells = countCells(m, host.imageApps);
    if (cells > LARGE_MATRIX_CELLS && !m.confirmLarge) {
      return {
        ok: false,
        problems: [
          {
            path: '(matrix)',
            message:
              `${cells} cells is more than ${LARGE_MATRIX_CELLS}: ` +
              'confirm to run it (CLI --yes, JSON "confirmLarge": true)',
          },
        ],
      };
    }
    return { ok: true, matrix: m, cells };
  }
  const shape = plainProblems(parsed.error, input, {
    knownKeys: (path) => schemaKeysAt(MatrixSchema, path),
    hint: hintFor,
    root: '(matrix)',
  });
  // The fields that parsed on their own, range-checked as well.
  const fields: Partial<Matrix> = {};
  const bad = new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')));
  for (const [key, schema] of Object.entries(MatrixSchema.shape)) {
    if (bad.has(key)) continue;
    const one = (schema as z.ZodType).safeParse((input as Record<string, unknown>)[key]);
    if (one.success && one.data !== undefined) (fields as Record<string, unknown>)[key] = one.data;
  }
  return { ok: false, problems: [...shape, ...rangeProblems(fields, host, present)] };
}

/** Every range and host-limit problem of the fields present (`present`: the keys the input had). */
function rangeProblems(m: Partial<Matrix>, host: HostLimits, present: (key: string) => boolean): Problem[] {
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });
  const dimension = (path: string, xs: unknown[] | undefined): void => {
    if (xs && xs.length === 0) bad(path, 'needs at least one value');
  };
  dimension('apps', m.apps);
  dimension('cpuMillicores', m.cpuMillicores);
  dimension('memoryMb', m.memoryMb);
  dimension('workers', m.workers);
  dimension('modes', m.modes);
  if (m.requestSets) {
    dimension('requestSets', m.requestSets);
    const names = m.requestSets.map((r) => r.name);
    if (new Set(names).size !== names.length) bad('requestSets', 'names must be different');
  }

  for (const a of m.apps ?? [])
    if (!host.apps.includes(a))
      bad('apps', `unknown app "${a}".${didYouMean(a, host.apps)} Known apps: ${host.apps.join(', ')}.`);
  const maxMillis = host.cores * 1000;
  for (const c of m.cpuMillicores ?? []) {
    if (!Number.isInteger(c) || c <= 0) bad('cpuMillicores', `${c} is not a positive whole number of millicores`);
    else if (c > maxMillis) bad('cpuMillicores', `${c}m is more than this host's ${host.cores} cores (${maxMillis}m)`);
  }
  for (const mb of m.memoryMb ?? []) {
    if (!Number.isInteger(mb) || mb < MIN_MEMORY_MB)
      bad('memoryMb', `${mb} MB is below the minimum of ${MIN_MEMORY_MB} MB`);
    else if (mb > host.memoryMb) bad('memoryMb', `${mb} MB is more than this host's ${host.memoryMb} MB`);
  }
  for (const w of m.workers ?? []) {
    if (!Number.isInteger(w) || w < 1) bad('workers', `${w} is not a worker count (whole number ≥ 1)`);
    else if (w > 256) bad('workers', `${w} workers is more than the 256 supported`);
  }
  loadProblems(m, host.cores, bad);
  const { durationSec: d, warmupSec: w, repetitions: r, timeoutSec: t, recycleRssMb: rss } = m;
  if (d !== undefined && (!Number.isInteger(d) || d < 1 || d > 3600))
    bad('durationSec', `${d} is not a whole number of seconds from 1 to 3600`);
  if (w !== undefined && (!Number.isInteger(w) || w < 0 || w > 600))
    bad('warmupSec', `${w} is not a whole number of seconds from 0 to 600`);
  if (r !== undefined && (!Number.isInteger(r) || r < 1 || r > 100))
    bad('repetitions', `${r} is not a whole number from 1 to 100`);
  if (t !== undefined && !(t >= 1 && t <= 120)) bad('timeoutSec', `${t} is not from 1 to 120 seconds`);
  if (rss !== undefined && !(Number.isInteger(rss) && rss >= 16))
    bad('recycleRssMb', `${rss} is not a whole number of MB ≥ 16`);
  const sb = m.settleBudgetPct;
  if (sb !== undefined && !(Number.isFinite(sb) && sb >= 0 && sb <= 1000))
    bad('settleBudgetPct', `${sb} is not a percentage from 0 to 1000`);
  return [...problems, ...dimensionProblems(m, host, present), ...dimensionAppProblems(m, host.imageApps)];
}

const unique = <T>(xs: T[]): T[] => [...new Set(xs)];

/**
 * The launch modes and worker counts an app gets. `single` runs one process whatever the workers
 * dimension says, so it gets one cell, not one per count; an existing image runs its own command
 * (mode 'image'), with the workers dimension only when it reads its count from a variable.
 */
function shapes(m: Matrix, app: string, imageApps: ImageApps = {}): { mode: LaunchMode; workers: number[] }[] {
  const image = imageApps[app];
  if (image) return [{ mode: 'image', workers: image.fixed ? [1] : unique(m.workers) }];
  return unique(m.modes).map((mode) => ({ mode, workers: mode === 'single' ? [1] : unique(m.workers) }));
}

const threadsOf = (m: Matrix): { threads?: number } =>
  m.load.threads !== undefined ? { threads: m.load.threads } : {};

/** The loads of the cells: each connection count or rate through each bandwidth cap (none: uncapped), plain or TLS. */
function loads(m: Matrix): CellLoad[] {
  const base: CellLoad[] =
    m.load.model === 'closed'
      ? unique(m.load.connections).map((connections) => ({ model: 'closed', connections, ...threadsOf(m) }))
      : unique(m.load.rates).map((rate) => ({
          model: 'rate',
          rate,
          connections: (m.load as { connections: number }).connections,
          ...threadsOf(m),
        }));
  const linked = networkCapsOf(m).flatMap((n) => base.map((l) => (n ? { ...l, networkMbps: n } : l)));
  return linksOf(m, m.load.streams).flatMap((link) => linked.map((l) => withResume({ ...l, ...link }, m)));
}

const requestSets = (m: Matrix): (CellConfig['requests'] | undefined)[] => m.requestSets ?? [undefined];

export function countCells(m: Matrix, imageApps?: ImageApps): number {
  const perRep = unique(m.apps).reduce(
    (n, app) =>
      n +
      shapes(m, app, imageApps).reduce((k, s) => k + s.workers.length, 0) *
        nodeVersionsOf(m, Boolean(imageApps?.[app])).length,
    0,
  );
  const rest =
    topologies(m).length * flagSetsOf(m).length * envSetsOf(m).length * loads(m).length * requestSets(m).length;
  return perRep * rest * m.repetitions;
}

/** The cells in execution order. Repetitions are the outer loop so drift spreads over all configurations. */
export function expandMatrix(m: Matrix, imageApps?: ImageApps): CellConfig[] {
  const cells: Omit<CellConfig, 'index'>[] = [];
  for (let repetition = 0; repetition < m.repetitions; repetition++)
    for (const app of unique(m.apps))
      for (const { mode, workers: counts } of shapes(m, app, imageApps))
        for (const node of nodeVersionsOf(m, Boolean(imageApps?.[app])))
          for (const flags of flagSetsOf(m))
            for (const envSet of envSetsOf(m))
              for (const t of topologies(m))
                for (const workers of counts)
                  for (const load of loads(m))
                    for (const requests of requestSets(m))
                      cells.push({
                        repetition,
                        app,
                        mode,
                        workers,
                        cpuMillis: t.cpuMillis,
                        memoryMb: t.memoryMb,
                        load,
                        durationSec: m.durationSec,
                        warmupSec: m.warmupSec,
                        env: { ...m.env, ...envSet },
                        ...(m.recycleRssMb ? { recycleRssMb: m.recycleRssMb } : {}),
                        ...(requests ? { requests } : {}),
                        ...(m.probe ? { probe: true as const } : {}),
                        ...cellDimensions(t, node, flags, envSet),
                      });
  // Shuffled within each round of repetitions (a randomized block): drift spreads over every configuration alike,
  // and after each round every configuration has as many repetitions, for the sequential look (run-matrix.ts).
  const rounds = Array.from({ length: m.repetitions }, (_, r) => cells.filter((c) => c.repetition === r));
  if (m.order === 'shuffle') rounds.forEach((round, r) => shuffleInPlace(round, (m.seed ?? 1) + r * 7919));
  return rounds.flat().map((c, index) => ({ index, ...c }));
}
