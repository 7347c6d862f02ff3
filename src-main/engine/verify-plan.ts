/**
 * The plan of a verification (engine/verify.ts runs it): which configuration, what each snippet kind
 * deploys for it at which memory limit (deploy/settings.ts deployedSettings, the function the snippet
 * writers use), which kinds share a cell, how the limit steps up after a failure, and the cell a
 * verification attempt runs. Pure, so it is tested on constructed runs.
 *
 * - Start: Kubernetes and Compose at the answer's memory limit for the configuration (its rule);
 *   PM2 at that limit plus PM2's own memory — measured in PM2 mode: the difference between the
 *   configuration's peak and its PM2 twin's (same workers and caps) where the matrix ran one, else
 *   one more process's share — for a configuration not measured under PM2 already.
 * - Never above the largest clean cap the matrix measured for the configuration (the ceiling).
 * - After a failure: the next multiple of 32 MB at or above 1.5 × the limit, at most the ceiling;
 *   the last of VERIFY_MAX_ATTEMPTS attempts is the ceiling itself. A failure there ends in the
 *   fallback: the cap the matrix ran the configuration clean at, with no threshold or heap flag.
 */
import { limitText } from '../analysis/explain/sizing-words.ts';
import { cellPeak, MEMORY_ROUND_MB } from '../analysis/size/memory.ts';
import { configurationKey } from '../analysis/decide/group.ts';
import { MAX_ERROR_PCT } from '../common/thresholds.ts';
import { recommendedCpuMillis, recommendedMemoryLimitMb } from '../analysis/size/sizing.ts';
import type { ConfigurationSummary, Recommendation } from '../analysis/types.ts';
import {
  deployedSettings,
  settingsKey,
  SNIPPET_KINDS,
  canVerify,
  withHeapFlag,
  type DeploySettings,
  type MeasuredConfig,
  type SnippetKind,
} from '../deploy/settings.ts';
import { VERIFY_MAX_ATTEMPTS } from '../deploy/verification.ts';

/**
 * A verification cell measures at least this long: 9 seconds make 3 batches of 3 (stats.ts batchMeans),
 * the fewest its goodput interval rests on, so the non-inferiority test can judge it (5 s made 2: none).
 */
export const VERIFY_MIN_SEC = 9;
import { deployRuntime } from '../deploy/recommended-deploy.ts';
import type { VerifyDescriptor } from '../model/verify.ts';
import { WORKERS_ENV } from '../deploy/snippets.ts';
import type { StoredCell } from '../store/index.ts';
import type { CellConfig } from '../model/types.ts';

const MIB = 2 ** 20;
const roundUp = (mb: number): number => Math.max(MEMORY_ROUND_MB, Math.ceil(mb / MEMORY_ROUND_MB) * MEMORY_ROUND_MB);

/** The limit after a failed attempt at `mb`: the next multiple of 32 MB at or above 1.5 × it, at most the ceiling. */
export function nextLimit(mb: number, ceilingMb: number): number {
  return Math.min(ceilingMb, Math.max(mb + 1, roundUp(mb * 1.5)));
}

/**
 * The limits verification would try, in order, if every attempt failed: from the start up to the ceiling, the ceiling
 * last.
 */
export function stepUpLimits(startMb: number, ceilingMb: number, maxAttempts = VERIFY_MAX_ATTEMPTS): number[] {
  const out = [Math.min(startMb, ceilingMb)];
  while (out.length < maxAttempts && out[out.length - 1]! < ceilingMb)
    out.push(out.length === maxAttempts - 1 ? ceilingMb : nextLimit(out[out.length - 1]!, ceilingMb));
  return out;
}

export interface VerifyStart {
  memoryMb: number;
  /** Why it starts there, in words. */
  basis: string;
}

export interface VerifyPlan {
  key: string;
  label: string;
  configuration: ConfigurationSummary;
  /** A grid cell of the configuration: the app, requests, load, warm-up and environment the verification keeps. */
  template: CellConfig;
  /** The configuration as measured, with the CPU request (and the server-process RSS where measured). */
  measured: MeasuredConfig & { memoryMb: number };
  /** The snippet kinds a cell can run exactly as emitted. */
  kinds: SnippetKind[];
  start: Partial<Record<SnippetKind, VerifyStart>>;
  ceilingMb: number;
  fallbackMb: number;
  durationSec: number;
  expected: VerifyDescriptor['expected'];
}

/** Cells of the grid that count for a configuration (finished ok), by key. */
const okCellsOf = (cells: readonly StoredCell[], key: string): StoredCell[] =>
  cells.filter((c) => c.status === 'ok' && c.config.phase !== 'verify' && configurationKey(c.config) === key);

