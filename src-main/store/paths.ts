import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The OS's per-user data folder for Rightsize. Parameters exist so tests can ask about every OS
 * from any OS; callers normally pass nothing.
 */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): string {
  // Pick the path flavour of the target OS, so a Windows answer has backslashes even when asked on Linux.
  const p = platform === 'win32' ? path.win32 : path.posix;
  if (platform === 'win32') return p.join(env.APPDATA || p.join(home, 'AppData', 'Roaming'), 'Rightsize');
  if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', 'Rightsize');
  // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  return p.join(xdg && p.isAbsolute(xdg) ? xdg : p.join(home, '.local', 'share'), 'rightsize');
}

export interface DbPathOptions {
  /** An explicit database file (e.g. --db); wins over everything. */
  db?: string;
  /** A folder to keep rightsize.db in (e.g. --data-dir). */
  dataDir?: string;
}

/**
 * Where the database lives: `db`, then $RIGHTSIZE_DB, then `<dataDir | $RIGHTSIZE_DATA_DIR |
 * defaultDataDir()>/rightsize.db`. Empty strings count as unset (an exported-but-empty variable is
 * a common shell accident). Creates the parent folder so the caller can open the file straight away.
 */
export function resolveDbPath(opts: DbPathOptions = {}, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = opts.db || env.RIGHTSIZE_DB;
  const file = path.resolve(
    explicit ||
      path.join(opts.dataDir || env.RIGHTSIZE_DATA_DIR || defaultDataDir(process.platform, env), 'rightsize.db'),
  );
  ensureParentDir(file);
  return file;
}

/** mkdir -p of the file's folder, with an error that names the path (mkdir's own message is terse). */
export function ensureParentDir(file: string): void {
  const dir = path.dirname(file);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new Error(`Cannot create the folder for the Rightsize database ${file}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}
