// PostgreSQL and Redis images where no registry is reachable: a Debian root made with debootstrap
// from this machine's Debian mirror (imported once as an image), then Debian's own packages on it.
// A machine with registry access pulls postgres:16 or redis:7 instead; both work as dependencies.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

/** What stops debootstrap here, in words; undefined when it can run. */
export function debianRootProblem(): string | undefined {
  if (process.platform !== 'linux')
    return 'an offline image is built on Linux (debootstrap); pull postgres:16 or redis:7';
  if (process.getuid?.() !== 0) return 'debootstrap needs root: run `sudo rightsize images build …`, or pull the image';
  const onPath = (process.env.PATH ?? '').split(':').some((d) => existsSync(path.join(d, 'debootstrap')));
  if (!onPath) return 'debootstrap is not installed (apt-get install debootstrap), or pull the image';
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

// One debootstrap at a time in this process: two dependencies settled at once share it.
let rootBuild: Promise<string> | undefined;
function ensureDebianRoot(onLog?: BuildLog): Promise<string> {
  rootBuild ??= buildDebianRoot(onLog).finally(() => (rootBuild = undefined));
  return rootBuild;
}

async function buildDebianRoot(onLog?: BuildLog): Promise<string> {
  if (await imageExists(DEBIAN_ROOT_TAG)) return DEBIAN_ROOT_TAG;
  const problem = debianRootProblem();
  if (problem) throw new Error(`No ${DEBIAN_ROOT_TAG} image to build on: ${problem}.`);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rightsize-debian-'));
  try {
    const mirror = debianMirror();
    onLog?.(`debootstrap --variant=minbase ${SUITE} from ${mirror} (about a minute)`);
    await run('debootstrap', ['--variant=minbase', SUITE, dir, mirror], onLog);
    const tar = spawn('tar', ['-C', dir, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const labels = { ...ownLabels(), [LABEL.kind]: 'dependency' };
    const stream = await docker().importImage(tar.stdout, {
      repo: DEBIAN_ROOT_TAG.split(':')[0],
      tag: SUITE,
      changes: Object.entries(labels).map(([k, v]) => `LABEL ${k}=${v}`),
    } as object);
    await new Promise<void>((resolve, reject) =>
      docker().modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
    );
    return DEBIAN_ROOT_TAG;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
