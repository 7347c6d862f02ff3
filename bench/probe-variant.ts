// PROBE_BENCH_FILE=/path/probe.js: the probe benchmark's containers with the probe replaced by
// another file (a variant under study), to find which part of the probe costs. The app image is
// built as a cell's is; this adds one layer with the file where the probe lives in every image. The
// PV_* variables of this process are handed to both containers, for a variant's switches.
import { existsSync } from 'node:fs';
import type { AppImage } from '../src-main/docker/app-image.ts';
import { BuildContext } from '../src-main/docker/build-context.ts';
import { buildImage, imageExists } from '../src-main/docker/image-build.ts';
import { PROBE_SCRIPT } from '../src-main/docker/launch.ts';

export async function variantImage(image: AppImage, file: string): Promise<AppImage> {
  if (!existsSync(file)) throw new Error(`PROBE_BENCH_FILE: no such file ${file}`);
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', `FROM ${image.tag}\nCOPY probe.js ${PROBE_SCRIPT}\n`);
  ctx.addFile('probe.js', file);
  const tag = `rightsize/probe-variant:${(await ctx.digest()).slice(0, 16)}`;
  if (!(await imageExists(tag))) await buildImage(ctx, tag, { kind: 'app' });
  return { ...image, tag, built: true };
}

/** The PV_* switches of this process, for the variant in both containers. */
export const variantEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => /^PV_/.test(e[0]) && e[1] !== undefined),
  );
