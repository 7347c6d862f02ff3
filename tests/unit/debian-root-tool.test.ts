// Which tool makes the offline Debian root: mmdebstrap where it is on the PATH, else debootstrap, else none (and then
// the words say what to install). Real folders on a PATH made here, with empty files standing for the tools.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { debianRootTool } from '../../src-main/docker/dependency-images.ts';
import { tempDir } from '../helpers/cli.ts';

/** A folder holding a file named after each of `tools`. */
function folderWith(...tools: string[]): string {
  const dir = tempDir('rightsize-path-');
  for (const t of tools) writeFileSync(path.join(dir, t), '#!/bin/sh\n', { mode: 0o755 });
  return dir;
}

describe('the Debian root tool', () => {
  it('is mmdebstrap where both are installed, wherever each is on the PATH', () => {
    const both = folderWith('debootstrap', 'mmdebstrap');
    expect(debianRootTool(both)).toBe('mmdebstrap');
    expect(debianRootTool([folderWith('debootstrap'), folderWith('mmdebstrap')].join(':'))).toBe('mmdebstrap');
  });

  it('is debootstrap where only it is installed', () => {
    expect(debianRootTool(['', folderWith('other'), folderWith('debootstrap')].join(':'))).toBe('debootstrap');
  });

  it('is none where neither is', () => {
    expect(debianRootTool(folderWith('apt-get'))).toBeUndefined();
    expect(debianRootTool('')).toBeUndefined();
  });
});
