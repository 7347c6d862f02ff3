import { checkEngine } from '../../docker/client.ts';
import { sweepOrphans } from '../../docker/sweep.ts';
import { describeHolder, labHolder } from '../../lab-lock/lab-lock.ts';

/** `rightsize doctor`: the Docker engine, containers left by stopped Rightsize processes removed, who holds the lab. */
export async function doctorCommand(): Promise<void> {
  const e = await checkEngine();
  const swept = await sweepOrphans();
  const gib = Math.round(e.memoryBytes / 2 ** 30);
  process.stdout.write(
    `Docker ${e.version} (${e.os}), cgroup v${e.cgroupVersion ?? '?'}, ${e.cpus} CPUs, ${gib} GiB; ` +
      `containers reached by ${e.bridgeRoutable ? 'bridge IP' : 'published port'}.\n`,
  );
  if (swept.length) process.stdout.write(`Removed ${swept.length} orphaned container(s).\n`);
  const holder = await labHolder();
  process.stdout.write(
    holder
      ? `The lab is busy: ${describeHolder(holder)}.\n`
      : 'The lab is free: no Rightsize run or build holds this engine.\n',
  );
}
