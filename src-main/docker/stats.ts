import { readFileSync } from 'node:fs';
import type Docker from 'dockerode';
import type { StatsSecond, StatsSummary } from '../engine/types.ts';

/** The fields of Docker's stats JSON we use (cgroup v1 and v2). */
interface RawStats {
  read: string;
  cpu_stats: {
    cpu_usage: { total_usage: number };
    system_cpu_usage?: number;
    online_cpus?: number;
    throttling_data?: { periods?: number; throttled_periods: number; throttled_time: number };
  };
  precpu_stats: { cpu_usage: { total_usage: number }; system_cpu_usage?: number };
  /** max_usage: cgroup v1 only (memory.max_usage_in_bytes); Docker sends no peak on v2. */
  memory_stats: { usage?: number; max_usage?: number; limit?: number; stats?: Record<string, number> };
}

/**
 * Where a container's cgroup v2 `memory.peak` lives when this process sees the host's cgroup tree
 * (Linux, local engine): the systemd driver's scope, then the cgroupfs driver's folder. Docker
 * Desktop and remote engines have neither, and kernels before 5.19 have no memory.peak.
 */
export const cgroupV2PeakPaths = (containerId: string): string[] => [
  `/sys/fs/cgroup/system.slice/docker-${containerId}.scope/memory.peak`,
  `/sys/fs/cgroup/docker/${containerId}/memory.peak`,
];

/** The first of these files that holds a number of bytes, or undefined. */
export function readPeakFile(paths: readonly string[]): number | undefined {
  for (const p of paths) {
    try {
      const v = Number(readFileSync(p, 'utf8').trim());
      if (Number.isFinite(v) && v > 0) return v;
    } catch {
      // not this driver's layout, not this host's tree, or an older kernel
    }
  }
  return undefined;
}

/**
 * Streams the container's stats (Docker sends one reading a second) and turns each into a
 * StatsSecond: CPU as a percentage of the cell's cap, memory without page cache, throttling deltas.
 */
export class StatsSampler {
  readonly seconds: StatsSecond[] = [];
  /** Cumulative CPU of the container (ns) at each reading's time (epoch ms), for CPU between any two instants. */
  readonly usage: { atMs: number; ns: number }[] = [];
  private stream?: NodeJS.ReadableStream;
  private prevThrottle?: { periods: number; ns: number; all: number };
  private t0 = Date.now();
  /**
   * Peak memory as the cgroup counts it, page cache included: that is what the memory cap is charged
   * against (the kernel reclaims cache before it OOM-kills, so this is an upper bound of what the app
   * needs). From the cgroup's own high-water mark (v1 max_usage, which covers the container's whole
   * life, start-up included) when Docker sends it, else the highest reading's usage.
   */
  private cgroupPeak = 0;
  private samplePeak = 0;

  constructor(private readonly container: Docker.Container, private readonly cpuMillis: number) {}

