import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BuildContext } from './build-context.ts';
import { docker } from './client.ts';
import { buildImage, imageExists, type BuildLog } from './image-build.ts';
import { IN_IMAGE, type BaseImage } from './base-image.ts';
import { ensureFolderImage } from './folder-image.ts';
import { ensureDockerfileImage } from './dockerfile-image.ts';
import { appsDir, projectRoot, resourcesDir } from '../util/paths.ts';
import { packageClosure } from './package-closure.ts';
import type { AppDefinition } from '../apps/catalog.ts';
import type { AppImage } from './app-image-type.ts';

export type { AppImage };

/**
 * The image a cell runs, built if needed: a built-in app or a project folder on top of the base
 * image (asked for only when one is needed), or a user's existing image as it is.
 */
export async function ensureAppImage(
  app: AppDefinition,
  base: () => Promise<BaseImage>,
  onLog?: BuildLog,
): Promise<AppImage> {
  switch (app.source.kind) {
    case 'builtin':
      return ensureBuiltInImage(app, await base(), onLog);
    case 'folder':
      return ensureFolderImage(app, await base(), onLog);
    case 'dockerfile':
      return ensureDockerfileImage(app, onLog);
    case 'image': {
      // resolveUserApp already found (or pulled) it when it resolved the definition.
      const info = await docker()
        .getImage(app.source.image)
        .inspect()
        .catch(() => undefined); // known elsewhere only (a target's registry): its ENV is not ours to read
      const env = info?.Config?.Env ?? [];
      const own = env.find((e) => e.startsWith('NODE_OPTIONS='))?.slice('NODE_OPTIONS='.length);
      return { tag: app.source.image, entry: '', built: false, ...(own ? { nodeOptions: own } : {}) };
    }
  }
}

/**
 * The image of a built-in app: its base plus apps/_lib and apps/<name>. Tagged by a hash of the
 * base tag and every file, so editing an app rebuilds only that app's small layer.
 */
export async function ensureBuiltInImage(app: AppDefinition, base: BaseImage, onLog?: BuildLog): Promise<AppImage> {
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', readFileSync(path.join(resourcesDir(), 'base-image', 'app.Dockerfile'), 'utf8'));
  ctx.addText('base', base.tag);
  const root = `srv${IN_IMAGE.appsRoot.slice('/srv'.length)}`;
  ctx.addFile(`${root}/package.json`, path.join(appsDir(), 'package.json'));
  await ctx.addTree(`${root}/_lib`, path.join(appsDir(), '_lib'));
  await ctx.addTree(`${root}/${app.name}`, app.dir, (rel) => rel === 'node_modules' || rel.startsWith('.'));
  for (const pkg of app.packages ?? []) {
    const { root: from, dirs } = packageClosure(pkg, projectRoot());
    for (const dir of dirs) {
      const rel = path.relative(path.join(from, 'node_modules'), dir).split(path.sep).join('/');
      await ctx.addTree(`${root}/${app.name}/node_modules/${rel}`, dir, (r, isDir) => isDir && r === 'node_modules', {
        byStat: true, // Rightsize's own node_modules: they change only when Rightsize is reinstalled
      });
    }
  }
  const tag = `rightsize/app-${app.name}:${(await ctx.digest()).slice(0, 16)}`;
  const entry = `${IN_IMAGE.appsRoot}/${app.name}/${app.entry}`;
  const version = base.nodeVersion ? { nodeVersion: base.nodeVersion } : {};
  if (await imageExists(tag)) return { tag, entry, built: false, ...version };
  await buildImage(ctx, tag, { kind: 'app', buildargs: { BASE_IMAGE: base.tag }, onLog });
  return { tag, entry, built: true, ...version };
}
