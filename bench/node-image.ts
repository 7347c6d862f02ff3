// npm run bench -- node-image [--node V]: what a Node.js version a matrix names (`"node": ["24"]`)
// costs before its first cell, on the offline strategy (the registry's node-linux-<arch> package).
//   - first: the cached binary and the base image removed — resolve on the registry, download,
//     check, unpack, build; median of 3
//   - binary cached, image removed (after a `docker image prune`): the build alone; median of 3
//   - cached, in a new process as a new `rightsize run` finds it: resolve + hash + ask Docker; median of 3
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkEngine, docker } from '../src-main/docker/client.ts';
import { engineNodeArch, ensureNodeBase } from '../src-main/docker/node-base.ts';
import { cachedNodePath } from '../src-main/docker/node-download.ts';
import { isMain, printRows, row, type Row } from './stats.ts';

const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

async function probe(spec: string): Promise<void> {
  const logs: string[] = [];
  const ms = await timed(() => ensureNodeBase(spec, { strategy: 'offline', onLog: (l) => logs.push(l) }));
  if (logs.length) throw new Error(`not cached: ${logs.join('; ')}`); // a download or a build says so
  console.log(JSON.stringify({ ms }));
}

/** The base's image and the cached binary, so that the next call starts from nothing. */
async function forget(tag: string, version: string, arch: string): Promise<void> {
  await docker().getImage(tag).remove();
  rmSync(path.dirname(path.dirname(cachedNodePath(version, arch))), { recursive: true, force: true });
}

export async function benchNodeImage(spec: string): Promise<Row[]> {
  await checkEngine();
  const base = await ensureNodeBase(spec, { strategy: 'offline' });
  const version = base.nodeVersion!;
  const arch = (await engineNodeArch()).npm!;
  const rows: Row[] = [];
  const first: number[] = [];
  for (let i = 0; i < 3; i++) {
    await forget(base.tag, version, arch);
    first.push(await timed(() => ensureNodeBase(spec, { strategy: 'offline' })));
    // The tag stands for the download by its checksum: a second download builds the same tag.
    if ((await ensureNodeBase(spec, { strategy: 'offline' })).tag !== base.tag) throw new Error('the tag changed');
  }
  rows.push(row(`first: download, check, unpack, build (Node.js ${version}, ${arch})`, first));
  const rebuild: number[] = [];
  for (let i = 0; i < 3; i++) {
    await docker().getImage(base.tag).remove();
    rebuild.push(await timed(() => ensureNodeBase(spec, { strategy: 'offline' })));
  }
  rows.push(row('binary cached, image removed: the build', rebuild));
  const cached: number[] = [];
  for (let i = 0; i < 3; i++) {
    const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--probe', spec], {
      encoding: 'utf8',
    });
    cached.push((JSON.parse(out.trim().split('\n').pop()!) as { ms: number }).ms);
  }
  rows.push(row('cached, new process (resolve on the registry + hash + ask Docker)', cached));
  printRows(`a Node.js version's base image ("node": ["${spec}"], offline strategy)`, rows);
  return rows;
}

if (isMain(import.meta.url)) {
  const at = process.argv.indexOf('--probe');
  const nodeAt = process.argv.indexOf('--node');
  if (at > 0) await probe(process.argv[at + 1]!);
  else await benchNodeImage(nodeAt > 0 ? process.argv[nodeAt + 1]! : '24');
}
