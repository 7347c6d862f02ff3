// What a snippet sets and says of the runtime its cells ran, beyond caps and workers: the containers
// (replicas), the exact Node.js version to build on, and the Node.js flags where the cells had them —
// NODE_OPTIONS for the flags Node takes there, the command line for the others (docker/node-flags.ts,
// the one rule the cells ran by). Nothing here is set that no cell ran.
import { envPairs } from '../common/env-name.ts';
import { joinAnd } from '../common/text.ts';
import { connectionsText, poolConnections } from '../common/connections.ts';
import { placeNodeFlags } from '../docker/node-flags.ts';
import type { HeapFitBasis } from '../common/heap-fit.ts';
import type { DeploySettings } from './settings.ts';

/** The flags as the cells ran them: NODE_OPTIONS (null: none there) and those for node's command line. */
export function placedFlags(s: Pick<DeploySettings, 'nodeFlags'>): { nodeOptions: string | null; argv: string[] } {
  const placed = placeNodeFlags(s.nodeFlags ?? []);
  return { nodeOptions: placed.env.length ? placed.env.join(' ') : null, argv: placed.argv };
}

const EXACT = /^\d+\.\d+\.\d+$/;

/**
 * The Node.js line (no comment marker): the exact version the cells ran and the base to build on; a
 * version the matrix named without a recorded exact one says so; null on the default base image.
 * `versions`: every exact version the configuration's cells ran, when more than one.
 */
export function nodeLine(s: Pick<DeploySettings, 'node'>, versions?: readonly string[]): string | null {
  if (!s.node) return null;
  if (versions && versions.length > 1)
    return (
      `Node.js: its cells ran ${joinAnd([...versions])} (as "${s.node}" resolved when each base image was built); ` +
      `build on one of them, e.g. FROM node:${versions[versions.length - 1]}-slim.`
    );
  if (EXACT.test(s.node))
    return (
      `Node.js ${s.node}: the exact version its cells ran. Build the image on it: FROM node:${s.node}-slim ` +
      '(or your own base at exactly this version).'
    );
  return (
    `Node.js ${s.node}, as the matrix named it: the exact version was not recorded, and FROM node:${s.node}-slim ` +
    `gives the newest ${s.node}.x, which may not be what ran.`
  );
}

/** The flags line (no comment marker): where each flag goes, as the cells ran them; null without flags. */
export function flagsLine(s: Pick<DeploySettings, 'nodeFlags'>, optionsWhere: string): string | null {
  if (!s.nodeFlags?.length) return null;
  const { nodeOptions, argv } = placedFlags(s);
  const parts = [
    ...(nodeOptions ? [`${nodeOptions} in NODE_OPTIONS (${optionsWhere})`] : []),
    ...(argv.length
      ? [`${argv.join(' ')} on node's command line (NODE_OPTIONS refuses it): node ${argv.join(' ')} server.js`]
      : []),
  ];
  return `Node.js flags, as its cells ran them: ${parts.join('; ')}.`;
}

/** The environment dimension's values as the cells ran them, in name order (none: empty). */
export const envEntries = (s: Pick<DeploySettings, 'env'>): [string, string][] => envPairs(s.env);

/** The connections line (no comment marker) where a pool size was a setting: the most the configuration opens. */
export function connectionsLine(s: Pick<DeploySettings, 'env' | 'replicas' | 'workers' | 'mode'>): string | null {
  const p = poolConnections(s);
  return p ? `Connections: up to ${connectionsText(p)} (check the database's max_connections).` : null;
}

/** The replicas line (no comment marker): what to run several of; null for one container. */
export function replicasLine(s: Pick<DeploySettings, 'replicas'>, what: string): string | null {
  if (!s.replicas) return null;
  return (
    `${s.replicas} replicas: ${what}, each with the resources below — as measured, the load spread across them ` +
    'per connection.'
  );
}

/** A container snippet's NODE_OPTIONS: the cells' flags there, and the heap flag where a verification ran it. */
export function containerNodeOptions(s: Pick<DeploySettings, 'nodeFlags' | 'heapMb'>): string | null {
  const parts = [placedFlags(s).nodeOptions, s.heapMb === null ? null : `--max-old-space-size=${s.heapMb}`];
  const set = parts.filter((x): x is string => x !== null);
  return set.length ? set.join(' ') : null;
}

/** The heap line (no comment marker) where the container traps found V8's default heap able to outgrow the limit. */
export function heapLine(s: Pick<DeploySettings, 'heapMb' | 'memoryMb'>, fit: HeapFitBasis | undefined): string | null {
  if (!fit) return null;
  const why = `V8 sizes each process's heap from the whole container, so ${
    fit.processes === 1 ? 'its process' : `its ` + `${fit.processes} serving processes`
  } can outgrow the limit and be killed before it collects (the probe's readings)`;
  return s.heapMb !== null
    ? `Heap: --max-old-space-size=${s.heapMb} in NODE_OPTIONS: ${why}; fit at ${s.memoryMb} MB and run so.`
    : `Heap: ${why}; a verification sets --max-old-space-size fit at the limit it runs, this unverified ` +
        'snippet does not.';
}

/** The pool line (no comment marker) where the snippet pins UV_THREADPOOL_SIZE to what its processes read. */
export const poolLine = (pool: number | undefined): string | null =>
  pool === undefined
    ? null
    : `UV_THREADPOOL_SIZE=${pool}: set explicitly as its processes read it${pool === 4 ? " (libuv's default)" : ''}, ` +
      'since requests waited on the pool; libuv does not size it from the CPU cap, and a later Node.js may.';

/** The workers line (no comment marker) where the app forked by the host: the count is set, the app must read it. */
export function workersLine(
  s: Pick<DeploySettings, 'workers'>,
  forked: { seen: number; hostCpus: number } | undefined,
): string | null {
  if (!forked) return null;
  const count = forked.seen === forked.hostCpus ? `by os.cpus(), ${forked.hostCpus} here and 48 on a 48-core node` : '';
  return (
    `Workers: ${s.workers}, set explicitly: its app started ${forked.seen} where ${s.workers} ` +
    `${s.workers === 1 ? 'was' : 'were'} asked` +
    `${count ? ` (${count})` : ''}; make it read this count, or the box's CPU limit is not what it sizes by.`
  );
}
