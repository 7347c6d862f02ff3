// A target's cgroup readings on Kubernetes, from the two sources the kubelet serves through the API
// server's node proxy: the summary API (/stats/summary: CPU time, working set) and cAdvisor's
// Prometheus metrics (/metrics/cadvisor: CFS throttling, the memory high-water mark, the limit,
// OOM events). Parsing, and the poll both a target and a dependency read them with.
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { StatsReading } from '../provider.ts';
import { rawGet, type Cluster } from './client.ts';

/** The fields of the kubelet's stats/v1alpha1 Summary we read (k8s.io/kubelet/pkg/apis/stats/v1alpha1). */
export interface KubeletSummary {
  node?: { nodeName?: string };
  pods?: {
    podRef: { name: string; namespace: string; uid?: string };
    containers?: {
      name: string;
      cpu?: { time?: string; usageCoreNanoSeconds?: number; usageNanoCores?: number };
      memory?: { time?: string; workingSetBytes?: number; usageBytes?: number; availableBytes?: number };
    }[];
  }[];
}

export interface ContainerRef {
  namespace: string;
  pod: string;
  container: string;
}

/** The container's cumulative CPU time and working set, with the time the kubelet took them. */
export function summaryContainer(
  s: KubeletSummary,
  ref: ContainerRef,
): { atMs: number; cpuNs: number; memBytes: number; memLimitBytes?: number } | undefined {
  const pod = s.pods?.find((p) => p.podRef.name === ref.pod && p.podRef.namespace === ref.namespace);
  const c = pod?.containers?.find((x) => x.name === ref.container);
  const cpuNs = c?.cpu?.usageCoreNanoSeconds;
  const memBytes = c?.memory?.workingSetBytes;
  if (!c || cpuNs === undefined || memBytes === undefined) return undefined; // just started: no stats yet
  const atMs = Date.parse(c.cpu?.time ?? c.memory?.time ?? '');
  if (!Number.isFinite(atMs)) return undefined;
  // With a limit, the kubelet reports availableBytes = limit - workingSet.
  const avail = c.memory?.availableBytes;
  return { atMs, cpuNs, memBytes, ...(avail !== undefined ? { memLimitBytes: avail + memBytes } : {}) };
}

/** The cAdvisor series we read, per container. */
export const CADVISOR = {
  throttledPeriods: 'container_cpu_cfs_throttled_periods_total',
  throttledSeconds: 'container_cpu_cfs_throttled_seconds_total',
  periods: 'container_cpu_cfs_periods_total',
  memMax: 'container_memory_max_usage_bytes',
  memLimit: 'container_spec_memory_limit_bytes',
  oomEvents: 'container_oom_events_total',
} as const;

export type CadvisorValues = Partial<Record<keyof typeof CADVISOR, number>>;

const WANTED = new Set<string>(Object.values(CADVISOR));

/**
 * A node's cAdvisor page holds every container on it (megabytes on a busy node, read once a
 * second): keep only the lines of the series we read, and their HELP/TYPE lines, before parsing.
 */
