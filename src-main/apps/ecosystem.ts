import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hostNodeBinary } from '../util/node-binary.ts';
import { splitArgs } from '../common/args.ts';
import { promisify } from 'node:util';

/** What Rightsize takes from one app of a PM2 ecosystem file. Instances and exec_mode are the matrix's to choose. */
export interface EcosystemApp {
  /** The app's name in the file. */
  name: string;
  /** The script, relative to the project folder (forward slashes). */
  entry: string;
  args: string[];
  env: Record<string, string>;
  /** Working directory relative to the project folder ('' = the folder itself). */
  cwd: string;
  /** Settings in the file that Rightsize does not apply, to tell the user. */
  ignored: string[];
  /** Its `instances` when it makes PM2 count the host's CPUs ("max", 0 or -1; -N: all but N); absent otherwise. */
  hostInstances?: string;
}

/**
 * Whether PM2 sizes `instances` from os.cpus() (the host's CPUs, whatever the container's cap): "max", 0, a negative
 * number ("all but N"), or a string of one. Returns it as the file writes it, else undefined.
 */
export function hostInstances(v: unknown): string | undefined {
  if (v === 'max') return '"max"';
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (Number.isInteger(n) && n <= 0) return typeof v === 'string' ? `"${v}"` : String(n);
  return undefined;
}

/** What `apps add` says at once of such a file: PM2 would fork by the host, not by the container. */
export const hostInstancesWarning = (file: string, instances: string): string =>
  `warning: ${file} says instances: ${instances}: PM2 counts os.cpus(), the host's CPUs, not the container's ` +
  `(${os.cpus().length} on this machine whatever the CPU cap, 48 on a 48-core node). Rightsize runs the matrix's ` +
  'worker counts; deploy with instances set to the number the answer names';

export const ECOSYSTEM_FILES = [
  'ecosystem.config.js',
  'ecosystem.config.cjs',
  'ecosystem.config.mjs',
  'ecosystem.config.json',
];

// Runs in a child process: an ecosystem file is the user's code (it may require modules, read env).
// JSON files are parsed here.
const LOADER =
  '\nconst f = process.argv[1];\n' +
  "import(require('node:url').pathToFileURL(f).href).then((m) => m.default ?? m)" +
  '.then((c) => process.stdout.write(JSON.stringify(c ?? null)), ' +
  '(e) => { process.stderr.write(String((e && e.message) || e)); process.exit(1); });\n';

/** Reads an ecosystem file (a JS or JSON file inside `dir`) and picks one app from it: `appName`, or the first. */
export async function readEcosystem(dir: string, file: string, appName?: string): Promise<EcosystemApp> {
  const full = path.resolve(dir, file);
  if (!isInside(dir, full)) throw new Error(`the ecosystem file must be inside the project folder, got ${file}`);
  let config: unknown;
  try {
    if (full.endsWith('.json')) config = JSON.parse(await readFile(full, 'utf8'));
    else {
      // A JS file is the user's code: it runs in its own node process, in the project folder, with a time limit.
      const { stdout } = await promisify(execFile)(hostNodeBinary(), ['-e', LOADER, full], {
        cwd: dir,
        timeout: 10_000,
        maxBuffer: 4 * 1024 * 1024,
      });
      config = JSON.parse(stdout);
    }
  } catch (e) {
    const err = e as { stderr?: string; killed?: boolean; message: string };
    const why = err.killed
      ? 'it did not finish loading within 10 s'
      : (err.stderr?.trim().split('\n').pop() ?? err.message);
    throw new Error(`${file} does not load: ${why}`);
  }
  const apps = (config as { apps?: unknown } | null)?.apps;
  if (!Array.isArray(apps) || apps.length === 0)
    throw new Error(`${file} has no "apps" list: PM2 expects module.exports = { apps: [{ script: ... }] }`);
  const list = apps as Record<string, unknown>[];
  const names = list.map((a, i) => (typeof a.name === 'string' ? a.name : `app ${i + 1}`));
  const index = appName === undefined ? 0 : names.indexOf(appName);
  if (index < 0) throw new Error(`${file} has no app named "${appName}" (it has: ${names.join(', ')})`);
  const a = list[index]!;
  if (typeof a.script !== 'string' || !a.script) throw new Error(`${file}: app "${names[index]}" has no script`);
  if (a.interpreter !== undefined && a.interpreter !== 'node' && a.interpreter !== 'none') {
    throw new Error(
      `${file}: app "${names[index]}" runs with interpreter ${String(a.interpreter)}; Rightsize sizes Node.js scripts`,
    );
  }
  const cwd = typeof a.cwd === 'string' ? path.relative(dir, path.resolve(dir, a.cwd)) : '';
  if (cwd.startsWith('..') || path.isAbsolute(cwd))
    throw new Error(`${file}: app "${names[index]}" has cwd ${String(a.cwd)}, outside the project folder`);
  const script = path.resolve(dir, cwd, a.script);
  if (!isInside(dir, script)) throw new Error(`${file}: script ${a.script} is outside the project folder`);
  const env =
    a.env && typeof a.env === 'object' ? Object.fromEntries(Object.entries(a.env).map(([k, v]) => [k, String(v)])) : {};
  const byHost = hostInstances(a.instances);
  const ignored = ['instances', 'exec_mode', 'max_memory_restart', 'node_args', 'watch'].filter(
    (k) => a[k] !== undefined,
  );
  return {
    name: names[index]!,
    entry: toPosix(path.relative(dir, script)),
    args: Array.isArray(a.args) ? a.args.map(String) : typeof a.args === 'string' ? splitArgs(a.args) : [],
    env,
    cwd: toPosix(cwd),
    ignored,
    ...(byHost ? { hostInstances: byHost } : {}),
  };
}

/** The ecosystem file a folder has, if any (the names PM2 itself looks for). */
export async function findEcosystem(dir: string): Promise<string | undefined> {
  for (const f of ECOSYSTEM_FILES) {
    if (
      await readFile(path.join(dir, f)).then(
        () => true,
        () => false,
      )
    )
      return f;
  }
  return undefined;
}

export const isInside = (dir: string, p: string): boolean => {
  const rel = path.relative(path.resolve(dir), path.resolve(p));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};

const toPosix = (p: string): string => p.split(path.sep).join('/');
