/**
 * Verification of the deployable: after the decision, the picked configuration runs exactly as each
 * deploy snippet deploys it (engine/verify-plan.ts: memory and CPU limits, the launch mode — PM2 with
 * its max_memory_restart and heap flag, cluster with the worker variable, single —) under the
 * matrix's load for at least its duration. A memory failure (OOM kill, restarts) steps the memory
 * limit up toward the largest clean cap the matrix measured and runs again; any other failure (goodput,
 * failed requests) is repeated once at the same limit, then ends that snippet's verification
 * (deploy/verification.ts afterFailure). The cells are stored with the run (phase 'verify'), and the
 * snippets read the verdicts back from them (deploy/verification.ts).
 *
 * Called by the matrix run after the grid (matrix.verify), and by `rightsize verify RUN [--cell N]`
 * on any stored run, through the run's phase context (engine/phases.ts).
 */
import { answerKey } from '../analysis/size/sizing.ts';
import { recommend } from '../analysis/recommend.ts';
import type { Slo } from '../analysis/types.ts';
import { nothingToDeploy } from '../deploy/snippets.ts';
import type { DeploySettings, SnippetKind } from '../deploy/settings.ts';
import {
  afterFailure,
  failureWords,
  goodputWords,
  gridCells,
  judgeVerifyCell,
  settingsWords,
  verificationOf,
  VERIFY_MAX_ATTEMPTS,
  type Verification,
  type VerifyJudgement,
} from '../deploy/verification.ts';
import type { PhaseContext } from './phases.ts';
import {
  groupKinds,
  nextLimit,
  planSettings,
  planVerification,
  serverRssMb,
  verifyCellConfig,
  type VerifyPlan,
} from './verify-plan.ts';

export interface VerifyOptions {
  /** Verify this configuration (analysis configurationKey) instead of the answer's pick: `verify RUN --cell N`. */
  cellKey?: string;
  /** The answer as `report --slo` computes it (default: the run's plain answer). */
  slo?: Slo;
  marginPct?: number;
  /** At most this many attempts per snippet (default VERIFY_MAX_ATTEMPTS). */
  maxAttempts?: number;
}

export interface VerifyOutcome {
  /** The configuration verified, or null when there was nothing to verify (skipped says why). */
  key: string | null;
  label: string | null;
  skipped?: string;
  /** What the stored cells now say, per snippet kind. */
  verification: Verification | null;
  /** Verification cells run. */
  cells: number;
  /** Stopped before every snippet had a verdict (cancelled, or a cell that did not finish). */
  stopped: boolean;
}

const KIND_NAMES: Record<SnippetKind, string> = { pm2: 'PM2', kubernetes: 'Kubernetes', compose: 'Compose' };
const kindsWords = (ks: readonly SnippetKind[]): string => ks.map((k) => KIND_NAMES[k]).join(' + ');

interface KindState {
  kind: SnippetKind;
  memoryMb: number;
  attempt: number;
  basis: string;
  /** The next attempt repeats a failure that was not memory's at the same limit (a second one stops). */
  repeat: boolean;
  done: boolean;
}

function verdictWords(j: VerifyJudgement): string {
  if (j.pass === null) return `did not finish (${j.reasons.join(', ')})`;
  if (!j.pass) return `failed: ${failureWords(j)}`;
  const mb = j.peakBytes !== null ? `, peak ${Math.round(j.peakBytes / 2 ** 20)} MB` : '';
  const p99 = ((j.p99Us ?? 0) / 1000).toFixed(2);
  return `passed: no OOM kill, no restart, ${goodputWords(j)}, p99 ${p99} ms${mb}`;
}

/**
 * After a failed attempt: a memory failure steps the limit up (the ceiling on the last attempt); any other is repeated
 * once at the same limit; done after a pass, a second non-memory failure, the final attempt, or the last allowed one.
 */
function advance(s: KindState, j: VerifyJudgement, final: boolean, max: number, ceilingMb: number): void {
  const next = j.pass ? null : afterFailure(j, s.repeat);
  const stepLimit = next === 'step-up' && !final;
  const repeatLimit = next === 'repeat' && s.attempt < max;
  if (!stepLimit && !repeatLimit) {
    s.done = true;
    return;
  }
  const from = s.memoryMb;
  if (stepLimit) s.memoryMb = s.attempt + 1 >= max ? ceilingMb : nextLimit(from, ceilingMb);
  s.basis = stepLimit
    ? `stepped up from ${from} MB (${j.reasons.join('; ')})`
    : `repeated at ${from} MB: ${failureWords(j)} (the host may have been busy)`;
  s.repeat = repeatLimit;
  s.attempt++;
}

