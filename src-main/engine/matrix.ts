import { z } from 'zod';
import { LAUNCH_MODES, type CellConfig, type CellLoad, type LaunchMode } from './types.ts';
import { RequestSpecSchema } from '../apps/manifest.ts';

/** Below this a Node.js process cannot even start reliably. */
export const MIN_MEMORY_MB = 32;
/** A matrix larger than this needs `confirmLarge: true` (CLI: --yes): it would run for hours. */
export const LARGE_MATRIX_CELLS = 500;

const nums = z.array(z.number());

/**
 * The matrix a user asks for (UI sliders, a preset or a JSON file). Shapes only: ranges and the
 * host's limits are checked by validateMatrix, so every problem is reported at once.
 */
export const MatrixSchema = z.object({
  name: z.string().max(200).optional(),
  apps: z.array(z.string()),
  cpuMillicores: nums,
  memoryMb: nums,
  workers: nums,
  modes: z.array(z.enum(LAUNCH_MODES)),
  load: z
    .discriminatedUnion('model', [
      z.object({ model: z.literal('closed'), connections: nums }),
      z.object({ model: z.literal('rate'), rates: nums, connections: z.number().default(20) }),
    ])
    .default({ model: 'closed', connections: [20] }),
  durationSec: z.number().default(10),
  warmupSec: z.number().default(2),
  repetitions: z.number().default(1),
  order: z.enum(['fixed', 'shuffle']).default('fixed'),
  /** Seed of the shuffle, so a shuffled run can be repeated exactly. */
  seed: z.number().int().optional(),
  /** Environment for every cell, over the app's defaults (e.g. UV_THREADPOOL_SIZE). */
  env: z.record(z.string(), z.string()).default({}),
  /** Requests to send instead of the app's own, as a dimension: each named set is its own cells (e.g. static's /1k vs /32k). */
  requestSets: z.array(z.object({ name: z.string().min(1), requests: z.array(RequestSpecSchema).min(1) })).optional(),
  recycleRssMb: z.number().optional(),
  placement: z.enum(['auto', 'off']).default('auto'),
  timeoutSec: z.number().default(10),
  confirmLarge: z.boolean().default(false),
});
export type MatrixInput = z.input<typeof MatrixSchema>;
export type Matrix = z.output<typeof MatrixSchema>;

export interface Problem {
  path: string;
  message: string;
}

