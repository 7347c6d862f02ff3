// A bandwidth cap on a cell's container, which Docker does not have: Linux traffic control (a token bucket on the
// egress of its eth0, so on every byte the server sends) set from a short-lived helper container that joins the
// target's network namespace with NET_ADMIN. The target itself gets no extra capability. The helper image holds this
// machine's own `tc` and its libraries (FROM scratch, as the offline base holds node), so nothing is pulled.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type Docker from 'dockerode';
import { BuildContext } from './build-context.ts';
import { buildImage, imageExists } from './image-build.ts';
import { LABEL, ownLabels } from './labels.ts';
import { sharedLibraries } from './base-image.ts';
import { currentSession } from '../session/session.ts';

const TC_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/** This machine's `tc`, or undefined. */
export const hostTc = (): string | undefined =>
  process.platform === 'linux' ? TC_DIRS.map((d) => path.join(d, 'tc')).find((p) => existsSync(p)) : undefined;

/** Why no cell can get a bandwidth cap from here, in words; undefined when one can. */
export function bandwidthCapProblem(): string | undefined {
  if (process.platform !== 'linux')
    return 'a bandwidth cap is set with Linux traffic control from this machine, which is not Linux';
  if (!hostTc()) return 'a bandwidth cap needs Linux traffic control on this machine: install iproute2 (`tc`)';
  return undefined;
}

/** The helper image, built once from this machine's `tc`; its tag names the binary (path, size, time). */
export async function ensureShaperImage(): Promise<string> {
  const problem = bandwidthCapProblem();
  if (problem) throw new Error(`No bandwidth cap: ${problem}.`);
  const tc = hostTc()!;
  const ctx = new BuildContext();
  ctx.addText('Dockerfile', 'FROM scratch\nCOPY rootfs/ /\nENTRYPOINT ["/sbin/tc"]\n');
  ctx.addFile('rootfs/sbin/tc', tc, 0o755);
  for (const lib of await sharedLibraries(tc)) ctx.addFile(`rootfs${lib}`, lib, 0o755);
  const tag = `rightsize/net-shaper:${(await ctx.digest()).slice(0, 12)}`;
  if (!(await imageExists(tag))) await buildImage(ctx, tag, { kind: 'tool' });
  return tag;
}

/**
 * tc's token bucket for `mbps`: a burst of 10 ms of traffic (at least 64 KiB, a whole GSO segment, so the kernel
 * never splits one), and a queue of at most 50 ms before the bucket drops, as a NIC's queue would.
 */
export const tbfArgs = (mbps: number): string[] => {
  const burst = Math.max(64 * 1024, Math.ceil((mbps * 1e6) / 8 / 100));
  return [
    'qdisc',
    'replace',
    'dev',
    'eth0',
    'root',
    'tbf',
    'rate',
    `${mbps}mbit`,
    'burst',
    String(burst),
    'latency',
    '50ms',
  ];
};

/**
 * Caps what the container `targetId` sends at `mbps`: runs the helper in its network namespace and removes it.
 * Throws with tc's own words when the cap could not be set (the cell then fails: it would not be the cell it names).
 */
export async function capBandwidth(
  client: Docker,
  image: string,
  targetId: string,
  mbps: number,
  labels: Record<string, string>,
): Promise<void> {
  const helper = await client.createContainer({
    Image: image,
    Cmd: tbfArgs(mbps),
    Labels: { ...ownLabels(), [LABEL.kind]: 'tool', [LABEL.session]: currentSession(), ...labels },
    HostConfig: { NetworkMode: `container:${targetId}`, CapAdd: ['NET_ADMIN'] },
  });
  try {
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    if (StatusCode !== 0) {
      const log = (await helper.logs({ stdout: true, stderr: true })).toString('utf8').replace(/[^\x20-\x7e\n]/g, '');
      throw new Error(`setting the ${mbps} Mbit/s bandwidth cap failed (tc exited ${StatusCode}): ${log.trim()}`);
    }
  } finally {
    await helper.remove({ force: true }).catch(() => {});
  }
}
