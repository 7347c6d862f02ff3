// Builds everything into dist/: the engine entry points (esbuild), the Electron main process and
// preload, and the renderer (Vite). Most dependencies stay in node_modules (better-sqlite3 is native).
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
import { build as vite } from 'vite';

const only = process.argv[2]; // `engine` skips the renderer
const common = { bundle: true, platform: 'node', target: 'node20', packages: 'external', sourcemap: true, logLevel: 'warning' };

/**
 * Pure-JS packages bundled into the CLI and the Electron main process: resolving their hundreds of
 * small files (@stdlib alone is over 200 packages) was most of every `rightsize` start-up
 * (BENCHMARKS.md, "CLI start-up").
 */
const BUNDLED = /^(@stdlib\/|zod(\/|$)|hdr-histogram-js$|commander$|fastest-levenshtein$|parse-prometheus-text-format$|@balena\/dockerignore$|dockerode$|docker-modem$)/;
/**
 * Inside those, two modules loaded only when used: dockerode's BuildKit session (gRPC and protobuf)
 * and docker-modem's SSH transport (ssh2). Rightsize builds without BuildKit sessions, and SSH
 * engines still work: the module is required on the first ssh:// connection.
 */
const LAZY = { 'dockerode:./session': 'dockerode/lib/session.js', 'docker-modem:./ssh': 'docker-modem/lib/ssh.js' };
const startUp = {
  name: 'start-up',
  setup(b) {
    b.onResolve({ filter: /^\.\/(session|ssh)$/ }, (a) => {
      const pkg = /node_modules\/(dockerode|docker-modem)\//.exec(a.importer)?.[1];
      const target = pkg && LAZY[`${pkg}:${a.path}`];
      return target ? { path: target, namespace: 'lazy' } : undefined;
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy' }, (a) => ({
      contents: `module.exports = function () { return require(${JSON.stringify(a.path)}).apply(this, arguments); };`,
      loader: 'js',
    }));
    b.onResolve({ filter: /^[^./]/ }, (a) => (a.path.startsWith('node:') || !BUNDLED.test(a.path) ? { path: a.path, external: true } : undefined));
  },
};
await build({
  ...common,
  packages: undefined,
  plugins: [startUp],
  // Bundled CommonJS calls require(), which an ES module has only when given one.
  banner: { js: "import { createRequire as __rightsizeRequire } from 'node:module'; const require = __rightsizeRequire(import.meta.url);" },
  format: 'esm',
  entryPoints: { cli: 'src-main/cli/main.ts', 'electron-main': 'src-main/electron/main.ts' },
  outdir: 'dist',
});
// The load threads' and the load agent's bundles: the agent image carries only these packages in
// its node_modules, so everything else is bundled in. src-main/load-agent/image.ts reads both files too, so that its
// bundles from source are these bytes (one agent image, whichever runs).
const agentPackages = JSON.parse(readFileSync('resources/base-image/load-agent-packages.json', 'utf8'));
const agentBundle = JSON.parse(readFileSync('resources/base-image/load-agent-bundle.json', 'utf8'));
await build({ ...agentBundle, external: agentPackages, logLevel: 'warning', outdir: 'dist' });
// Sandboxed preloads must be CommonJS and may require only 'electron': bundle the contract names in.
await build({ ...common, packages: undefined, external: ['electron'], format: 'cjs', entryPoints: { preload: 'src-main/electron/preload.ts' }, outdir: 'dist', outExtension: { '.js': '.cjs' } });
if (only !== 'engine') await vite({ configFile: 'vite.config.ts', logLevel: 'warn' });
console.log(`built dist/ (${only === 'engine' ? 'engine only' : 'engine, electron, renderer'})`);
