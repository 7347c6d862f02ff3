// `npm test` starts this at once, in the background, at the lowest CPU priority: Rightsize's offline
// PostgreSQL and Redis images take 50–190 s to build on a clean engine (debootstrap, then Debian's
// packages), which was lane B's longest wait. dependencies.test.ts, listed last in lane B, waits
// for the mark this writes, then finds the images built. Run alone it builds them itself.
//   node --import tsx tests/helpers/prebuild-dependency-images.ts MARK_FILE
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencyImage } from '../../src-main/docker/dependency-images.ts';

/** The environment variable that names the mark file to the lane's test processes. */
export const PREBUILD_MARK = 'RIGHTSIZE_DEPENDENCY_IMAGES_MARK';

async function main(mark: string): Promise<void> {
  const t0 = performance.now();
  try {
    const [postgres, redis] = await Promise.all([ensureDependencyImage('postgres'), ensureDependencyImage('redis')]);
    writeFileSync(mark, JSON.stringify({ postgres, redis }));
    console.log(`offline images ${postgres}, ${redis} ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } catch (e) {
    // The test then builds them itself, and fails with the build's own words if it must.
    writeFileSync(mark, JSON.stringify({ error: (e as Error).message }));
    console.log(`offline images: ${(e as Error).message}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main(process.argv[2]!);
