// A saved target's settings: what each kind needs, checked with every problem at once in words
// (did-you-mean for a misspelt kind or field). Secrets are never stored: only the paths of the
// files that hold them (a TLS folder, an ssh key file, a kubeconfig), each of which must exist and
// be readable when the target is added. Key material pasted in place of a path is refused.
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { closest, didYouMean, plainProblems, schemaKeysAt, type Problem } from '../common/issues.ts';
import { registryAuth } from '../providers/kubernetes/registry-push.ts';
import type { SavedTargetKind } from '../store/targets.ts';

export const LOCAL_TARGET = 'local';
export const SAVED_KINDS = ['docker', 'swarm', 'kubernetes'] as const satisfies readonly SavedTargetKind[];
/** The files a TLS folder holds (Docker's DOCKER_CERT_PATH layout). */
export const TLS_FILES = ['ca.pem', 'cert.pem', 'key.pem'] as const;

const nonEmpty = z.string().trim().min(1);
export const TargetNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/,
    'should be 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

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

export const TargetInputSchema = z.discriminatedUnion('kind', [
  z.object({ name: TargetNameSchema, kind: z.literal('docker'), settings: DockerSettingsSchema }).strict(),
  z.object({ name: TargetNameSchema, kind: z.literal('swarm'), settings: SwarmSettingsSchema }).strict(),
  z.object({ name: TargetNameSchema, kind: z.literal('kubernetes'), settings: KubernetesSettingsSchema }).strict(),
]);

/** A target as stored: the kind and its settings, paths made absolute. */
export type SavedTarget = z.infer<typeof TargetInputSchema>;

const SETTINGS_SCHEMA: Record<SavedTargetKind, z.ZodType> = {
  docker: DockerSettingsSchema,
  swarm: SwarmSettingsSchema,
  kubernetes: KubernetesSettingsSchema,
};

const HINTS: Record<string, string> = {
  name: 'a name for the target, e.g. "build-box"',
  kind: '"docker", "swarm" or "kubernetes"',
  settings: 'the settings of that kind of target',
  'settings.url': 'the engine URL, e.g. tcp://host:2375, tcp://host:2376 with a TLS folder, or ssh://user@host',
  'settings.managerUrl': "a Swarm manager's engine URL, e.g. tcp://manager:2375",
  'settings.nodeEngines': 'each node\'s engine URL by node name, e.g. {"node-1": "tcp://node-1:2375"}',
  'settings.registry':
    'the registry the cluster pulls from, where Rightsize pushes images, e.g. registry.example.com/rightsize',
  'settings.registryAuth':
    'the path of a Docker config.json with the registry\'s login (an "auths" entry), e.g. ~/.docker/config.json',
};

