// The load agent's image: a base image plus the agent's bundled code and the two packages it keeps
// external (autocannon, hdr-histogram-js), copied from Rightsize's own node_modules like PM2 is, so
// it builds offline. Tagged by a hash of every input (base tag, files): same inputs, no rebuild.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BuildContext } from '../docker/build-context.ts';
import type { BaseImage } from '../docker/base-image.ts';
import { buildImage, imageExists, type BuildLog } from '../docker/image-build.ts';
import { packageClosure } from '../docker/package-closure.ts';
import { projectRoot, resourcesDir } from '../util/paths.ts';

/** Where the agent lives in its image; the command runs `${AGENT_DIR}/load-agent.js`. */
export const AGENT_DIR = '/opt/rightsize/load-agent';
export const AGENT_COMMAND = ['node', `${AGENT_DIR}/load-agent.js`];
/**
 * The packages the bundles import and the image carries in its node_modules; everything else
 * (statistics included) is bundled in. One list, read by scripts/build.mjs too.
 */
const EXTERNAL_PACKAGES = JSON.parse(
  readFileSync(path.join(resourcesDir(), 'base-image', 'load-agent-packages.json'), 'utf8'),
) as string[];

/**
 * The agent's two bundles: dist/load-agent.js and dist/load-worker.js (scripts/build.mjs) when the engine runs
 * bundled; bundled here, in memory, when it runs from source. Both read one set of options
 * (resources/base-image/load-agent-bundle.json) and bundle from the project's root, so the bytes, and so the image's
 * tag, are the same either way: one agent image serves the tests from source and the built CLI.
 */
async function agentBundles(): Promise<{ agent: Buffer | string; worker: Buffer | string }> {
  if (!import.meta.url.endsWith('.ts')) {
    const dir = path.dirname(fileURLToPath(import.meta.url));
    return {
      agent: readFileSync(path.join(dir, 'load-agent.js')),
      worker: readFileSync(path.join(dir, 'load-worker.js')),
    };
  }
  const { build } = await import('esbuild'); // a devDependency: only ever reached from source
  const optionsFile = path.join(resourcesDir(), 'base-image', 'load-agent-bundle.json');
  const options = JSON.parse(readFileSync(optionsFile, 'utf8')) as object;
  const out = await build({
    ...options,
    external: EXTERNAL_PACKAGES,
    absWorkingDir: projectRoot(),
    outdir: 'dist',
    write: false,
    logLevel: 'warning',
  });
  const file = (name: string): string => out.outputFiles.find((f) => path.basename(f.path) === name)!.text;
  return { agent: file('load-agent.js'), worker: file('load-worker.js') };
}

/** The agent's image on this machine's engine, built on `base` if missing; returns its tag. */
export async function ensureLoadAgentImage(base: BaseImage, onLog?: BuildLog): Promise<string> {
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', readFileSync(path.join(resourcesDir(), 'base-image', 'load-agent.Dockerfile'), 'utf8'));
  ctx.addText('base', base.tag); // a new base, a new tag
  const dir = `opt${AGENT_DIR.slice('/opt'.length)}`;
  const { agent, worker } = await agentBundles();
  ctx.addText(`${dir}/load-agent.js`, agent.toString());
  ctx.addText(`${dir}/load-worker.js`, worker.toString());
  ctx.addText(`${dir}/package.json`, '{"type":"module","private":true}\n'); // the bundles are ES modules
  ctx.addDir(`${dir}/node_modules`);
  const added = new Set<string>();
  for (const name of EXTERNAL_PACKAGES) {
    const { root, dirs } = packageClosure(name, projectRoot());
    for (const d of dirs) {
      const rel = path.relative(path.join(root, 'node_modules'), d).split(path.sep).join('/');
      if (added.has(rel)) continue;
      added.add(rel);
      await ctx.addTree(
        `${dir}/node_modules/${rel}`,
        d,
        (r, isDir) =>
          isDir
            ? r === 'node_modules' || /(^|\/)(test|tests|docs?|examples?|\.github)$/.test(r)
            : /\.(md|d\.ts|map)$/i.test(r),
        { byStat: true },
      );
    }
  }
  const tag = `rightsize/load-agent:${(await ctx.digest()).slice(0, 16)}`;
  if (!(await imageExists(tag)))
    await buildImage(ctx, tag, { kind: 'load-agent', buildargs: { BASE_IMAGE: base.tag }, onLog });
  return tag;
}
