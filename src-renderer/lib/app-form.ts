// The Add-app form's text fields ⇄ the user-app definition the engine checks (UserAppSchema).
// The engine owns the rules: what the user typed goes through as is wherever it cannot be
// converted (a port of "abc" stays "abc"), so the engine's own message appears by the field.
import { joinArgs, splitArgs } from '../../src-main/contract/present.ts';
import type { MixEntry, Problem, RequestSpec, SequenceSpec, UserApp } from '../../src-main/contract/api.ts';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;
const DEFAULT_WORKERS_ENV = 'WEB_CONCURRENCY';

export interface RequestRow {
  method: (typeof METHODS)[number];
  path: string;
  /** `Name: value`, one a line. */
  headers: string;
  body: string;
  /** The expected status; empty = any 2xx. */
  status: string;
  /** Its share of the choices; empty = not set (any weight makes the list a weighted mix). */
  weight: string;
  /** The route it counts under; empty = "METHOD path". */
  name: string;
  /** Fields the form does not edit (a capture, a field it does not know): saved unchanged. */
  keep: Record<string, unknown>;
}

/** A sequence (requests in order on one connection): shown, not edited here; saved exactly as read. */
export interface SequenceRow {
  sequence: SequenceSpec;
}

/** One entry of the app's requests as the form holds it. */
export type EntryRow = RequestRow | SequenceRow;

export const isSequenceRow = (r: EntryRow): r is SequenceRow => 'sequence' in r;

/** Kept data as plain JSON: the form's state is proxied, and what is sent must be a copy of it. */
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** One dependency as the form edits it: what a person types; what it does not show is kept as it was. */
export interface DependencyRow {
  name: string;
  image: string;
  port: string;
  /** `KEY=VALUE`, one a line. */
  env: string;
  /** A shell command that exits 0 once it is ready (Docker's CMD-SHELL), e.g. `pg_isready -U shop`. */
  health: string;
  /** CPUs, e.g. "0.5"; empty: the default. */
  cpus: string;
  /** MB; empty: the default. */
  memoryMb: string;
  /** Fields the form does not edit (mounts, command, the offline image, health-check timings): saved unchanged. */
  keep: Record<string, unknown>;
}

export const newDependency = (): DependencyRow => ({ name: '', image: '', port: '', env: '', health: '', cpus: '', memoryMb: '', keep: {} });

export interface AppFormState {
  name: string;
  description: string;
  kind: 'folder' | 'image' | 'dockerfile';
  dir: string;
  entry: string;
  /** Start arguments as one line: split on spaces, quotes kept together (common/args.ts). */
  args: string;
  ecosystem: string;
  ecosystemApp: string;
  image: string;
  /** The folder's Dockerfile (kind 'dockerfile'), and its build arguments as `KEY=VALUE` lines. */
  dockerfile: string;
  buildArgs: string;
  /** A Dockerfile app's fields the form does not edit (its stage, its command): saved unchanged. */
  keepSource: Record<string, unknown>;
  workersEnv: string;
  fixedWorkers: boolean;
  port: string;
  health: string;
  /** It serves HTTPS itself: measured over TLS only, given the run's certificate. */
  tls: boolean;
  /** It serves HTTP/2 itself: h2 (over TLS, with tls) or h2c; '' for HTTP/1.1 only. */
  http2: '' | 'h2' | 'h2c';
  /** `KEY=VALUE`, one a line; blank lines and `#` comments are skipped. */
  env: string;
  requests: EntryRow[];
  dependencies: DependencyRow[];
}

export const newRequest = (): RequestRow => ({ method: 'GET', path: '/', headers: '', body: '', status: '', weight: '', name: '', keep: {} });

/** A request of a saved app, or of an import, as a row of the form. */
export function requestRow(r: RequestSpec): RequestRow {
  const { method, path, headers, body, status, weight, name, ...keep } = r;
  return {
    method: method ?? 'GET',
    path,
    headers: Object.entries(headers ?? {}).map(([k, v]) => `${k}: ${v}`).join('\n'),
    body: body ?? '',
    status: status === undefined ? '' : String(status),
    weight: weight === undefined ? '' : String(weight),
    name: name ?? '',
    keep,
  };
}

