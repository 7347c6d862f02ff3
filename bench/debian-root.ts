// npm run bench -- debian-root [--runs K]: the offline Debian root that Rightsize's PostgreSQL and Redis images are
// built on (src-main/docker/dependency-images.ts), made by mmdebstrap and by debootstrap in turn from this machine's
// Debian mirror, and imported as the image; each run starts with the image removed, and none is left after.
import { checkEngine, docker } from '../src-main/docker/client.ts';
import { buildDebianRoot, DEBIAN_ROOT_TAG, DEBIAN_ROOT_TOOLS, type DebianRootTool } from '../src-main/docker/dependency-images.ts';
import { imageExists } from '../src-main/docker/image-build.ts';
import { isMain, printRows, row } from './stats.ts';

const forget = async (): Promise<void> => {
  if (await imageExists(DEBIAN_ROOT_TAG)) await docker().getImage(DEBIAN_ROOT_TAG).remove({ force: true });
};

export async function benchDebianRoot(runs: number): Promise<void> {
  await checkEngine();
  const had = await imageExists(DEBIAN_ROOT_TAG);
  const ms: Record<DebianRootTool, number[]> = { mmdebstrap: [], debootstrap: [] };
  try {
    for (let i = 0; i < runs; i++) {
      // Alternated, the first tool of each round in turn, so a slower hour of the mirror falls on both.
      const order = i % 2 === 0 ? DEBIAN_ROOT_TOOLS : [...DEBIAN_ROOT_TOOLS].reverse();
      for (const tool of order) {
        await forget();
        const t0 = performance.now();
        await buildDebianRoot(undefined, tool);
        ms[tool].push(performance.now() - t0);
        console.log(`  ${tool} round ${i + 1}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      }
    }
  } finally {
    await forget();
    if (had) await buildDebianRoot(); // as it was found
  }
  const [m, d] = DEBIAN_ROOT_TOOLS.map((t) => row(t, ms[t]));
  printRows(`the offline Debian root, made and imported (${runs} rounds)`, [m!, d!], 0);
  console.log(`\nmmdebstrap ÷ debootstrap, medians: ${(m!.medianMs / d!.medianMs).toFixed(2)}`);
}

if (isMain(import.meta.url)) {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 3;
  if (!Number.isInteger(runs) || runs < 1) {
    console.error(`--runs should be a whole number, 1 or more (got "${process.argv[i + 1]}")`);
    process.exit(2);
  }
  await benchDebianRoot(runs);
}
