// Whether dist/ must be (re)built before `npm start` / `npm run serve`: a missing output, or any
// source newer than the oldest output. Pure file-system reads, importable by the tests.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What the build writes: all of them must exist. */
export const BUILD_OUTPUTS = ['dist/cli.js', 'dist/electron-main.js', 'dist/preload.cjs', 'dist/renderer/index.html'];
/** What goes into the build (folders walked, node_modules and dot-files skipped). */
export const BUILD_SOURCES = ['src-main', 'src-renderer', 'package.json', 'vite.config.ts', 'scripts/build.mjs'];

/** Newest modification time (ms) of the given files and of the files under the given folders, relative to root; 0 for none. */
export function newestMtime(root, paths) {
  let t = 0;
  const walk = (p) => {
    const st = statSync(p);
    if (!st.isDirectory()) return void (t = Math.max(t, st.mtimeMs));
    for (const e of readdirSync(p)) if (e !== 'node_modules' && !e.startsWith('.')) walk(path.join(p, e));
  };
  for (const p of paths) if (existsSync(path.join(root, p))) walk(path.join(root, p));
  return t;
}

/**
 * { stale, reason }: stale when an output is missing ('missing') or a source is newer than the
 * oldest output ('changed'); otherwise 'fresh'.
 */
export function buildState(root, { outputs = BUILD_OUTPUTS, sources = BUILD_SOURCES } = {}) {
  const files = outputs.map((f) => path.join(root, f));
  if (!files.every((f) => existsSync(f))) return { stale: true, reason: 'missing' };
  const built = Math.min(...files.map((f) => statSync(f).mtimeMs));
  return built < newestMtime(root, sources) ? { stale: true, reason: 'changed' } : { stale: false, reason: 'fresh' };
}
