import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { docker, withTimeout } from './client.ts';
import { BuildContext } from './build-context.ts';
import { buildImage, imageExists, NODE_VERSION_LABEL, type BuildLog } from './image-build.ts';
import { packageClosure } from './package-closure.ts';
import { hostNodeBinary, hostNodeVersion } from '../util/node-binary.ts';
import { projectRoot, resourcesDir } from '../util/paths.ts';

export const BASE_STRATEGIES = ['auto', 'official', 'offline'] as const;
export type BaseStrategy = (typeof BASE_STRATEGIES)[number];

export interface BaseImage {
  tag: string;
  strategy: 'official' | 'offline';
  /** The official image it was made from, when strategy is official. */
  from?: string;
  /** The exact Node.js version in it (no "v"), where known: what its cells record. */
  nodeVersion?: string;
  /** The version a cell named (CellConfig.node) that it was made for; absent for the default base. */
  named?: string;
}

/** Paths inside every base image; the launch-mode commands depend on them. */
export const IN_IMAGE = {
  pm2Runtime: '/opt/rightsize/node_modules/pm2/bin/pm2-runtime',
  clusterLauncher: '/opt/rightsize/launchers/cluster.js',
  appsRoot: '/srv/apps',
} as const;

export interface BaseOptions {
  strategy?: BaseStrategy;
  /** Official image to use or pull; default node:<host major>-slim. */
  nodeImage?: string;
  pullTimeoutMs?: number;
  onLog?: BuildLog;
}

export function defaultNodeImage(): string {
  return process.env.RIGHTSIZE_NODE_IMAGE ?? `node:${process.versions.node.split('.')[0]}-slim`;
}

/** The strategy and Node image a base comes from: the options, then RIGHTSIZE_BASE, then `auto`. */
function baseChoice(opts: Pick<BaseOptions, 'strategy' | 'nodeImage'>): { strategy: BaseStrategy; nodeImage: string } {
  return {
    strategy: opts.strategy ?? (process.env.RIGHTSIZE_BASE as BaseStrategy | undefined) ?? 'auto',
    nodeImage: opts.nodeImage ?? defaultNodeImage(),
  };
}

/**
 * Returns a base image, building it if needed. `auto` prefers an official Node image that is
 * already local; then an offline base already built for these inputs (so an air-gapped machine
 * never waits on a pull again); then a pull; and builds the offline base when the pull fails.
 */
export async function ensureBaseImage(opts: BaseOptions = {}): Promise<BaseImage> {
  const { strategy, nodeImage } = baseChoice(opts);
  if (strategy === 'offline') return ensureOffline(opts.onLog);
  if (await imageExists(nodeImage)) return ensureOfficial(nodeImage, opts.onLog);
  if (strategy === 'auto') {
    const offline = await offlineContext();
    const tag = `rightsize/base-offline:${(await offline.digest()).slice(0, 16)}`;
    if (await imageExists(tag)) return { tag, strategy: 'offline', nodeVersion: hostNodeVersion() };
  }
  const pulled = await tryPull(nodeImage, opts.pullTimeoutMs ?? 30_000, opts.onLog);
  if (pulled === true) return ensureOfficial(nodeImage, opts.onLog);
  if (strategy === 'official') {
    throw new Error(
      `The official image ${nodeImage} is not present and could not be pulled (${pulled}). ` +
        'Use --base offline or pull it first.',
    );
  }
  opts.onLog?.(`${nodeImage} unavailable (${pulled}); building an offline base from this machine's Node.js`);
  return ensureOffline(opts.onLog);
}

/**
 * Starts listing and hashing the base image's inputs (PM2's thousands of files) without waiting for
 * them: a run does this while its reaper and lab lock are being created, instead of after, under the
 * lock. Both contexts are remembered per process, so {@link ensureBaseImage} finds the work done; a
 * failure is reported by that call, not here. The choice of context follows ensureBaseImage's.
 */
export function prepareBaseInputs(opts: Pick<BaseOptions, 'strategy' | 'nodeImage'> = {}): void {
  const { strategy, nodeImage } = baseChoice(opts);
  void (async () => {
    if (strategy !== 'offline' && (await imageExists(nodeImage)))
      await officialContext((await docker().getImage(nodeImage).inspect()).Id);
    else if (strategy !== 'official') await (await offlineContext()).digest();
  })().catch(() => {});
}

/** PM2 (with its dependencies) and the launchers, at /opt/rightsize in every base image. */
async function addRightsizeTools(ctx: BuildContext): Promise<void> {
  const { root, dirs } = packageClosure('pm2', projectRoot());
  ctx.addDir('rootfs/opt/rightsize/node_modules');
  for (const dir of dirs) {
    const rel = path.relative(path.join(root, 'node_modules'), dir).split(path.sep).join('/');
    // Tests, docs and type files are dead weight in an image that only runs pm2-runtime.
    await ctx.addTree(
      `rootfs/opt/rightsize/node_modules/${rel}`,
      dir,
      (r, isDir) =>
        isDir
          ? r === 'node_modules' || /(^|\/)(test|tests|docs?|examples?|\.github)$/.test(r)
          : /\.(md|d\.ts|map)$/i.test(r),
      { byStat: true }, // Rightsize's own node_modules: they change only when Rightsize is reinstalled
    );
  }
  await ctx.addTree('rootfs/opt/rightsize/launchers', path.join(resourcesDir(), 'base-image', 'launchers'));
  // PM2 writes its home; node apps write temp files.
  ctx.addDir('rootfs/root', 0o755).addDir('rootfs/tmp', 0o1777);
}

