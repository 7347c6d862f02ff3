#!/usr/bin/env node
// Runs the bundled CLI (npm run build), or the TypeScript sources through tsx in a checkout without a build.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
if (existsSync(built)) {
  const { main } = await import(built);
  await main(process.argv);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../src-main/cli/main.ts');
  await main(process.argv);
}
