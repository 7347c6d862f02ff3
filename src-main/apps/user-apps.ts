import { ENV_NAME } from '../common/env-name.ts';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Problem } from '../common/issues.ts';
import type { AppDefinition } from './catalog.ts';
import { findEcosystem, hostInstancesWarning, isInside, readEcosystem } from './ecosystem.ts';
import { planFolder, type PackageJson } from './folder-plan.ts';
import { readMixData } from './mix-data.ts';
import { MixSchema } from './request-schema.ts';
import { DependenciesSchema, type Dependency } from './dependencies.ts';
import { Http2Schema, http2Problem } from './served-links.ts';

/**
 * An app a user added: what they typed in the Add-app form or on `rightsize apps add`, stored as
 * is in SQLite. Entry, arguments and environment from a PM2 ecosystem file are read again at
 * every run start, so editing the file needs no edit here.
 */
const WorkersEnvSchema = z
  .string()
  .regex(ENV_NAME, 'an environment variable name: letters, digits and _')
  .nullable()
  .default(null);
const EnvLikeSchema = z.record(z.string(), z.string({ error: 'a value is text' }));

const SourceSchema = z.discriminatedUnion(
  'kind',
  [
    z
      .object({
        kind: z.literal('folder'),
        dir: z.string().min(1, 'give the project folder'),
        /** The entry file, relative to the folder. Not needed with an ecosystem file. */
        entry: z.string().min(1, 'give the entry file').optional(),
        args: z.array(z.string()).default([]),
        /** A PM2 ecosystem file in the folder to read entry, args and env from. */
        ecosystem: z.string().optional(),
        /** Which app of the ecosystem file (default: the first). */
        ecosystemApp: z.string().optional(),
      })
      .strict(),
    z
      .object({
        kind: z.literal('image'),
        image: z.string().min(1, 'give the image name'),
        /** The variable the image reads its worker count from (e.g. WEB_CONCURRENCY); null = fixed. */
        workersEnv: WorkersEnvSchema,
      })
      .strict(),
    z
      .object({
        kind: z.literal('dockerfile'),
        dir: z.string().min(1, 'give the project folder'),
        /** The team's Dockerfile, relative to the folder (the build context). */
        dockerfile: z.string().min(1, 'give the Dockerfile').default('Dockerfile'),
        buildArgs: EnvLikeSchema.default({}),
        target: z.string().min(1).optional(),
        /** What runs instead of the image's CMD (a Compose service's `command:`). */
        command: z.array(z.string()).min(1).optional(),
        workersEnv: WorkersEnvSchema,
      })
      .strict(),
  ],
  {
    error:
      'the source is a folder ({kind: "folder", dir, entry}), a folder built with its Dockerfile ' +
      '({kind: "dockerfile", dir}) or an image ({kind: "image", image})',
  },
);
// Keys checked one by one: a regex on the record's key schema only yields zod's generic "Invalid key in record".
const EnvSchema = z.record(z.string(), z.string({ error: 'a value is text' })).superRefine((env, ctx) => {
  for (const k of Object.keys(env)) {
    if (!ENV_NAME.test(k))
      ctx.addIssue({
        code: 'custom',
        path: [k],
        message: `${k} is not an environment variable name: letters, digits and _, not starting with a digit`,
      });
  }
});

export const UserAppSchema = z
  .object({
    name: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,39}$/,
        'use 1–40 lowercase letters, digits and dashes, starting with a letter or digit',
      ),
    description: z.string().max(500).default(''),
    source: SourceSchema,
    port: z
      .number({ error: 'the port must be a number' })
      .int('the port must be a whole number')
      .min(1, 'ports go from 1 to 65535')
      .max(65535, 'ports go from 1 to 65535'),
    health: z.string().startsWith('/', 'a path starts with /').default('/'),
    requests: MixSchema.default([{ method: 'GET', path: '/' }]),
    env: EnvSchema.default({}),
    /** Its database, its cache…: each started fresh beside it for every cell (apps/dependencies.ts). */
    dependencies: DependenciesSchema.default([]),
    /** It serves HTTPS itself: its cells are measured over TLS (the matrix's tls: [true]). */
    tls: z.boolean({ error: 'tls is true or false' }).default(false),
    /** It serves HTTP/2 itself: h2 (over TLS, with tls) or h2c; absent: HTTP/1.1 only (apps/served-links.ts). */
    http2: Http2Schema.optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const message = http2Problem(a);
    if (message) ctx.addIssue({ code: 'custom', path: ['http2'], message });
  });
