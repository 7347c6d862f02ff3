/**
 * Verification of the deployable, read back from a run's stored cells: each verification cell
 * (config.phase 'verify', config.verify the descriptor below) ran one snippet kind's settings exactly
 * as emitted (deploy/settings.ts), and is judged here by one rule (judgeVerifyCell) that the engine
 * (engine/verify.ts, deciding by afterFailure whether to step the limit up, repeat or stop) and every
 * reader (the snippets, report, the UI) share. Pure: a run stored before verification existed simply has
 * none, and `rightsize verify RUN`
 * appends the cells later.
 */
import { fmtNum, fmtUs } from '../common/format.ts';
import type { CellConfig, CellStatus, ExitInfo, Flag, LoadResult, StatsSummary } from '../model/types.ts';
import { SNIPPET_KINDS, type DeploySettings, type SnippetKind } from './settings.ts';
import type { VerifyDescriptor } from '../model/verify.ts';
export type { VerifyDescriptor };
import { limitWords, settingsOfCell, settingsWords } from './verify-settings.ts';
export { settingsOfCell, settingsWords };
import { goodputReason, goodputWords, judgeGoodput, type GoodputCheck } from './verify-goodput.ts';
export {
  comparedWords,
  goodputWords,
  intervalWords,
  judgeGoodput,
  type GoodputCheck,
  type GoodputInterval,
  type GoodputVerdict,
} from './verify-goodput.ts';

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
  /**
   * The failure is memory's (an OOM kill, a restart, a process that ran out of memory): only such a failure raises the
   * limit. false when it passed or failed otherwise (goodput, failed requests).
   */
  memoryCaused: boolean;
  goodput: number | null;
  p99Us: number | null;
  errorPct: number | null;
  peakBytes: number | null;
  measuredSec: number | null;
  restarts: number;
  goodputCheck: GoodputCheck | null;
}

const MIB = 2 ** 20;
const fmtMiB = (bytes: number): string => `${fmtNum(bytes / MIB)} MB`;
const pct = (x: number): string => `${fmtNum(x, x < 10 ? 1 : 0)} %`;

/**
 * A failed cell whose own words say memory ran out: V8's heap limit in the log tail, or the exit codes of a V8 abort
 * (134) and a SIGKILL (137, the kernel's OOM killer where the engine did not report it).
 */
const MEMORY_FAILURE = /heap out of memory|reached heap limit|allocation failed|ENOMEM|exited with code 13[47]\b/i;

type Judged = Pick<VerifyJudgement, 'goodput' | 'p99Us' | 'errorPct' | 'goodputCheck'>;
const UNJUDGED: Judged = { goodput: null, p99Us: null, errorPct: null, goodputCheck: null };

/**
 * Pass = finished ok, no OOM kill, no restart, failed requests within the answer's limit, and goodput not shown below
 * 95 % of the matrix's estimate (judgeGoodput: shown above it passes goodput, too wide to tell leaves it not judged).
 * p99 and the peak are reported, not judged. Only a memory failure (memoryCaused) raises the limit.
 */
