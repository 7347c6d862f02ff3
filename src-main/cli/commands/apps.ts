import { parseRequest, requestsFromFile } from './apps-import.ts';
import { readFileSync } from 'node:fs';
import { BUILD_BASES, folderKind, type BuildBase } from '../../apps/folder-source.ts';
import path from 'node:path';
import { readCompose } from '../../apps/compose/from-compose.ts';
import { optionOf } from '../../apps/option-words.ts';
import { answeredWith } from '../../apps/try-out.ts';
import { servesWords } from '../../apps/served-links.ts';
import { ContractError, type AppInfo, type TryOutResult, type UserApp } from '../../contract/api.ts';
import type { Lab } from '../../service/lab.ts';
import { withLab as withLabAs, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { table } from '../format.ts';
import { cancelOnSignals, type Cancel } from '../run-lifecycle.ts';

/** The options `apps add` and `apps edit` share: each sets one part of the definition. */
export interface AppOptions extends GlobalOptions {
  from?: string;
  compose?: string;
  service?: string;
  folder?: string;
  entry?: string;
  arg?: string[];
  ecosystem?: string;
  ecosystemApp?: string;
  image?: string;
  dockerfile?: string;
  buildArg?: string[];
  base?: string;
  workersEnv?: string;
  fixed?: boolean;
  port?: string;
  health?: string;
  /** It serves HTTPS itself (commander: true with --tls, false with --no-tls, absent otherwise). */
  tls?: boolean;
  /** It serves HTTP/2 itself: "h2" or "h2c" as typed (checked by the engine), false with --no-http2. */
  http2?: string | false;
  env?: string[];
  request?: string[];
  requests?: string;
  requestsFrom?: string;
  keepStatic?: boolean;
  allHosts?: boolean;
  description?: string;
  rename?: string;
  check?: boolean;
  build?: boolean;
  /** Try the app once after saving: true (--try), false (--no-try), undefined (when a person is at the terminal). */
  try?: boolean;
  yes?: boolean;
}

/**
 * The engine as a service for one command (the same checks the UI gets): contract errors become messages and exit
 * codes.
 */
const withLab = <T>(g: GlobalOptions, fn: (lab: Lab) => Promise<T>): Promise<T> =>
  withLabAs(g, fn, (e) => {
    // The options the user typed, not the definition's fields: `--folder`, not `source.dir`.
    const problems = e.fields.length
      ? `\n${e.fields.map((f) => `  - ${optionOf(f.path)}: ${f.message}`).join('\n')}`
      : '';
    const head = e.code === 'APP_INVALID' ? 'The app is not valid; nothing was saved:' : e.message;
    const code =
      e.code === 'BUILD_FAILED' ? EXIT.runFailed : e.code === 'DOCKER_UNAVAILABLE' ? EXIT.docker : EXIT.usage;
    return new CliError(`${head}${problems}`, code);
  });

const say = (o: GlobalOptions, text: string, json: unknown): void =>
  void process.stdout.write(o.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`);

export function appsListCommand(o: GlobalOptions): Promise<number> {
  return withLab(o, async (lab) => {
    const apps = await lab.handlers['apps.list']({});
    const where = (a: AppInfo): string =>
      a.user?.source.kind === 'image'
        ? a.user.source.image
        : a.user?.source.kind === 'dockerfile'
          ? `${a.user.source.dir} (its ${a.user.source.dockerfile})`
          : (a.user?.source.dir ?? 'built in');
    say(
      o,
      table(
        ['name', 'kind', 'from', 'port', 'serves', 'description'],
        apps.map((a) => [a.name, a.kind, where(a), String(a.port), servesWords(a.user ?? a), a.description]),
      ),
      apps,
    );
    return EXIT.ok;
  });
}

/** Whether to try the app after saving: as asked, else when a person reads the output (a terminal, not --json). */
const wantsTry = (o: AppOptions): boolean => !o.check && (o.try ?? (Boolean(process.stdout.isTTY) && !o.json));

/** withLab, with the build's signal handling when --build or a try-out builds after saving. */
const withLabFor = (o: AppOptions, fn: (lab: Lab, cancel?: Cancel) => Promise<number>): Promise<number> =>
  (o.build || wantsTry(o)) && !o.check
    ? cancellable((cancel) => withLab(o, (lab) => fn(lab, cancel)))
    : withLab(o, (lab) => fn(lab));

export function appsAddCommand(name: string, o: AppOptions): Promise<number> {
  return withLabFor(o, async (lab, cancel) => {
    const app = { ...definitionFrom(o), name };
    return saveOrCheck(lab, o, app, 'Added', undefined, cancel);
  });
}

export function appsEditCommand(name: string, o: AppOptions): Promise<number> {
  return withLabFor(o, async (lab, cancel) => {
    const current = (await lab.handlers['apps.list']({})).find((a) => a.name === name);
    if (!current?.user)
      throw new CliError(
        current
          ? `"${name}" is a built-in app: it cannot be edited. Add your own with \`rightsize apps add\`.`
          : `There is no app named "${name}". See \`rightsize apps\`.`,
        EXIT.usage,
      );
    const app = { ...mergeEdit(current.user, o), name: o.rename ?? name };
    return saveOrCheck(lab, o, app, 'Saved', name, cancel);
  });
}