export type UserApp = z.output<typeof UserAppSchema>;
export type UserAppInput = z.input<typeof UserAppSchema>;

/** What the checks need from outside: names already in use, and how to find (or pull) an image. */
export interface ResolveContext {
  /** Names that cannot be taken: built-in apps and the user's other apps. */
  taken: { name: string; builtIn: boolean }[];
  /** The image's id when it is local or could be pulled, else the reason it is not. */
  findImage: (image: string) => Promise<{ id: string } | { reason: string }>;
}

export type Resolved =
  { ok: true; app: UserApp; definition: AppDefinition; notes: string[] } | { ok: false; problems: Problem[] };

const issuePath = (p: PropertyKey[]): string => p.map(String).join('.') || '(app)';

/**
 * Checks everything a user can get wrong (shape, name clash, folder, entry file, ecosystem file,
 * image) and returns every problem at once, each with what to fix; or the app ready to build.
 * A field that fails its shape check does not stop the others from being checked.
 */
export async function resolveUserApp(input: unknown, ctx: ResolveContext): Promise<Resolved> {
  const parsed = UserAppSchema.safeParse(input);
  const problems: Problem[] = parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ path: issuePath(i.path), message: i.message }));
  const raw = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const name = parsed.success ? parsed.data.name : typeof raw.name === 'string' ? raw.name : undefined;
  const clash = ctx.taken.find((t) => t.name === name);
  if (clash)
    problems.push({
      path: 'name',
      message: clash.builtIn
        ? `"${name}" is a built-in app: choose another name`
        : `you already have an app named "${name}": choose another name, or edit that one`,
    });

  const source = parsed.success
    ? parsed.data.source
    : (SourceSchema.safeParse(raw.source).data ?? whereFrom(raw.source));
  const env = parsed.success ? parsed.data.env : (EnvSchema.safeParse(raw.env).data ?? {});
  const checked = source
    ? await (source.kind === 'folder'
        ? checkFolder(source, env)
        : source.kind === 'dockerfile'
          ? checkDockerfile(source)
          : checkImage(source, ctx))
    : undefined;
  if (checked) problems.push(...checked.problems);
  if (parsed.success) problems.push(...(await checkDependencies(parsed.data.dependencies, ctx)));
  if (parsed.success) {
    const data = readMixData(parsed.data.requests, 'dir' in parsed.data.source ? parsed.data.source.dir : '');
    if ('problems' in data) problems.push(...data.problems.map((message) => ({ path: 'requests', message })));
  }
  if (!parsed.success || !checked?.part || problems.length) return { ok: false, problems };
  const app = parsed.data;
  const definition: AppDefinition = {
    name: app.name,
    port: app.port,
    health: app.health,
    requests: app.requests,
    stresses: 'your own app',
    builtIn: false,
    ...checked.part,
    description: app.description || checked.part.description,
    ...(app.dependencies.length ? { dependencies: app.dependencies } : {}),
    ...(app.tls ? { tls: true as const } : {}),
    ...(app.http2 ? { http2: app.http2 } : {}),
  };
  return { ok: true, app, definition, notes: checked.notes };
}

