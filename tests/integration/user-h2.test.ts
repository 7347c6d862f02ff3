// A user's app that serves HTTP/2 itself (issue 44: `apps add --tls --http2 h2`, `--http2 h2c`): tried out over
// HTTP/2, measured in an h2 or h2c cell (its /proto answers 2xx over HTTP/2 only, so a request over HTTP/1.1 would be
// an error), and the cells it does not serve — h2c of an h2-over-TLS app, h2 of an HTTP/1.1 app, HTTP/1.1 of an
// h2c app — refused by the run and its dry run alike, with what to write, nothing started or stored.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src-main/store/index.ts';
import { cli, ROOT, tempDir } from '../helpers/cli.ts';
import { requireDocker } from '../helpers/docker.ts';
import { measuredCell, oneCellMatrix } from '../helpers/one-cell.ts';

let db: string;

beforeAll(async () => {
  await requireDocker();
  db = path.join(tempDir(), 'h2.db');
}, 60_000);

const runs = (): number => {
  const store = Store.open(db);
  try {
    return store.listRuns().total;
  } finally {
    store.close();
  }
};

/** The run's refusal and its dry run's: the same words, exit 2, nothing stored. */
async function refused(matrix: object, words: string): Promise<void> {
  const f = oneCellMatrix(matrix);
  const before = runs();
  for (const args of [['run', '--config', f], ['run', '--dry-run', '--config', f]]) {
    const r = await cli(['--db', db, ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(words);
  }
  expect(runs()).toBe(before);
}

describe('an app that serves HTTP/2 itself', () => {
  it('is tried out over h2, refused in cells it does not serve, and measured in an h2 cell', async () => {
    const add = await cli(['--db', db, 'apps', 'add', 'hello2', '--folder', path.join(ROOT, 'tests/fixtures/h2-app'), '--entry', 'server.js', '--port', '8443', '--tls', '--http2', 'h2', '--request', 'GET /proto', '--try']);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    expect(add.stdout).toMatch(/✓ request GET \/proto +200/);
    const list = await cli(['--db', db, 'apps']);
    expect(list.stdout).toMatch(/hello2 .* HTTPS, h2 /);

    await refused({ apps: ['hello2'], protocol: ['h2c'] }, 'hello2 does not serve h2c (HTTP/2 in clear): "h2c" cells need an app added with --http2 h2c');
    const plainy = await cli(['--db', db, 'apps', 'add', 'plainy', '--folder', path.join(ROOT, 'tests/fixtures/forks-by-host'), '--entry', 'server.js', '--port', '3000', '--no-try']);
    expect(plainy.code, plainy.stderr).toBe(0);
    await refused({ apps: ['plainy'], protocol: ['h2'] }, 'plainy does not serve HTTP/2 over TLS: "h2" cells need an app added with --tls --http2 h2');

    // Every /proto arrived over HTTP/2: over HTTP/1.1 it answers 505, an error.
    const { cell } = await measuredCell(db, { apps: ['hello2'], protocol: ['h2'] });
    expect(cell.config.load.protocol).toBe('h2');
  }, 180_000);

  it('h2c only: ready over HTTP/2 in clear, tried out and measured so, refused in HTTP/1.1 cells', async () => {
    const add = await cli(['--db', db, 'apps', 'add', 'clear2', '--folder', path.join(ROOT, 'tests/fixtures/h2-app'), '--entry', 'server.js', '--port', '8080', '--http2', 'h2c', '--request', 'GET /proto', '--try']);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    expect(add.stdout).toMatch(/✓ request GET \/proto +200/);
    await refused({ apps: ['clear2'] }, 'clear2 serves HTTP/2 in clear only (--http2 h2c): give "protocol": ["h2c"] so every cell of it speaks h2c');
    const { cell } = await measuredCell(db, { apps: ['clear2'], protocol: ['h2c'] });
    expect(cell.config.load.protocol).toBe('h2c');
  }, 180_000);
});
