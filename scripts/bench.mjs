// `npm run bench -- <name…>`: provision | fidelity | overhead | responsiveness | store | user-app | all. Each prints a markdown
// table; BENCHMARKS.md records the results with the command that produced them.
import { spawnSync } from 'node:child_process';

const all = ['provision', 'fidelity', 'overhead', 'responsiveness', 'store', 'user-app'];
const names = process.argv.slice(2);
const chosen = names.length === 0 || names.includes('all') ? all : names;
for (const n of chosen) {
  if (!all.includes(n)) {
    console.error(`Unknown benchmark "${n}". Choose from: ${all.join(', ')}, all.`);
    process.exit(2);
  }
}
if (chosen.includes('overhead') || chosen.includes('fidelity')) spawnSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
for (const n of chosen) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${n}.ts`], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
