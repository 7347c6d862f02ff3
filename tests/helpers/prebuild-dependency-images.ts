// Lane B's globalSetup: Rightsize's offline PostgreSQL and Redis images take about 80 s to build on a
// clean engine (debootstrap, then Debian's packages). Started when the lane starts, beside its other
// files (the lane's proofs do not mind a busy host); dependencies.test.ts, listed last, waits for the
// mark this writes, then finds the images built. Without the lab lock, as the tests' own builds are.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDependencyImage } from '../../src-main/docker/dependency-images.ts';

export const PREBUILD_MARK = 'RIGHTSIZE_DEPENDENCY_IMAGES_MARK';

export default function setup(): (() => Promise<void>) | undefined {
  // Under `npm test` only (it labels lane B's work): a lane run by hand with one file need not wait for a build.
  if (!process.env.RIGHTSIZE_LABELS?.includes('lane=b')) return undefined;
  const mark = path.join(tmpdir(), `rightsize-dependency-images-${process.pid}.json`);
  rmSync(mark, { force: true });
  process.env[PREBUILD_MARK] = mark; // the lane's test processes start after this, with it
  const built = (async () => {
    try {
      const postgres = await ensureDependencyImage('postgres');
      const redis = await ensureDependencyImage('redis');
      writeFileSync(mark, JSON.stringify({ postgres, redis }));
    } catch (e) {
      // The test builds them itself, and fails with the build's own words if it must.
      writeFileSync(mark, JSON.stringify({ error: (e as Error).message }));
    }
  })();
  return async () => {
    await built;
    rmSync(mark, { force: true });
  };
}
