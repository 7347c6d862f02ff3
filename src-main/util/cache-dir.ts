import os from 'node:os';
import path from 'node:path';

/**
 * Where Rightsize keeps what it can download again (Node.js binaries by version): the platform's
 * cache folder, never the history's data folder. RIGHTSIZE_CACHE_DIR wins (tests and benches).
 */
export function cacheDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  if (env.RIGHTSIZE_CACHE_DIR) return path.resolve(env.RIGHTSIZE_CACHE_DIR);
  const home = os.homedir();
  if (platform === 'win32')
    return path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'Rightsize', 'Cache');
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', 'Rightsize');
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME;
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), 'rightsize');
}
