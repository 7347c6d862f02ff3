// Images for a cluster: its nodes pull from a registry, so what this machine built (a cell's image,
// the load agent's) is tagged under the target's registry and pushed there by this machine's engine.
// Credentials come from a file the user keeps (a Docker config.json's `auths`), read at push time:
// the database holds only its path.
import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';

export interface RegistryRef {
  /**
   * Where images go: a host (with port) and optionally a path, e.g. "registry.example.com/team" or "localhost:5000".
   */
  registry: string;
  /** A Docker config.json with an `auths` entry for the registry's host (default: no credentials). */
  authFile?: string;
}

/** The registry's host (with port): the part a Docker config.json's `auths` is keyed by. */
export const registryHost = (registry: string): string => registry.split('/')[0]!;

/** `repo[:tag]` of a local tag (its own registry host, if any, left out), split as Docker's tag call wants it. */
function repoAndTag(localTag: string): { path: string; tag: string } {
  const parts = localTag.split('/');
  const first = parts[0] ?? '';
  // A first part with a dot or a port, or "localhost", is a registry host (Docker's own rule).
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) parts.shift();
  const rest = parts.join('/');
  const colon = rest.lastIndexOf(':');
  return colon > 0 ? { path: rest.slice(0, colon), tag: rest.slice(colon + 1) } : { path: rest, tag: 'latest' };
}

/** The reference a local tag gets in the registry: REGISTRY/repo:tag. */
export function registryReference(localTag: string, registry: string): string {
  const { path, tag } = repoAndTag(localTag);
  return `${registry.replace(/\/+$/, '')}/${path}:${tag}`;
}

/** The registry's credentials from the auth file, as the engine's X-Registry-Auth takes them; why not, in words. */
export function registryAuth(r: RegistryRef): Record<string, string> {
  const serveraddress = registryHost(r.registry);
  if (!r.authFile) return { serveraddress };
  let cfg: {
    auths?: Record<string, { auth?: string; username?: string; password?: string; identitytoken?: string }>;
    credsStore?: string;
    credHelpers?: Record<string, string>;
  };
  try {
    cfg = JSON.parse(readFileSync(r.authFile, 'utf8')) as typeof cfg;
  } catch (e) {
    throw new Error(
      `The registry auth file ${r.authFile} cannot be read as a Docker config.json: ${(e as Error).message}`,
    );
  }
  const entry = cfg.auths?.[serveraddress] ?? cfg.auths?.[`https://${serveraddress}`];
  if (!entry) {
    const helper = cfg.credHelpers?.[serveraddress] ?? cfg.credsStore;
    throw new Error(
      `The registry auth file ${r.authFile} has no "auths" entry for ${serveraddress}` +
        (helper
          ? ` (it names the credential helper "${helper}", which Rightsize does not run: ` +
            `give a file with the entry itself, e.g. from \`docker login --config DIR ${serveraddress}\`)`
          : '') +
        '.',
    );
  }
  if (entry.identitytoken) return { serveraddress, identitytoken: entry.identitytoken };
  if (entry.username !== undefined && entry.password !== undefined)
    return { serveraddress, username: entry.username, password: entry.password };
  const decoded = Buffer.from(entry.auth ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new Error(
      `The registry auth file ${r.authFile} has an "auths" entry for ${serveraddress} ` +
        'without a usable "auth" (base64 of user:password).',
    );
  return { serveraddress, username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Tags `localTag` as REGISTRY/repo:tag on `engine` and pushes it; returns that reference. A push
 * the registry refuses (credentials, unknown host, TLS) fails with the registry's own words.
 */
export async function pushToRegistry(engine: Docker, localTag: string, r: RegistryRef): Promise<string> {
  const ref = registryReference(localTag, r.registry);
  const colon = ref.lastIndexOf(':');
  const authconfig = registryAuth(r);
  try {
    await engine.getImage(localTag).tag({ repo: ref.slice(0, colon), tag: ref.slice(colon + 1) });
    const stream = (await engine.getImage(ref).push({ authconfig })) as NodeJS.ReadableStream;
    const events = await new Promise<{ error?: string; errorDetail?: { message?: string } }[]>((resolve, reject) =>
      engine.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) =>
        err ? reject(err) : resolve(out),
      ),
    );
    // The engine reports a refused push inside the stream (HTTP 200), not as an HTTP error.
    const failed = events.find((e) => e.error || e.errorDetail);
    if (failed) throw new Error(failed.errorDetail?.message ?? failed.error);
  } catch (e) {
    throw new Error(`Could not push ${localTag} to the registry ${r.registry} as ${ref}: ${(e as Error).message}`);
  }
  return ref;
}