/** A base from an official Node.js image already on the engine; `labels` go on a newly built one. */
export async function ensureOfficial(
  nodeImage: string,
  onLog?: BuildLog,
  labels?: Record<string, string>,
): Promise<BaseImage> {
  const info = await docker().getImage(nodeImage).inspect();
  const { ctx, tag } = await officialContext(info.Id);
  if (!(await imageExists(tag)))
    await buildImage(ctx, tag, {
      kind: 'base',
      buildargs: { NODE_IMAGE: nodeImage },
      onLog,
      ...(labels ? { labels } : {}),
    });
  const nodeVersion = imageNodeVersion(info.Config?.Env);
  return { tag, strategy: 'official', from: nodeImage, ...(nodeVersion ? { nodeVersion } : {}) };
}

/** The official images say their version in NODE_VERSION. */
export function imageNodeVersion(env: string[] | undefined | null): string | undefined {
  return env?.find((e) => e.startsWith('NODE_VERSION='))?.slice('NODE_VERSION='.length);
}

const officialCache = new Map<string, Promise<{ ctx: BuildContext; tag: string }>>();
/** Built once per process per node image id, like the offline context: it lists thousands of files. */
function officialContext(nodeImageId: string): Promise<{ ctx: BuildContext; tag: string }> {
  let cached = officialCache.get(nodeImageId);
  if (!cached) {
    cached = makeOfficialContext(nodeImageId);
    cached.catch(() => officialCache.delete(nodeImageId)); // a failure is not remembered
    officialCache.set(nodeImageId, cached);
  }
  return cached;
}

async function makeOfficialContext(nodeImageId: string): Promise<{ ctx: BuildContext; tag: string }> {
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', readFileSync(path.join(resourcesDir(), 'base-image', 'official.Dockerfile'), 'utf8'));
  await addRightsizeTools(ctx);
  ctx.addText('from-image-id', nodeImageId); // a re-pulled node image changes the tag
  const tag = `rightsize/base-official:${(await ctx.digest()).slice(0, 16)}`;
  return { ctx, tag };
}

async function ensureOffline(onLog?: BuildLog): Promise<BaseImage> {
  const ctx = await offlineContext();
  const tag = `rightsize/base-offline:${(await ctx.digest()).slice(0, 16)}`;
  // Labelled with its version, so an image a user builds FROM it says which Node.js it runs.
  const labels = { [NODE_VERSION_LABEL]: hostNodeVersion() };
  if (!(await imageExists(tag))) await buildImage(ctx, tag, { kind: 'base', onLog, labels });
  return { tag, strategy: 'offline', nodeVersion: hostNodeVersion() };
}

let offlineCache: Promise<BuildContext> | undefined;
/** Built once per process, asynchronously: it lists thousands of files. */
function offlineContext(): Promise<BuildContext> {
  offlineCache ??= makeOfflineContext();
  return offlineCache;
}

async function makeOfflineContext(): Promise<BuildContext> {
  if (process.platform !== 'linux') {
    throw new Error(
      'An offline base image needs a Linux host (its node binary goes into the image). ' +
        `Pull ${defaultNodeImage()} first, or set RIGHTSIZE_NODE_IMAGE to a Node.js image you have.`,
    );
  }
  return offlineContextFor(hostNodeBinary());
}

/**
 * An offline base around `node` (this host's, or a release from the registry): it and its libraries.
 * `nodeId` stands for the binary in the tag (a download by its checksum), else its path, size and mtime.
 */
export async function offlineContextFor(node: string, nodeId?: string): Promise<BuildContext> {
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', readFileSync(path.join(resourcesDir(), 'base-image', 'offline.Dockerfile'), 'utf8'));
  ctx.addFile('rootfs/usr/local/bin/node', node, 0o755, nodeId);
  for (const lib of await sharedLibraries(node)) ctx.addFile(`rootfs${lib}`, lib, 0o755);
  // Just enough of /etc for os.userInfo() (PM2 calls it) to find root.
  ctx.addText(
    'rootfs/etc/passwd',
    'root:x:0:0:root:/root:/usr/local/bin/node\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
  );
  ctx.addText('rootfs/etc/group', 'root:x:0:\nnogroup:x:65534:\n');
  await addRightsizeTools(ctx);
  return ctx;
}

/** The shared libraries (and the dynamic loader) the binary needs, as absolute paths. */
export async function sharedLibraries(binary: string): Promise<string[]> {
  const { stdout: out } = await promisify(execFile)('ldd', [binary], { encoding: 'utf8' });
  const libs = new Set<string>();
  const missing = out
    .split('\n')
    .map((l) => /^\s*(\S+)\s+=>\s+not found/.exec(l)?.[1])
    .filter(Boolean);
  if (missing.length) throw new Error(`${binary} needs libraries this machine does not have (${missing.join(', ')}).`);
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m?.[1]) libs.add(m[1]);
  }
  return [...libs];
}

/** Pulls `image`; true when it is there afterwards, else the reason in one line. */
export async function tryPull(image: string, timeoutMs: number, onLog?: BuildLog): Promise<true | string> {
  try {
    await pull(image, timeoutMs, onLog);
    return (await imageExists(image)) ? true : 'pull ended without the image';
  } catch (e) {
    return firstLine(e);
  }
}

/** Pulls `image`, throwing when the pull fails; does not check that the image is there afterwards. */
export async function pull(image: string, timeoutMs: number, onLog?: BuildLog): Promise<void> {
  onLog?.(`pulling ${image}`);
  const stream = await withTimeout(docker().pull(image), timeoutMs, 'pull timed out');
  await withTimeout(
    new Promise<void>((resolve, reject) =>
      docker().modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
    ),
    timeoutMs * 10,
    'pull timed out',
  );
}

export function firstLine(e: unknown): string {
  return e instanceof Error ? e.message.split('\n')[0]! : String(e);
}
