// The grid's sequential look: before each round of repetitions from the third on, the answer so
// far is asked which configurations are already out of the contest (analysis/decide/sequential.ts
// decides, at the look's share of alpha); their remaining cells are not run, and the run says so
// in one line. Settling then spends its budget on the contenders only (settle.ts).
import { clearlyOut, lookAlpha } from '../analysis/decide/sequential.ts';
import { configurationKey } from '../analysis/decide/group.ts';
import { onWhat, who } from '../analysis/names.ts';
import { recommend } from '../analysis/recommend.ts';
import { fmtNum } from '../common/format.ts';
import type { CellConfig } from '../model/types.ts';
import type { Matrix } from './matrix.ts';
import type { Session } from './run/run-session.ts';

export class SequentialLook {
  /** Cells the run still plans: the grid's, less those skipped. */
  planned: number;
  private readonly out = new Set<string>();
  private readonly looked = new Set<number>();

  constructor(
    private readonly s: Pick<Session, 'store' | 'runId'>,
    private readonly matrix: Pick<Matrix, 'repetitions'>,
    private readonly cells: readonly CellConfig[],
    /** Says what was skipped and why, with the cells now planned (a run-phase event of the grid). */
    private readonly say: (message: string, planned: number) => void,
  ) {
    this.planned = cells.length;
  }

  /** Whether this cell's configuration is already out of the contest. */
  isOut(cell: CellConfig): boolean {
    return this.out.has(configurationKey(cell));
  }

  /** Whether to skip this cell: looks first when it opens a round not looked at yet. */
  skips(cell: CellConfig): boolean {
    if (!this.looked.has(cell.repetition)) {
      this.looked.add(cell.repetition);
      this.look(cell.repetition);
    }
    return this.isOut(cell);
  }

  private look(done: number): void {
    const alpha = lookAlpha(done, this.matrix.repetitions);
    if (!(alpha > 0)) return;
    const run = this.s.store.getRun(this.s.runId);
    if (!run) return;
    const rec = recommend(run);
    const fresh = clearlyOut(rec, alpha).filter((o) => !this.out.has(o.key));
    if (fresh.length === 0) return;
    for (const o of fresh) this.out.add(o.key);
    const keys = new Set(fresh.map((o) => o.key));
    const left = this.cells.filter((c) => c.repetition >= done && keys.has(configurationKey(c))).length;
    this.planned -= left;
    this.s.store.growRun(this.s.runId, -left);
    const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
    const names = fresh.map((o) => {
      const c = byKey.get(o.key)!;
      return `${who(c)} on ${onWhat(c)}`;
    });
    this.say(
      `after ${done} of ${this.matrix.repetitions} repetitions, ${names.join(', ')} ` +
        `${fresh.length === 1 ? 'is' : 'are'} out of the contest (goodput shown below the best of ` +
        `${fresh.length === 1 ? 'its' : 'their'} CPU / memory pair, p ≤ ${fmtNum(alpha, 3)} at this look): ` +
        `${left} cell${left === 1 ? '' : 's'} skipped`,
      this.planned,
    );
  }
}
