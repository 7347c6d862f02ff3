// An app definition read from the team's own Compose file: the service under test gives where the
// app comes from, its port, health path and environment; the services it depends on (transitively)
// become its dependencies. Whatever cannot be honoured is refused naming its key; nothing is saved
// until the file is fixed (the caller saves only an `ok` result).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Problem } from '../../common/issues.ts';
import { folderKind, type BuildBase } from '../folder-source.ts';
import { DEPENDENCY_DEFAULTS, type DependencyInput } from '../dependencies.ts';
import type { UserAppInput } from '../user-apps.ts';
import { composeProblems } from './compose-schema.ts';
import { durationMs, envOf, interpolateAll, parseEnvFile, sizeMb, splitCommand } from './compose-values.ts';
import { loadOnUse } from '../../common/load-on-use.ts';

const parseYaml = (text: string): unknown => (loadOnUse('yaml') as typeof import('yaml')).parse(text, { merge: true });

type Service = Record<string, unknown>;
type AppPart = Pick<UserAppInput, 'source' | 'port' | 'health' | 'env' | 'dependencies'>;
export type ComposeRead = { ok: true; app: AppPart; notes: string[] } | { ok: false; problems: Problem[] };

/** Where well-known images keep their data: never bound from the host (each cell starts from fresh data). */
const DATA_DIR = /^\/(var\/lib\/(postgresql|mysql|redis|mongodb)|data)(\/|$)/;

/** Ports of well-known images, for readiness when a dependency declares neither a health check nor a port. */
const KNOWN_PORTS: [RegExp, number][] = [
  [/(^|\/)postgres/, 5432],
  [/(^|\/)redis/, 6379],
  [/(^|\/)(mysql|mariadb)/, 3306],
  [/(^|\/)mongo/, 27017],
  [/(^|\/)(memcached)/, 11211],
];

/**
 * Reads `file` (YAML, interpolated from the shell and the file's .env as Compose does) and maps
 * `service` and what it depends on. `workersEnv`: for an image service, the variable it reads its
 * worker count from (null: fixed).
 */
export function readCompose(
  file: string,
  service: string,
  workersEnv: string | null = null,
  buildBase?: BuildBase,
): ComposeRead {
  const at = (p: string, message: string): ComposeRead => ({ ok: false, problems: [{ path: p, message }] });
  const abs = path.resolve(file);
  if (!existsSync(abs) || !statSync(abs).isFile()) return at('compose', `there is no file ${abs}`);
  const base = path.dirname(abs);
  let doc: unknown;
  const missing = new Set<string>();
  try {
    const shell = { ...readDotEnv(base), ...process.env };
    doc = interpolateAll(parseYaml(readFileSync(abs, 'utf8')), shell, missing);
  } catch (e) {
    return at('compose', `${path.basename(abs)} is not a Compose file Rightsize can read: ${(e as Error).message}`);
  }
  const invalid = composeProblems(doc);
  if (invalid.length)
    return { ok: false, problems: invalid.map((m) => ({ path: 'compose', message: `${path.basename(abs)}: ${m}` })) };
  const services = ((doc as { services?: Record<string, Service> }).services ?? {}) as Record<string, Service>;
  const names = Object.keys(services);
  const svc = services[service];
  if (!svc)
    return at(
      'service',
      `${path.basename(abs)} has no service "${service}"; its services: ${names.join(', ') || 'none'}`,
    );

  const problems: Problem[] = [];
  const notes: string[] = [];
  if (missing.size) notes.push(`not set, read as empty (as Compose does): ${[...missing].join(', ')}`);
  const bad = (key: string, message: string): void =>
    void problems.push({ path: 'compose', message: `${key}: ${message}` });
  const key = (s: string, k: string): string => `services.${s}.${k}`;

  if (svc.network_mode !== undefined)
    bad(key(service, 'network_mode'), "the app runs on the run's own network; remove it");
  for (const k of ['cpus', 'mem_limit', 'deploy'] as const)
    if (svc[k] !== undefined) notes.push(`${key(service, k)} is not applied: the matrix sets caps and replicas`);
  if (svc.volumes !== undefined)
    notes.push(`${key(service, 'volumes')} is not mounted: the app's image holds its files`);

  const source = sourceOf(service, svc, { base, workersEnv, buildBase }, bad, notes);
  const port = portOf(svc) ?? numberOrUndefined(envOf(svc.environment, process.env).PORT);
  if (port === undefined) bad(key(service, 'ports'), 'say the port the app listens on (ports: or expose:)');
  const health = healthPathOf(svc.healthcheck);
  if (!health) notes.push('no HTTP health check in the file: readiness asks / (set --health to change it)');

  const deps = dependencyClosure(service, services, bad);
  const dependencies = deps.map((d) => dependencyOf(d, services[d]!, base, bad, notes));
  const env = { ...envFiles(service, svc, base, bad), ...envOf(svc.environment, process.env) };
  if (problems.length) return { ok: false, problems };
  return {
    ok: true,
    app: { source: source!, port: port!, ...(health ? { health } : {}), env, dependencies },
    notes,
  };
}