export function appsRemoveCommand(name: string, o: AppOptions): Promise<number> {
  if (!o.yes && !o.json)
    throw new CliError(
      `Removing "${name}" needs --yes (runs that used it keep their copy of its definition).`,
      EXIT.usage,
    );
  return withLab(o, async (lab) => {
    const r = await lab.handlers['apps.remove']({ name });
    say(o, `Removed ${name}. Runs that used it keep their copy of its definition.`, r);
    return EXIT.ok;
  });
}

/** `apps try NAME`: build it, start it once, ask its health path and each request; exit 5 when something is wrong. */
export function appsTryCommand(name: string, o: GlobalOptions): Promise<number> {
  return cancellable((cancel) =>
    withLab(o, async (lab) => {
      const r = await tryWithLog(lab, name, cancel);
      if (r === undefined) return EXIT.cancelled;
      say(o, tryOutText(r, name), r);
      return r.ok ? EXIT.ok : EXIT.runFailed;
    }),
  );
}

/** The try-out, its build lines on stderr; undefined when a signal stopped it. */
async function tryWithLog(lab: Lab, name: string, cancel: Cancel): Promise<TryOutResult | undefined> {
  const cancelled = (): undefined => void process.stderr.write(CANCELLED_TRY);
  if (cancel.signal.aborted) return cancelled();
  const onAbort = (): void => lab.cancelBuilds();
  cancel.signal.addEventListener('abort', onAbort, { once: true });
  const stop = lab.subscribe('apps.buildLog', { name }, (e) => void process.stderr.write(`  ${e.line}\n`));
  try {
    return await lab.handlers['apps.tryOut']({ name });
  } catch (e) {
    if (!cancel.signal.aborted) throw e;
    return cancelled();
  } finally {
    cancel.signal.removeEventListener('abort', onAbort);
    stop();
  }
}

const CANCELLED_TRY = 'Cancelled: the try-out was stopped; its container is removed and the lab is free.\n';

/** What answered, a line a path, then what to change (as options of `apps edit`). */
export function tryOutText(r: TryOutResult, name: string): string {
  if (r.failed) return `Tried ${name}: ${r.failed}.`;
  const out: string[] = [];
  const image = `${r.image}${r.built ? ', built now' : ''}`;
  out.push(
    r.answered
      ? `Tried ${name} (${image}): it answered after ${r.startSec!.toFixed(1)} s.`
      : `Tried ${name} (${image}): nothing answered within ${Math.round(r.waitedSec)} s.`,
  );
  const width = Math.max(0, ...r.probes.map((p) => `${p.method} ${p.path}`.length));
  for (const p of r.probes) {
    const mark = p.ok ? '✓' : '✗';
    const role = p.kind === 'health' ? 'health  ' : p.kind === 'request' ? 'request ' : 'guess   ';
    const ms = p.answers.filter((a) => a.ms !== undefined).map((a) => a.ms!);
    const time = ms.length ? `, ${Math.round(ms.reduce((a, b) => a + b, 0) / ms.length)} ms` : '';
    const expected = p.ok ? '' : ` (expected ${p.expected})`;
    out.push(`  ${mark} ${role}${`${p.method} ${p.path}`.padEnd(width)}  ${answeredWith(p)}${time}${expected}`);
  }
  for (const s of r.suggestions) {
    if (s.kind === 'health')
      out.push(`Change: ${s.because}; use it as the health path:`, `  rightsize apps edit ${name} --health ${s.path}`);
    else out.push(`Check: ${s.text}.`);
  }
  if (r.logTail.length) out.push("The app's last log lines:", ...r.logTail.map((l) => `  | ${l}`));
  if (r.ok) out.push('Everything answered as expected.');
  return out.join('\n');
}

export function appsBuildCommand(name: string, o: GlobalOptions): Promise<number> {
  return cancellable((cancel) => withLab(o, (lab) => buildWithLog(lab, name, o, cancel)));
}

/**
 * A build takes the lab like a run, so it cancels like one: Ctrl-C, SIGTERM or SIGHUP (the run
 * lifecycle's handlers, installed before Docker is touched) stop the build in progress — dockerd
 * drops its intermediate container and never tags the image — and the lab is given back; exit 130.
 */
