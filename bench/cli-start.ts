// `npm run bench -- cli-start [--runs N]`: how long `rightsize --version` takes from spawn to exit, the
// built CLI (dist/cli.js: its pure-JS dependencies bundled, dockerode's gRPC session and SSH transport
// loaded on first use, scripts/build.mjs) against the same sources built with every dependency left in
// node_modules, as the build did before. Alternated run by run, so both see the same machine.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { median } from './stats.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] || 20);
const bundled = path.join(ROOT, 'dist/cli.js');
if (!existsSync(bundled)) throw new Error('dist/cli.js is missing: npm run build');

// Inside the checkout, so that node_modules resolves as it does for dist/.
const dir = path.join(ROOT, 'dist/bench-cli-start');
mkdirSync(dir, { recursive: true });
try {
  await build({
    bundle: true, platform: 'node', target: 'node20', packages: 'external', format: 'esm', logLevel: 'warning',
    entryPoints: { cli: path.join(ROOT, 'src-main/cli/main.ts') }, outdir: dir,
  });
  const entry = (cli: string): string => {
    const file = path.join(dir, `${path.basename(path.dirname(cli))}-entry.mjs`);
    writeFileSync(file, `const { main } = await import(${JSON.stringify(cli)}); await main(process.argv);\n`);
    return file;
  };
  const variants = { 'dependencies bundled (the build)': entry(bundled), 'dependencies in node_modules': entry(path.join(dir, 'cli.js')) };
  const ms: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const once = (file: string): number => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [file, '--version'], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${file} --version exited ${r.status}: ${r.stderr}`);
    return performance.now() - t0;
  };
  for (const f of Object.values(variants)) once(f); // the file cache warm for both
  for (let i = 0; i < runs; i++) for (const [k, f] of Object.entries(variants)) ms[k]!.push(once(f));
  const [a, b] = Object.keys(variants) as [string, string];
  console.log(`\n### CLI start-up: \`rightsize --version\`, spawn to exit (${runs} runs each, alternated)\n`);
  console.log('| build | median ms | min | max |\n|---|---|---|---|');
  for (const [k, xs] of Object.entries(ms)) console.log(`| ${k} | ${median(xs).toFixed(0)} | ${Math.min(...xs).toFixed(0)} | ${Math.max(...xs).toFixed(0)} |`);
  console.log(`\nRatio of medians, bundled / in node_modules: ${(median(ms[a]!) / median(ms[b]!)).toFixed(2)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
