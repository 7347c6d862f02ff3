// Node.js by version from the npm registry: the packages node-linux-<arch> carry the official
// binaries (bin/node), so a version's base image needs the registry npm already uses and nothing else.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export const DEFAULT_REGISTRY = 'https://registry.npmjs.org/';

/** A Node.js version the registry could not give, in words; nothing was built or kept. */
export class NodeDistError extends Error {
  readonly code = 'NODE_DIST';
  constructor(message: string) {
    super(message);
    this.name = 'NodeDistError';
  }
}

/** One release of the binary package: what to download and what it must hash to. */
export interface NodeRelease {
  version: string;
  /** npm's architecture name (x64, arm64, …). */
  arch: string;
  pkg: string;
  registry: string;
  tarball: string;
  /** Subresource integrity ("sha512-…") and/or the sha1 hex shasum, as the registry lists them. */
  integrity?: string;
  shasum?: string;
}

/** Docker's (Go's) or uname's architecture → npm's, for the package name. Undefined: no package. */
export function npmArchOf(engineArch: string): string | undefined {
  const map: Record<string, string> = {
    amd64: 'x64',
    x86_64: 'x64',
    arm64: 'arm64',
    aarch64: 'arm64',
    arm: 'armv7l',
    armv7l: 'armv7l',
    ppc64le: 'ppc64le',
    s390x: 's390x',
  };
  return map[engineArch];
}

export const nodePackage = (arch: string): string => `node-linux-${arch}`;

const SPEC = /^v?(\d+)(?:\.(\d+)(?:\.(\d+))?)?$/;

/** What is wrong with a version as a user wrote it ("22", "22.11", "22.11.0"), or undefined. */
export function nodeSpecProblem(spec: string): string | undefined {
  if (SPEC.test(spec.trim())) return undefined;
  return `"${spec}" is not a Node.js version: write a major ("22"), a minor ("22.11") or an exact version ("22.11.0")`;
}

type Triple = [number, number, number];
const triple = (v: string): Triple => v.split('.').map(Number) as Triple;
const compare = (a: Triple, b: Triple): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Releases only (no "-rc"), oldest first. */
export function releasesOf(versions: Iterable<string>): string[] {
  return [...versions].filter((v) => /^\d+\.\d+\.\d+$/.test(v)).sort((a, b) => compare(triple(a), triple(b)));
}

/**
 * The newest release that `spec` names: "22" → the newest 22.x, "22.11" → the newest 22.11.x,
 * "22.11.0" → itself. Throws NodeDistError naming what the registry has instead.
 */
export function resolveNodeVersion(spec: string, versions: Iterable<string>, registry: string): string {
  const problem = nodeSpecProblem(spec);
  if (problem) throw new NodeDistError(problem);
  const m = SPEC.exec(spec.trim())!;
  const want = [m[1], m[2], m[3]].filter((p) => p !== undefined).map(Number);
  const all = releasesOf(versions);
  const matching = all.filter((v) => want.every((n, i) => triple(v)[i] === n));
  if (matching.length) return matching[matching.length - 1]!;
  const named = want.join('.');
  const sameMajor = all.filter((v) => triple(v)[0] === want[0]);
  const range = (vs: string[]): string => (vs.length === 1 ? vs[0]! : `${vs[0]} … ${vs[vs.length - 1]}`);
  throw new NodeDistError(
    sameMajor.length
      ? `Node.js ${named} is not on the registry ${registry}: versions of ${want[0]} are ${range(sameMajor)}`
      : `Node.js ${named} is not on the registry ${registry}: it has ${all.length ? range(all) : 'no releases'}`,
  );
}

let registryCache: Promise<string> | undefined;
/** The registry npm is configured with (npm's own setting, as `npm config get registry` prints it). */
export function registryUrl(): Promise<string> {
  registryCache ??= (async () => {
    const fromEnv = process.env.RIGHTSIZE_NPM_REGISTRY ?? process.env.npm_config_registry;
    if (fromEnv) return withSlash(fromEnv);
    try {
      const { stdout } = await promisify(execFile)('npm', ['config', 'get', 'registry'], {
        encoding: 'utf8',
        timeout: 10_000,
        shell: process.platform === 'win32',
      });
      const url = stdout.trim().split('\n').pop()?.trim();
      return url && /^https?:\/\//.test(url) ? withSlash(url) : DEFAULT_REGISTRY;
    } catch {
      return DEFAULT_REGISTRY; // no npm on this machine: the public registry
    }
  })();
  return registryCache;
}

const withSlash = (u: string): string => (u.endsWith('/') ? u : `${u}/`);

/** A network failure in words: the cause's code (ENOTFOUND, ECONNREFUSED, a timeout) rather than "fetch failed". */
export function networkReason(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError' || err.name === 'AbortError') return 'no answer in time';
  return err.cause?.code ?? err.cause?.message ?? err.message ?? String(e);
}

interface Packument {
  versions?: Record<string, { dist?: { tarball?: string; integrity?: string; shasum?: string } }>;
}

/** The package's versions and their downloads, from the registry's abbreviated metadata. */
export async function fetchPackument(pkg: string, registry: string, timeoutMs = 30_000): Promise<Packument> {
  const url = `${registry}${pkg}`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8' },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new NodeDistError(
      `The npm registry ${registry} could not be reached (${networkReason(e)}): ` +
        `Node.js versions come from its package ${pkg}. Check the network or npm's registry setting.`,
    );
  }
  if (res.status === 404)
    throw new NodeDistError(`The npm registry ${registry} has no package ${pkg}: no Node.js for this architecture.`);
  if (!res.ok) throw new NodeDistError(`The npm registry ${registry} answered ${res.status} for ${pkg}.`);
  return (await res.json()) as Packument;
}

/** Resolves `spec` on the registry for `arch`: the exact version and its download. */
export async function nodeRelease(spec: string, arch: string, registry?: string): Promise<NodeRelease> {
  const reg = registry ?? (await registryUrl());
  const pkg = nodePackage(arch);
  const doc = await fetchPackument(pkg, reg);
  return releaseFrom(doc, spec, arch, pkg, reg);
}

/** The release `spec` names in a package document (exported for tests against a recorded one). */
export function releaseFrom(doc: Packument, spec: string, arch: string, pkg: string, registry: string): NodeRelease {
  const version = resolveNodeVersion(spec, Object.keys(doc.versions ?? {}), registry);
  const dist = doc.versions![version]!.dist;
  if (!dist?.tarball)
    throw new NodeDistError(`The npm registry ${registry} lists ${pkg}@${version} without a download.`);
  return {
    version,
    arch,
    pkg,
    registry,
    tarball: dist.tarball,
    ...(dist.integrity ? { integrity: dist.integrity } : {}),
    ...(dist.shasum ? { shasum: dist.shasum } : {}),
  };
}
