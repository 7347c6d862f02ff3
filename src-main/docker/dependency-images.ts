// PostgreSQL and Redis images where no registry is reachable: a Debian root made with mmdebstrap (or debootstrap)
// from this machine's Debian mirror (imported once as an image), then Debian's own packages on it.
// A machine with registry access pulls postgres:16 or redis:7 instead; both work as dependencies.
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { docker } from './client.ts';
import { BuildContext } from './build-context.ts';
import { buildImage, imageExists, type BuildLog } from './image-build.ts';
import { LABEL, ownLabels } from './labels.ts';
import { resourcesDir } from '../util/paths.ts';
import type { Dependency } from '../apps/dependencies.ts';
import { findImage } from './image-lookup.ts';

export const DEPENDENCY_IMAGES = ['postgres', 'redis'] as const;
export type DependencyImage = (typeof DEPENDENCY_IMAGES)[number];

/** The Debian release the images come from, and the versions its packages carry. */
const SUITE = 'bookworm';
export const DEBIAN_ROOT_TAG = `rightsize/debian-offline:${SUITE}`;
/** The version Debian's package carries, in the tag before the recipe's hash. */
const VERSIONS: Record<DependencyImage, string> = { postgres: '15', redis: '7' };

/** The recipe of `name` (Dockerfile, entrypoint) and its tag: a changed recipe is a new tag, built anew. */
async function recipe(name: DependencyImage): Promise<{ ctx: BuildContext; tag: string }> {
  const dir = path.join(resourcesDir(), 'dependency-images');
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', readFileSync(path.join(dir, `${name}.Dockerfile`), 'utf8'));
  for (const f of readdirSync(dir).filter((f) => f.startsWith(`${name}-`))) ctx.addFile(f, path.join(dir, f), 0o755);
  return { ctx, tag: `rightsize/${name}-offline:${VERSIONS[name]}-${(await ctx.digest()).slice(0, 12)}` };
}

/** The tag `rightsize images build NAME` makes (whether or not it is here yet). */
export const offlineTag = async (name: DependencyImage): Promise<string> => (await recipe(name)).tag;

/** The image `name` names, built if this engine lacks it; returns its tag. */
export async function ensureDependencyImage(name: DependencyImage, onLog?: BuildLog): Promise<string> {
  const { ctx, tag } = await recipe(name);
  if (await imageExists(tag)) return tag;
  const base = await ensureDebianRoot(onLog);
  await buildImage(ctx, tag, { kind: 'dependency', buildargs: { BASE_IMAGE: base }, onLog });
  return tag;
}

export const DEBIAN_ROOT_TOOLS = ['mmdebstrap', 'debootstrap'] as const;
export type DebianRootTool = (typeof DEBIAN_ROOT_TOOLS)[number];

/**
 * What makes the Debian root here: mmdebstrap where it is installed (apt's parallel downloads and a tarball straight
 * out make it faster: BENCHMARKS.md, "The offline Debian root"), else debootstrap; undefined when neither is on
 * `pathEnv`.
 */
export function debianRootTool(pathEnv = process.env.PATH ?? ''): DebianRootTool | undefined {
  const dirs = pathEnv.split(':').filter(Boolean);
  return DEBIAN_ROOT_TOOLS.find((t) => dirs.some((d) => existsSync(path.join(d, t))));
}

/** What stops the Debian root from being made here, in words; undefined when it can be. */
export function debianRootProblem(): string | undefined {
  if (process.platform !== 'linux')
    return 'an offline image is built on Linux (mmdebstrap or debootstrap); pull postgres:16 or redis:7';
  if (process.getuid?.() !== 0)
    return 'making a Debian root needs root: run `sudo rightsize images build …`, or pull the image';
  if (!debianRootTool())
    return 'neither mmdebstrap nor debootstrap is installed (apt-get install mmdebstrap), or pull the image';
  return undefined;
}

/**
 * The first Debian mirror this machine's apt uses for this release (deb822 or one-line sources), else deb.debian.org:
 * an Ubuntu or another release's mirror has no bookworm to bootstrap from.
 */
export function debianMirror(): string {
  const files = ['/etc/apt/sources.list', ...listDir('/etc/apt/sources.list.d')];
  for (const f of files) {
    const text = existsSync(f) ? readFileSync(f, 'utf8') : '';
    if (!new RegExp(`\\b${SUITE}\\b`).test(text)) continue;
    const m = /^URIs:\s*(\S+)/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/m.exec(text);
    if (m && !/security/.test(m[1]!)) return m[1]!;
  }
  return 'http://deb.debian.org/debian';
}