/** Just where the app comes from, when the rest of its source is malformed: that much can still be checked. */
function whereFrom(src: unknown): UserApp['source'] | undefined {
  const s = (src ?? {}) as { kind?: unknown; dir?: unknown; image?: unknown; entry?: unknown };
  if (s.kind === 'image' && typeof s.image === 'string' && s.image)
    return { kind: 'image', image: s.image, workersEnv: null };
  if (s.kind === 'dockerfile' && typeof s.dir === 'string' && s.dir)
    return { kind: 'dockerfile', dir: s.dir, dockerfile: 'Dockerfile', buildArgs: {}, workersEnv: null };
  if (s.kind === 'folder' && typeof s.dir === 'string' && s.dir)
    return {
      kind: 'folder',
      dir: s.dir,
      args: [],
      ...(typeof s.entry === 'string' && s.entry ? { entry: s.entry } : {}),
    };
  return undefined;
}

type SourceCheck = {
  problems: Problem[];
  notes: string[];
  part?: Pick<AppDefinition, 'version' | 'description' | 'entry' | 'env' | 'dir' | 'source'>;
};

async function checkFolder(
  src: Extract<UserApp['source'], { kind: 'folder' }>,
  userEnv: Record<string, string>,
): Promise<SourceCheck> {
  const problems: Problem[] = [];
  const notes: string[] = [];
  const bad = (p: string, message: string): void => void problems.push({ path: p, message });
  const dir = path.resolve(src.dir);
  const dirStat = await stat(dir).catch(() => undefined);
  if (!path.isAbsolute(src.dir)) bad('source.dir', `give an absolute path (got ${src.dir})`);
  else if (!dirStat) bad('source.dir', `the folder ${dir} does not exist`);
  else if (!dirStat.isDirectory()) bad('source.dir', `${dir} is a file, not a folder: give the project folder`);
  if (problems.length) return { problems, notes };

  const ecoFile = src.ecosystem ?? (src.entry ? undefined : await findEcosystem(dir));
  let entry = src.entry;
  let args = src.args;
  let env = userEnv;
  let cwd = '';
  let ecosystem: { file: string; app: string; instances?: string } | undefined;
  if (ecoFile) {
    try {
      const eco = await readEcosystem(dir, ecoFile, src.ecosystemApp);
      entry = src.entry ?? eco.entry;
      args = src.args.length ? src.args : eco.args;
      env = { ...eco.env, ...userEnv }; // what the user typed here wins over the file
      cwd = eco.cwd;
      ecosystem = { file: ecoFile, app: eco.name, ...(eco.hostInstances ? { instances: eco.hostInstances } : {}) };
      notes.push(
        `read ${ecoFile} (app "${eco.name}"): entry ${eco.entry}` +
          (eco.args.length ? `, args ${eco.args.join(' ')}` : '') +
          (Object.keys(eco.env).length ? `, env ${Object.keys(eco.env).join(', ')}` : ''),
      );
      if (eco.ignored.length)
        notes.push(
          `${ecoFile} sets ${eco.ignored.join(', ')}: not applied, the matrix chooses launch mode, workers and caps`,
        );
      if (eco.hostInstances) notes.push(hostInstancesWarning(ecoFile, eco.hostInstances));
    } catch (e) {
      bad('source.ecosystem', (e as Error).message);
      return { problems, notes };
    }
  } else if (!entry) {
    const pkg = await readPackage(dir);
    bad(
      'source.entry',
      `give the entry file (e.g. ${pkg.main ?? 'server.js'}), or put a PM2 ecosystem.config.js in the folder`,
    );
    return { problems, notes };
  }
  // Read by planFolder below; when it is not reached there are problems, and the part is not used.
  let pkg: PackageJson = {};
  const full = path.resolve(dir, entry!);
  const rel = path.relative(dir, full).split(path.sep).join('/');
  const st = await stat(full).catch(() => undefined);
  if (!isInside(dir, full)) bad('source.entry', `${entry} is outside the folder ${dir}`);
  else if (!st) bad('source.entry', `there is no file ${entry} in ${dir}`);
  else if (!st.isFile()) bad('source.entry', `${entry} is a folder, not a file: give the file that starts the server`);
  else {
    const plan = await planFolder(dir, rel);
    problems.push(...plan.problems);
    pkg = plan.pkg ?? {};
  }
  return {
    problems,
    notes,
    part: {
      version: pkg.version ?? '0.0.0',
      description: pkg.description || `your project at ${dir}`,
      entry: rel,
      env,
      dir,
      source: { kind: 'folder', args, cwd, ...(ecosystem ? { ecosystem } : {}) },
    },
  };
}

