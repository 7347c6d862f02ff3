// The runtime probe in a user's own image. The image does not hold launchers/probe.js, so its
// container gets the file copied in after it is created and before it starts (the image itself is
// never changed, and the container is removed with the cell), and NODE_OPTIONS preloads it —
// appended to the NODE_OPTIONS the cell or the image already sets, never replacing them.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type Docker from 'dockerode';
import tar from 'tar-stream';
import { resourcesDir } from '../util/paths.ts';
import { withProbeOption } from './launch.ts';

/** Where the probe lands in an image's container: its own folder at the root, apart from the app's files. */
export const IMAGE_PROBE_DIR = '/.rightsize';
export const IMAGE_PROBE_SCRIPT = `${IMAGE_PROBE_DIR}/probe.js`;

/** A tar of the probe's folder, readable by any user the image runs as (it may not be root). */
export async function probeArchive(): Promise<Buffer> {
  const source = await readFile(path.join(resourcesDir(), 'base-image', 'launchers', 'probe.js'));
  const pack = tar.pack();
  const dir = IMAGE_PROBE_DIR.slice(1);
  pack.entry({ name: `${dir}/`, type: 'directory', mode: 0o755 });
  pack.entry({ name: `${dir}/probe.js`, mode: 0o644 }, source);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** The value of `name` in a Docker environment list ("K=V" entries), if set. */
export function envValue(env: readonly string[] | null | undefined, name: string): string | undefined {
  const hit = env?.find((e) => e.startsWith(`${name}=`));
  return hit === undefined ? undefined : hit.slice(name.length + 1);
}

/**
 * NODE_OPTIONS for an image's container with the probe preloaded: the cell's own value when it sets
 * one (it replaces the image's, as any container variable does), else the image's.
 */
export function imageProbeNodeOptions(cellValue: string | undefined, imageEnv: readonly string[] | undefined): string {
  return withProbeOption(cellValue ?? envValue(imageEnv, 'NODE_OPTIONS'), IMAGE_PROBE_SCRIPT);
}

/** The image's NODE_OPTIONS with the probe's preload, for the container about to be created. */
export async function imageProbeEnv(client: Docker, image: string, cellValue: string | undefined): Promise<string> {
  const info = (await client.getImage(image).inspect()) as { Config?: { Env?: string[] | null } };
  return imageProbeNodeOptions(cellValue, info.Config?.Env ?? undefined);
}

/** Copies the probe into a created (not yet started) container. */
export async function putProbe(container: Docker.Container): Promise<void> {
  await container.putArchive(await probeArchive(), { path: '/' });
}
