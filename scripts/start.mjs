// `npm start`: builds if needed and opens the desktop app. Without an Electron binary (an offline
// machine), says how to get one and points to `rightsize serve`, which needs none.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findElectronBinary } from './electron-binary.mjs';

const bin = findElectronBinary();
if (!bin.path) {
  console.error(`Cannot start the desktop app: ${bin.reason}.

To get the binary, on a machine that can reach Electron's downloads:
  npx install-electron --no        (or delete node_modules/electron and run npm ci)
or point ELECTRON_OVERRIDE_DIST_PATH at an unpacked Electron ${(await import('electron/package.json', { with: { type: 'json' } })).default.version} folder.

Meanwhile, the same app runs in your browser:
  node bin/rightsize.js serve     (then open the URL it prints)`);
  process.exit(1);
}
if (!existsSync('dist/electron-main.js') || !existsSync('dist/renderer/index.html')) {
  const r = spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const child = spawn(bin.path, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
