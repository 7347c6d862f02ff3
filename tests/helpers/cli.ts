import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(ROOT, 'bin/rightsize.js');

export function tempDir(prefix = 'rightsize-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI (the built bundle when present) as a user would. */
export function startCli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, done };
}

export function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return startCli(args, env).done;
}

/**
 * A matrix run through the real CLI (`run --config` on a file written from `matrix`) into a new history in a new
 * folder: the run's id and where its history and folder are. Throws with the CLI's stderr when it did not exit 0.
 */
export async function runConfig(matrix: Record<string, unknown>, prefix = 'rightsize-'): Promise<{ dir: string; db: string; runId: number }> {
  const dir = tempDir(prefix);
  const db = path.join(dir, 'history.db');
  const config = path.join(dir, 'matrix.json');
  writeFileSync(config, JSON.stringify(matrix));
  const r = await cli(['--db', db, '--json', 'run', '--config', config]);
  if (r.code !== 0) throw new Error(`rightsize run exited ${r.code}: ${r.stderr}`);
  return { dir, db, runId: (JSON.parse(r.stdout) as { runId: number }).runId };
}