  async start(onSample?: (s: StatsSecond) => void): Promise<void> {
    this.t0 = Date.now();
    const stream = (await this.container.stats({ stream: true })) as unknown as NodeJS.ReadableStream;
    this.stream = stream;
    let buf = '';
    stream.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.trim()) continue;
        const raw = JSON.parse(line) as RawStats;
        this.cgroupPeak = Math.max(this.cgroupPeak, raw.memory_stats.max_usage ?? 0);
        this.samplePeak = Math.max(this.samplePeak, raw.memory_stats.usage ?? 0);
        const atMs = Date.parse(raw.read);
        if (Number.isFinite(atMs)) this.usage.push({ atMs, ns: raw.cpu_stats.cpu_usage.total_usage });
        const s = this.toSecond(raw);
        if (s) {
          this.seconds.push(s);
          onSample?.(s);
        }
      }
    });
    stream.on('error', () => {}); // the stream ends when the container goes away
  }

  /** The latest reading, for pairing with a load second. */
  latest(): StatsSecond | undefined {
    return this.seconds.at(-1);
  }

  /** The container's CPU seconds between two instants (epoch ms), interpolated between readings; undefined before two readings. */
  cpuSecBetween(fromMs: number, toMs: number): number | undefined {
    const at = cumulativeAt(this.usage, toMs);
    const from = cumulativeAt(this.usage, fromMs);
    return at === undefined || from === undefined ? undefined : Math.max(0, at - from) / 1e9;
  }

  stop(): void {
    (this.stream as { destroy?: () => void } | undefined)?.destroy?.();
  }

  /**
   * The container's peak memory and where it came from (see cgroupPeak): v1's max_usage from the
   * stream, else v2's memory.peak read from the host's cgroup tree, else the highest reading.
   * Undefined before any reading.
   */
  memoryPeak(): { bytes: number; source: 'cgroup' | 'samples' } | undefined {
    if (this.cgroupPeak > 0) return { bytes: this.cgroupPeak, source: 'cgroup' };
    const v2 = readPeakFile(cgroupV2PeakPaths(this.container.id));
    if (v2 !== undefined) return { bytes: Math.max(v2, this.samplePeak), source: 'cgroup' };
    return this.samplePeak > 0 ? { bytes: this.samplePeak, source: 'samples' } : undefined;
  }

  /** Summary over readings taken at or after `fromMs` (epoch ms), i.e. after warmup; the memory peak covers the whole container. */
  summary(fromMs = 0): StatsSummary | undefined {
    const xs = this.seconds.filter((s) => this.t0 + s.t * 1000 >= fromMs);
    if (xs.length === 0) return undefined;
    const sum = (f: (s: StatsSecond) => number): number => xs.reduce((a, s) => a + f(s), 0);
    const peak = this.memoryPeak();
    const periods = xs.every((s) => s.periods !== undefined) ? sum((s) => s.periods ?? 0) : undefined;
    return {
      cpuPctMean: sum((s) => s.cpuPct) / xs.length,
      cpuPctMax: Math.max(...xs.map((s) => s.cpuPct)),
      memMeanBytes: sum((s) => s.memBytes) / xs.length,
      memMaxBytes: Math.max(...xs.map((s) => s.memBytes)),
      memLimitBytes: xs.at(-1)!.memLimitBytes,
      throttledPeriods: sum((s) => s.throttledPeriods),
      throttledMs: sum((s) => s.throttledMs),
      samples: xs.length,
      ...(peak ? { memPeakBytes: peak.bytes, memPeakSource: peak.source } : {}),
      ...(periods !== undefined ? { cpuPeriods: periods } : {}),
    };
  }

  private toSecond(r: RawStats): StatsSecond | undefined {
    const cpuDelta = r.cpu_stats.cpu_usage.total_usage - r.precpu_stats.cpu_usage.total_usage;
    const sysDelta = (r.cpu_stats.system_cpu_usage ?? 0) - (r.precpu_stats.system_cpu_usage ?? 0);
    if (!r.precpu_stats.system_cpu_usage || sysDelta <= 0) return undefined; // first reading has no "before"
    const online = r.cpu_stats.online_cpus ?? 1;
    const coresUsed = (cpuDelta / sysDelta) * online;
    const st = r.memory_stats.stats ?? {};
    // Page cache is reclaimable and not what the app holds: v1 reports it as total_inactive_file/cache, v2 as inactive_file.
    const cache = st.total_inactive_file ?? st.inactive_file ?? 0;
    const thr = r.cpu_stats.throttling_data ?? { throttled_periods: 0, throttled_time: 0 };
    const prev = this.prevThrottle ?? { periods: thr.throttled_periods, ns: thr.throttled_time, all: thr.periods ?? 0 };
    this.prevThrottle = { periods: thr.throttled_periods, ns: thr.throttled_time, all: thr.periods ?? 0 };
    return {
      t: Math.round((Date.parse(r.read) - this.t0) / 100) / 10,
      cpuPct: (coresUsed / (this.cpuMillis / 1000)) * 100,
      memBytes: Math.max(0, (r.memory_stats.usage ?? 0) - cache),
      memLimitBytes: r.memory_stats.limit ?? 0,
      throttledPeriods: thr.throttled_periods - prev.periods,
      throttledMs: (thr.throttled_time - prev.ns) / 1e6,
      // Enforcement periods (100 ms each by default) that ran in this second, throttled or not.
      ...(thr.periods !== undefined ? { periods: thr.periods - prev.all } : {}),
    };
  }
}

/**
 * A cumulative counter at time `t`, linear between readings and extended at the rate of the nearest
 * two readings outside them (Docker reads once a second, so the last measured second usually ends
 * after the last reading).
 */
export function cumulativeAt(points: readonly { atMs: number; ns: number }[], t: number): number | undefined {
  if (points.length < 2) return undefined;
  let i = points.findIndex((p) => p.atMs >= t);
  if (i <= 0) i = i === 0 ? 1 : points.length - 1;
  const a = points[i - 1]!;
  const b = points[i]!;
  if (b.atMs === a.atMs) return b.ns;
  return a.ns + ((b.ns - a.ns) * (t - a.atMs)) / (b.atMs - a.atMs);
}
