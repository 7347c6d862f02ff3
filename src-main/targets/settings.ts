// A saved target's settings: what each kind needs, checked with every problem at once in words
// (did-you-mean for a misspelt kind or field). Secrets are never stored: only the paths of the
// files that hold them (a TLS folder, an ssh key file, a kubeconfig), each of which must exist and
// be readable when the target is added. Key material pasted in place of a path is refused.
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { plainProblems, schemaKeysAt, type Problem } from '../common/issues.ts';
import { LOCAL_WHERE, PROVIDER_KINDS, whereOf } from '../providers/registry.ts';
import {
  DockerSettingsSchema,
  KubernetesSettingsSchema,
  secretIn,
  SECRET_ADVICE,
  SwarmSettingsSchema,
} from '../providers/target-settings.ts';
import type { SavedTargetKind } from '../store/targets.ts';

export {
  defaultKubeconfig,
  engineUrlProblem,
  registryProblem,
  secretIn,
  TLS_FILES,
  unreadableFile,
  unusableTlsDir,
  type DockerSettings,
  type KubernetesSettings,
  type SwarmSettings,
} from '../providers/target-settings.ts';

export const LOCAL_TARGET = 'local';
export const SAVED_KINDS = ['docker', 'swarm', 'kubernetes'] as const satisfies readonly SavedTargetKind[];
export const TargetNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/,
    'should be 1 to 40 letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

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
        message:
          `a target named "${name}" is saved already: ` +
          `remove it first (rightsize targets rm ${name}) or choose another name.`,
      });
  }
  if (!parsed.success || problems.length) return { ok: false, problems };

  const abs = (p: string): string => path.resolve(o.cwd ?? process.cwd(), p.replace(/^~(?=$|\/)/, homedir()));
  const t = parsed.data;
  const more = (p: string, message: string | undefined): void => void (message && problems.push({ path: p, message }));
  await PROVIDER_KINDS[t.kind].check(t.settings as never, { abs, more, ...(o.env ? { env: o.env } : {}) });
  return problems.length ? { ok: false, problems } : { ok: true, target: t };
}

/** One line saying where a target is, for lists: URLs and paths, never more. */
export function targetWhere(t: SavedTarget | { kind: 'local' }): string {
  return 'settings' in t ? whereOf(t) : LOCAL_WHERE;
}