/** An entry of a saved app's requests as the form holds it: a request as a row, a sequence kept whole. */
export const entryRow = (e: MixEntry): EntryRow => ('sequence' in e ? { sequence: plain(e) } : requestRow(e));

export function emptyForm(): AppFormState {
  return { name: '', description: '', kind: 'folder', dir: '', entry: '', args: '', ecosystem: '', ecosystemApp: '', image: '', dockerfile: 'Dockerfile', buildArgs: '', keepSource: {}, workersEnv: DEFAULT_WORKERS_ENV, fixedWorkers: false, port: '', health: '/', tls: false, http2: '', env: '', requests: [newRequest()], dependencies: [] };
}

/** The form filled from a saved definition, for editing. */
export function fromUserApp(a: UserApp): AppFormState {
  const f = emptyForm();
  f.name = a.name;
  f.description = a.description ?? '';
  f.port = String(a.port);
  f.health = a.health ?? '/';
  f.tls = a.tls === true;
  f.http2 = a.http2 ?? '';
  f.env = lines(a.env);
  f.dependencies = (a.dependencies ?? []).map((d) => {
    const { name, image, port, env, healthcheck, cpuMillis, memoryMb, ...keep } = d;
    const { test, ...timings } = healthcheck ?? { test: [] };
    const shell = test[0] === 'CMD-SHELL' ? test.slice(1).join(' ') : '';
    return {
      name, image, port: port === undefined ? '' : String(port), env: lines(env), health: shell,
      cpus: cpuMillis === undefined ? '' : String(cpuMillis / 1000), memoryMb: memoryMb === undefined ? '' : String(memoryMb),
      // A health check the form cannot show as one shell line (["CMD", …]) is kept whole.
      keep: { ...keep, ...(healthcheck && !shell ? { healthcheck } : healthcheck ? { timings } : {}) },
    };
  });
  f.requests = (a.requests ?? []).map(entryRow);
  if (a.source.kind === 'folder') {
    f.kind = 'folder';
    f.dir = a.source.dir;
    f.entry = a.source.entry ?? '';
    f.args = joinArgs(a.source.args ?? []);
    f.ecosystem = a.source.ecosystem ?? '';
    f.ecosystemApp = a.source.ecosystemApp ?? '';
  } else if (a.source.kind === 'dockerfile') {
    const { kind: _k, dir, dockerfile, buildArgs, workersEnv, ...keep } = a.source;
    f.kind = 'dockerfile';
    f.dir = dir;
    f.dockerfile = dockerfile ?? 'Dockerfile';
    f.buildArgs = lines(buildArgs);
    f.keepSource = keep;
    f.fixedWorkers = workersEnv === null;
    f.workersEnv = workersEnv ?? DEFAULT_WORKERS_ENV;
  } else {
    f.kind = 'image';
    f.image = a.source.image;
    f.fixedWorkers = a.source.workersEnv === null;
    f.workersEnv = a.source.workersEnv ?? DEFAULT_WORKERS_ENV;
  }
  return f;
}

const lines = (env: Record<string, string> | undefined): string =>
  Object.entries(env ?? {}).map(([k, v]) => `${k}=${v}`).join('\n');

/** A number when the text is one; otherwise the text as typed (or nothing, when empty) for the engine to judge. */
function numberOrText(text: string): number | string | undefined {
  const t = text.trim();
  if (!t) return undefined;
  return /^[+-]?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}

/** Lines of `KEY<sep>VALUE`; the lines that are not, as problems at `path`. */
function pairs(text: string, sep: string, path: string, what: string): { values: Record<string, string>; problems: Problem[] } {
  const values: Record<string, string> = {};
  const problems: Problem[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const at = line.indexOf(sep);
    if (at <= 0) problems.push({ path, message: `line ${i + 1} ("${line}"): write ${what}` });
    else values[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  });
  return { values, problems };
}

/**
 * The definition to send, and the problems the form itself can see (lines it cannot read). Empty
 * optional fields are left out so the engine's defaults apply (health "/", requests GET /).
 */
