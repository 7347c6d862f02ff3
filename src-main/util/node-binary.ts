import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/** Where `cmd` is on PATH (as `command -v` prints it), or undefined when it is not there. */
export function onPath(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

let pathNode: string | null | undefined;
const versions = new Map<string, string>();

/**
 * The exact version (no "v") of hostNodeBinary(): the offline base holds that binary, so its cells
 * ran it. This process's own when it is that binary; else asked once.
 */
export function hostNodeVersion(): string {
  const bin = hostNodeBinary();
  if (!process.versions.electron && bin === realpathSync(process.execPath)) return process.versions.node;
  let v = versions.get(bin);
  if (v === undefined) {
    v = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
    versions.set(bin, v);
  }
  return v;
}

/**
 * A real node binary on this machine. Inside Electron, process.execPath is Electron, and the
 * packaged app's fuses forbid running it as Node, so the one on PATH is used (RIGHTSIZE_NODE wins).
 * Throws when there is none. The PATH lookup is done once per process.
 */
export function hostNodeBinary(): string {
  if (process.env.RIGHTSIZE_NODE) return realpathSync(process.env.RIGHTSIZE_NODE);
  if (!process.versions.electron) return realpathSync(process.execPath);
  if (pathNode === undefined) {
    const bin = onPath('node');
    try {
      pathNode = bin ? realpathSync(bin) : null;
    } catch {
      pathNode = null;
    }
  }
  if (pathNode === null) {
    throw new Error(
      'Node.js was not found on this machine (PATH), and the desktop app cannot run its own binary as Node. ' +
        'Install Node.js, or set RIGHTSIZE_NODE to a node binary.',
    );
  }
  return pathNode;
}
