// Where the Electron binary is, without triggering its download: since Electron 42, the first
// require('electron') fetches it, which hangs or fails on an offline machine.
import { existsSync, readFileSync } from 'node:fs';
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
