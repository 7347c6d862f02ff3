// Where the Electron binary is, without triggering its download: since Electron 42, the first
// require('electron') fetches it, which hangs or fails on an offline machine.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'electron');

/** The binary's path, or null with the reason. */
export function findElectronBinary() {
  const pathFile = path.join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, rel ?? 'electron');
    return existsSync(p) ? { path: p } : { path: null, reason: `ELECTRON_OVERRIDE_DIST_PATH is set but ${p} does not exist` };
  }
  if (!existsSync(path.join(pkg, 'package.json'))) return { path: null, reason: 'the electron package is not installed (run npm ci)' };
  if (!rel || !existsSync(path.join(pkg, 'dist', rel))) {
    return { path: null, reason: 'the Electron binary is not downloaded (Electron ≥ 42 fetches it on first use; this machine has no access to its download server)' };
  }
  return { path: path.join(pkg, 'dist', rel) };
}

/** The installed electron package's version, or null when the package is not there (or unreadable). */
export function electronVersion(dir = pkg) {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version ?? null;
  } catch {
    return null;
  }
}

/**
 * The exact steps to bring Electron's binary to a machine that cannot download it, for this
 * platform: the file to fetch, where Electron's installer looks for it in its cache, and the
 * alternative of pointing ELECTRON_OVERRIDE_DIST_PATH at an unpacked copy. Without the electron
 * package (no `npm ci` yet) there is no version to name: it says so instead of failing.
 * Every input can be given (tests); by default they are this machine's.
 */
export function electronRecipe({
  version = electronVersion(),
  platform = process.platform,
  arch = process.arch,
  env = process.env,
  home = os.homedir(),
  nodeVersion = process.versions.node,
} = {}) {
  if (!version) return 'The electron package is not installed, so there is no Electron version to bring: run `npm ci` first (it needs the npm registry), then `npm start` again.';
  const file = `electron-v${version}-${platform}-${arch}.zip`;
  const base = `https://github.com/electron/electron/releases/download/v${version}`;
  // @electron/get caches a download under <cache root>/<sha256 of the URL's folder>/<file name>.
  const p = platform === 'win32' ? path.win32 : path.posix;
  const root =
    env.electron_config_cache ??
    (platform === 'darwin'
      ? p.join(home, 'Library', 'Caches', 'electron')
      : platform === 'win32'
        ? p.join(env.LOCALAPPDATA ?? p.join(home, 'AppData', 'Local'), 'electron', 'Cache')
        : p.join(env.XDG_CACHE_HOME ?? p.join(home, '.cache'), 'electron'));
  const cacheDir = p.join(root, createHash('sha256').update(base).digest('hex'));
  const nodeOk = (() => {
    const [maj, min] = nodeVersion.split('.').map(Number);
    return maj > 22 || (maj === 22 && min >= 12);
  })();
  return `To bring the binary (Electron ${version}, ${file}):
  1. On a machine with internet access, download
       ${base}/${file}
  2. Copy it to this machine, then EITHER put it in the cache Electron's installer reads and install:
       mkdir -p ${cacheDir}
       cp ${file} ${cacheDir}/
       node node_modules/electron/install.js && npm start
     OR unpack it anywhere and point Rightsize at it:
       unzip ${file} -d ~/electron-v${version}
       ELECTRON_OVERRIDE_DIST_PATH=~/electron-v${version} npm start${
         nodeOk ? '' : `\n  (Electron's installer and electron-builder need Node.js 22.12 or newer; this is Node ${nodeVersion}.)`
       }`;
}
