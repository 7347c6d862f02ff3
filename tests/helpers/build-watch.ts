import type { ChildProcess } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL, PRODUCT } from '../../src-main/docker/labels.ts';
import { machineIdentity, parseSession } from '../../src-main/session/session.ts';
import { ROOT, tempDir } from './cli.ts';

/**
 * For the tests that cancel or kill an image build: a user app whose image does not exist yet and
 * whose install step cannot come from the build cache (the Express fixture copied, with its own
 * package.json description and a file of its own), so `npm ci` runs in a build container of its
 * own — the one a signal must stop.
 */
export function freshFolderApp(): { dir: string; name: string; repo: string } {
  const nonce = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const dir = path.join(tempDir('rightsize-app-'), 'app');
  cpSync(path.join(ROOT, 'tests/fixtures/express-app'), dir, { recursive: true });
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...pkg, description: `cold build ${nonce}` }, null, 2));
  writeFileSync(path.join(dir, 'nonce.txt'), nonce);
  const name = `cold${nonce}`;
  return { dir, name, repo: `rightsize/app-user-${name}` };
}

/** The tags of `repo` present now. */
export async function tagsOf(repo: string): Promise<string[]> {
  const images = await docker().listImages({ filters: JSON.stringify({ reference: [`${repo}:*`] }) });
  return images.flatMap((i) => i.RepoTags ?? []).filter((t) => t.startsWith(`${repo}:`));
}

/**
 * The build containers a CLI's build log names (" ---> Running in 1a2b3c4d5e6f", one per RUN step):
 * `first` resolves when the first one runs, or with null if the CLI ends before.
 */
export function buildSteps(child: ChildProcess): { ids: string[]; first: Promise<string | null> } {
  const ids: string[] = [];
  let resolve!: (id: string | null) => void;
  const first = new Promise<string | null>((r) => (resolve = r));
  let text = '';
  const onData = (c: Buffer): void => {
    text += c.toString();
    for (const m of text.matchAll(/Running in ([0-9a-f]{12})/g)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
    if (ids.length) resolve(ids[0]!);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  child.on('close', () => resolve(null));
  return { ids, first };
}

/** Those of `ids` (container ids or their 12-character prefixes) that still exist. */
export async function stillThere(ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const there = await docker().getContainer(id).inspect().then(() => true, (e: { statusCode?: number }) => e.statusCode !== 404);
    if (there) out.push(id);
  }
  return out;
}

/** Rightsize containers of the process `pid` on this machine (the session label ends with its pid and start time). */
export async function containersOf(pid: number): Promise<string[]> {
  const list = await docker().listContainers({ all: true, filters: JSON.stringify({ label: [`${LABEL.product}=${PRODUCT}`] }) });
  const me = machineIdentity();
  return list
    .filter((c) => {
      const s = parseSession(c.Labels[LABEL.session] ?? '');
      return s?.pid === pid && s.machine === me.machine;
    })
    .map((c) => c.Id);
}
