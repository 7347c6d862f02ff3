// A user's app that terminates TLS itself (issue 44: `apps add --tls`): tried out over TLS, measured
// only over TLS with the run's certificate (its handshakes counted), and a matrix that would measure
// it in plain HTTP — or a plain app over HTTPS — refused with what to write, nothing started.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src-main/store/index.ts';
import { cli, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { measuredCell, oneCellMatrix } from '../helpers/one-cell.ts';

const ROOT = path.resolve(__dirname, '../..');
let db: string;

beforeAll(async () => {
  await requireDocker();
  db = path.join(tempDir(), 'h.db');
}, 60_000);

describe('an app that serves HTTPS itself', () => {
  it('is tried out over TLS, refused in plain cells, and measured over TLS with the run’s certificate', async () => {
    const add = await cli(['--db', db, 'apps', 'add', 'secure', '--folder', path.join(ROOT, 'tests/fixtures/https-app'), '--entry', 'server.js', '--port', '8443', '--tls', '--try']);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    expect(add.stdout + add.stderr).toMatch(/GET \/ .*200/);

    const plain = await cli(['--db', db, 'run', '--config', oneCellMatrix({ apps: ['secure'] })]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('secure serves HTTPS itself (--tls): give "tls": [true] so every cell of it is measured over TLS');

    const { runId, cell: c } = await measuredCell(db, { apps: ['secure'], tls: [true] });
    expect(c.config.load.tls).toBe(true);
    const store = Store.open(db);
    try {
      // Four connections, each a full handshake with the app's own TLS stack.
      const opened = store.getRunSamples(runId).get(c.id)!.map((s) => s.opened ?? 0);
      expect(opened.reduce((a, b) => a + b, 0)).toBe(4);
    } finally {
      store.close();
    }
  }, 180_000);

  it('a plain app in an HTTPS matrix is refused with what it would take', async () => {
    const add = await cli(['--db', db, 'apps', 'add', 'plainy', '--folder', path.join(ROOT, 'tests/fixtures/forks-by-host'), '--entry', 'server.js', '--port', '3000', '--no-try']);
    expect(add.code, add.stderr).toBe(0);
    const r = await cli(['--db', db, 'run', '--config', oneCellMatrix({ apps: ['plainy'], tls: [true] })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('plainy serves plain HTTP: HTTPS cells need the built-in apps or an app added with --tls');
  }, 60_000);
});
