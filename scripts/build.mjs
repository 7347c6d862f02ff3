// Builds everything into dist/: the engine entry points (esbuild), the Electron main process and
// preload, and the renderer (Vite). Dependencies stay in node_modules (better-sqlite3 is native).
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { build as vite } from 'vite';

const only = process.argv[2]; // `engine` skips the renderer
const common = { bundle: true, platform: 'node', target: 'node20', packages: 'external', sourcemap: true, logLevel: 'warning' };
await build({
  ...common,
  format: 'esm',
  entryPoints: { cli: 'src-main/cli/main.ts', 'electron-main': 'src-main/electron/main.ts' },
  outdir: 'dist',
});
// The load threads' and the load agent's bundles: the agent image carries only these packages in
// its node_modules, so everything else is bundled in (src-main/load-agent/image.ts reads the list too).
const agentPackages = JSON.parse(readFileSync('resources/base-image/load-agent-packages.json', 'utf8'));
await build({
  ...common,
  packages: undefined,
  external: agentPackages,
  format: 'esm',
  entryPoints: { 'load-worker': 'src-main/load/worker.ts', 'load-agent': 'src-main/load-agent/agent.ts' },
  outdir: 'dist',
});
// Sandboxed preloads must be CommonJS and may require only 'electron': bundle the contract names in.
await build({ ...common, packages: undefined, external: ['electron'], format: 'cjs', entryPoints: { preload: 'src-main/electron/preload.ts' }, outdir: 'dist', outExtension: { '.js': '.cjs' } });
if (only !== 'engine') await vite({ configFile: 'vite.config.ts', logLevel: 'warn' });
console.log(`built dist/ (${only === 'engine' ? 'engine only' : 'engine, electron, renderer'})`);