export function keepSeries(text: string): string {
  return text
    .split('\n')
    .filter((line) => {
      const name = line.startsWith('# ') ? line.split(' ')[2] : line.slice(0, line.search(/[{ ]/));
      return name !== undefined && WANTED.has(name);
    })
    .join('\n');
}

/**
 * The container's values from a cAdvisor page (Prometheus text format). After a restart the page
 * can hold the old container's series next to the new one's: the newest sample wins.
 */
export function cadvisorContainer(text: string, ref: ContainerRef): CadvisorValues {
  const families = parsePrometheusTextFormat(keepSeries(text));
  const out: CadvisorValues = {};
  for (const [key, name] of Object.entries(CADVISOR) as [keyof typeof CADVISOR, string][]) {
    const fam = families.find((f) => f.name === name);
    let best: { at: number; value: number } | undefined;
    for (const m of fam?.metrics ?? []) {
      const l = m.labels ?? {};
      if (l.namespace !== ref.namespace || l.pod !== ref.pod || l.container !== ref.container) continue;
      const value = Number(m.value);
      const at = Number(m.timestamp_ms ?? 0);
      if (Number.isFinite(value) && (!best || at >= best.at)) best = { at, value };
    }
    if (best) out[key] = best.value;
  }
  return out;
}

/**
 * One StatsReading from both sources. The memory limit comes from cAdvisor, else the summary,
 * else the cap we set; the peak only where cAdvisor has one (cgroup v1's max_usage; v2 nodes
 * report 0, which means "unknown", not "nothing").
 */
export function toReading(
  summary: NonNullable<ReturnType<typeof summaryContainer>>,
  cad: CadvisorValues,
  capBytes: number,
): StatsReading {
  return {
    atMs: summary.atMs,
    cpuNs: summary.cpuNs,
    memBytes: summary.memBytes,
    memLimitBytes: cad.memLimit || summary.memLimitBytes || capBytes,
    throttledPeriods: cad.throttledPeriods ?? 0,
    throttledNs: Math.round((cad.throttledSeconds ?? 0) * 1e9),
    ...(cad.memMax ? { memPeakBytes: cad.memMax } : {}),
  };
}

/**
 * Keeps cumulative counters cumulative across a container restart (the kubelet restarts a crashed
 * container in place, and its counters start again at 0), the way one local container's are.
 */
export class CounterCarry {
  private last: Partial<Record<'cpuNs' | 'throttledPeriods' | 'throttledNs', number>> = {};
  private base: Record<'cpuNs' | 'throttledPeriods' | 'throttledNs', number> = {
    cpuNs: 0,
    throttledPeriods: 0,
    throttledNs: 0,
  };

  apply(r: StatsReading): StatsReading {
    const out = { ...r };
    for (const k of ['cpuNs', 'throttledPeriods', 'throttledNs'] as const) {
      const prev = this.last[k];
      if (prev !== undefined && r[k] < prev) this.base[k] += prev; // a reset: carry what was counted before it
      this.last[k] = r[k];
      out[k] = r[k] + this.base[k];
    }
    return out;
  }
}

/**
 * Polls the kubelet's summary (CPU, working set) through the node proxy and, when it has moved
 * (the kubelet's own timestamp: it refreshes every 10-15 s, not every second), cAdvisor's
 * throttling, peak and limit, and passes on the reading. The first poll is done before this
 * returns. Counters carry over a container restart. Throttling is cAdvisor's at its own
 * timestamp, within a second of the summary's. Returns the stop.
 */
export async function pollKubeletStats(
  c: Cluster,
  node: string,
  ref: ContainerRef,
  capMb: number,
  everyMs: number,
  onReading: (r: StatsReading) => void,
): Promise<() => void> {
  const carry = new CounterCarry();
  const nodePath = `/api/v1/nodes/${encodeURIComponent(node)}/proxy`;
  let lastAt = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async (): Promise<void> => {
    try {
      const s = summaryContainer(
        JSON.parse(await rawGet(c, `${nodePath}/stats/summary?only_cpu_and_memory=true`)),
        ref,
      );
      if (!s || s.atMs <= lastAt) return;
      // cAdvisor's page is large and refreshes with the summary: read it only when the summary moved.
      const cad = cadvisorContainer(await rawGet(c, `${nodePath}/metrics/cadvisor`).catch(() => ''), ref);
      if (stopped || s.atMs <= lastAt) return;
      lastAt = s.atMs;
      onReading(carry.apply(toReading(s, cad, capMb * 1024 * 1024)));
    } catch {
      // a missed poll: the next one reads the same cumulative counters
    }
  };
  const loop = async (): Promise<void> => {
    await poll();
    if (!stopped) timer = setTimeout(() => void loop(), everyMs);
  };
  await poll();
  timer = setTimeout(() => void loop(), everyMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