async function cancellable(fn: (cancel: Cancel) => Promise<number>): Promise<number> {
  const cancel = cancelOnSignals(process.stderr);
  try {
    return await fn(cancel);
  } finally {
    cancel.dispose();
  }
}

const CANCELLED_BUILD = 'Cancelled: the build was stopped; no image was tagged and the lab is free.\n';

async function buildWithLog(lab: Lab, name: string, o: GlobalOptions, cancel: Cancel): Promise<number> {
  if (cancel.signal.aborted) {
    process.stderr.write(CANCELLED_BUILD);
    return EXIT.cancelled;
  }
  const onAbort = (): void => lab.cancelBuilds();
  cancel.signal.addEventListener('abort', onAbort, { once: true });
  const stop = lab.subscribe('apps.buildLog', { name }, (e) => void process.stderr.write(`  ${e.line}\n`));
  try {
    const r = await lab.handlers['apps.build']({ name });
    say(o, r.built ? `Built ${r.tag} in ${r.seconds.toFixed(1)} s.` : `${r.tag} is up to date.`, r);
    return EXIT.ok;
  } catch (e) {
    if (!cancel.signal.aborted) throw e;
    process.stderr.write(CANCELLED_BUILD);
    return EXIT.cancelled;
  } finally {
    cancel.signal.removeEventListener('abort', onAbort);
    stop();
  }
}