export function judgeVerifyCell(c: VerifyCellLike, d: VerifyDescriptor): VerifyJudgement {
  const load = c.load ?? null;
  const peakBytes = c.stats?.memPeakBytes ?? c.stats?.memMaxBytes ?? null;
  const restarts = c.exit?.restarts ?? 0;
  const base = { peakBytes, restarts, measuredSec: load?.measuredSec ?? null, memoryCaused: false };
  if (c.status === 'running' || c.status === 'cancelled' || c.status === 'interrupted')
    return { ...base, ...UNJUDGED, pass: null, reasons: [c.status === 'running' ? 'not finished' : c.status] };
  const oom = c.status === 'oom' || Boolean(c.exit?.oomKilled) || c.flags.some((f) => f.kind === 'oom-killed');
  if (oom) {
    // What follows an OOM kill (restarted workers, lost requests) is its consequence: the kill is the verdict.
    const reason = `OOM-killed${c.exit?.exitCode != null ? ` (exit ${c.exit.exitCode})` : ''}`;
    return {
      ...base,
      ...UNJUDGED,
      pass: false,
      reasons: [reason],
      memoryCaused: true,
      goodput: load?.goodputMean ?? null,
      p99Us: load?.latencyUs.p99 ?? null,
    };
  }
  const reasons: string[] = [];
  const restarted = restarts > 0 || c.flags.some((f) => f.kind === 'restarts');
  if (restarted) {
    const threshold = c.config.recycleRssMb ? ` (max_memory_restart ${c.config.recycleRssMb}M)` : '';
    reasons.push(`${restarts > 0 ? `${restarts} restart${restarts === 1 ? '' : 's'}` : 'restarts'}${threshold}`);
  }
  const memoryFailed = c.status === 'failed' && MEMORY_FAILURE.test(c.failure ?? '');
  if (c.status === 'failed') reasons.push(`failed: ${(c.failure ?? 'no reason given').split('\n')[0]!.slice(0, 160)}`);
  const memoryCaused = restarted || memoryFailed;
  if (!load) {
    if (!reasons.length) reasons.push('no load result');
    return { ...base, ...UNJUDGED, pass: false, reasons, memoryCaused };
  }
  const failed = load.errors + load.timeouts + load.non2xx;
  const attempts = load.requests + load.errors + load.timeouts;
  const errorPct = attempts > 0 ? (failed / attempts) * 100 : 0;
  if (errorPct > d.expected.maxErrorPct)
    reasons.push(`${pct(errorPct)} of requests failed (the answer allows ${pct(d.expected.maxErrorPct)})`);
  const goodput = load.goodputMean ?? load.rpsMean;
  const goodputCheck = judgeGoodput(load, d.expected);
  if (goodputCheck.failed) reasons.push(goodputReason(goodput, goodputCheck));
  if (c.status !== 'ok' && !reasons.length) reasons.push(c.status);
  const pass = reasons.length === 0;
  return {
    ...base,
    pass,
    reasons,
    memoryCaused: !pass && memoryCaused,
    goodput,
    p99Us: load.latencyUs.p99,
    errorPct,
    goodputCheck,
  };
}

/** What follows a failed attempt (engine/verify.ts runs it; the readers below recognise where it stopped). */
export type AfterFailure = 'step-up' | 'repeat' | 'stop';

/**
 * Memory failures step the limit up. Any other failure (goodput, failed requests) is not a memory problem: a larger
 * limit would not fix it, so it is repeated once at the same limit (the host may have been busy), then it stops.
 */
export function afterFailure(j: Pick<VerifyJudgement, 'memoryCaused'>, wasRepeat: boolean): AfterFailure {
  if (j.memoryCaused) return 'step-up';
  return wasRepeat ? 'stop' : 'repeat';
}

/** "failed: …" words of a failed judgement, saying when it was not memory's. */
export function failureWords(j: Pick<VerifyJudgement, 'reasons' | 'memoryCaused'>): string {
  return `${j.reasons.join('; ')}${j.memoryCaused ? '' : ': not a memory problem'}`;
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

/** An attempt's verdict in words: "passed", "OOM-killed (exit 137)", "goodput …: not a memory problem". */
export function verdictOf(j: Pick<VerifyJudgement, 'pass' | 'reasons' | 'memoryCaused' | 'goodputCheck'>): string {
  if (j.pass === null) return `not finished (${j.reasons.join(', ')})`;
  if (!j.pass) return failureWords(j);
  return j.goodputCheck?.verdict === 'not-judged' ? 'passed (goodput not judged: the interval is too wide)' : 'passed';
}

function attemptOf(c: VerifyCellLike & { id?: number }, d: VerifyDescriptor): VerifyAttempt {
  const settings = settingsOfCell(c.config, c.nodeVersion);
  const judgement = judgeVerifyCell(c, d);
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
    summary: `${limitWords(settings)}: ${verdictOf(judgement)}`,
  };
}

/** What a passed verification says: "ran 10 s exactly as emitted on …: no OOM kill, no restart, goodput …, p99 …". */
export function passedWords(a: VerifyAttempt, d: Pick<VerifyDescriptor, 'expected'>): string {
  const j = a.judgement;
  const errors =
    j.errorPct === null || j.errorPct === 0
      ? 'no failed requests'
      : `${pct(j.errorPct)} failed requests (the answer allows ${pct(d.expected.maxErrorPct)})`;
  const when = a.finishedAt ? ` on ${utcMinute(a.finishedAt)}` : '';
  const secs = j.measuredSec !== null ? `${fmtNum(j.measuredSec)} s ` : '';
  const peak = j.peakBytes !== null ? `, peak memory ${fmtMiB(j.peakBytes)} of ${a.settings.memoryMb} MB` : '';
  return (
    `ran ${secs}exactly as emitted${when} (cell ${a.cellNumber}): no OOM kill, no restart, ${errors}, ` +
    `${goodputWords(j)}, p99 ${fmtUs(j.p99Us)}${peak}`
  );
}

/**
 * The attempt repeated an earlier one at the same limit after a failure that was not memory's (afterFailure 'repeat'):
 * what the engine did, recognised from the attempts themselves.
 */
