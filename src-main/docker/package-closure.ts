import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The directories of an installed npm package and everything it depends on, resolved the way Node
 * does (nearest node_modules upwards). Used to put PM2 into an image without network access:
 * the packages are copied from this project's own node_modules.
 */
export function packageClosure(name: string, fromDir: string): { root: string; dirs: string[] } {
  const root = findNodeModulesRoot(fromDir);
  const seen = new Set<string>();
  const visit = (pkg: string, from: string): void => {
    const dir = resolvePackageDir(pkg, from, root);
    if (!dir) return; // optional dependency not installed on this platform
    if (seen.has(dir)) return;
    seen.add(dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) visit(dep, dir);
  };
  visit(name, root);
  if (seen.size === 0)
    throw new Error(`The package "${name}" is not installed under ${root}/node_modules: run npm install.`);
  return { root, dirs: [...seen].sort() };
}

function findNodeModulesRoot(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No node_modules folder above ${from}`);
  }
}

function resolvePackageDir(pkg: string, from: string, stopAt: string): string | null {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', pkg);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (dir === stopAt || path.dirname(dir) === dir) return null;
  }
}