/**
 * Runs the verification of the run's answer (or of `opts.cellKey`) through `ctx`, announcing each
 * round and logging each attempt. Never throws for a failed attempt: that is a verdict.
 */
export async function verifyAnswer(ctx: PhaseContext, opts: VerifyOptions = {}): Promise<VerifyOutcome> {
  const max = Math.max(1, opts.maxAttempts ?? VERIFY_MAX_ATTEMPTS);
  const run = ctx.store.getRun(ctx.runId);
  if (!run) throw new Error(`run ${ctx.runId} is not in the history`);
  const cells = gridCells(run.cells);
  const rec = recommend(
    { ...run, cells },
    {
      samples: ctx.store.getRunSamples(ctx.runId),
      ...(opts.slo ? { slo: opts.slo } : {}),
      ...(opts.marginPct !== undefined ? { marginPct: opts.marginPct } : {}),
    },
  );
  const key = opts.cellKey ?? answerKey(rec);
  const skip = (why: string): VerifyOutcome => {
    ctx.announce('verify', `nothing to verify: ${why}`, 0);
    return { key: null, label: null, skipped: why, verification: null, cells: 0, stopped: false };
  };
  if (key === null) return skip(nothingToDeploy(rec));
  const plan = planVerification(cells, rec, key, ctx.matrix.durationSec);
  if (typeof plan === 'string') return skip(plan);
  if (!plan.kinds.length) return skip(`no snippet of ${plan.label} can be run as emitted here`);

  const round = new Date().toISOString();
  const states: KindState[] = plan.kinds.map((kind) => ({
    kind,
    memoryMb: plan.start[kind]!.memoryMb,
    attempt: 1,
    basis: plan.start[kind]!.basis,
    repeat: false,
    done: false,
  }));
  let ran = 0;
  let stopped = false;
  const settingsOf = (s: KindState): DeploySettings => planSettings(plan, s.kind, s.memoryMb);
  while (!stopped) {
    const pending = states.filter((s) => !s.done);
    if (!pending.length) break;
    const groups = groupKinds(pending.map((s) => ({ kind: s.kind, settings: settingsOf(s) })));
    const first = ran === 0;
    const asDeployed = groups.map((g) => `${kindsWords(g.kinds)} as ${settingsWords(g.settings)}`).join('; ');
    ctx.announce(
      'verify',
      `${plan.label} ${first ? '' : 'again, '}exactly as the snippets deploy it: ` +
        `${asDeployed} (${plan.durationSec} s each)`,
      groups.length,
    );
    for (const g of groups) {
      if (ctx.signal?.aborted) {
        stopped = true;
        break;
      }
      const mine = states.filter((s) => g.kinds.includes(s.kind));
      const attempt = Math.max(...mine.map((s) => s.attempt));
      const final = g.settings.memoryMb >= plan.ceilingMb || attempt >= max;
      const cell = verifyCellConfig(plan, g.kinds, g.settings, { round, attempt, final, basis: mine[0]!.basis });
      const result = await ctx.runCell(cell);
      ran++;
      const j = judgeVerifyCell(result, cell.verify!);
      const line =
        `verify: ${kindsWords(g.kinds)} attempt ${attempt}${final ? ' (last)' : ''}, ` +
        `${settingsWords(g.settings)}: ${verdictWords(j)}`;
      ctx.log(j.pass ? 'info' : 'warn', line);
      if (j.pass === null) {
        stopped = true;
        break;
      }
      // A server process's RSS this cell measured (per-process readings, where the engine has them):
      // PM2's next restart threshold stays above it instead of restarting the process in a loop.
      const rss = serverRssMb([result]);
      if (rss !== undefined && rss > (plan.measured.serverRssMb ?? 0)) plan.measured.serverRssMb = rss;
      for (const s of mine) advance(s, j, final, max, plan.ceilingMb);
    }
  }
  const verification = verificationOf({ cells: ctx.store.getRun(ctx.runId)?.cells ?? [] }, key);
  const summary = plan.kinds
    .map((k) => {
      const v = verification?.kinds[k];
      const state = !v
        ? 'not run'
        : v.state === 'verified'
          ? `verified at ${v.settings!.memoryMb} MB`
          : v.state === 'fallback'
            ? `not verified, falls back to the ${v.settings!.memoryMb} MB cap`
            : 'unfinished';
      return `${KIND_NAMES[k]} ${state}`;
    })
    .join(', ');
  ctx.announce('verify', `${plan.label} done: ${summary}`, 0);
  return { key, label: plan.label, verification, cells: ran, stopped };
}

export type { VerifyPlan };
