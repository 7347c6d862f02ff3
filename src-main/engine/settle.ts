// Settling: when the grid leaves the headline undecided, more repetitions of only the contenders,
// interleaved in a shuffled order, until the answer is confident or equivalent or the budget is
// spent. A lower bound in the way (client-bound, host-busy) cannot be settled by repetition: then
// the phase says what would decide it and runs nothing.
import { recommend } from '../analysis/recommend.ts';
import { answerPick } from '../analysis/size/sizing.ts';
import { configurationKey } from '../analysis/decide/group.ts';
import { who } from '../analysis/explain/words.ts';
import { onWhat } from '../analysis/names.ts';
import type { ConfigurationSummary } from '../analysis/types.ts';
import { fmtDuration, fmtNum } from '../common/format.ts';
import { VERIFY_GOODPUT_SHARE } from '../common/thresholds.ts';
import type { StoredCell } from '../store/index.ts';
import type { PhaseContext } from './phases.ts';
import { seededShuffle } from './matrix.ts';
import type { CellConfig } from '../model/types.ts';

export interface SettleOutcome {
  /**
   * 'not-needed' — decided after the grid; 'settled' — decided by the extra rounds; 'budget' — still undecided when the
   * budget ran out; 'bound' — a lower bound stands in the way; 'off' — budget 0; 'cancelled'.
   */
  result: 'not-needed' | 'settled' | 'budget' | 'bound' | 'off' | 'cancelled' | 'nothing';
  rounds: number;
  cells: number;
  /** Seconds of planned measurement (warm-up + measured) the extra cells took, and the budget. */
  usedSec: number;
  budgetSec: number;
}

/** Planned measured time of a cell (its configured warm-up and measured seconds). */
const cellSec = (c: Pick<CellConfig, 'warmupSec' | 'durationSec'>): number => c.warmupSec + c.durationSec;

/** The settling budget in seconds: a share of the grid's planned measured time. */
export function settleBudgetSec(
  gridCells: readonly Pick<CellConfig, 'warmupSec' | 'durationSec'>[],
  budgetPct: number,
): number {
  return (gridCells.reduce((a, c) => a + cellSec(c), 0) * budgetPct) / 100;
}

/**
 * The stored cell each contender repeats: its latest finished repetition (the same config, a new repetition number).
 */
function templates(cells: readonly StoredCell[], keys: readonly string[]): CellConfig[] {
  return keys.flatMap((k) => {
    const same = cells.filter((c) => c.config.phase !== 'verify' && configurationKey(c.config) === k);
    const last = same.at(-1);
    return last ? [{ ...last.config, repetition: Math.max(...same.map((c) => c.config.repetition)) }] : [];
  });
}

/**
 * Verification shows goodput non-inferior to the pick's estimate only where that estimate is narrow:
 * wider than the margin, the test could not judge it. So, budget allowing, the pick alone is repeated
 * until its 95 % interval is within VERIFY_MARGIN of its mean. The decision is never revisited here.
 */
export const VERIFY_MARGIN = 1 - VERIFY_GOODPUT_SHARE;

async function narrowForVerification(ctx: PhaseContext, key: string, out: SettleOutcome): Promise<SettleOutcome> {
  for (;;) {
    if (ctx.signal?.aborted) return { ...out, result: 'cancelled' };
    const run = ctx.store.getRun(ctx.runId)!;
    const rec = recommend(run, { samples: ctx.store.getRunSamples(ctx.runId) });
    const c = rec.configurations.find((x) => x.key === key);
    const ci = c?.rps?.ci;
    if (!c || !ci || ci.halfWidth <= VERIFY_MARGIN * c.rps!.mean) return out;
    const round = templates(run.cells, [key]);
    const roundSec = round.reduce((a, x) => a + cellSec(x), 0);
    if (round.length === 0 || out.usedSec + roundSec > out.budgetSec + 1e-9) {
      ctx.log(
        'info',
        `the pick's goodput interval is wider than ${fmtNum(VERIFY_MARGIN * 100)} % of it, and the ` +
          'settling budget cannot narrow it: verification may not be able to judge goodput',
      );
      return out;
    }
    out = { ...out, rounds: out.rounds + 1 };
    ctx.announce(
      'settle',
      `narrowing the pick's goodput interval (±${fmtNum((ci.halfWidth / c.rps!.mean) * 100, 1)} %) so verification ` +
        `can judge it: one more repetition of ${who(c)}`,
      1,
    );
    const { index: _index, ...rest } = round[0]!;
    await ctx.runCell({ ...rest, repetition: round[0]!.repetition + 1, phase: 'settle' });
    out = { ...out, cells: out.cells + 1, usedSec: out.usedSec + roundSec };
  }
}

