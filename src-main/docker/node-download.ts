// A Node.js release's binary, downloaded once from the registry, checked against the registry's
// checksum, and kept in Rightsize's cache by exact version and architecture: a second run is instant.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { cacheDir } from '../util/cache-dir.ts';
import { networkReason, NodeDistError, type NodeRelease } from './node-dist.ts';

/** Where a release's binary is kept: <cache>/node/<version>-linux-<arch>/bin/node. */
export function cachedNodePath(version: string, arch: string): string {
  return path.join(cacheDir(), 'node', `${version}-linux-${arch}`, 'bin', 'node');
}

/** The release's binary on this machine, downloaded and checked if it is not cached yet. */
export async function ensureNodeBinary(
  release: NodeRelease,
  onLog?: (line: string) => void,
  timeoutMs = 300_000,
): Promise<string> {
  const dest = cachedNodePath(release.version, release.arch);
  if (existsSync(dest)) return dest;
  onLog?.(`downloading Node.js ${release.version} (${release.pkg}) from ${release.registry}`);
  const tgz = await download(release, timeoutMs);
  checkIntegrity(release, tgz);
  const binary = await extractNode(tgz, release);
  // Written beside its place and renamed: a crash or a second process never sees half a binary.
  await mkdir(path.dirname(dest), { recursive: true });
  const tmp = `${dest}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, binary);
    await chmod(tmp, 0o755);
    await rename(tmp, dest);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return dest;
}

async function download(r: NodeRelease, timeoutMs: number): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(r.tarball, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new NodeDistError(`${r.tarball} answered ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  } catch (e) {
    if (e instanceof NodeDistError)
      throw new NodeDistError(`Node.js ${r.version} could not be downloaded: ${e.message}.`);
    throw new NodeDistError(`Node.js ${r.version} could not be downloaded from ${r.tarball} (${networkReason(e)}).`);
  }
}

/** The tarball against the registry's integrity (sha512 preferred) or its sha1 shasum. */
export function checkIntegrity(r: Pick<NodeRelease, 'version' | 'pkg' | 'integrity' | 'shasum'>, tgz: Buffer): void {
  const sri = r.integrity
    ?.split(/\s+/)
    .map((s) => /^(sha512|sha384|sha256|sha1)-(.+)$/.exec(s))
    .find(Boolean);
  const [algo, expected, got] = sri
    ? [sri[1]!, sri[2]!, createHash(sri[1]!).update(tgz).digest('base64')]
    : r.shasum
      ? ['sha1', r.shasum.toLowerCase(), createHash('sha1').update(tgz).digest('hex')]
      : [undefined, undefined, undefined];
  if (!algo) throw new NodeDistError(`The registry lists no checksum for ${r.pkg}@${r.version}: it was not used.`);
  if (got !== expected) {
    throw new NodeDistError(
      `${r.pkg}@${r.version} does not match the registry's checksum (${algo} ${expected}, downloaded ${got}): ` +
        'nothing was kept. Try again; if it persists, the registry or a proxy is serving a different file.',
    );
  }
}

/** package/bin/node out of the package's tarball. */
async function extractNode(tgz: Buffer, r: NodeRelease): Promise<Buffer> {
  const extract = tar.extract();
  let found: Buffer | undefined;
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    const keep = header.name.replace(/^\.\//, '') === 'package/bin/node';
    stream.on('data', (c: unknown) => keep && chunks.push(c as Buffer));
    stream.on('end', () => {
      if (keep) found = Buffer.concat(chunks);
      next();
    });
    stream.resume();
  });
  try {
    await pipeline(Readable.from(tgz), createGunzip(), extract);
  } catch (e) {
    throw new NodeDistError(`${r.pkg}@${r.version} could not be unpacked: ${(e as Error).message}`);
  }
  if (!found) throw new NodeDistError(`${r.pkg}@${r.version} holds no bin/node.`);
  return found;
}
