// The next cell's target started while the cell before it is inspected and torn down (no load runs
// then), so a cell's start overlaps its predecessor's end instead of following it. One slot: a
// target prepared for a cell that does not come next (a cancel, a round cut short) is removed.
import type { ProvisionedTarget } from '../../providers/provider.ts';

export class PrepareAhead {
  private next?: { index: number; target: Promise<ProvisionedTarget> };

  /** Starts the target of cell `index` now (replacing one prepared for another cell). */
  prepare(index: number, provision: () => Promise<ProvisionedTarget>): void {
    this.discardUnless(index);
    if (this.next) return;
    const target = provision();
    target.catch(() => {}); // its failure is the cell's, said when the cell takes it
    this.next = { index, target };
  }

  /** The target prepared for cell `index`, if one was; anything prepared for another cell is removed. */
  take(index: number): Promise<ProvisionedTarget> | undefined {
    this.discardUnless(index);
    const t = this.next?.target;
    this.next = undefined;
    return t;
  }

  /** Removes what was prepared and not taken (the run ends, or another cell comes next). */
  async discard(): Promise<void> {
    const t = this.next?.target;
    this.next = undefined;
    if (t) await t.then((x) => x.remove()).catch(() => {});
  }

  private discardUnless(index: number): void {
    if (this.next && this.next.index !== index) void this.discard();
  }
}
