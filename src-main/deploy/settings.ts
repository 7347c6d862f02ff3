/**
 * What each deploy snippet deploys, as settings a cell can run: the one function (deployedSettings)
 * that both the snippet writers and the verification (engine/verify.ts) use, so the numbers a
 * snippet carries and the numbers a verification cell ran cannot drift apart.
 *
 * - PM2: PM2 runs the app (cluster exec mode, one instance per worker; a single process is one
 *   instance) next to its own daemon, in a container with the memory limit. `max_memory_restart`
 *   and `--max-old-space-size` come from each process's share of that limit, the daemon counted as a
 *   process too (limit ÷ (instances + 1)). A verification cell runs it as launch mode `pm2` with
 *   `recycleRssMb` = max_memory_restart and `NODE_OPTIONS` = the heap flag.
 * - Kubernetes and Compose: the configuration's own launch mode and worker count (the worker
 *   variable), CPU limit and memory limit: the same cell for both. Where the container traps found V8's
 *   default heap able to outgrow the limit, `--max-old-space-size` fit at that limit (common/heap-fit.ts).
 * - Every kind: the cells' replicas (the caps and workers are per container), their Node.js version
 *   (the exact one they ran, where recorded) and flags, each only where it is not the default — a
 *   verification cell runs its grid cell's (engine/verify-plan.ts keeps them from the template).
 *
 * Pure: the renderer bundles it.
 */
import { heapFitMb, type HeapFitBasis } from '../common/heap-fit.ts';
import type { LaunchMode } from '../model/types.ts';

import { SNIPPET_KINDS, type SnippetKind } from '../model/verify.ts';
export { SNIPPET_KINDS, type SnippetKind };

export const isSnippetKind = (k: string): k is SnippetKind => (SNIPPET_KINDS as readonly string[]).includes(k);

/** PM2 restarts a process above this share of its slice of the memory limit: before the kernel's OOM killer does. */
export const PM2_RESTART_SHARE = 0.9;
/**
 * V8's old space gets this share of a process's slice; the rest is headroom for buffers, code, stacks and the new
 * space.
 */
export const HEAP_SHARE = 0.75;
/** At or above this, V8's own default heap limit is already below the slice, so the flag changes nothing. */
export const HEAP_FLAG_BELOW_MB = 2048;
/** The smallest heap flag written: below it V8 cannot even start a typical server. */
export const MIN_HEAP_MB = 16;

/** The configuration a snippet deploys, as measured (deploy/snippets.ts DeployConfig has the same fields). */
export interface MeasuredConfig {
  app: string;
  mode: LaunchMode;
  workers: number;
  /** The CPU limit: the cap the configuration was measured under. */
  cpuMillis: number;
  /** The CPU request, never above cpuMillis; absent: the limit. */
  cpuRequestMillis?: number;
  /**
   * The highest resident memory of one server process the run measured for it (per-process readings,
   * where the engine has them), MB: PM2 compares each process's RSS with max_memory_restart, so a
   * threshold below it restarts the process in a loop.
   */
  serverRssMb?: number;
  /** Identical containers of the app (absent = 1): the caps and workers above are per container. */
  replicas?: number;
  /**
   * The Node.js its cells ran: the exact version where one was recorded, else as the matrix named it ("22"); absent:
   * the default base image's, and a snippet says nothing of it.
   */
  node?: string;
  /** Node.js flags every process of its cells ran with (absent or empty: none). */
  nodeFlags?: string[];
  /** The environment dimension's values its cells ran (absent: none). */
  env?: Record<string, string>;
  /**
   * Where the container traps found V8's default heap able to outgrow the cap (analysis/decide/traps.ts): what the
   * probe measured besides the serving heaps, from which the container snippets' heap flag is fit at their limit.
   */
  heapFit?: HeapFitBasis;
}

/** What a configuration runs besides its caps, only where it differs from the default: the runtime a snippet names. */
export interface DeployRuntime {
  /** Containers, when more than one. */
  replicas?: number;
  /** The Node.js version (exact where recorded). */
  node?: string;
  /** Node.js flags, when any. */
  nodeFlags?: string[];
  /** The environment dimension's values its cells ran (a pool size), when any. */
  env?: Record<string, string>;
}

/** The replicas, Node.js, flags and settings of `c`, each only where not the default (older keys stay). */
export const runtimeOf = (c: DeployRuntime): DeployRuntime => ({
  ...((c.replicas ?? 1) >= 2 ? { replicas: c.replicas } : {}),
  ...(c.node ? { node: c.node } : {}),
  ...(c.nodeFlags?.length ? { nodeFlags: [...c.nodeFlags] } : {}),
  ...(c.env && Object.keys(c.env).length ? { env: { ...c.env } } : {}),
});

/** Exactly what one snippet deploys: what a verification cell runs, and what the snippet then carries. */
export interface DeploySettings extends DeployRuntime {
  /**
   * The launch mode it runs in: 'pm2' for the PM2 snippet (an own image stays 'image'), the configuration's own for the
   * others.
   */
  mode: LaunchMode;
  /** Workers (PM2 instances; the worker variable's value). */
  workers: number;
  /** CPU limit (the cap), millicores. */
  cpuMillis: number;
  /** CPU request, never above the limit (the scheduler's reservation: a cell runs at the limit). */
  cpuRequestMillis: number;
  /** Memory limit (= request), MB. */
  memoryMb: number;
  /** PM2 `max_memory_restart` in MB; null: none. */
  recycleRssMb: number | null;
  /** `--max-old-space-size` in MB (PM2 `node_args`; NODE_OPTIONS in a verification cell); null: none. */
  heapMb: number | null;
}

