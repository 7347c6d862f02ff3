// A cell's warm-up under a raised CPU cap (load/warmup.ts WarmupRaise): raised before its load, lowered once its
// processes have had their CPU-seconds, and no second measured before the cap is back. The cell runner asks the
// target's capability (ProvisionedTarget.setCpuMillis), never its kind.
import { raiseOver, WARM_DROP_SEC, type WarmupRaise } from '../load/warmup.ts';
import type { WarmFrom } from '../load/measurement.ts';
import type { CellConfig, LoadResult } from '../model/types.ts';
import type { ProvisionedTarget } from '../providers/provider.ts';
import { cellWarmup } from './cell-warmup.ts';

/** When the cell's own cap came back after the raised seconds, or why it did not. */
type CapBack = { atMs: number } | { error: unknown };

export class WarmRaise {
  private lowered?: Promise<CapBack>;
  /** Warm-up seconds heard so far, and when the cap was asked back. */
  private heardSec = 0;
  private raisedSec?: number;
  /** The first warm-up second that may be measured: once the cap came back, the second it came back in and one more. */
  private measurableFrom?: number;

  private constructor(
    private readonly raise: WarmupRaise,
    private readonly target: ProvisionedTarget,
    private readonly cpuMillis: number,
  ) {}

  /**
   * The cell's warm-up bounds, its cap raised for the first of them where that shortens the warm-up and the target
   * can (engine/cell-warmup.ts): after a raise that fails, the cell's own cap is set again and its own bounds kept.
   */
  static async start(
    cfg: CellConfig,
    target: ProvisionedTarget,
  ): Promise<{ warmup: ReturnType<typeof cellWarmup>; raised?: WarmRaise }> {
    const warmup = cellWarmup(cfg, target.setCpuMillis !== undefined);
    if (!warmup.raise) return { warmup };
    try {
      await target.setCpuMillis!(warmup.raise.cpus * 1000);
      return { warmup, raised: new WarmRaise(warmup.raise, target, cfg.cpuMillis) };
    } catch {
      // It may have been applied though the answer was lost: set the cell's own again, or it cannot be measured.
      try {
        await target.setCpuMillis!(cfg.cpuMillis);
      } catch (e) {
        throw new Error(
          `its CPU cap was neither raised for the warm-up nor set back to ${cfg.cpuMillis}m: ${String(e)}`,
        );
      }
      return { warmup: cellWarmup(cfg, false) };
    }
  }

  /** After each warm-up second: asks the cap back once the raise is over (`usedCpuSec`: the target's, since load). */
  heard(usedCpuSec: () => number): void {
    this.heardSec++;
    if (this.lowered || !raiseOver(this.raise, this.heardSec, usedCpuSec())) return;
    this.raisedSec = this.heardSec;
    this.lowered = this.target.setCpuMillis!(this.cpuMillis).then(
      () => ({ atMs: Date.now() }),
      (error: unknown) => ({ error }),
    );
    void this.lowered.then(() => (this.measurableFrom = this.heardSec + WARM_DROP_SEC));
  }

  /** For the load runner (LoadCallbacks.warmFrom). */
  readonly warmFrom: WarmFrom = () => this.measurableFrom;

  /** Every measured second ran at the cell's own cap: the cap came back before the first of them, or the cell fails. */
  async backBefore(measureFromMs: number): Promise<void> {
    const back = await this.lowered;
    if (back && 'atMs' in back && back.atMs <= measureFromMs) return;
    const why = !back
      ? 'it was never lowered'
      : 'error' in back
        ? `lowering it failed (${(back.error as Error)?.message ?? String(back.error)})`
        : `it came back ${back.atMs - measureFromMs} ms into the measured seconds`;
    throw new Error(`the warm-up's raised CPU cap: ${why}, so the cell was not measured at its own ${this.cpuMillis}m`);
  }

  /** What the cell stores: the raised cap and for how many seconds it lasted. */
  record(): NonNullable<LoadResult['warmupRaise']> {
    return { cpuMillis: this.raise.cpus * 1000, untilSec: this.raisedSec ?? this.heardSec };
  }
}
