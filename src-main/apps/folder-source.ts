// How a project folder is built: with its own Dockerfile when it has one (that is what the team
// deploys), or on Rightsize's Node.js base when asked (`--base rightsize`), which the launch modes
// and the Node.js version dimension need. One rule for the CLI, the Compose reader and the UI.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';

export const BUILD_BASES = ['dockerfile', 'rightsize'] as const;
export type BuildBase = (typeof BUILD_BASES)[number];

/**
 * 'dockerfile' when a Dockerfile is named or the folder has ./Dockerfile, unless Rightsize's base was asked for (a
 * named one that is missing is then the Dockerfile check's to report).
 */
export function folderKind(dir: string, base?: BuildBase, dockerfile?: string): 'dockerfile' | 'folder' {
  if (base === 'rightsize') return 'folder';
  if (base === 'dockerfile' || dockerfile !== undefined) return 'dockerfile';
  const file = path.resolve(dir, 'Dockerfile');
  return existsSync(file) && statSync(file).isFile() ? 'dockerfile' : 'folder';
}
