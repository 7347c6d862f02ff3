/**
 * Verification of the deployable, read back from a run's stored cells: each verification cell
 * (config.phase 'verify', config.verify the descriptor below) ran one snippet kind's settings exactly
 * as emitted (deploy/settings.ts), and is judged here by one rule (judgeVerifyCell) that the engine
 * (engine/verify.ts, deciding whether to step up) and every reader (the snippets, report, the UI)
 * share. Pure: a run stored before verification existed simply has none, and `rightsize verify RUN`
 * appends the cells later.
 */
import { ALPHA, estimateOf, summarizeOne, welch } from '../analysis/stats.ts';
import { fmtNum, fmtUs } from '../common/format.ts';
import { exactCpu } from '../common/resource-labels.ts';
import type { CellConfig, CellStatus, ExitInfo, Flag, LoadResult, StatsSummary } from '../model/types.ts';
import { heapFlagOf, runtimeOf, SNIPPET_KINDS, type DeploySettings, type SnippetKind } from './settings.ts';
import type { VerifyDescriptor } from '../model/verify.ts';
export type { VerifyDescriptor };

/** Goodput must not be (significantly) below this share of the matrix's estimate: within 5 %. */
export const VERIFY_GOODPUT_SHARE = 0.95;
/** Attempts per snippet (the first limit, steps up, the largest clean cap last). */
export const VERIFY_MAX_ATTEMPTS = 4;

/** A cell as judged: a CellResult straight from the runner, or a StoredCell read back. */
export interface VerifyCellLike {
  id?: number;
  config: CellConfig;
  status: CellStatus;
  failure?: string | null;
  load?: LoadResult | null;
  stats?: StatsSummary | null;
  exit?: ExitInfo | null;
  flags: Flag[];
  finishedAt?: string | null;
  /** The exact Node.js version it ran, where recorded: what its snippets then name. */
  nodeVersion?: string | null;
}

export interface VerifyJudgement {
  /** null: the cell did not finish (cancelled, interrupted, running): no verdict either way. */
  pass: boolean | null;
  /** Why it failed, in words (empty when it passed). */
  reasons: string[];
  goodput: number | null;
  p99Us: number | null;
  errorPct: number | null;
  peakBytes: number | null;
  measuredSec: number | null;
  restarts: number;
  /**
   * The goodput check: one-sided Welch against VERIFY_GOODPUT_SHARE of the matrix's estimate (pBelow null: means only).
   */
  goodputCheck: { expected: number; pBelow: number | null; belowShare: boolean; failed: boolean } | null;
}

const MIB = 2 ** 20;
const fmtMiB = (bytes: number): string => `${fmtNum(bytes / MIB)} MB`;
const pct = (x: number): string => `${fmtNum(x, x < 10 ? 1 : 0)} %`;
const sharePct = fmtNum((1 - VERIFY_GOODPUT_SHARE) * 100);

/**
 * Pass = finished ok, no OOM kill, no restart, failed requests within the answer's limit, and goodput
 * not significantly below 95 % of the matrix's estimate for the configuration (one-sided Welch test
 * of the cell's batch-means interval against the configuration's interval, α = 0.05; the means alone
 * where either side has no interval). p99 and the peak are reported, not judged.
 */