export function toDefinition(f: AppFormState): { app: Record<string, unknown>; problems: Problem[] } {
  const problems: Problem[] = [];
  const env = pairs(f.env, '=', 'env', 'KEY=VALUE');
  problems.push(...env.problems);
  const requests = f.requests.map((r, i) => {
    if (isSequenceRow(r)) return plain(r.sequence);
    const headers = pairs(r.headers, ':', `requests.${i}.headers`, 'Name: value');
    problems.push(...headers.problems);
    const status = numberOrText(r.status);
    const weight = numberOrText(r.weight);
    return {
      ...plain(r.keep),
      method: r.method,
      path: r.path.trim(),
      ...(Object.keys(headers.values).length ? { headers: headers.values } : {}),
      ...(r.body ? { body: r.body } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(weight !== undefined ? { weight } : {}),
      ...(r.name.trim() ? { name: r.name.trim() } : {}),
    };
  });
  let args: string[] = [];
  try {
    args = splitArgs(f.args);
  } catch (e) {
    problems.push({ path: 'source.args', message: (e as Error).message });
  }
  const workersEnv = f.fixedWorkers ? null : f.workersEnv.trim();
  const buildArgs = pairs(f.buildArgs, '=', 'source.buildArgs', 'NAME=value');
  problems.push(...buildArgs.problems);
  const source =
    f.kind === 'dockerfile'
      ? { kind: 'dockerfile', dir: f.dir.trim(), dockerfile: f.dockerfile.trim() || 'Dockerfile', buildArgs: buildArgs.values, ...f.keepSource, workersEnv }
      : f.kind === 'folder'
      ? {
          kind: 'folder',
          dir: f.dir.trim(),
          ...(f.entry.trim() ? { entry: f.entry.trim() } : {}),
          args,
          ...(f.ecosystem.trim() ? { ecosystem: f.ecosystem.trim() } : {}),
          ...(f.ecosystemApp.trim() ? { ecosystemApp: f.ecosystemApp.trim() } : {}),
        }
      : { kind: 'image', image: f.image.trim(), workersEnv };
  const dependencies = f.dependencies.map((d, i) => {
    const env = pairs(d.env, '=', `dependencies.${i}.env`, 'KEY=VALUE');
    problems.push(...env.problems);
    const { timings, ...keep } = d.keep as { timings?: Record<string, unknown> };
    const cpus = numberOrText(d.cpus);
    return {
      ...keep,
      name: d.name.trim(),
      image: d.image.trim(),
      env: env.values,
      ...(numberOrText(d.port) !== undefined ? { port: numberOrText(d.port) } : {}),
      ...(d.health.trim() ? { healthcheck: { test: ['CMD-SHELL', d.health.trim()], ...timings } } : {}),
      ...(cpus !== undefined ? { cpuMillis: typeof cpus === 'number' ? Math.round(cpus * 1000) : cpus } : {}),
      ...(numberOrText(d.memoryMb) !== undefined ? { memoryMb: numberOrText(d.memoryMb) } : {}),
    };
  });
  const port = numberOrText(f.port);
  const app: Record<string, unknown> = {
    name: f.name.trim(),
    ...(f.description.trim() ? { description: f.description.trim() } : {}),
    source,
    ...(port !== undefined ? { port } : {}),
    ...(f.health.trim() ? { health: f.health.trim() } : {}),
    ...(f.tls ? { tls: true } : {}),
    ...(f.http2 ? { http2: f.http2 } : {}),
    ...(requests.length ? { requests } : {}),
    ...(Object.keys(env.values).length ? { env: env.values } : {}),
    ...(dependencies.length ? { dependencies } : {}),
  };
  return { app, problems };
}

/** A problem belongs to a field when its path is the field's or below it (`env` holds `env.FOO`). */
export const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}.`);

type Short = { method?: string; path: string; status?: number | undefined };
const short = (r: Short): string => `${r.method ?? 'GET'} ${r.path}${r.status ? ` → ${r.status}` : ''}`;

/** "GET /items/3 · POST /items → 201 · sequence (POST /login → GET /me) · +2 more" */
export function requestsSummary(reqs: readonly (Short | { sequence: readonly Short[] })[], max = 3): string {
  const shown = reqs.slice(0, max).map((r) => ('sequence' in r ? `sequence (${r.sequence.map(short).join(' → ')})` : short(r)));
  return [...shown, ...(reqs.length > max ? [`+${reqs.length - max} more`] : [])].join(' · ');
}