function isRepeat(a: VerifyAttempt, attempts: readonly VerifyAttempt[]): boolean {
  const prev = attempts.filter((x) => x.attempt < a.attempt).pop();
  return (
    prev !== undefined &&
    prev.judgement.pass === false &&
    !prev.judgement.memoryCaused &&
    prev.settings.memoryMb === a.settings.memoryMb
  );
}

/** The round ended on a failure that was not memory's, repeated once at the same limit (afterFailure 'stop'). */
const stoppedOnNonMemory = (last: VerifyAttempt, attempts: readonly VerifyAttempt[]): boolean =>
  last.judgement.pass === false && afterFailure(last.judgement, isRepeat(last, attempts)) === 'stop';

/** " Stepped up from 64 MB: OOM-killed. Passed when repeated at the same limit after 96 MB: goodput …." */
function historyWords(passed: VerifyAttempt, failed: readonly VerifyAttempt[]): string {
  const lower = failed.filter((a) => a.settings.memoryMb < passed.settings.memoryMb);
  const same = failed.filter((a) => a.settings.memoryMb >= passed.settings.memoryMb);
  return (
    (lower.length ? ` Stepped up from ${lower.map((a) => a.summary).join('; ')}.` : '') +
    (same.length ? ` Passed when repeated at the same limit after ${same.map((a) => a.summary).join('; ')}.` : '')
  );
}

/** Why a fallback: what ended the round, and the caveats about the cap it falls back to. */
function fallbackCaveat(kind: SnippetKind, attempts: readonly VerifyAttempt[], d: VerifyDescriptor): string {
  const last = attempts[attempts.length - 1]!;
  const s = last.settings;
  // The cap the matrix ran clean in the configuration's own mode; not PM2's when the mode was not PM2, and
  // not safe when an attempt at or above it was OOM-killed: said so, never implied.
  const oomAtOrAbove = attempts.some((a) => a.settings.memoryMb >= d.fallbackMb && /OOM/.test(a.summary));
  const otherMode = kind === 'pm2' && s.mode === 'pm2' && !/pm2/.test(d.label);
  const notMemory = stoppedOnNonMemory(last, attempts)
    ? ' The memory limit was not raised: that failure is not a memory problem, and it failed again when repeated ' +
      `at ${s.memoryMb} MB.`
    : '';
  const cap = oomAtOrAbove
    ? ` An attempt at or above that cap was OOM-killed${otherMode ? ' under PM2' : ''}: no limit measured ` +
      'here is safe for this snippet; measure larger caps.'
    : otherMode
      ? ' That cap was measured without PM2; PM2 adds its daemon.'
      : '';
  return notMemory + cap;
}

function snippetVerification(kind: SnippetKind, cells: (VerifyCellLike & { id?: number })[]): SnippetVerification {
  const attempts = cells
    .map((c) => attemptOf(c, c.config.verify!))
    .sort((x, y) => x.attempt - y.attempt || x.cellNumber - y.cellNumber);
  const d = cells[0]!.config.verify!;
  const round = d.round;
  const passed = attempts.find((a) => a.judgement.pass === true) ?? null;
  const failed = attempts.filter((a) => a.judgement.pass === false);
  const failedWords = failed.map((a) => a.summary).join('; ');
  if (passed) {
    const pd = cells.find((c) => c.config.index + 1 === passed.cellNumber)!.config.verify!;
    const before = failed.filter((a) => a.attempt < passed.attempt);
    return {
      kind,
      state: 'verified',
      round,
      attempts,
      passed,
      settings: passed.settings,
      line: `Verified: ${passedWords(passed, pd)}.${historyWords(passed, before)}`,
    };
  }
  const last = attempts[attempts.length - 1]!;
  if (last.judgement.pass === false && (last.final || stoppedOnNonMemory(last, attempts))) {
    const fallback: DeploySettings = { ...last.settings, memoryMb: d.fallbackMb, recycleRssMb: null, heapMb: null };
    return {
      kind,
      state: 'fallback',
      round,
      attempts,
      passed: null,
      settings: fallback,
      line:
        `Not verified: nothing passed when run exactly as emitted (${utcMinute(last.finishedAt ?? round)}; ` +
        `${failedWords}), so it carries the last measured clean setting: the ${d.fallbackMb} MB cap the ` +
        `matrix ran ${d.label} clean at, with no restart threshold or heap flag.${fallbackCaveat(kind, attempts, d)}`,
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
      `attempt${attempts.length === 1 ? '' : 's'} with none passed${failedWords ? ` (${failedWords})` : ''}.`,
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
