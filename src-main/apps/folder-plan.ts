import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import dockerignore from '@balena/dockerignore';

/** How a project folder's dependencies get into its image. */
export type InstallPlan =
  | { kind: 'none' } // no dependencies
  | { kind: 'node_modules' } // the folder's own, copied as they are
  | { kind: 'lockfile'; lockfile: 'package-lock.json' | 'npm-shrinkwrap.json' }; // npm ci inside the build

/** The fields of a project's package.json that Rightsize reads. */
export interface PackageJson {
  version?: string;
  description?: string;
  main?: string;
  dependencies?: Record<string, string>;
}

export interface FolderPlan {
  /** Whether a path (relative, forward slashes) stays out of the image, as `docker build` would decide. */
  skip: (rel: string, isDir: boolean) => boolean;
  install: InstallPlan;
  /** What stops the folder from building, each with what to do. */
  problems: { path: string; message: string }[];
  /** The folder's package.json as parsed (undefined when it is missing or not JSON). */
  pkg: PackageJson | undefined;
}

/**
 * Reads what `docker build` would read of a project folder: its .dockerignore, then where its
 * dependencies come from. Checked when the app is added and again before each build.
 */
export async function planFolder(dir: string, entry: string): Promise<FolderPlan> {
  const problems: FolderPlan['problems'] = [];
  const ignoreText = await readFile(path.join(dir, '.dockerignore'), 'utf8').catch(() => undefined);
  const skip = makeSkip(ignoreText);
  if (skip(entry, false))
    problems.push({
      path: 'source.entry',
      message: `.dockerignore leaves ${entry} out of the image: remove the pattern that matches it`,
    });

  const pkg = await readFile(path.join(dir, 'package.json'), 'utf8').then(
    (t) => JSON.parse(t) as PackageJson,
    () => undefined,
  );
  const deps = Object.keys(pkg?.dependencies ?? {});
  const has = async (rel: string, dirWanted: boolean): Promise<boolean> => {
    const st = await stat(path.join(dir, rel)).catch(() => undefined);
    return Boolean(st && st.isDirectory() === dirWanted && !skip(rel, dirWanted));
  };
  let install: InstallPlan = { kind: 'none' };
  if (await has('node_modules', true)) install = { kind: 'node_modules' };
  else if (deps.length > 0) {
    const lockfile = (await has('npm-shrinkwrap.json', false))
      ? 'npm-shrinkwrap.json'
      : (await has('package-lock.json', false))
        ? 'package-lock.json'
        : undefined;
    if (lockfile) install = { kind: 'lockfile', lockfile };
    else
      problems.push({
        path: 'source.dir',
        message:
          `package.json lists ${deps.length} dependencies, but the image would get neither node_modules ` +
          `nor package-lock.json: run "npm install" in ${dir}` +
          (ignoreText !== undefined ? ' (and check .dockerignore)' : ''),
      });
  }
  return { skip, install, problems, pkg };
}

/** Docker's rules, plus: .git never goes into an image when there is no .dockerignore to say so. */
export function makeSkip(ignoreText: string | undefined): (rel: string, isDir: boolean) => boolean {
  if (ignoreText === undefined) return (rel) => rel === '.git' || rel.startsWith('.git/');
  const ig = dockerignore({ ignorecase: false }).add(ignoreText);
  // A folder that is ignored must still be walked when an exception ("!dir/keep") may re-include something in it.
  const exceptions = ignoreText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1).replace(/^\/+/, ''));
  return (rel, isDir) => {
    if (!ig.ignores(rel)) return false;
    return !(isDir && exceptions.some((e) => e.startsWith(`${rel}/`) || /[*?[]/.test(e)));
  };
}
