// What an app needs besides itself (its database, its cache): each dependency is a container of its
// own, started fresh for every cell on a network shared with the app only, reached by its name as in
// Compose. Declared in an app definition, a built-in app's manifest, or read from a Compose file.
import { ENV_NAME } from '../common/env-name.ts';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** A Compose service name is also the host name the app dials: DNS-safe. */
export const DEPENDENCY_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** A dependency's own caps when none are given: enough that a small database does not set the pace. */
export const DEPENDENCY_DEFAULTS = { cpuMillis: 1000, memoryMb: 512 } as const;

const HealthcheckSchema = z
  .object({
    /** As Docker takes it: ["CMD", …] or ["CMD-SHELL", "…"]. */
    test: z
      .array(z.string())
      .min(2, 'a health check is ["CMD", program, args…] or ["CMD-SHELL", "command"]')
      .refine((t) => t[0] === 'CMD' || t[0] === 'CMD-SHELL', 'a health check starts with "CMD" or "CMD-SHELL"'),
    intervalMs: z.number().int().min(100).max(60_000).default(1000),
    timeoutMs: z.number().int().min(100).max(60_000).default(3000),
    retries: z.number().int().min(1).max(300).default(60),
    startPeriodMs: z.number().int().min(0).max(600_000).default(0),
  })
  .strict();

const MountSchema = z
  .object({
    /** A file or folder on this machine (init scripts, a config file): mounted read-only. */
    source: z.string().refine((s) => path.isAbsolute(s), 'give an absolute path'),
    target: z.string().startsWith('/', 'a path inside the container starts with /'),
  })
  .strict();

export const DependencySchema = z
  .object({
    name: z.string().regex(DEPENDENCY_NAME, 'a host name: lowercase letters, digits, - and _ (as a Compose service)'),
    image: z.string().min(1, 'give the image (e.g. postgres:16)'),
    env: z
      .record(z.string(), z.string({ error: 'a value is text' }))
      .refine((e) => Object.keys(e).every((k) => ENV_NAME.test(k)), 'environment names are letters, digits and _')
      .default({}),
    /** Replaces the image's command. */
    command: z.array(z.string()).optional(),
    mounts: z.array(MountSchema).default([]),
    /** How to know it is ready; without one, its first `ports` entry is polled until it accepts a connection. */
    healthcheck: HealthcheckSchema.optional(),
    /** The port the app dials (for readiness when there is no health check). */
    port: z.number().int().min(1).max(65535).optional(),
    /**
     * Where `image` is neither here nor pullable, use Rightsize's offline build of this kind instead (built once;
     * `rightsize images build`): a built-in app's database runs on a machine without a registry too.
     */
    offline: z.enum(['postgres', 'redis']).optional(),
    cpuMillis: z.number().int().min(100).max(64_000).default(DEPENDENCY_DEFAULTS.cpuMillis),
    memoryMb: z.number().int().min(16).max(262_144).default(DEPENDENCY_DEFAULTS.memoryMb),
  })
  .strict();

export type Dependency = z.output<typeof DependencySchema>;
export type DependencyInput = z.input<typeof DependencySchema>;

export const DependenciesSchema = z
  .array(DependencySchema)
  .max(8, 'at most 8 dependencies')
  .superRefine((deps, ctx) => {
    const seen = new Set<string>();
    deps.forEach((d, i) => {
      if (seen.has(d.name))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `two dependencies are named "${d.name}"` });
      seen.add(d.name);
      if (!d.healthcheck && d.port === undefined)
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `say how to know ${d.name} is ready: a healthcheck, or the port it listens on`,
        });
    });
  });

/** "db (postgres:16), cache (redis:7)": for notes and logs. */
export const dependencyWords = (deps: readonly Pick<Dependency, 'name' | 'image'>[]): string =>
  deps.map((d) => `${d.name} (${d.image})`).join(', ');

/** PostgreSQL's own default for max_connections. */
const POSTGRES_DEFAULT_CONNECTIONS = 100;

/**
 * The most connections a dependency takes, where its definition says: `max_connections=N` on its command (PostgreSQL's
 * `-c`, MySQL's `--max_connections`), else PostgreSQL's default for a PostgreSQL image; undefined otherwise.
 */
export function connectionLimit(d: {
  image: string;
  command?: readonly string[];
  offline?: string;
}): number | undefined {
  const set = (d.command ?? []).map((a) => /(?:^|-)max_connections=(\d+)$/.exec(a)?.[1]).find(Boolean);
  if (set) return Number(set);
  return d.offline === 'postgres' || /(^|\/)postgres(:|$)/.test(d.image) ? POSTGRES_DEFAULT_CONNECTIONS : undefined;
}

/** Each file a mount brings (a file, a folder's files) and its path in the container: where no bind mount reaches. */
export function mountedFiles(m: Dependency['mounts'][number]): { file: string; target: string }[] {
  if (!statSync(m.source).isDirectory()) return [{ file: m.source, target: m.target }];
  return readdirSync(m.source, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => {
      const file = path.join(d.parentPath, d.name);
      return { file, target: path.posix.join(m.target, path.relative(m.source, file).split(path.sep).join('/')) };
    })
    .sort((a, b) => a.target.localeCompare(b.target));
}
