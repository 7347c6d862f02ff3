import { spawn, type ChildProcess } from 'node:child_process';
import { test as base } from '@playwright/test';
import { CLI, ROOT, tempDir } from '../helpers/cli.ts';

export { ROOT };

export interface Served {
  url: string;
  loginUrl: string;
  dataDir: string;
}

/** `rightsize serve` on a free port with its own data folder, stopped (Ctrl-C) after the test. */
export const test = base.extend<{ served: Served }>({
  served: async ({}, use) => {
    const dataDir = tempDir('rightsize-e2e-');
    const child: ChildProcess = spawn(process.execPath, [CLI, '--data-dir', dataDir, '--json', 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    const first = await new Promise<string>((resolve, reject) => {
      child.stdout!.once('data', (c: Buffer) => resolve(c.toString()));
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    });
    const { url, loginUrl } = JSON.parse(first.trim()) as { url: string; loginUrl: string };
    await use({ url, loginUrl, dataDir });
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
  },
});
export { expect } from '@playwright/test';
