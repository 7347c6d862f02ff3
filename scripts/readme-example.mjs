#!/usr/bin/env node
// Regenerates README.md's command-line example from a real run: builds the engine, runs
// `rightsize run --preset quick` against a throwaway database (the user's history is untouched),
// and puts its output between README's <!-- example:start --> and <!-- example:end --> markers.
// Uses this machine's Docker engine; when other Rightsize processes share it, run it under their
// lock: `flock /tmp/rightsize-docker.lock npm run readme-example`.
//
//   npm run readme-example [-- --no-build] [-- --dry-run]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const README = path.join(ROOT, 'README.md');
export const START = '<!-- example:start -->';
export const END = '<!-- example:end -->';
/** What the example shows being typed (inside the checkout, the CLI's own hints say `npx rightsize`). */
export const COMMAND = ['run', '--preset', 'quick'];
/** Longer lines are cut with "…": the answer's sentences run on; the README shows their start. */
export const MAX_WIDTH = 170;

/** The run's output as README shows it: no terminal codes, no trailing blanks, long lines cut. */
export function exampleBlock(output, tmp) {
  const lines = output
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '') // no colours or cursor moves (none without a TTY, but never in the README)
    .split('\n')
    .map((l) => l.replace(/\r+$/, '').split('\r').pop().trimEnd()) // a line redrawn in place: its last state
    .map((l) => (tmp ? l.split(tmp).join('/tmp/rightsize-example') : l))
    .map((l) => ([...l].length > MAX_WIDTH ? `${[...l].slice(0, MAX_WIDTH - 1).join('')}…` : l));
  while (lines.length && lines.at(-1) === '') lines.pop();
  return ['```text', `$ npx rightsize ${COMMAND.join(' ')}`, ...lines, '```'].join('\n');
}

/** README with the block between the markers replaced; throws when the markers are missing or out of order. */
export function replaceExample(readme, block) {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md needs the markers ${START} … ${END} around the example.`);
  return `${readme.slice(0, a + START.length)}\n${block}\n${readme.slice(b)}`;
}

function run(cmd, args, opts = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
      process.stderr.write(c); // the run's progress as it goes
    });
    child.stderr.on('data', (c) => {
      stderr += c;
      process.stderr.write(c);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function main() {
  const args = new Set(process.argv.slice(2));
  if (!args.has('--no-build')) {
    const b = spawnSync(process.execPath, ['scripts/build.mjs', 'engine'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('the engine build failed; README.md unchanged');
  }
  const tmp = mkdtempSync(path.join(tmpdir(), 'rightsize-readme-'));
  try {
    const db = path.join(tmp, 'rightsize.db');
    // No TTY, no colour: the output a terminal shows, minus the line redrawn in place.
    const env = { ...process.env, NO_COLOR: '1', RIGHTSIZE_DB: db };
    delete env.FORCE_COLOR;
    const r = await run(process.execPath, ['bin/rightsize.js', ...COMMAND], { env });
    if (r.code !== 0)
      throw new Error(`\`rightsize ${COMMAND.join(' ')}\` exited with ${r.code}; README.md unchanged.\n${r.stderr}`);
    if (!/^Run \d+ "quick": (a grid of \d+ cells|\d+ cell\(s\))/m.test(r.stdout)) throw new Error('the run printed no start line; README.md unchanged');
    const next = replaceExample(readFileSync(README, 'utf8'), exampleBlock(r.stdout, tmp));
    if (args.has('--dry-run')) process.stdout.write(`${next}\n`);
    else {
      writeFileSync(README, next);
      process.stderr.write(`README.md: the example is now this run's output (${r.stdout.split('\n').length} lines).\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((e) => {
    process.stderr.write(`readme-example: ${e.message}\n`);
    process.exitCode = 1;
  });
}