export async function settleAnswer(ctx: PhaseContext): Promise<SettleOutcome> {
  const run0 = ctx.store.getRun(ctx.runId)!;
  const grid = run0.cells.filter((c) => (c.config.phase ?? 'matrix') === 'matrix').map((c) => c.config);
  const budgetSec = settleBudgetSec(grid, ctx.matrix.settleBudgetPct);
  const out: SettleOutcome = { result: 'off', rounds: 0, cells: 0, usedSec: 0, budgetSec };
  for (;;) {
    if (ctx.signal?.aborted) return { ...out, result: 'cancelled' };
    const run = ctx.store.getRun(ctx.runId)!;
    const rec = recommend(run, { samples: ctx.store.getRunSamples(ctx.runId) });
    const pick = answerPick(rec);
    if (!pick || pick.basis !== 'knee' || !pick.scope) return { ...out, result: 'nothing' };
    const s = pick.scope;
    const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
    // Across pairs a name needs its caps: "1 cluster worker on 0.5 CPU / 256 MB", never "1 cluster worker" twice.
    const across = (s.pairs ?? 1) > 1;
    const name = (c: ConfigurationSummary): string => (across ? `${who(c)} on ${onWhat(c)}` : who(c));
    const names = s.contenders.map((k) => name(byKey.get(k)!)).join(', ') + (across ? '' : ` on ${s.label}`);
    if (s.state !== 'undecided') {
      if (out.rounds)
        ctx.log('info', `settled after ${out.rounds} more round(s): ${s.state} — ${rec.headline?.text ?? ''}`);
      const decided = { ...out, result: out.rounds ? ('settled' as const) : ('not-needed' as const) };
      return ctx.matrix.verify === false ? decided : narrowForVerification(ctx, pick.configuration.key, decided);
    }
    if (ctx.matrix.settleBudgetPct <= 0) {
      ctx.log('info', `the answer is undecided between ${names}; settling is off (settleBudgetPct 0)`);
      return { ...out, result: 'off' };
    }
    if (!s.settleable) {
      ctx.log(
        'info',
        `the answer is undecided between ${names}, ` +
          `and more repetitions cannot decide it (a lower bound is in the way): ${s.decideBy.join('; ')}`,
      );
      return { ...out, result: 'bound' };
    }
    const round = templates(run.cells, s.contenders);
    const roundSec = round.reduce((a, c) => a + cellSec(c), 0);
    if (round.length === 0 || out.usedSec + roundSec > budgetSec + 1e-9) {
      ctx.log(
        'info',
        `still undecided between ${names}: ` +
          `the settling budget (${fmtDuration(budgetSec)}, ${ctx.matrix.settleBudgetPct} % of the grid) ` +
          `${out.rounds ? 'is spent' : 'is smaller than one round'} (${fmtDuration(roundSec)} a round)`,
      );
      return { ...out, result: 'budget' };
    }
    out.rounds++;
    ctx.announce(
      'settle',
      `undecided between ${names}: settling round ${out.rounds}, ` +
        'one more repetition of each in a shuffled order ' +
        `(${fmtDuration(out.usedSec + roundSec)} of a ${fmtDuration(budgetSec)} budget)`,
      round.length,
    );
    // Interleaved and shuffled, seeded so the run can be repeated exactly.
    const order = seededShuffle(round, (ctx.matrix.seed ?? 1) + out.rounds * 7919);
    for (const c of order) {
      if (ctx.signal?.aborted) return { ...out, result: 'cancelled' };
      const { index: _index, ...rest } = c;
      await ctx.runCell({ ...rest, repetition: c.repetition + 1, phase: 'settle' });
      out.cells++;
      out.usedSec += cellSec(c);
    }
  }
}
