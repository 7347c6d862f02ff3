// A saved target's settings, kind by kind: their shapes, and the checks every kind's settings share
// (engine URLs, TLS folders, key files, kubeconfigs, registries). Secrets are never stored: only the
// paths of the files that hold them, each of which must exist and be readable when the target is added.
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { closest } from '../common/issues.ts';

/** The files a TLS folder holds (Docker's DOCKER_CERT_PATH layout). */
export const TLS_FILES = ['ca.pem', 'cert.pem', 'key.pem'] as const;

const nonEmpty = z.string().trim().min(1);
export const DockerSettingsSchema = z
  .object({ url: nonEmpty, tlsDir: nonEmpty.optional(), sshKeyFile: nonEmpty.optional() })
  .strict();
export const SwarmSettingsSchema = z
  .object({
    managerUrl: nonEmpty,
    tlsDir: nonEmpty.optional(),
    nodeEngines: z
      .record(nonEmpty, nonEmpty)
      .refine((r) => Object.keys(r).length > 0, 'needs at least one node: NODE=URL, the engine URL of each Swarm node'),
  })
  .strict();
export const KubernetesSettingsSchema = z
  .object({
    kubeconfig: nonEmpty.optional(),
    context: nonEmpty.optional(),
    namespacePrefix: z
      .string()
      .regex(
        /^[a-z0-9]([a-z0-9-]{0,28}[a-z0-9])?$/,
        'should be a DNS label of up to 30 lower-case letters, digits and "-"',
      )
      .optional(),
    /** Where images are pushed for the nodes to pull: host[:port][/path], no scheme. */
    registry: nonEmpty.optional(),
    /**
     * A Docker config.json (its `auths` entry for the registry) when the registry needs a login: a path, never the
     * credentials.
     */
    registryAuth: nonEmpty.optional(),
  })
  .strict();

export type DockerSettings = z.infer<typeof DockerSettingsSchema>;
export type SwarmSettings = z.infer<typeof SwarmSettingsSchema>;
export type KubernetesSettings = z.infer<typeof KubernetesSettingsSchema>;

/** What is wrong with a registry as images are tagged under it (host[:port][/path]), or undefined. */
export function registryProblem(registry: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(registry))
    return `give the registry without a scheme: "${registry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')}".`;
  if (registry.includes('@'))
    return `has a login in it. ${SECRET_ADVICE} Give the login in a Docker config.json (--registry-auth FILE).`;
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/.test(registry)) {
    return (
      `"${registry}" is not a registry an image can be tagged under: ` +
      'give host[:port][/path] in lower case, e.g. registry.example.com/rightsize or localhost:5000.'
    );
  }
  return undefined;
}

// ---- secrets -------------------------------------------------------------------------------------

const PEM = /-----BEGIN [A-Z ]+-----/;
const JWT = /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./;
const KUBECONFIG_TEXT = /^\s*apiVersion:\s*v1\b[\s\S]*\bclusters:/m;

/** Why a setting's text is key material rather than a path or URL, or undefined. */
export function secretIn(text: string): string | undefined {
  if (PEM.test(text)) return 'is a PEM key or certificate pasted in';
  if (JWT.test(text.trim())) return 'is a token pasted in';
  if (KUBECONFIG_TEXT.test(text)) return 'is the text of a kubeconfig pasted in';
  if (/\n/.test(text.trim())) return 'spans several lines, like pasted key material';
  return undefined;
}

export const SECRET_ADVICE =
  'Rightsize never stores keys, certificates or tokens in its database, only the path of the file that holds them: ' +
  'save it to a file (readable only by you) and give that path.';

// ---- URLs and files ------------------------------------------------------------------------------

const PROTOCOLS = ['unix', 'tcp', 'ssh'];

/** What is wrong with a Docker engine URL, or undefined. `tls`/`sshKey`: whether those settings are given with it. */
export function engineUrlProblem(url: string, o: { tls?: boolean; sshKey?: boolean } = {}): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return (
      `"${url}" is not an engine URL: ` +
      'give tcp://host:2375, tcp://host:2376 with a TLS folder, ssh://user@host or unix:///path/to/docker.sock.'
    );
  }
  const proto = u.protocol.replace(/:$/, '');
  if (!PROTOCOLS.includes(proto)) {
    // Scheme names are three letters: a swap (tpc) is two edits, more than closest() allows for so short a word.
    const near = PROTOCOLS.map((p) => ({ p, d: distance(proto, p) })).sort((a, b) => a.d - b.d)[0]!;
    const guess =
      proto === 'http' || proto === 'https' ? 'tcp' : (closest(proto, PROTOCOLS) ?? (near.d <= 2 ? near.p : undefined));
    const suggestion = guess ? ` Did you mean "${url.replace(/^[^:]+:/, `${guess}:`)}"?` : '';
    return `"${proto}://" engines are not supported: use unix://, tcp:// or ssh://.${suggestion}`;
  }
  if (u.password)
    return `has a password in it. ${SECRET_ADVICE} For ssh, give a key file (--ssh-key) or use the ssh agent.`;
  if (proto !== 'unix' && !u.hostname) return `"${url}" names no host.`;
  if (o.tls && proto !== 'tcp') return `a TLS folder is used with tcp:// engines only, not ${proto}://.`;
  if (o.sshKey && proto !== 'ssh') return `an ssh key file is used with ssh:// engines only, not ${proto}://.`;
  return undefined;
}

const errWords = (e: unknown): string => {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT'
    ? 'does not exist'
    : code === 'EACCES'
      ? 'is not readable by you (permissions)'
      : ((e as Error).message ?? String(e));
};

/** Why `file` cannot be read as a file, or undefined. */
export function unreadableFile(file: string): string | undefined {
  try {
    if (!statSync(file).isFile()) return `${file} is not a file`;
    accessSync(file, constants.R_OK);
    return undefined;
  } catch (e) {
    return `${file} ${errWords(e)}`;
  }
}

/** Why `dir` is not a usable TLS folder (a folder with readable ca.pem, cert.pem and key.pem), or undefined. */
export function unusableTlsDir(dir: string): string | undefined {
  try {
    if (!statSync(dir).isDirectory()) return `${dir} is not a folder: give the folder holding ${TLS_FILES.join(', ')}`;
    readdirSync(dir);
  } catch (e) {
    return `${dir} ${errWords(e)}`;
  }
  const bad = TLS_FILES.map((f) => unreadableFile(path.join(dir, f))).filter((x): x is string => x !== undefined);
  return bad.length ? `the TLS folder must hold readable ${TLS_FILES.join(', ')}: ${bad.join('; ')}` : undefined;
}

/** The kubeconfig kubectl would use: $KUBECONFIG's first file, else ~/.kube/config. */
export function defaultKubeconfig(env: NodeJS.ProcessEnv = process.env): string {
  const first = env.KUBECONFIG?.split(path.delimiter).find(Boolean);
  return first ?? path.join(homedir(), '.kube', 'config');
}

/** The contexts a kubeconfig file names (client-node loads it as kubectl does), or why it cannot be read. */
export async function kubeContexts(file: string): Promise<{ contexts: string[] } | { error: string }> {
  try {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return { contexts: kc.getContexts().map((c) => c.name) };
  } catch (e) {
    return { error: `${file} is not a kubeconfig: ${(e as Error).message.split('\n')[0]}` };
  }
}