/** What is wrong with a registry as images are tagged under it (host[:port][/path]), or undefined. */
export function registryProblem(registry: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(registry))
    return `give the registry without a scheme: "${registry.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '')}".`;
  if (registry.includes('@'))
    return `has a login in it. ${SECRET_ADVICE} Give the login in a Docker config.json (--registry-auth FILE).`;
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(\/[a-z0-9]+([._-][a-z0-9]+)*)*$/.test(registry)) {
    return `"${registry}" is not a registry an image can be tagged under: give host[:port][/path] in lower case, e.g. registry.example.com/rightsize or localhost:5000.`;
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

const SECRET_ADVICE =
  'Rightsize never stores keys, certificates or tokens in its database, only the path of the file that holds them: save it to a file (readable only by you) and give that path.';

function secretProblems(input: unknown): Problem[] {
  const out: Problem[] = [];
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string') {
      const why = secretIn(v);
      if (why) out.push({ path: at, message: `${why}. ${SECRET_ADVICE}` });
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${at}.${k}`);
  };
  const settings = (input as { settings?: unknown } | null)?.settings;
  walk(settings, 'settings');
  return out;
}

// ---- URLs and files ------------------------------------------------------------------------------

const PROTOCOLS = ['unix', 'tcp', 'ssh'];

/** What is wrong with a Docker engine URL, or undefined. `tls`/`sshKey`: whether those settings are given with it. */
export function engineUrlProblem(url: string, o: { tls?: boolean; sshKey?: boolean } = {}): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not an engine URL: give tcp://host:2375, tcp://host:2376 with a TLS folder, ssh://user@host or unix:///path/to/docker.sock.`;
  }
  const proto = u.protocol.replace(/:$/, '');
  if (!PROTOCOLS.includes(proto)) {
    // Scheme names are three letters: a swap (tpc) is two edits, more than closest() allows for so short a word.
    const near = PROTOCOLS.map((p) => ({ p, d: distance(proto, p) })).sort((a, b) => a.d - b.d)[0]!;
    const guess =
      proto === 'http' || proto === 'https' ? 'tcp' : (closest(proto, PROTOCOLS) ?? (near.d <= 2 ? near.p : undefined));
    return `"${proto}://" engines are not supported: use unix://, tcp:// or ssh://.${guess ? ` Did you mean "${url.replace(/^[^:]+:/, `${guess}:`)}"?` : ''}`;
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
async function kubeContexts(file: string): Promise<{ contexts: string[] } | { error: string }> {
  try {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return { contexts: kc.getContexts().map((c) => c.name) };
  } catch (e) {
    return { error: `${file} is not a kubeconfig: ${(e as Error).message.split('\n')[0]}` };
  }
}

// ---- the whole check -----------------------------------------------------------------------------

export type TargetValidation = { ok: true; target: SavedTarget } | { ok: false; problems: Problem[] };

export interface ValidateOptions {
  /** Names already saved. */
  taken: readonly string[];
  /** Relative paths are taken from here (the CLI's working directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Checks a target to be saved: its shape (did-you-mean), no key material anywhere, URLs that can
 * work, files that exist and are readable, a name not taken. Every problem at once; on success the
 * target with absolute paths, ready to store.
 */
export async function validateTarget(input: unknown, o: ValidateOptions): Promise<TargetValidation> {
  const problems: Problem[] = secretProblems(input);
  const secretPaths = new Set(problems.map((p) => p.path));
  const kindOf = (input as { kind?: unknown } | null)?.kind;
  const kind =
    typeof kindOf === 'string' && (SAVED_KINDS as readonly string[]).includes(kindOf)
      ? (kindOf as SavedTargetKind)
      : undefined;
  const parsed = TargetInputSchema.safeParse(input);
  if (!parsed.success) {
    const knownKeys = (p: readonly PropertyKey[]): readonly string[] =>
      p.length === 0
        ? ['name', 'kind', 'settings']
        : p[0] === 'settings' && kind
          ? schemaKeysAt(SETTINGS_SCHEMA[kind], p.slice(1))
          : [];
    const shape = plainProblems(parsed.error, input, {
      knownKeys,
      hint: (p) => HINTS[p.map(String).join('.')],
      root: '(target)',
    });
    problems.push(...shape.filter((s) => !secretPaths.has(s.path)));
  }
  const name = (input as { name?: unknown } | null)?.name;
  if (typeof name === 'string') {
    if (name.toLowerCase() === LOCAL_TARGET)
      problems.push({
        path: 'name',
        message:
          '"local" is this machine\'s Docker engine: it is always there and cannot be added. Choose another name.',
      });
    else if (o.taken.includes(name))
      problems.push({
        path: 'name',
        message: `a target named "${name}" is saved already: remove it first (rightsize targets rm ${name}) or choose another name.`,
      });
  }
  if (!parsed.success || problems.length) return { ok: false, problems };

  const abs = (p: string): string => path.resolve(o.cwd ?? process.cwd(), p.replace(/^~(?=$|\/)/, homedir()));
  const t = parsed.data;
  const more = (p: string, message: string | undefined): void => void (message && problems.push({ path: p, message }));
  switch (t.kind) {
    case 'docker': {
      const s = t.settings;
      more('settings.url', engineUrlProblem(s.url, { tls: Boolean(s.tlsDir), sshKey: Boolean(s.sshKeyFile) }));
      if (s.tlsDir) more('settings.tlsDir', unusableTlsDir((s.tlsDir = abs(s.tlsDir))));
      if (s.sshKeyFile) more('settings.sshKeyFile', unreadableFile((s.sshKeyFile = abs(s.sshKeyFile))));
      break;
    }
    case 'swarm': {
      const s = t.settings;
      more('settings.managerUrl', engineUrlProblem(s.managerUrl, { tls: Boolean(s.tlsDir) }));
      for (const [node, url] of Object.entries(s.nodeEngines))
        more(`settings.nodeEngines.${node}`, engineUrlProblem(url, { tls: Boolean(s.tlsDir) }));
      if (s.tlsDir) more('settings.tlsDir', unusableTlsDir((s.tlsDir = abs(s.tlsDir))));
      break;
    }
    case 'kubernetes': {
      const s = t.settings;
      const file = s.kubeconfig ? (s.kubeconfig = abs(s.kubeconfig)) : defaultKubeconfig(o.env);
      const where = 'settings.kubeconfig';
      const unreadable = unreadableFile(file);
      if (unreadable) {
        more(
          where,
          s.kubeconfig
            ? unreadable
            : `no kubeconfig given, and the default one (${file}) cannot be used: ${unreadable}. Give --kubeconfig FILE.`,
        );
        break;
      }
      const ctx = await kubeContexts(file);
      if ('error' in ctx) more(where, ctx.error);
      else if (s.context && !ctx.contexts.includes(s.context)) {
        more(
          'settings.context',
          `${file} has no context "${s.context}".${didYouMean(s.context, ctx.contexts)}${ctx.contexts.length ? ` Its contexts: ${ctx.contexts.join(', ')}.` : ' It has no contexts.'}`,
        );
      } else if (!s.context && ctx.contexts.length === 0) more(where, `${file} has no contexts.`);
      if (s.registry) more('settings.registry', registryProblem(s.registry));
      if (s.registryAuth) {
        if (!s.registry)
          more('settings.registryAuth', 'is the login of a registry: give the registry too (settings.registry).');
        const unreadableAuth = unreadableFile((s.registryAuth = abs(s.registryAuth)));
        if (unreadableAuth) more('settings.registryAuth', unreadableAuth);
        else if (s.registry && !registryProblem(s.registry)) {
          try {
            registryAuth({ registry: s.registry, authFile: s.registryAuth });
          } catch (e) {
            more('settings.registryAuth', (e as Error).message);
          }
        }
      }
      break;
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, target: t };
}

/** One line saying where a target is, for lists: URLs and paths, never more. */
export function targetWhere(t: SavedTarget | { kind: 'local' }): string {
  switch (t.kind) {
    case 'local':
      return "this machine's Docker engine";
    case 'docker':
      return `${t.settings.url}${t.settings.tlsDir ? ` (TLS: ${t.settings.tlsDir})` : ''}${t.settings.sshKeyFile ? ` (key: ${t.settings.sshKeyFile})` : ''}`;
    case 'swarm':
      return `Swarm manager ${t.settings.managerUrl}, ${Object.keys(t.settings.nodeEngines).length} node engine(s)${t.settings.tlsDir ? ` (TLS: ${t.settings.tlsDir})` : ''}`;
    case 'kubernetes':
      return `kubeconfig ${t.settings.kubeconfig ?? `(default: ${defaultKubeconfig()})`}${t.settings.context ? `, context ${t.settings.context}` : ', its current context'}${t.settings.registry ? `, images via ${t.settings.registry}` : ', no registry'}`;
  }
}
