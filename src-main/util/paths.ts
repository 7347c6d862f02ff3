import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
/**
 * The folder holding Rightsize's package.json, apps/ and resources/. Found by walking up from this
 * module, which lives in src-main/ when run from source and in dist/ when bundled.
 */
export function projectRoot(): string {
  if (root) return root;
  const override = process.env.RIGHTSIZE_ROOT;
  if (override) return (root = override);
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'rightsize') {
      return (root = dir);
    }
    if (path.dirname(dir) === dir)
      throw new Error('Cannot find the Rightsize installation folder (package.json named "rightsize").');
  }
}

export const appsDir = (): string => path.join(projectRoot(), 'apps');
export const resourcesDir = (): string => path.join(projectRoot(), 'resources');

export function rightsizeVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}