const listDir = (d: string): string[] => (existsSync(d) ? readdirSync(d).map((f) => path.join(d, f)) : []);

// One Debian root build at a time in this process: two dependencies settled at once share it.
let rootBuild: Promise<string> | undefined;
function ensureDebianRoot(onLog?: BuildLog): Promise<string> {
  rootBuild ??= buildDebianRoot(onLog).finally(() => (rootBuild = undefined));
  return rootBuild;
}

/** The Debian root image, made by `tool` (the bench names one; else this machine's) when the engine lacks it. */
export async function buildDebianRoot(onLog?: BuildLog, tool = debianRootTool()): Promise<string> {
  if (await imageExists(DEBIAN_ROOT_TAG)) return DEBIAN_ROOT_TAG;
  const problem = debianRootProblem();
  if (problem || !tool) throw new Error(`No ${DEBIAN_ROOT_TAG} image to build on: ${problem}.`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-debian-'));
  try {
    const mirror = debianMirror();
    const takes = tool === 'mmdebstrap' ? 'about 20 s' : 'about half a minute';
    onLog?.(`${tool} --variant=minbase ${SUITE} from ${mirror} (${takes})`);
    await importImage(await makeDebianRoot(tool, dir, mirror, onLog), DEBIAN_ROOT_TAG);
    return DEBIAN_ROOT_TAG;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Makes a minimal Debian root with `tool` in `dir`; returns a stream of it as a tarball. mmdebstrap writes a file
 * first, so a run that fails half-way is an error here, never a truncated image.
 */
async function makeDebianRoot(tool: DebianRootTool, dir: string, mirror: string, onLog?: BuildLog): Promise<Readable> {
  if (tool === 'mmdebstrap') {
    const file = path.join(dir, 'root.tar');
    await run('mmdebstrap', ['--variant=minbase', '--quiet', SUITE, file, mirror], onLog);
    return createReadStream(file);
  }
  const root = path.join(dir, 'root');
  await run('debootstrap', ['--variant=minbase', SUITE, root, mirror], onLog);
  return spawn('tar', ['-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout;
}

/** Imports a root filesystem's tarball as `tag`, labelled as Rightsize's dependency image. */
async function importImage(tar: Readable, tag: string): Promise<void> {
  const labels = { ...ownLabels(), [LABEL.kind]: 'dependency' };
  const [repo, version] = tag.split(':');
  const stream = await docker().importImage(tar, {
    repo,
    tag: version,
    changes: Object.entries(labels).map(([k, v]) => `LABEL ${k}=${v}`),
  } as object);
  await new Promise<void>((resolve, reject) =>
    docker().modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}

function run(cmd: string, args: string[], onLog?: BuildLog): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const tail: string[] = [];
    const take = (b: Buffer): void => {
      for (const line of b.toString().split('\n').filter(Boolean)) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        onLog?.(line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} exited with ${code}:\n${tail.join('\n')}`)),
    );
  });
}

/**
 * The apps with every dependency image settled: as named when it is here or pullable, else (a dependency that allows
 * it) Rightsize's offline build of its kind, made now if need be; else an error naming the dependency. Returns copies.
 */
export async function settleDependencyImages<T extends { name: string; dependencies?: readonly Dependency[] }>(
  apps: readonly T[],
  onLog?: BuildLog,
): Promise<T[]> {
  return Promise.all(
    apps.map(async (app) => {
      if (!app.dependencies?.length) return app;
      const deps: Dependency[] = [];
      for (const d of app.dependencies) {
        const found = await findImage(d.image, onLog);
        if ('id' in found) deps.push(d);
        else if (d.offline) {
          onLog?.(
            `${app.name}: ${d.name}'s ${d.image} is not here (${found.reason}); using Rightsize's offline ${d.offline}`,
          );
          deps.push({ ...d, image: await ensureDependencyImage(d.offline, onLog) });
        } else
          throw new Error(
            `${app.name}: ${d.name}'s image ${d.image} is not here and could not be pulled (${found.reason})`,
          );
      }
      return { ...app, dependencies: deps };
    }),
  );
}