export function judgeVerifyCell(c: VerifyCellLike, d: VerifyDescriptor): VerifyJudgement {
  const load = c.load ?? null;
  const peakBytes = c.stats?.memPeakBytes ?? c.stats?.memMaxBytes ?? null;
  const restarts = c.exit?.restarts ?? 0;
  const base = { peakBytes, restarts, measuredSec: load?.measuredSec ?? null };
  if (c.status === 'running' || c.status === 'cancelled' || c.status === 'interrupted') {
    return {
      ...base,
      pass: null,
      reasons: [c.status === 'running' ? 'not finished' : c.status],
      goodput: null,
      p99Us: null,
      errorPct: null,
      goodputCheck: null,
    };
  }
  const reasons: string[] = [];
  const oom = c.status === 'oom' || Boolean(c.exit?.oomKilled) || c.flags.some((f) => f.kind === 'oom-killed');
  if (oom) {
    // What follows an OOM kill (restarted workers, lost requests) is its consequence: the kill is the verdict.
    return {
      ...base,
      pass: false,
      reasons: [`OOM-killed${c.exit?.exitCode != null ? ` (exit ${c.exit.exitCode})` : ''}`],
      goodput: load?.goodputMean ?? null,
      p99Us: load?.latencyUs.p99 ?? null,
      errorPct: null,
      goodputCheck: null,
    };
  }
  if (restarts > 0 || c.flags.some((f) => f.kind === 'restarts')) {
    const threshold = c.config.recycleRssMb ? ` (max_memory_restart ${c.config.recycleRssMb}M)` : '';
    reasons.push(`${restarts > 0 ? `${restarts} restart${restarts === 1 ? '' : 's'}` : 'restarts'}${threshold}`);
  }
  if (c.status === 'failed') reasons.push(`failed: ${(c.failure ?? 'no reason given').split('\n')[0]!.slice(0, 160)}`);
  if (!load) {
    if (!reasons.length) reasons.push('no load result');
    return { ...base, pass: false, reasons, goodput: null, p99Us: null, errorPct: null, goodputCheck: null };
  }
  const failed = load.errors + load.timeouts + load.non2xx;
  const attempts = load.requests + load.errors + load.timeouts;
  const errorPct = attempts > 0 ? (failed / attempts) * 100 : 0;
  if (errorPct > d.expected.maxErrorPct)
    reasons.push(`${pct(errorPct)} of requests failed (the answer allows ${pct(d.expected.maxErrorPct)})`);
  const goodput = load.goodputMean ?? load.rpsMean;
  const mine = summarizeOne(goodput, load.perSecondGood?.length ? load.perSecondGood : (load.perSecondRps ?? null));
  const a = estimateOf(mine);
  const e = d.expected;
  const b = e.se !== null && e.df !== null ? { mean: e.goodput, se: e.se, df: e.df } : null;
  const belowShare = goodput < VERIFY_GOODPUT_SHARE * e.goodput;
  const pBelow = a && b ? welch(a, b, VERIFY_GOODPUT_SHARE).pBelow : null;
  const goodputFailed = pBelow !== null ? pBelow <= ALPHA : belowShare;
  if (goodputFailed) {
    const p = pBelow === null ? '' : ` (one-sided p ${pBelow < 0.001 ? '< 0.001' : fmtNum(pBelow, 3)})`;
    reasons.push(
      `goodput ${fmtNum(goodput)} req/s, below ${fmtNum(VERIFY_GOODPUT_SHARE * 100)} % of the matrix's ` +
        `${fmtNum(e.goodput)}${p}`,
    );
  }
  if (c.status !== 'ok' && !reasons.length) reasons.push(c.status);
  return {
    ...base,
    pass: reasons.length === 0,
    reasons,
    goodput,
    p99Us: load.latencyUs.p99,
    errorPct,
    goodputCheck: { expected: e.goodput, pBelow, belowShare, failed: goodputFailed },
  };
}

/**
 * The settings a verification cell ran, read from the cell itself (so a snippet carries exactly what ran): its
 * replicas, flags and Node.js too — the exact version it ran where recorded, else the one its matrix named.
 */
export function settingsOfCell(config: CellConfig, nodeVersion?: string | null): DeploySettings {
  const d = config.verify;
  return {
    mode: config.mode,
    workers: config.workers,
    cpuMillis: config.cpuMillis,
    cpuRequestMillis: Math.min(d?.cpuRequestMillis ?? config.cpuMillis, config.cpuMillis),
    memoryMb: config.memoryMb,
    recycleRssMb: config.recycleRssMb ?? null,
    heapMb: heapFlagOf(config.env),
    ...runtimeOf({ replicas: config.replicas, node: nodeVersion ?? config.node, nodeFlags: config.nodeFlags }),
  };
}

/** "pm2 × 1, 0.5 CPU, 128 MB, max_memory_restart 57M, --max-old-space-size=48" ("2 containers, each …", Node.js). */
export function settingsWords(s: DeploySettings): string {
  const how = s.mode === 'single' ? 'a single process' : `${s.mode} × ${s.workers}`;
  return [
    ...(s.replicas ? [`${s.replicas} containers, each`] : []),
    how,
    exactCpu(Math.round(s.cpuMillis)),
    `${s.memoryMb} MB`,
    ...(s.recycleRssMb !== null ? [`max_memory_restart ${s.recycleRssMb}M`] : []),
    ...(s.heapMb !== null ? [`--max-old-space-size=${s.heapMb}`] : []),
    ...(s.node ? [`Node.js ${s.node}`] : []),
    ...(s.nodeFlags ? [s.nodeFlags.join(' ')] : []),
  ].join(', ');
}