/** The highest peak of a configuration's cells (the cgroup's, as the memory rule uses), bytes. */
const peakOf = (cells: readonly StoredCell[]): number | null => {
  const ps = cells
    .map(cellPeak)
    .filter((p) => p !== null)
    .map((p) => p.bytes);
  return ps.length ? Math.max(...ps) : null;
};

interface ProcessReadingLike {
  role?: string;
  rssPeakBytes?: number;
}
/**
 * The largest resident memory of one server process (a worker; a single process's primary) in these
 * cells (grid cells, or verification cells just run), MB; undefined without per-process readings.
 */
export function serverRssMb(
  cells: readonly { config: Pick<CellConfig, 'mode'>; stats?: unknown }[],
): number | undefined {
  const rss: number[] = [];
  for (const c of cells) {
    const ps = (c.stats as { processes?: ProcessReadingLike[] } | null | undefined)?.processes ?? [];
    const servers = ps.filter((p) => p.role === 'worker');
    const chosen = servers.length ? servers : c.config.mode === 'single' ? ps.filter((p) => p.role === 'primary') : [];
    for (const p of chosen) if (typeof p.rssPeakBytes === 'number' && p.rssPeakBytes > 0) rss.push(p.rssPeakBytes);
  }
  return rss.length ? Math.ceil(Math.max(...rss) / MIB) : undefined;
}

/**
 * PM2's own memory over the configuration's mode, measured in PM2 mode (MB): its PM2 twin's peak
 * (same app, load, workers and caps) minus its own; 0 for a configuration measured under PM2; null
 * where the matrix ran no twin.
 */
export function pm2ExtraMb(
  cells: readonly StoredCell[],
  c: ConfigurationSummary,
  all: readonly ConfigurationSummary[],
): number | null {
  if (c.mode === 'pm2') return 0;
  const twins = all.filter(
    (a) =>
      a.mode === 'pm2' &&
      a.app === c.app &&
      a.requestSet === c.requestSet &&
      JSON.stringify(a.load) === JSON.stringify(c.load) &&
      a.workers === c.workers &&
      a.cpuMillis === c.cpuMillis &&
      a.memoryMb === c.memoryMb,
  );
  const mine = peakOf(okCellsOf(cells, c.key));
  const theirs = twins.map((t) => peakOf(okCellsOf(cells, t.key))).filter((p): p is number => p !== null);
  if (mine === null || !theirs.length) return null;
  return Math.max(0, (Math.max(...theirs) - mine) / MIB);
}

/** Node processes of a configuration (a cluster's primary counted). */
const processesOf = (c: Pick<ConfigurationSummary, 'mode' | 'workers'>): number =>
  c.mode === 'single' || c.mode === 'image' ? 1 : c.mode === 'cluster' ? c.workers + 1 : c.workers;

/**
 * The plan for configuration `key` of a run's answer, or why there is none. `cells`: the run's cells
 * (verification cells are ignored); `matrixDurationSec`: the matrix's measured seconds per cell.
 */
