import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HostFacts } from '../../src-main/model/types.ts';
import { Store } from '../../src-main/store/index.ts';
import { CLI, cli, tempDir } from '../helpers/cli.ts';

// The CLI as a new user meets it: one time convention in `runs` and `show` (local, with the offset
// where a reader compares clocks), and hints that name a command that works as installed.

const host: HostFacts = { hostname: 'lab', platform: 'linux', arch: 'x64', cpuModel: 'cpu', cores: 2, memoryBytes: 2 ** 33, nodeVersion: '20', dockerVersion: '20.10', cgroupVersion: '1', appVersions: {}, rightsizeVersion: '0.1.0' };

function dbWithRun(): { db: string; startedAt: string } {
  const db = path.join(tempDir(), 'h.db');
  const s = Store.open(db);
  try {
    const id = s.createRun({ name: 'times', preset: null, matrix: {}, host, ownerSession: 'lab:1:1', cellsTotal: 0 });
    s.finishRun(id, 'completed');
    return { db, startedAt: s.getRun(id)!.startedAt };
  } finally {
    s.close();
  }
}

/** The stored UTC instant as a clock at UTC+05:30 shows it (no DST there). */
function kolkata(iso: string): string {
  return new Date(Date.parse(iso) + 5.5 * 3600_000).toISOString().replace('T', ' ').slice(0, 19);
}

describe('times on the command line', () => {
  it('runs and show print the same local time; show gives the offset, runs names it in the header', async () => {
    const { db, startedAt } = dbWithRun();
    expect(startedAt).toMatch(/Z$/); // stored in UTC
    const env = { TZ: 'Asia/Kolkata' };
    const runs = await cli(['--db', db, 'runs'], env);
    const show = await cli(['--db', db, 'show', '1'], env);
    expect(runs.code, runs.stderr).toBe(0);
    expect(show.code, show.stderr).toBe(0);
    const local = kolkata(startedAt);
    expect(runs.stdout).toContain('started (local, UTC+05:30)');
    expect(runs.stdout).toContain(local);
    expect(show.stdout).toContain(`Started ${local} UTC+05:30`);
    expect(show.stdout).not.toContain(startedAt); // no raw ISO (UTC) time beside local ones
  });
});

describe('the hints name a command that works', () => {
  it('inside the checkout: npx rightsize', async () => {
    const r = await cli(['--db', path.join(tempDir(), 'h.db'), 'runs']);
    expect(r.stdout).toContain('No runs yet. Try: npx rightsize run --preset quick');
  });

  it('elsewhere, without rightsize on the PATH: node with the full path', async () => {
    const dir = tempDir();
    const out = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [CLI, '--db', path.join(dir, 'h.db'), 'runs'], { cwd: dir, env: { ...process.env, PATH: path.dirname(process.execPath) } });
      let text = '';
      child.stdout.on('data', (c: Buffer) => (text += c.toString()));
      child.on('close', () => resolve(text));
    });
    expect(out).toContain(`No runs yet. Try: node ${CLI} run --preset quick`);
  });
});