/** Checks the app once: with --check only reports, otherwise saves it (`replacing`: the app being edited). */
async function saveOrCheck(
  lab: Lab,
  o: AppOptions,
  app: Record<string, unknown>,
  verb: string,
  replacing?: string,
  cancel?: Cancel,
): Promise<number> {
  const notes = (ns: string[]): void => ns.forEach((n) => void process.stderr.write(`note: ${n}\n`));
  if (o.check) {
    const check = await lab.handlers['apps.check']({ app, ...(replacing ? { replacing } : {}) });
    if (!check.ok) throw new ContractError({ code: 'APP_INVALID', message: 'invalid', fields: check.problems });
    notes(check.notes);
    say(o, `${app.name as string} is valid (nothing saved: --check).`, check);
    return EXIT.ok;
  }
  const saved = await lab.saveApp(app, replacing);
  notes(saved.notes);
  const info = saved.info;
  const trying = wantsTry(o) && cancel !== undefined;
  const added =
    `${verb} ${info.name}. Use it in a matrix: "apps": ["${info.name}"]` +
    (info.fixedWorkers ? ' (fixed worker count: one cell per CPU/memory pair)' : '') +
    '.' +
    (trying
      ? ''
      : `\nTry it before a run: rightsize apps try ${info.name} (builds it, starts it once, asks each path).`);
  if (!(trying && o.json)) say(o, added, info);
  if (o.build && cancel) {
    const built = await buildWithLog(lab, info.name, o, cancel);
    if (built !== EXIT.ok || !trying) return built;
  }
  if (!trying) return EXIT.ok;
  const r = await tryWithLog(lab, info.name, cancel);
  if (r === undefined) return EXIT.cancelled;
  // The app stays saved either way: the try-out says what to change.
  say(o, `${tryOutText(r, info.name)}${r.ok ? '' : `\n${info.name} is saved; fix it with \`rightsize apps edit\`.`}`, {
    app: info,
    tryOut: r,
  });
  return r.ok ? EXIT.ok : EXIT.runFailed;
}

/** A definition from the command line (or a JSON file given with --from, which the other options then override). */
function definitionFrom(o: AppOptions): Record<string, unknown> {
  const base = { ...(o.from ? readJson(o.from) : {}), ...composeParts(o) };
  return { ...base, ...partsFrom(o, (base.source as UserApp['source'] | undefined) ?? undefined) };
}

function mergeEdit(current: UserApp, o: AppOptions): Record<string, unknown> {
  const base = { ...current, ...(o.from ? readJson(o.from) : {}), ...composeParts(o) };
  return { ...base, ...partsFrom(o, base.source) };
}

/** --base, checked. */
function baseOf(o: AppOptions): BuildBase | undefined {
  if (o.base !== undefined && !(BUILD_BASES as readonly string[]).includes(o.base))
    throw new CliError(`--base is ${BUILD_BASES.join(' or ')}, got "${o.base}".`, EXIT.usage);
  return o.base as BuildBase | undefined;
}

/** What --compose and --service read (its notes on stderr); every problem of the file at once, nothing saved. */
function composeParts(o: AppOptions): Record<string, unknown> {
  if (o.compose === undefined && o.service === undefined) return {};
  if (o.compose === undefined || o.service === undefined)
    throw new CliError('Give --compose <file> and --service <name> together.', EXIT.usage);
  if (o.folder !== undefined || o.image !== undefined)
    throw new CliError(
      'Give --compose or --folder or --image: the Compose service says where the app comes from.',
      EXIT.usage,
    );
  const read = readCompose(o.compose, o.service, o.fixed ? null : (o.workersEnv ?? null), baseOf(o));
  if (!read.ok)
    throw new CliError(
      `The Compose file cannot be used; nothing was saved:\n${read.problems.map((p) => `  - ${p.message}`).join('\n')}`,
      EXIT.usage,
    );
  for (const n of read.notes) process.stderr.write(`note: ${n}\n`);
  return read.app;
}

/** Only the parts the options mention, so an edit changes just those. */
function partsFrom(o: AppOptions, source: UserApp['source'] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (o.folder !== undefined && o.image !== undefined)
    throw new CliError('Give --folder or --image, not both.', EXIT.usage);
  const base = baseOf(o);
  // A folder, given now or kept (an edit of its base or Dockerfile alone): built with its Dockerfile unless told.
  const dir =
    o.folder ?? ((o.base ?? o.dockerfile) !== undefined && source && 'dir' in source ? source.dir : undefined);
  if (dir !== undefined)
    out.source = { kind: folderKind(path.resolve(dir), base, o.dockerfile), dir: path.resolve(dir) };
  else if (o.image !== undefined) out.source = { kind: 'image', image: o.image };
  const src = { ...((out.source ?? source ?? {}) as Record<string, unknown>) };
  const folderOnly = { entry: o.entry, args: o.arg, ecosystem: o.ecosystem, ecosystemApp: o.ecosystemApp };
  const dockerfileOnly = {
    dockerfile: o.dockerfile,
    buildArgs: o.buildArg && Object.fromEntries(o.buildArg.map((kv) => parseEnv(kv, '--build-arg'))),
  };
  if (src.kind === 'dockerfile' && Object.values(folderOnly).some((v) => v !== undefined))
    throw new CliError(
      `${String(src.dir)} is built with its ${o.dockerfile ?? 'Dockerfile'}, whose command starts the server: ` +
        "drop --entry, --arg and --ecosystem, or add --base rightsize to build it on Rightsize's base and start it so.",
      EXIT.usage,
    );
  if (src.kind !== 'dockerfile' && o.buildArg !== undefined)
    throw new CliError('--build-arg applies to a folder built with its Dockerfile.', EXIT.usage);
  for (const [k, v] of Object.entries({ ...folderOnly, ...dockerfileOnly })) if (v !== undefined) src[k] = v;
  if (o.workersEnv !== undefined && o.fixed) throw new CliError('Give --workers-env or --fixed, not both.', EXIT.usage);
  if (o.workersEnv !== undefined) src.workersEnv = o.workersEnv;
  if (o.fixed) src.workersEnv = null;
  if (
    out.source ||
    Object.values({ ...folderOnly, ...dockerfileOnly }).some((v) => v !== undefined) ||
    o.workersEnv !== undefined ||
    o.fixed
  ) {
    if (!src.kind) throw new CliError('Say where the app comes from: --folder <dir> or --image <name>.', EXIT.usage);
    out.source = src;
  }
  // The port goes through as typed when it is not a number, so the engine's message says what is wrong.
  if (o.port !== undefined) out.port = /^\d+$/.test(o.port) ? Number(o.port) : o.port;
  if (o.health !== undefined) out.health = o.health;
  if (o.tls !== undefined) out.tls = o.tls;
  if (o.http2 !== undefined) out.http2 = o.http2 === false ? undefined : o.http2;
  if (o.description !== undefined) out.description = o.description;
  if (o.env) out.env = Object.fromEntries(o.env.map((kv) => parseEnv(kv, '--env')));
  if ([o.requests, o.request, o.requestsFrom].filter((x) => x !== undefined).length > 1)
    throw new CliError('Give one of --request, --requests and --requests-from.', EXIT.usage);
  if (o.requests) out.requests = readJson(o.requests);
  else if (o.request) out.requests = o.request.map(parseRequest);
  else if (o.requestsFrom) out.requests = requestsFromFile(o);
  return out;
}

function parseEnv(kv: string, option: string): [string, string] {
  const eq = kv.indexOf('=');
  if (eq < 1) throw new CliError(`${option} takes NAME=value, got "${kv}".`, EXIT.usage);
  return [kv.slice(0, eq), kv.slice(eq + 1)];
}

export { parseRequest };

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new CliError(`Cannot read ${file} as JSON: ${(e as Error).message}`, EXIT.usage);
  }
}