export function planVerification(
  cells: readonly StoredCell[],
  rec: Recommendation,
  key: string,
  matrixDurationSec?: number,
): VerifyPlan | string {
  const c = rec.configurations.find((x) => x.key === key);
  if (!c) return 'that configuration is not in the run';
  const own = okCellsOf(cells, key);
  if (!c.rps || !own.length) return `${c.label} has no finished repetition with a measurement to compare with`;
  const template = own[0]!.config;
  const cpuRequest = recommendedCpuMillis(rec, key);
  const rss = serverRssMb(own);
  const measured = {
    app: c.app,
    mode: c.mode,
    workers: c.workers,
    cpuMillis: c.cpuMillis,
    memoryMb: c.memoryMb,
    cpuRequestMillis: cpuRequest === null ? c.cpuMillis : Math.min(cpuRequest, c.cpuMillis),
    ...(rss !== undefined ? { serverRssMb: rss } : {}),
    // Its containers, Node.js (the exact version its cells ran, where one) and flags, as its snippets deploy them.
    ...deployRuntime(c, rec),
  };
  const sizing = rec.sizing?.find((s) => s.key === key);
  const ceilingMb = Math.max(c.memoryMb, sizing?.memory.referenceMb ?? c.memoryMb);
  const rule = recommendedMemoryLimitMb(rec, key);
  // The basis in the words the answer uses for it (analysis/explain/sizing-words.ts): one source per statement.
  const limitBasis = sizing ? limitText(sizing) : 'no memory limit: no peak was recorded';
  const ruleBasis =
    rule === null
      ? `the ${c.memoryMb} MB cap it was measured under (no peak recorded)`
      : `the answer's memory limit for it, ${limitBasis}`;
  const ruleMb = rule ?? c.memoryMb;
  const kinds = SNIPPET_KINDS.filter((k) => canVerify(k, c));
  const start: VerifyPlan['start'] = {};
  for (const k of kinds) {
    if (k !== 'pm2' || c.mode === 'pm2') {
      start[k] = { memoryMb: Math.min(ruleMb, ceilingMb), basis: ruleBasis };
      continue;
    }
    const extra = pm2ExtraMb(cells, c, rec.configurations);
    const add = extra ?? ruleMb / processesOf(c);
    const mb = Math.min(ceilingMb, roundUp(ruleMb + add));
    start[k] = {
      memoryMb: mb,
      basis:
        extra !== null
          ? `${ruleBasis} plus PM2's own memory measured in PM2 mode ` +
            `(its PM2 twin peaked ${Math.round(extra)} MB higher)`
          : `${ruleBasis} plus one more process's share for PM2's daemon (the matrix ran no PM2 twin to measure it)`,
    };
  }
  const ci = c.rps.ci;
  return {
    key,
    label: c.label,
    configuration: c,
    template,
    measured,
    kinds,
    start,
    ceilingMb,
    fallbackMb: c.memoryMb,
    durationSec: Math.max(template.durationSec, matrixDurationSec ?? 0, VERIFY_MIN_SEC),
    expected: {
      goodput: c.rps.mean,
      se: c.rps.se,
      df: c.rps.df,
      low: ci ? ci.low : null,
      high: ci ? ci.high : null,
      p99Us: c.p99Us?.mean ?? null,
      maxErrorPct: rec.slo?.maxErrorPct ?? MAX_ERROR_PCT,
    },
  };
}

/** What a snippet kind deploys in the plan at a memory limit, with its thresholds (a verification runs them). */
export const planSettings = (plan: Pick<VerifyPlan, 'measured'>, kind: SnippetKind, memoryMb: number): DeploySettings =>
  deployedSettings(kind, plan.measured, memoryMb, true);

/** Kinds whose settings are identical share one cell (Kubernetes and Compose always do). */
export function groupKinds(
  entries: readonly { kind: SnippetKind; settings: DeploySettings }[],
): { kinds: SnippetKind[]; settings: DeploySettings }[] {
  const out = new Map<string, { kinds: SnippetKind[]; settings: DeploySettings }>();
  for (const e of entries) {
    const k = settingsKey(e.settings);
    const g = out.get(k);
    if (g) g.kinds.push(e.kind);
    else out.set(k, { kinds: [e.kind], settings: e.settings });
  }
  return [...out.values()];
}

/**
 * The cell a verification attempt runs: the configuration's own app, requests, load and warm-up,
 * for at least the matrix's measured seconds, with the settings exactly as the snippets deploy them
 * (memory and CPU limits, mode and workers, PM2's restart threshold as recycleRssMb, the heap flag
 * in NODE_OPTIONS, the worker variable for the container snippets).
 */
export function verifyCellConfig(
  plan: VerifyPlan,
  kinds: SnippetKind[],
  settings: DeploySettings,
  at: { round: string; attempt: number; final: boolean; basis: string },
): Omit<CellConfig, 'index'> {
  const { index: _index, recycleRssMb: _recycle, verify: _verify, phase: _phase, ...t } = plan.template;
  const container = kinds.some((k) => k !== 'pm2');
  const descriptor: VerifyDescriptor = {
    key: plan.key,
    label: plan.label,
    snippets: [...kinds],
    round: at.round,
    attempt: at.attempt,
    final: at.final,
    cpuRequestMillis: settings.cpuRequestMillis,
    heapMb: settings.heapMb,
    basis: at.basis,
    expected: plan.expected,
    fallbackMb: plan.fallbackMb,
    ceilingMb: plan.ceilingMb,
  };
  return {
    ...t,
    repetition: 0,
    mode: settings.mode,
    workers: settings.workers,
    cpuMillis: settings.cpuMillis,
    memoryMb: settings.memoryMb,
    durationSec: plan.durationSec,
    // The snippet's own environment too (a pool size it pins), so the cell runs what it carries.
    env: withHeapFlag(
      container
        ? { ...t.env, ...settings.env, [WORKERS_ENV]: String(settings.workers) }
        : { ...t.env, ...settings.env },
      settings.heapMb,
    ),
    ...(settings.recycleRssMb !== null ? { recycleRssMb: settings.recycleRssMb } : {}),
    phase: 'verify',
    verify: descriptor,
  };
}
