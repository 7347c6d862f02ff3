// `npm run bench -- <name…>`: provision | fidelity [--mix] [--tls] [--h2 | --h2c] | overhead | responsiveness | store | user-app | caps | cli-start | all, and repeatability [--runs K] [--only NAME,…] and auto-size [--app NAME] and targets and probe [--runs N] and baseline [--runs N] and host-busy [--runs N] and dependencies and time-to-answer [--runs K] [--only PRESET,…] [--bound] and container-spread [--runs K] [--config quick|pm2-16|pm2-8|pm2-2|cluster-8|pbkdf2-6] [--windows W] [--compare-floor | --compare-noise] and warm-raise [--runs K] [--config pm2-16|pm2-8|cluster-4] and network [--runs N] and tls-resume [--runs N] and debian-root [--runs K] (only when named). Each prints a markdown
// table; BENCHMARKS.md records the results with the command that produced them.
import { spawnSync } from 'node:child_process';

const all = ['provision', 'fidelity', 'overhead', 'responsiveness', 'store', 'user-app', 'caps', 'cli-start'];
// Long ones (minutes of measurement) run only when named.
const named = ['debian-root', 'repeatability', 'auto-size', 'targets', 'probe', 'baseline', 'node-image', 'host-busy', 'dependencies', 'time-to-answer', 'container-spread', 'warm-raise', 'network', 'tls-resume'];
// Options are forwarded to every benchmark chosen (e.g. `fidelity --threads 2`); the rest are names.
const options = [];
const names = [];
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--mix' || a === '--tls' || a === '--h2' || a === '--h2c' || a === '--compare-floor' || a === '--compare-noise' || a === '--bound') options.push(a);
  else if (a === '--threads' || a === '--runs' || a === '--app' || a === '--node' || a === '--only' || a === '--config' || a === '--windows') options.push(a, process.argv[++i] ?? '');
  else if (a.startsWith('--threads=') || a.startsWith('--runs=') || a.startsWith('--app=') || a.startsWith('--only=') || a.startsWith('--config=')) options.push(a);
  else names.push(a);
}
const chosen = names.length === 0 || names.includes('all') ? all : names;
for (const n of chosen) {
  if (!all.includes(n) && !named.includes(n)) {
    console.error(`Unknown benchmark "${n}". Choose from: ${[...all, ...named].join(', ')}, all.`);
    process.exit(2);
  }
}
// Only the overhead and cli-start benchmarks run the built CLI (dist/cli.js); the engine-only build skips the renderer.
if (chosen.includes('overhead') || chosen.includes('cli-start')) {
  const b = spawnSync(process.execPath, ['scripts/build.mjs', 'engine'], { stdio: 'inherit' });
  if (b.status !== 0) {
    console.error('Build failed; not running the benchmarks.');
    process.exit(b.status ?? 1);
  }
}
for (const n of chosen) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${n}.ts`, ...options], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