export interface VerifyAttempt {
  /** The cell's # in its run (index + 1) and its stored id (0 when not stored). */
  cellNumber: number;
  cellId: number;
  attempt: number;
  final: boolean;
  round: string;
  basis: string;
  settings: DeploySettings;
  judgement: VerifyJudgement;
  finishedAt: string | null;
  /** "64 MB (max_memory_restart 28M, --max-old-space-size=24): OOM-killed". */
  summary: string;
}

export type VerifyState = 'verified' | 'fallback' | 'incomplete';

export interface SnippetVerification {
  kind: SnippetKind;
  state: VerifyState;
  round: string;
  attempts: VerifyAttempt[];
  /** The attempt that passed ('verified'). */
  passed: VerifyAttempt | null;
  /**
   * What the snippet carries: the passing cell's settings, the fallback (the matrix's clean cap, no thresholds), or
   * null ('incomplete': the snippet stays unverified).
   */
  settings: DeploySettings | null;
  /** The sentence the snippet opens with (without a comment marker). */
  line: string;
}

export interface Verification {
  key: string;
  label: string;
  kinds: Partial<Record<SnippetKind, SnippetVerification>>;
}

/** A UTC time a snippet can state, the same in every time zone: "2026-01-01 10:02 UTC". */
export const utcMinute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** "64 MB (max_memory_restart 28M, --max-old-space-size=24)". */
function limitWords(s: DeploySettings): string {
  const extra = [
    ...(s.recycleRssMb !== null ? [`max_memory_restart ${s.recycleRssMb}M`] : []),
    ...(s.heapMb !== null ? [`--max-old-space-size=${s.heapMb}`] : []),
  ];
  return `${s.memoryMb} MB${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

function attemptOf(c: VerifyCellLike & { id?: number }, d: VerifyDescriptor): VerifyAttempt {
  const settings = settingsOfCell(c.config, c.nodeVersion);
  const judgement = judgeVerifyCell(c, d);
  const verdict =
    judgement.pass === null
      ? `not finished (${judgement.reasons.join(', ')})`
      : judgement.pass
        ? 'passed'
        : judgement.reasons.join('; ');
  return {
    cellNumber: c.config.index + 1,
    cellId: c.id ?? 0,
    attempt: d.attempt,
    final: d.final,
    round: d.round,
    basis: d.basis,
    settings,
    judgement,
    finishedAt: c.finishedAt ?? null,
    summary: `${limitWords(settings)}: ${verdict}`,
  };
}

/** What a passed verification says: "ran 10 s exactly as emitted on …: no OOM kill, no restart, goodput …, p99 …". */
export function passedWords(a: VerifyAttempt, d: Pick<VerifyDescriptor, 'expected'>): string {
  const j = a.judgement;
  const g = j.goodputCheck;
  const goodput =
    j.goodput === null
      ? 'goodput unknown'
      : !g
        ? `goodput ${fmtNum(j.goodput)} req/s`
        : !g.belowShare
          ? `goodput ${fmtNum(j.goodput)} req/s (within ${sharePct} % of the matrix's ${fmtNum(g.expected)})`
          : `goodput ${fmtNum(j.goodput)} req/s (below ${fmtNum(VERIFY_GOODPUT_SHARE * 100)} % of the ` +
            `matrix's ${fmtNum(g.expected)} on the means, not significantly: one-sided p ` +
            `${fmtNum(g.pBelow ?? 1, 2)})`;
  const errors =
    j.errorPct === null || j.errorPct === 0
      ? 'no failed requests'
      : `${pct(j.errorPct)} failed requests (the answer allows ${pct(d.expected.maxErrorPct)})`;
  const when = a.finishedAt ? ` on ${utcMinute(a.finishedAt)}` : '';
  const secs = j.measuredSec !== null ? `${fmtNum(j.measuredSec)} s ` : '';
  const peak = j.peakBytes !== null ? `, peak memory ${fmtMiB(j.peakBytes)} of ${a.settings.memoryMb} MB` : '';
  return (
    `ran ${secs}exactly as emitted${when} (cell ${a.cellNumber}): no OOM kill, no restart, ${errors}, ` +
    `${goodput}, p99 ${fmtUs(j.p99Us)}${peak}`
  );
}

function snippetVerification(kind: SnippetKind, cells: (VerifyCellLike & { id?: number })[]): SnippetVerification {
  const attempts = cells
    .map((c) => attemptOf(c, c.config.verify!))
    .sort((x, y) => x.attempt - y.attempt || x.cellNumber - y.cellNumber);
  const d = cells[0]!.config.verify!;
  const round = d.round;
  const passed = attempts.find((a) => a.judgement.pass === true) ?? null;
  const failedBefore = (upTo: VerifyAttempt | null): string => {
    const before = attempts.filter(
      (a) => a !== upTo && a.judgement.pass === false && (!upTo || a.attempt < upTo.attempt),
    );
    return before.map((a) => a.summary).join('; ');
  };
  if (passed) {
    const pd = cells.find((c) => c.config.index + 1 === passed.cellNumber)!.config.verify!;
    const stepped = failedBefore(passed);
    return {
      kind,
      state: 'verified',
      round,
      attempts,
      passed,
      settings: passed.settings,
      line: `Verified: ${passedWords(passed, pd)}.${stepped ? ` Stepped up from ${stepped}.` : ''}`,
    };
  }
  const last = attempts[attempts.length - 1]!;
  if (last.final && last.judgement.pass === false) {
    const s = last.settings;
    const fallback: DeploySettings = { ...s, memoryMb: d.fallbackMb, recycleRssMb: null, heapMb: null };
    // The cap the matrix ran clean in the configuration's own mode; not PM2's when the mode was not PM2, and
    // not safe when an attempt at or above it was OOM-killed: said so, never implied.
    const oomAtOrAbove = attempts.some((a) => a.settings.memoryMb >= d.fallbackMb && /OOM/.test(a.summary));
    const otherMode = kind === 'pm2' && s.mode === 'pm2' && !/pm2/.test(d.label);
    const caveat = oomAtOrAbove
      ? ` An attempt at or above that cap was OOM-killed${otherMode ? ' under PM2' : ''}: no limit measured ` +
        'here is safe for this snippet; measure larger caps.'
      : otherMode
        ? ' That cap was measured without PM2; PM2 adds its daemon.'
        : '';
    return {
      kind,
      state: 'fallback',
      round,
      attempts,
      passed: null,
      settings: fallback,
      line:
        `Not verified: nothing passed when run exactly as emitted (${utcMinute(last.finishedAt ?? round)}; ` +
        `${failedBefore(null)}), so it carries the last measured clean setting: the ${d.fallbackMb} MB cap the ` +
        `matrix ran ${d.label} clean at, with no restart threshold or heap flag.${caveat}`,
    };
  }
  return {
    kind,
    state: 'incomplete',
    round,
    attempts,
    passed: null,
    settings: null,
    line:
      `Unverified: its verification of ${utcMinute(round)} stopped after ${attempts.length} ` +
      `attempt${attempts.length === 1 ? '' : 's'} with none ` +
      `passed${failedBefore(null) ? ` (${failedBefore(null)})` : ''}.`,
  };
}

const isVerifyCell = (c: { config: CellConfig }): boolean =>
  c.config.phase === 'verify' && c.config.verify !== undefined;

/** The run without its verification cells: what the answer is computed from. */
export function gridCells<T extends { config: CellConfig }>(cells: readonly T[]): T[] {
  return cells.filter((c) => c.config.phase !== 'verify');
}

/**
 * What the stored verification cells of a run say about configuration `key` (default: the one
 * verified last), per snippet kind: the latest round that settled it (verified or fallback), else the
 * latest that did not finish. null when no cell verified it.
 */
export function verificationOf(
  run: { cells: readonly (VerifyCellLike & { id?: number })[] },
  key?: string,
): Verification | null {
  const all = run.cells.filter(isVerifyCell);
  const k =
    key ??
    [...all]
      .sort((a, b) => a.config.verify!.round.localeCompare(b.config.verify!.round) || a.config.index - b.config.index)
      .pop()?.config.verify!.key;
  if (k === undefined) return null;
  const mine = all.filter((c) => c.config.verify!.key === k);
  if (!mine.length) return null;
  const kinds: Verification['kinds'] = {};
  for (const kind of SNIPPET_KINDS) {
    const withKind = mine.filter((c) => c.config.verify!.snippets.includes(kind));
    if (!withKind.length) continue;
    const rounds = [...new Set(withKind.map((c) => c.config.verify!.round))].sort();
    const byRound = rounds.map((r) =>
      snippetVerification(
        kind,
        withKind.filter((c) => c.config.verify!.round === r),
      ),
    );
    kinds[kind] = [...byRound].reverse().find((v) => v.state !== 'incomplete') ?? byRound[byRound.length - 1]!;
  }
  return { key: k, label: mine[0]!.config.verify!.label, kinds };
}
