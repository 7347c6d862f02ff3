import { rmSync } from 'node:fs';
import { clean, leftovers, ownTmp, snapshot } from './trace.ts';

/**
 * Starts tracking (unless scripts/test.mjs already tracks the whole run: it sets RIGHTSIZE_TEST_TMP)
 * and returns the teardown: remove what was made, then fail if anything is left.
 */
export async function noTrace(opts: { docker: boolean }): Promise<(() => Promise<void>) | undefined> {
  if (process.env.RIGHTSIZE_TEST_TMP) return undefined;
  const before = await snapshot(opts);
  const tmp = ownTmp();
  return async () => {
    tmp.restore();
    rmSync(tmp.dir, { recursive: true, force: true });
    await clean(before);
    const left = await leftovers(before);
    if (left.length) throw new Error(`The tests left behind:\n  ${left.join('\n  ')}`);
  };
}