function readDotEnv(dir: string): Record<string, string> {
  const f = path.join(dir, '.env');
  return existsSync(f) ? parseEnvFile(readFileSync(f, 'utf8')) : {};
}

const numberOrUndefined = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined;

/** The container port: `expose`'s first, else `ports`' first target ("8080:3000" → 3000). */
function portOf(svc: Service): number | undefined {
  const expose = (svc.expose as (string | number)[] | undefined)?.[0];
  if (expose !== undefined) return numberOrUndefined(String(expose).split('/')[0]);
  const p = (svc.ports as (string | number | { target: number })[] | undefined)?.[0];
  if (p === undefined) return undefined;
  if (typeof p === 'object') return p.target;
  const target = String(p).split('/')[0]!.split(':').at(-1)!;
  return numberOrUndefined(target.split('-')[0]);
}

/** The path of an HTTP health check ("curl -f http://localhost:3000/healthz" → /healthz). */
function healthPathOf(hc: unknown): string | undefined {
  const test = (hc as { test?: string | string[] } | undefined)?.test;
  const text = Array.isArray(test) ? test.join(' ') : (test ?? '');
  return /https?:\/\/[^/\s"']+(\/[^\s"']*)/.exec(text)?.[1];
}

type Build = { context?: string; dockerfile?: string; args?: Record<string, unknown> | string[]; target?: string };

function sourceOf(
  name: string,
  svc: Service,
  o: { base: string; workersEnv: string | null; buildBase: BuildBase | undefined },
  bad: (key: string, message: string) => void,
  notes: string[],
): UserAppInput['source'] | undefined {
  const { base, workersEnv } = o;
  const build = svc.build as string | Build | undefined;
  if (build === undefined) {
    if (typeof svc.image !== 'string') {
      bad(`services.${name}`, 'give build: (the project folder) or image:');
      return undefined;
    }
    return { kind: 'image', image: svc.image, workersEnv };
  }
  const dir = path.resolve(base, typeof build === 'string' ? build : (build.context ?? '.'));
  const b: Build = typeof build === 'string' ? {} : build;
  const cmd = svc.command === undefined ? undefined : commandOf(svc.command, `services.${name}.command`, bad);
  if (folderKind(dir, o.buildBase, b.dockerfile) === 'dockerfile') {
    const dockerfile = b.dockerfile ?? 'Dockerfile';
    if (!existsSync(path.resolve(dir, dockerfile))) {
      bad(`services.${name}.build.dockerfile`, `there is no file ${dockerfile} in ${dir}`);
      return undefined;
    }
    notes.push(
      `${name} is built with its own ${dockerfile}, as the team deploys it; its image's command runs it ` +
        `(${workersEnv ? `workers through ${workersEnv}` : 'a fixed worker count: give --workers-env to vary it'}). ` +
        "--base rightsize builds it on Rightsize's base instead, for launch modes and Node.js versions",
    );
    const buildArgs = envOf(b.args, process.env);
    return {
      kind: 'dockerfile',
      dir,
      dockerfile,
      ...(Object.keys(buildArgs).length ? { buildArgs } : {}),
      ...(b.target ? { target: b.target } : {}),
      ...(cmd ? { command: cmd } : {}),
      workersEnv,
    };
  }
  notes.push(
    `${name} is built from ${dir} on Rightsize's Node.js base (the launcher must start each worker)` +
      `${o.buildBase === 'rightsize' ? '' : ': the folder has no Dockerfile'}; the Node.js version is the matrix's`,
  );
  if (!cmd) return { kind: 'folder', dir }; // the entry from an ecosystem file, or refused with what to give
  const at = cmd[0] === 'node' ? cmd.findIndex((a, i) => i > 0 && !a.startsWith('-')) : -1;
  if (at < 0) {
    bad(
      `services.${name}.command`,
      `Rightsize starts the app with its own launcher: write it as "node <entry> [args]" (got ${cmd.join(' ')})`,
    );
    return undefined;
  }
  if (at > 1)
    notes.push(`${name}'s node options ${cmd.slice(1, at).join(' ')} are not passed: the matrix sets Node's flags`);
  const node = cmd.slice(at);
  return { kind: 'folder', dir, entry: node[0]!, args: node.slice(1) };
}

function commandOf(v: unknown, key: string, bad: (key: string, message: string) => void): string[] | undefined {
  if (Array.isArray(v)) return v.map(String);
  try {
    return splitCommand(String(v));
  } catch (e) {
    bad(key, (e as Error).message);
    return undefined;
  }
}

/** Every service `name` depends on, directly or not, in the order first met; a cycle is refused. */
function dependencyClosure(
  name: string,
  services: Record<string, Service>,
  bad: (k: string, m: string) => void,
): string[] {
  const out: string[] = [];
  const visit = (s: string, trail: string[]): void => {
    const on = services[s]?.depends_on;
    const long = (Array.isArray(on) ? {} : (on ?? {})) as Record<string, { condition?: string; required?: boolean }>;
    const deps = Array.isArray(on) ? (on as string[]) : Object.keys(long);
    for (const d of deps) {
      const at = `services.${s}.depends_on.${d}`;
      if (trail.includes(d)) return bad(`services.${s}.depends_on`, `a cycle: ${[...trail, d].join(' → ')}`);
      if (!services[d] && long[d]?.required === false) continue; // Compose starts without it too
      if (!services[d]) return bad(`services.${s}.depends_on`, `there is no service "${d}"`);
      if (long[d]?.condition === 'service_completed_successfully')
        return bad(
          `${at}.condition`,
          'a job that runs to completion (a migration, a seed) is not a dependency: put its work in the ' +
            "database's init scripts (docker-entrypoint-initdb.d)",
        );
      if (!out.includes(d)) out.push(d);
      visit(d, [...trail, d]);
    }
  };
  visit(name, [name]);
  return out.filter((d) => d !== name);
}

function envFiles(
  name: string,
  svc: Service,
  base: string,
  bad: (k: string, m: string) => void,
): Record<string, string> {
  const files = svc.env_file === undefined ? [] : Array.isArray(svc.env_file) ? svc.env_file : [svc.env_file];
  const env: Record<string, string> = {};
  for (const f of files as (string | { path: string; required?: boolean })[]) {
    const rel = typeof f === 'string' ? f : f.path;
    const abs = path.resolve(base, rel);
    if (existsSync(abs)) Object.assign(env, parseEnvFile(readFileSync(abs, 'utf8')));
    else if (typeof f === 'string' || f.required !== false) bad(`services.${name}.env_file`, `there is no file ${abs}`);
  }
  return env;
}

function dependencyOf(
  name: string,
  svc: Service,
  base: string,
  bad: (key: string, message: string) => void,
  notes: string[],
): DependencyInput {
  const key = (k: string): string => `services.${name}.${k}`;
  if (typeof svc.image !== 'string') bad(key('build'), 'a dependency runs an image: build it and name it with image:');
  if (svc.network_mode !== undefined) bad(key('network_mode'), "a dependency runs on the run's own network; remove it");
  if (svc.entrypoint !== undefined) bad(key('entrypoint'), 'not supported for a dependency: put it in the image');
  const deploy = (svc.deploy ?? {}) as {
    replicas?: number;
    resources?: { limits?: { cpus?: string | number; memory?: string } };
  };
  if ((deploy.replicas ?? 1) !== 1) bad(key('deploy.replicas'), 'a dependency runs as one container');
  const image = String(svc.image ?? '');
  const limits = deploy.resources?.limits ?? {};
  const cpus = Number(limits.cpus ?? svc.cpus ?? NaN);
  const mem = limits.memory ?? (svc.mem_limit as string | number | undefined);
  const memoryMb = mem === undefined ? undefined : sizeMb(mem);
  if (mem !== undefined && memoryMb === undefined) bad(key('mem_limit'), `"${mem}" is not a size (e.g. 512m)`);
  const mounts: { source: string; target: string }[] = [];
  for (const v of (svc.volumes ?? []) as (string | { type?: string; source?: string; target: string })[]) {
    const parts = typeof v === 'string' ? v.split(':') : [v.type === 'bind' ? v.source : undefined, v.target];
    // One part is an anonymous volume ("- /var/lib/postgresql/data"): no source to bind.
    const [src, target] = parts.length === 1 ? [undefined, parts[0]] : parts;
    const bind = src && (src.startsWith('.') || src.startsWith('/') || src.startsWith('~'));
    // A folder of data bound from the host would carry one cell's writes into the next: fresh data instead.
    if (bind && target && !DATA_DIR.test(target))
      mounts.push({ source: path.resolve(base, src.replace(/^~/, process.env.HOME ?? '~')), target });
    else
      notes.push(
        `${key('volumes')}: ${src ?? target ?? 'a volume'} is not kept: every cell starts ${name} from fresh data`,
      );
  }
  const hc = svc.healthcheck as
    | {
        test?: string | string[];
        interval?: string;
        timeout?: string;
        retries?: number;
        start_period?: string;
        disable?: boolean;
      }
    | undefined;
  const healthcheck =
    hc?.test && !hc.disable
      ? {
          test: Array.isArray(hc.test) ? (hc.test[0] === 'NONE' ? undefined : hc.test) : ['CMD-SHELL', hc.test],
          ...(hc.interval ? { intervalMs: Math.min(durationMs(hc.interval) ?? 1000, 1000) } : {}),
          ...(hc.timeout ? { timeoutMs: durationMs(hc.timeout) ?? 3000 } : {}),
          ...(hc.retries ? { retries: Math.max(hc.retries, 60) } : {}),
          ...(hc.start_period ? { startPeriodMs: durationMs(hc.start_period) ?? 0 } : {}),
        }
      : undefined;
  const port = portOf(svc) ?? KNOWN_PORTS.find(([re]) => re.test(image))?.[1];
  if (!healthcheck?.test && port === undefined)
    bad(key('healthcheck'), 'say how to know it is ready: a healthcheck, or the port it listens on (expose:)');
  const command = svc.command === undefined ? undefined : commandOf(svc.command, key('command'), bad);
  return {
    name,
    image,
    env: { ...envFiles(name, svc, base, bad), ...envOf(svc.environment, process.env) },
    ...(command ? { command } : {}),
    mounts,
    ...(healthcheck?.test ? { healthcheck: { ...healthcheck, test: healthcheck.test } } : {}),
    ...(port !== undefined ? { port } : {}),
    cpuMillis: Number.isFinite(cpus) ? Math.round(cpus * 1000) : DEPENDENCY_DEFAULTS.cpuMillis,
    memoryMb: memoryMb ?? DEPENDENCY_DEFAULTS.memoryMb,
  };
}