async function checkImage(
  src: Extract<UserApp['source'], { kind: 'image' }>,
  ctx: ResolveContext,
): Promise<SourceCheck> {
  const found = await ctx.findImage(src.image);
  if ('reason' in found)
    return {
      problems: [
        {
          path: 'source.image',
          message:
            `${src.image} is not on this machine and could not be pulled (${found.reason.trim()}): ` +
            'build or pull it first',
        },
      ],
      notes: [],
    };
  return {
    problems: [],
    notes:
      src.workersEnv === null
        ? ['no worker-count variable: the workers dimension does not apply to this app (one cell per CPU/memory pair)']
        : [],
    part: {
      version: found.id.replace(/^sha256:/, '').slice(0, 12),
      description: `the image ${src.image}`,
      entry: '',
      env: {},
      dir: '',
      source: { kind: 'image', image: src.image, imageId: found.id, workersEnv: src.workersEnv },
    },
  };
}

/** The folder and its Dockerfile exist; the image is built at the run's start, as the team's `docker build` would. */
async function checkDockerfile(src: Extract<UserApp['source'], { kind: 'dockerfile' }>): Promise<SourceCheck> {
  const problems: Problem[] = [];
  const dir = path.resolve(src.dir);
  const dirStat = await stat(dir).catch(() => undefined);
  const bad = (p: string, message: string): void => void problems.push({ path: p, message });
  if (!path.isAbsolute(src.dir)) bad('source.dir', `give an absolute path (got ${src.dir})`);
  else if (!dirStat?.isDirectory()) bad('source.dir', `the folder ${dir} does not exist`);
  const file = path.resolve(dir, src.dockerfile);
  if (!problems.length && !(isInside(dir, file) && (await stat(file).catch(() => undefined))?.isFile()))
    bad('source.dockerfile', `there is no file ${src.dockerfile} in ${dir}`);
  if (problems.length) return { problems, notes: [] };
  const pkg = await readPackage(dir);
  const { kind: _, dir: _dir, ...rest } = src;
  return {
    problems,
    notes: [
      `built with its own ${src.dockerfile} at each run's start; the image's own command runs it` +
        (src.workersEnv ? `, with its workers set through ${src.workersEnv}` : ', its worker count fixed'),
    ],
    part: {
      version: pkg.version ?? '0.0.0',
      description: pkg.description || `your project at ${dir}, built with its ${src.dockerfile}`,
      entry: '',
      env: {},
      dir,
      source: { kind: 'dockerfile', ...rest },
    },
  };
}

async function readPackage(dir: string): Promise<PackageJson> {
  try {
    return JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return {};
  }
}

/** Each dependency's image is here (or can be pulled) and each file it mounts exists. */
async function checkDependencies(deps: readonly Dependency[], ctx: ResolveContext): Promise<Problem[]> {
  const problems: Problem[] = [];
  await Promise.all(
    deps.map(async (d, i) => {
      const found = await ctx.findImage(d.image);
      if ('reason' in found && !d.offline)
        problems.push({
          path: `dependencies.${i}.image`,
          message:
            `${d.name}: ${d.image} is not on this machine and could not be pulled (${found.reason.trim()}); ` +
            'pull it, or build one offline (`rightsize images build postgres` or `redis`)',
        });
      for (const [j, m] of d.mounts.entries())
        if (!(await stat(m.source).catch(() => undefined)))
          problems.push({
            path: `dependencies.${i}.mounts.${j}.source`,
            message: `${d.name}: ${m.source} does not exist`,
          });
    }),
  );
  return problems.sort((a, b) => a.path.localeCompare(b.path));
}