export class MatrixInvalidError extends Error {
  readonly code = 'MATRIX_INVALID';
  constructor(readonly problems: Problem[]) {
    super(`The matrix is not valid; nothing was started:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`);
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

export type ImageApps = Record<string, { fixed: boolean }>;

export type ValidationResult = { ok: true; matrix: Matrix; cells: number } | { ok: false; problems: Problem[] };

/** Shape, then every range and host limit; returns all problems together. */
export function validateMatrix(input: unknown, host: HostLimits): ValidationResult {
  const parsed = MatrixSchema.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(matrix)', message: i.message })) };
  }
  const m = parsed.data;
  const problems: Problem[] = [];
  const bad = (path: string, message: string): void => void problems.push({ path, message });
  const dimension = (path: string, xs: unknown[]): void => {
    if (xs.length === 0) bad(path, 'needs at least one value');
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

  for (const a of m.apps) if (!host.apps.includes(a)) bad('apps', `unknown app "${a}" (known: ${host.apps.join(', ')})`);
  const maxMillis = host.cores * 1000;
  for (const c of m.cpuMillicores) {
    if (!Number.isInteger(c) || c <= 0) bad('cpuMillicores', `${c} is not a positive whole number of millicores`);
    else if (c > maxMillis) bad('cpuMillicores', `${c}m is more than this host's ${host.cores} cores (${maxMillis}m)`);
  }
  for (const mb of m.memoryMb) {
    if (!Number.isInteger(mb) || mb < MIN_MEMORY_MB) bad('memoryMb', `${mb} MB is below the minimum of ${MIN_MEMORY_MB} MB`);
    else if (mb > host.memoryMb) bad('memoryMb', `${mb} MB is more than this host's ${host.memoryMb} MB`);
  }
  for (const w of m.workers) {
    if (!Number.isInteger(w) || w < 1) bad('workers', `${w} is not a worker count (whole number ≥ 1)`);
    else if (w > 256) bad('workers', `${w} workers is more than the 256 supported`);
  }
  if (m.load.model === 'closed') {
    dimension('load.connections', m.load.connections);
    for (const c of m.load.connections) if (!Number.isInteger(c) || c < 1 || c > 10_000) bad('load.connections', `${c} is not a connection count from 1 to 10000`);
  } else {
    dimension('load.rates', m.load.rates);
    for (const r of m.load.rates) if (!(r > 0) || r > 1_000_000) bad('load.rates', `${r} is not a rate from 1 to 1000000 req/s`);
    if (!Number.isInteger(m.load.connections) || m.load.connections < 1) bad('load.connections', `${m.load.connections} is not a connection count ≥ 1`);
    for (const r of m.load.rates) if (r > 0 && r < m.load.connections) bad('load.rates', `${r} req/s over ${m.load.connections} connections is under one request a second each; use fewer connections`);
  }
  if (!Number.isInteger(m.durationSec) || m.durationSec < 1 || m.durationSec > 3600) bad('durationSec', `${m.durationSec} is not a whole number of seconds from 1 to 3600`);
  if (!Number.isInteger(m.warmupSec) || m.warmupSec < 0 || m.warmupSec > 600) bad('warmupSec', `${m.warmupSec} is not a whole number of seconds from 0 to 600`);
  if (!Number.isInteger(m.repetitions) || m.repetitions < 1 || m.repetitions > 100) bad('repetitions', `${m.repetitions} is not a whole number from 1 to 100`);
  if (!(m.timeoutSec >= 1 && m.timeoutSec <= 120)) bad('timeoutSec', `${m.timeoutSec} is not from 1 to 120 seconds`);
  if (m.recycleRssMb !== undefined && !(Number.isInteger(m.recycleRssMb) && m.recycleRssMb >= 16)) bad('recycleRssMb', `${m.recycleRssMb} is not a whole number of MB ≥ 16`);

  if (problems.length) return { ok: false, problems };
  const cells = countCells(m, host.imageApps);
  if (cells > LARGE_MATRIX_CELLS && !m.confirmLarge) {
    bad('(matrix)', `${cells} cells is more than ${LARGE_MATRIX_CELLS}: confirm to run it (CLI --yes, JSON "confirmLarge": true)`);
    return { ok: false, problems };
  }
  return { ok: true, matrix: m, cells };
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

function loads(m: Matrix): CellLoad[] {
  return m.load.model === 'closed'
    ? unique(m.load.connections).map((connections) => ({ model: 'closed', connections }))
    : unique(m.load.rates).map((rate) => ({ model: 'rate', rate, connections: (m.load as { connections: number }).connections }));
}

const requestSets = (m: Matrix): (CellConfig['requests'] | undefined)[] => m.requestSets ?? [undefined];

export function countCells(m: Matrix, imageApps?: ImageApps): number {
  const perRep = unique(m.apps).reduce((n, app) => n + shapes(m, app, imageApps).reduce((k, s) => k + s.workers.length, 0), 0);
  const rest = unique(m.cpuMillicores).length * unique(m.memoryMb).length * loads(m).length * requestSets(m).length;
  return perRep * rest * m.repetitions;
}

/** The cells in execution order. Repetitions are the outer loop so drift spreads over all configurations. */
export function expandMatrix(m: Matrix, imageApps?: ImageApps): CellConfig[] {
  const cells: Omit<CellConfig, 'index'>[] = [];
  for (let repetition = 0; repetition < m.repetitions; repetition++)
    for (const app of unique(m.apps))
      for (const { mode, workers: counts } of shapes(m, app, imageApps))
        for (const cpuMillis of unique(m.cpuMillicores))
          for (const memoryMb of unique(m.memoryMb))
            for (const workers of counts)
              for (const load of loads(m))
                for (const requests of requestSets(m))
                  cells.push({
                    repetition, app, mode, workers, cpuMillis, memoryMb, load,
                    durationSec: m.durationSec, warmupSec: m.warmupSec, env: m.env,
                    ...(m.recycleRssMb ? { recycleRssMb: m.recycleRssMb } : {}),
                    ...(requests ? { requests } : {}),
                  });
  if (m.order === 'shuffle') shuffle(cells, m.seed ?? 1);
  return cells.map((c, index) => ({ index, ...c }));
}

/** Fisher–Yates with a seeded generator (mulberry32): the same seed gives the same order. */
function shuffle<T>(xs: T[], seed: number): void {
  let a = seed >>> 0;
  const rand = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}
