// The one name of a configuration: who ran ("2 cluster workers", "2 containers × 1 cluster worker
// (Node 22)") and on what ("0.5 CPU / 256 MB"). Decisions carry these labels and every sentence
// uses them, so they sit below decide/, size/ and explain/.
import { envWords } from '../common/env-name.ts';
import { linkAmong } from '../common/labels.ts';
import { exactCpu, memLabel, pairLabel } from '../common/resource-labels.ts';
import { joinAnd } from '../common/text.ts';
import type { ConfigurationSummary, SearchConfig } from './types.ts';

/** What one worker is called in each mode; an image app's workers are the ones its variable asked for. */
const NOUN: Record<Exclude<ConfigurationSummary['mode'], 'single'>, string> = {
  cluster: 'cluster worker',
  pm2: 'PM2 instance',
  image: 'image worker',
};

/** What a label may name: the mode and workers, and where present the replicas, Node.js version and flags. */
export type Named = Pick<ConfigurationSummary, 'mode' | 'workers'> &
  Partial<Pick<ConfigurationSummary, 'replicas' | 'node' | 'nodeFlags' | 'envSet'>>;

/**
 * What the configurations named together differ in, so each label says it even where its own value is
 * the default: "1 container ×" beside "2 containers ×", "the default Node.js" beside "Node 22", "no
 * flags" beside a flag.
 */
export interface WhoContext {
  containers: boolean;
  node: boolean;
  flags: boolean;
}

/** The context of a set of configurations named side by side (whoContext of the scope, of the contenders). */
export function whoContext(cs: readonly Named[]): WhoContext {
  return {
    containers: cs.some((c) => (c.replicas ?? 1) >= 2),
    node: new Set(cs.map((c) => c.node ?? null)).size > 1,
    flags: new Set(cs.map((c) => (c.nodeFlags ?? []).join(' '))).size > 1,
  };
}

/** "a single process", "1 cluster worker", "4 PM2 instances": the mode and workers alone. */
const workersOf = (c: Named): string =>
  c.mode === 'single' ? 'a single process' : `${c.workers} ${NOUN[c.mode]}${c.workers === 1 ? '' : 's'}`;

/**
 * The one label of a configuration: "a single process", "1 cluster worker", "4 PM2 instances"; with
 * replicas "2 containers × 1 cluster worker" (workers are per container); with a Node.js version or
 * flags "2 cluster workers (Node 22, --max-semi-space-size=32)". A caller that names the containers
 * or the version itself passes only {mode, workers}. The environment dimension's values follow the flags:
 * "2 cluster workers (PG_POOL_SIZE=10)".
 */
export function who(c: Named, ctx?: WhoContext): string {
  const r = Math.max(1, c.replicas ?? 1);
  const topology = r >= 2 || ctx?.containers ? `${r} container${r === 1 ? '' : 's'} × ${workersOf(c)}` : workersOf(c);
  const node = c.node !== undefined ? `Node ${c.node}` : ctx?.node ? 'the default Node.js' : null;
  const flags = c.nodeFlags?.length ? c.nodeFlags.join(' ') : ctx?.flags ? 'no flags' : null;
  const runtime = [node, flags, envText(c.envSet)].filter((x): x is string => x !== null);
  return runtime.length ? `${topology} (${runtime.join(', ')})` : topology;
}

/** "PG_POOL_SIZE=10, UV_THREADPOOL_SIZE=8": the environment dimension's values, in name order; null without any. */
export function envText(envSet: Record<string, string> | undefined): string | null {
  return envWords(envSet) || null;
}

/**
 * Where a configuration ran: "1 CPU / 256 MB"; with replicas its caps each and the totals, "0.5 CPU /
 * 256 MB each (1 CPU / 512 MB in total)" (a scope holds equal totals: analysis/decide/group.ts scopeKey).
 */
export function onWhat(c: Pick<ConfigurationSummary, 'cpuMillis' | 'memoryMb' | 'replicas'>): string {
  const r = Math.max(1, c.replicas ?? 1);
  const each = pairLabel(c.cpuMillis, c.memoryMb);
  return r >= 2 ? `${each} each (${pairLabel(c.cpuMillis * r, c.memoryMb * r)} in total)` : each;
}

/**
 * The link a configuration was measured over (" over HTTP/2 (h2, TLS)", " through 2,000 Mbit/s"), where its
 * workload was measured over several among `cs`; else empty. Said after onWhat, so no two links' picks read alike.
 */
export function overWhat(
  c: Pick<ConfigurationSummary, 'app' | 'requestSet' | 'load'>,
  cs: readonly Pick<ConfigurationSummary, 'app' | 'requestSet' | 'load'>[],
): string {
  const loads = cs.filter((x) => x.app === c.app && x.requestSet === c.requestSet).map((x) => x.load);
  return linkAmong(c.load, loads);
}

/** "2, 4 and 8 cluster workers" when the modes, replicas, version and flags agree, else each named in full. */
export function whoList(cs: ConfigurationSummary[], ctx?: WhoContext): string {
  const sorted = [...cs].sort((a, b) => a.workers - b.workers);
  const first = sorted[0];
  const runtime = (c: Named): string =>
    JSON.stringify([c.replicas ?? 1, c.node ?? null, c.nodeFlags ?? [], c.envSet ?? {}]);
  const alike =
    first !== undefined &&
    first.mode !== 'single' &&
    sorted.every((c) => c.mode === first.mode && runtime(c) === runtime(first));
  if (sorted.length > 1 && alike) {
    // The shared parts said once around the counts: "2 containers × 1 and 2 cluster workers (Node 22)".
    const one = who({ ...first, workers: 2 }, ctx);
    const counts = `${joinAnd(sorted.map((c) => String(c.workers)))} ${NOUN[first.mode as keyof typeof NOUN]}s`;
    return one.replace(`2 ${NOUN[first.mode as keyof typeof NOUN]}s`, counts);
  }
  return joinAnd(sorted.map((c) => who(c, ctx)));
}

/** "cluster × 2 workers, 0.75 CPU, 256 MB", "single process, 625m CPU, 128 MB" (caps exactly as set). */
export function searchConfigLabel(c: SearchConfig): string {
  const shape = c.mode === 'single' ? 'single process' : `${c.mode} × ${c.workers} worker${c.workers === 1 ? '' : 's'}`;
  return `${shape}, ${exactCpu(c.cpuMillis)}, ${memLabel(c.memoryMb)}`;
}

/** Settings in order: by each variable's value, numbers as numbers (pool 5 before pool 10). */
export const compareEnv = (a: Record<string, string> = {}, b: Record<string, string> = {}): number => {
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const d = (a[k] ?? '').localeCompare(b[k] ?? '', undefined, { numeric: true });
    if (d) return d;
  }
  return 0;
};
