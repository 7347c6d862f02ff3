// Bundles the engine entry points with esbuild. Dependencies stay in node_modules (native modules
// like better-sqlite3 cannot be bundled), so dist/ needs the installed package beside it.
import { build } from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', sourcemap: true, logLevel: 'warning' };
await build({ ...common, entryPoints: { cli: 'src-main/cli/main.ts', 'load-worker': 'src-main/load/worker.ts' }, outdir: 'dist' });
console.log('built dist/cli.js, dist/load-worker.js');
