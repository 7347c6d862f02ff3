// A user's project built with its own Dockerfile, as the team's `docker build` would build it: the
// folder is the context (.dockerignore applied), the build arguments and stage are theirs. The image
// runs its own command, or the Compose service's `command:` laid over it in a one-line layer.
import path from 'node:path';
import { BuildContext } from './build-context.ts';
import { docker } from './client.ts';
import { buildImage, imageExists, type BuildLog } from './image-build.ts';
import { removeOlderTags } from './folder-image.ts';
import { NODE_VERSION_LABEL } from './node-base.ts';
import { makeSkip } from '../apps/folder-plan.ts';
import { readFile } from 'node:fs/promises';
import type { AppDefinition } from '../apps/catalog.ts';
import type { AppImage } from './app-image-type.ts';

/** Builds (or finds, by a hash of the context, arguments and stage) the image of a Dockerfile app. */
export async function ensureDockerfileImage(app: AppDefinition, onLog?: BuildLog): Promise<AppImage> {
  const src = app.source;
  if (src.kind !== 'dockerfile') throw new Error(`${app.name} is not built with its Dockerfile`);
  const ctx = new BuildContext();
  const ignore = await readFile(path.join(app.dir, '.dockerignore'), 'utf8').catch(() => undefined);
  const dockerfile = path.relative(app.dir, path.resolve(app.dir, src.dockerfile)).split(path.sep).join('/');
  const skip = makeSkip(ignore);
  // The Dockerfile is always sent, whatever .dockerignore says, as `docker build` does.
  await ctx.addTree('.', app.dir, (rel, isDir) => rel !== dockerfile && skip(rel, isDir));
  ctx.addText('.rightsize-build', JSON.stringify({ args: src.buildArgs, target: src.target ?? null }));
  const repo = `rightsize/app-user-${app.name}`;
  const digest = (await ctx.digest()).slice(0, 16);
  const own = `${repo}:${digest}`;
  const tag = src.command ? `${repo}:${digest}-cmd` : own;
  const built = !(await imageExists(tag));
  if (built) {
    onLog?.(`building ${app.name} from ${app.dir} with its ${src.dockerfile}`);
    await buildImage(ctx, own, {
      kind: 'app',
      buildargs: src.buildArgs,
      dockerfile,
      ...(src.target ? { target: src.target } : {}),
      ...(onLog ? { onLog } : {}),
    }).catch((e: Error) => {
      throw withPullHint(e, src.dockerfile);
    });
    if (src.command) {
      const layer = new BuildContext().addText('Dockerfile', `FROM ${own}\nCMD ${JSON.stringify(src.command)}\n`);
      await buildImage(layer, tag, { kind: 'app', ...(onLog ? { onLog } : {}) });
    }
    await removeOlderTags(tag, onLog);
  }
  const info = await docker().getImage(tag).inspect();
  const env = info.Config?.Env ?? [];
  const value = (k: string): string | undefined => env.find((e) => e.startsWith(`${k}=`))?.slice(k.length + 1);
  // The official images say their version in NODE_VERSION; images on Rightsize's base carry its label.
  const nodeVersion = value('NODE_VERSION') ?? info.Config?.Labels?.[NODE_VERSION_LABEL];
  const nodeOptions = value('NODE_OPTIONS');
  return {
    tag,
    entry: '',
    built,
    ...(nodeVersion ? { nodeVersion } : {}),
    ...(nodeOptions ? { nodeOptions } : {}),
  };
}

/** A FROM that could not be pulled (no registry here): say how to go on, not only what failed. */
function withPullHint(e: Error, dockerfile: string): Error {
  if (
    !/pull access denied|manifest unknown|dial tcp|lookup .* no such host|TLS handshake|i\/o timeout/i.test(e.message)
  )
    return e;
  e.message +=
    `\nThe base image of ${dockerfile} could not be pulled. Pull it where a registry answers (docker pull …), ` +
    "pass a local one as a build argument, or build on Rightsize's base instead: " +
    '`rightsize apps edit NAME --base rightsize`.';
  return e;
}
