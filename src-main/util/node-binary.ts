import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';

/**
 * A real node binary on this machine. Inside Electron, process.execPath is Electron, and the
 * packaged app's fuses forbid running it as Node, so the one on PATH is used (RIGHTSIZE_NODE wins).
 * Throws when there is none.
 */
export function hostNodeBinary(): string {
  if (process.env.RIGHTSIZE_NODE) return realpathSync(process.env.RIGHTSIZE_NODE);
  if (!process.versions.electron) return realpathSync(process.execPath);
  try {
    return realpathSync(execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim());
  } catch {
    throw new Error('Node.js was not found on this machine (PATH), and the desktop app cannot run its own binary as Node. Install Node.js, or set RIGHTSIZE_NODE to a node binary.');
  }
}
