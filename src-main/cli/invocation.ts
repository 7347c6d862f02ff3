import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../util/paths.ts';

let cached: string | undefined;

/**
 * How the user can run Rightsize again from where they are, for the hints the CLI prints:
 * `rightsize` when that name on the PATH is this installation (npm link, npm install -g),
 * `npx rightsize` inside the checkout, otherwise node with the full path of bin/rightsize.js.
 */
export function rightsizeCommand(): string {
  if (cached) return cached;
  const root = projectRoot();
  const bin = path.join(root, 'bin', 'rightsize.js');
  const real = (p: string): string | null => {
    try {
      return realpathSync(p);
    } catch {
      return null;
    }
  };
  const ours = real(bin);
  const names = process.platform === 'win32' ? ['rightsize.cmd', 'rightsize.exe', 'rightsize'] : ['rightsize'];
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    // npm's own .bin folders are on the PATH only inside npm scripts: not where the user types.
    if (dir.split(path.sep).includes('node_modules')) continue;
    for (const n of names) {
      const p = path.join(dir, n);
      if (existsSync(p) && (real(p) === ours || process.platform === 'win32')) return (cached = 'rightsize');
    }
  }
  const rel = path.relative(root, process.cwd());
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return (cached = 'npx rightsize');
  return (cached = `node ${bin.includes(' ') ? JSON.stringify(bin) : bin}`);
}
