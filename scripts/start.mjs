// `npm start`: builds when the sources are newer than dist/, then opens the desktop app. Without an
// Electron binary (an offline machine) it says how to bring one, and how to open the same app in a
// browser instead.
// `npm run serve [-- --port P …]`: builds when needed, then `rightsize serve` (the UI in a browser).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from './build-state.mjs';
import { electronRecipe, findElectronBinary } from './electron-binary.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const [mode, ...rest] = process.argv.slice(2);
const serve = mode === 'serve';

const state = buildState(root);
if (state.stale) {
  console.error(state.reason === 'changed' ? 'Sources changed since the last build: building…' : 'Building Rightsize (first start)…');
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) {
    console.error('The build failed (see above); nothing was started.');
    process.exit(r.status ?? 1);
  }
}

function run(cmd, args) {
  const child = spawn(cmd, args, { stdio: 'inherit', cwd: root });
  // Ctrl-C reaches the child through the terminal; wait for it to clean up (containers) and exit.
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => {});
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (serve) run(process.execPath, [path.join(root, 'bin/rightsize.js'), 'serve', ...rest]);
else {
  const bin = findElectronBinary();
  if (!bin.path) {
    console.error(`Cannot open the desktop app: ${bin.reason}.

${electronRecipe()}

Meanwhile, the same app runs in your browser (no Electron needed):
  npm run serve          then open the URL it prints`);
    process.exit(1);
  }
  run(bin.path, ['.', ...(mode ? [mode] : []), ...rest]);
}
