// A base image for any Node.js version a cell names (CellConfig.node). Offline, as the default base
// is: the release's binary from the npm registry (node-linux-<arch>, the Docker engine's arch), the
// libraries `ldd` lists for it, PM2 and the launchers. Or, where `node:<version>-slim` is on the
// engine already (or the strategy is 'official'), that image with PM2 and the launchers on top.
import { docker } from './client.ts';
import {
  ensureBaseImage,
  ensureOfficial,
  offlineContextFor,
  tryPull,
  type BaseImage,
  type BaseStrategy,
} from './base-image.ts';
import { buildImage, imageExists, NODE_VERSION_LABEL, type BuildLog } from './image-build.ts';
import { ensureNodeBinary } from './node-download.ts';
import { nodeRelease, nodeSpecProblem, npmArchOf, NodeDistError } from './node-dist.ts';

export { NODE_VERSION_LABEL };

/** The Docker engine's architecture in npm's words (x64, arm64, …): the binary must run there, not here. */
export async function engineNodeArch(): Promise<{ engine: string; npm: string | undefined }> {
  const engine = (await docker().version()).Arch;
  return { engine, npm: npmArchOf(engine) };
}

export interface NodeBaseOptions {
  strategy?: BaseStrategy;
  onLog?: BuildLog;
}

/**
 * The base image for Node.js `spec` ("22", "22.11", "22.11.0"), built if needed. Throws
 * NodeDistError, before anything is built, for a version the registry does not have, a registry
 * that cannot be reached, or a download that does not match its checksum.
 */
export async function ensureNodeBase(spec: string, o: NodeBaseOptions = {}): Promise<BaseImage> {
  return { ...(await nodeBase(spec, o)), named: spec };
}

async function nodeBase(spec: string, o: NodeBaseOptions): Promise<BaseImage> {
  const problem = nodeSpecProblem(spec);
  if (problem) throw new NodeDistError(problem);
  const strategy = o.strategy ?? (process.env.RIGHTSIZE_BASE as BaseStrategy | undefined) ?? 'auto';
  const named = `node:${spec.replace(/^v/, '')}-slim`;
  // The official image, present or pulled; its version is its NODE_VERSION.
  if (strategy === 'official') return ensureBaseImage({ strategy, nodeImage: named, ...log(o) });
  const arch = await engineNodeArch();
  let release;
  try {
    if (!arch.npm)
      throw new NodeDistError(`The npm registry has no Node.js package for the Docker engine's ${arch.engine}`);
    release = await nodeRelease(spec, arch.npm);
  } catch (e) {
    // The official image already here serves when the registry cannot (an air-gapped machine).
    if (strategy === 'auto' && (await imageExists(named))) {
      o.onLog?.(`${(e as Error).message}; using ${named}, which this engine has`);
      return ensureOfficial(named, o.onLog);
    }
    throw e;
  }
  const exact = `node:${release.version}-slim`;
  if (strategy === 'auto' && (await imageExists(exact))) return ensureOfficial(exact, o.onLog);
  // The offline base copies this host's libraries next to the binary: same OS and architecture only.
  if (process.platform !== 'linux' || process.arch !== release.arch) {
    const pulled = strategy === 'auto' ? await tryPull(exact, 60_000, o.onLog) : 'the offline strategy pulls nothing';
    if (pulled === true) return ensureOfficial(exact, o.onLog);
    throw new NodeDistError(
      `Node.js ${release.version} for the Docker engine (${arch.engine}) cannot be assembled on this machine ` +
        `(${process.platform}/${process.arch}): the offline base needs a Linux host of the engine's architecture, ` +
        `and ${exact} could not be pulled (${pulled}). Pull ${exact} on the engine and run again.`,
    );
  }
  const binary = await ensureNodeBinary(release, o.onLog);
  const ctx = await offlineContextFor(
    binary,
    `${release.pkg}@${release.version} ${release.integrity ?? release.shasum}`,
  );
  const tag = `rightsize/base-node:${release.version}-${(await ctx.digest()).slice(0, 12)}`;
  if (!(await imageExists(tag))) {
    o.onLog?.(`building the base image of Node.js ${release.version}`);
    // Not kind 'base': a reaper or the lab lock is made from the default base, never pinning a version's.
    await buildImage(ctx, tag, { kind: 'base-node', labels: { [NODE_VERSION_LABEL]: release.version }, ...log(o) });
  }
  return { tag, strategy: 'offline', nodeVersion: release.version };
}

const log = (o: NodeBaseOptions): { onLog?: BuildLog } => (o.onLog ? { onLog: o.onLog } : {});
