// "Leaves no trace": what a test run made on the user's engine and disk, removed when it ends.
// Only what the run made: images, containers and networks are compared with a snapshot taken at its start,
// and temporary files go into one folder of the run's own (TMPDIR points there for every process
// the run starts), removed as a whole.
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';

export const TEST_TMP_PREFIX = 'rightsize-test-';
const PRODUCT_LABEL = 'io.rightsize.product';

export interface Snapshot {
  /** The OS temp folder as it was before the run pointed TMPDIR elsewhere. */
  osTmp: string;
  tmpEntries: string[];
  /** Image and container ids present at the start; null when no engine answered (nothing to track). */
  images: string[] | null;
  containers: string[] | null;
  /** Network ids present at the start (a cell's world makes one per cell); null when untracked. */
  networks?: string[] | null;
}

// dockerode reads DOCKER_HOST itself; a short timeout so an engine that is down cannot hang the end of a run.
const engine = (): Docker => new Docker({ timeout: 10_000 } as Docker.DockerOptions);

async function imageIds(d: Docker): Promise<string[]> {
  return (await d.listImages({ all: true })).map((i) => i.Id);
}

async function networkIds(d: Docker): Promise<string[]> {
  return (await d.listNetworks()).map((n) => n.Id);
}

async function containerIds(d: Docker): Promise<string[]> {
  return (await d.listContainers({ all: true })).map((c) => c.Id);
}

/** Another test run's own folder, while that run lives (runs without Docker may overlap ours). */
function othersLive(osTmp: string, name: string): boolean {
  try {
    const pid = Number(readFileSync(path.join(osTmp, name, OWNER), 'utf8'));
    if (pid === process.pid) return false;
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
const OWNER = '.owner-pid';

/** Docker too (`docker: true`) only where runs hold the Docker lock: an unlocked run would see another's images as new. */
export async function snapshot(opts: { docker: boolean }): Promise<Snapshot> {
  const d = engine();
  const [images, containers, networks] = opts.docker
    ? await Promise.all([imageIds(d).catch(() => null), containerIds(d).catch(() => null), networkIds(d).catch(() => null)])
    : [null, null, null];
  const osTmp = tmpdir();
  return { osTmp, tmpEntries: readdirSync(osTmp).filter((n) => n.startsWith(TEST_TMP_PREFIX)), images, containers, networks };
}

/** A folder of the run's own in the OS temp folder; TMPDIR points at it for this process and its children. */
export function ownTmp(): { dir: string; restore: () => void } {
  const previous = process.env.TMPDIR;
  // Made under another name and renamed once its owner is written: another run ending at this moment
  // removes a new prefixed folder with no live owner, and once took this one between the two steps.
  const STAGING = 'rightsize-staging-';
  const staging = mkdtempSync(path.join(tmpdir(), STAGING));
  writeFileSync(path.join(staging, OWNER), String(process.pid));
  const dir = path.join(tmpdir(), `${TEST_TMP_PREFIX}${process.pid}-${path.basename(staging).slice(STAGING.length)}`);
  renameSync(staging, dir);
  process.env.TMPDIR = dir;
  process.env.RIGHTSIZE_TEST_TMP = dir;
  return {
    dir,
    restore: () => {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      delete process.env.RIGHTSIZE_TEST_TMP;
    },
  };
}

interface Made {
  containers: Docker.ContainerInfo[];
  /** Tagged images of ours (product label or a rightsize-test/ name) and untagged ones (build stages). */
  images: Docker.ImageInfo[];
  networks: Docker.NetworkInspectInfo[];
  tmp: string[];
}

async function madeSince(before: Snapshot): Promise<Made> {
  const d = engine();
  const tmp = readdirSync(before.osTmp).filter((n) => n.startsWith(TEST_TMP_PREFIX) && !before.tmpEntries.includes(n) && !othersLive(before.osTmp, n));
  if (!before.images || !before.containers) return { containers: [], images: [], networks: [], tmp };
  const oldImages = new Set(before.images);
  const oldContainers = new Set(before.containers);
  const containers = (await d.listContainers({ all: true })).filter((c) => !oldContainers.has(c.Id) && c.Labels?.[PRODUCT_LABEL]);
  // Top-level images only: removing a tagged image removes the layers under it.
  const images = (await d.listImages()).filter((i) => {
    if (oldImages.has(i.Id)) return false;
    const tags = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
    return tags.length === 0 || i.Labels?.[PRODUCT_LABEL] !== undefined || tags.some((t) => t.startsWith('rightsize-test/'));
  });
  const oldNetworks = new Set(before.networks ?? []);
  const networks = (await d.listNetworks()).filter((n) => !oldNetworks.has(n.Id) && n.Labels?.[PRODUCT_LABEL]);
  return { containers, images, networks, tmp };
}

const describe = (m: Made, osTmp: string): string[] => [
  ...m.containers.map((c) => `container ${c.Id.slice(0, 12)} (${c.Names?.join(', ')})`),
  ...m.networks.map((n) => `network ${n.Name}`),
  ...m.images.map((i) => `image ${(i.RepoTags ?? []).filter((t) => t !== '<none>:<none>').join(', ') || `<untagged> ${i.Id.slice(7, 19)}`}`),
  ...m.tmp.map((n) => `folder ${path.join(osTmp, n)}`),
];

/** Removes what the run made since `before`; returns what it removed, in words. */
export async function clean(before: Snapshot): Promise<string[]> {
  const d = engine();
  const removed: string[] = [];
  for (let pass = 0; pass < 3; pass++) {
    // Again after a pass: removing a tagged image can leave its build stage untagged (dangling).
    const made = await madeSince(before);
    if (made.containers.length + made.images.length + made.networks.length + made.tmp.length === 0) break;
    removed.push(...describe(made, before.osTmp));
    for (const c of made.containers) await d.getContainer(c.Id).remove({ force: true }).catch(() => {});
    for (const n of made.networks) await d.getNetwork(n.Id).remove().catch(() => {});
    for (const i of made.images) await d.getImage(i.Id).remove({ force: true }).catch(() => {});
    for (const n of made.tmp) rmSync(path.join(before.osTmp, n), { recursive: true, force: true });
  }
  return [...new Set(removed)];
}

/** What the run made and is still there, in words; empty when it left no trace. */
export async function leftovers(before: Snapshot): Promise<string[]> {
  return describe(await madeSince(before), before.osTmp);
}