/** PM2 instances for a configuration: its workers, one for a single process. */
export const pm2Instances = (c: Pick<MeasuredConfig, 'mode' | 'workers'>): number =>
  c.mode === 'single' ? 1 : Math.max(1, c.workers);
/** Each PM2 process's share of the memory limit: the instances and PM2's own daemon. */
export const pm2ShareMb = (memoryMb: number, instances: number): number => memoryMb / (instances + 1);
/** A restart threshold stays this far above the largest measured server-process RSS, so steady state never trips it. */
export const RESTART_ABOVE_RSS = 1.2;
/**
 * …rounded up to this many MB: a server's RSS differs by a megabyte or two between identical runs,
 * and at 1 MB steps their snippets said 74M and 75M (BENCHMARKS.md, repeatability).
 */
export const RESTART_STEP_MB = 8;
/**
 * PM2 `max_memory_restart` (MB): PM2_RESTART_SHARE of each process's share (PM2 checks each process
 * alone), and never within RESTART_ABOVE_RSS of a server process's measured RSS, rounded up to
 * RESTART_STEP_MB (RSS counts the mapped node binary, which the cgroup may not be charged for).
 */
export const maxMemoryRestartMb = (memoryMb: number, instances: number, serverRssMb?: number): number =>
  Math.max(
    1,
    Math.floor(pm2ShareMb(memoryMb, instances) * PM2_RESTART_SHARE),
    serverRssMb ? Math.ceil((serverRssMb * RESTART_ABOVE_RSS) / RESTART_STEP_MB) * RESTART_STEP_MB : 0,
  );
/** `--max-old-space-size` (MB), or null where V8's default is already smaller than the share. */
export function maxOldSpaceMb(memoryMb: number, instances: number): number | null {
  const heap = Math.floor(pm2ShareMb(memoryMb, instances) * HEAP_SHARE);
  return heap < HEAP_FLAG_BELOW_MB ? Math.max(MIN_HEAP_MB, heap) : null;
}

/** The worker count the app is told (WEB_CONCURRENCY): a single process is one. */
export const workerSetting = (c: Pick<MeasuredConfig, 'mode' | 'workers'>): number =>
  c.mode === 'single' ? 1 : Math.max(1, c.workers);

/** Whether a snippet of this kind can be run exactly as emitted here: PM2 cannot start an own image's command. */
export const canVerify = (kind: SnippetKind, c: Pick<MeasuredConfig, 'mode'>): boolean =>
  !(kind === 'pm2' && c.mode === 'image');

/**
 * The settings a snippet of `kind` deploys for configuration `c` under a memory limit of `memoryMb`.
 * `thresholds`: whether PM2's restart threshold and heap flag are set (they are only where a cell
 * runs or ran them: a verification; an unverified snippet carries none).
 */
export function deployedSettings(
  kind: SnippetKind,
  c: MeasuredConfig,
  memoryMb: number,
  thresholds: boolean,
): DeploySettings {
  const cpuRequestMillis = Math.min(c.cpuRequestMillis ?? c.cpuMillis, c.cpuMillis);
  // Every kind deploys the cells' topology and runtime: R containers, each as below, on their Node.js and flags.
  const runtime = runtimeOf(c);
  if (kind === 'pm2') {
    if (c.mode === 'image')
      return {
        mode: 'image',
        workers: c.workers,
        cpuMillis: c.cpuMillis,
        cpuRequestMillis,
        memoryMb,
        recycleRssMb: null,
        heapMb: null,
        ...runtime,
      };
    const n = pm2Instances(c);
    return {
      mode: 'pm2',
      workers: n,
      cpuMillis: c.cpuMillis,
      cpuRequestMillis,
      memoryMb,
      recycleRssMb: thresholds ? maxMemoryRestartMb(memoryMb, n, c.serverRssMb) : null,
      heapMb: thresholds ? maxOldSpaceMb(memoryMb, n) : null,
      ...runtime,
    };
  }
  return {
    mode: c.mode,
    workers: c.mode === 'single' ? 1 : c.workers,
    cpuMillis: c.cpuMillis,
    cpuRequestMillis,
    memoryMb,
    recycleRssMb: null,
    // Set only where the traps found the default heap too large, and only where a cell runs it (a verification).
    heapMb: thresholds && c.heapFit ? heapFitMb(memoryMb, c.heapFit) : null,
    ...runtime,
  };
}

/**
 * Settings that deploy the same container the same way share a verification cell (Kubernetes and Compose always do).
 */
export const settingsKey = (s: DeploySettings): string => {
  const runtime = runtimeOf(s);
  return JSON.stringify([
    s.mode,
    s.workers,
    s.cpuMillis,
    s.memoryMb,
    s.recycleRssMb,
    s.heapMb,
    ...(Object.keys(runtime).length ? [runtime] : []),
  ]);
};

/** The heap flag as NODE_OPTIONS carries it, appended to what the app's environment already has. */
export function withHeapFlag(env: Record<string, string>, heapMb: number | null): Record<string, string> {
  if (heapMb === null) return { ...env };
  const flag = `--max-old-space-size=${heapMb}`;
  const before = (env.NODE_OPTIONS ?? '').replace(/--max-old-space-size=\d+/g, '').trim();
  return { ...env, NODE_OPTIONS: before ? `${before} ${flag}` : flag };
}

/** The heap flag a cell's environment ran with, or null. */
export function heapFlagOf(env: Record<string, string> | undefined): number | null {
  const m = /--max-old-space-size=(\d+)/.exec(env?.NODE_OPTIONS ?? '');
  return m ? Number(m[1]) : null;
}
