import type Docker from 'dockerode';
import type { StatsReading } from '../provider.ts';

/** The fields of Docker's stats JSON a reading needs (cgroup v1 and v2). */
export interface RawDockerStats {
  read: string;
  cpu_stats: {
    cpu_usage: { total_usage: number };
    throttling_data?: { periods?: number; throttled_periods: number; throttled_time: number };
  };
  memory_stats: { usage?: number; max_usage?: number; limit?: number; stats?: Record<string, number> };
}

/**
 * One Docker stats line as a provider-neutral cumulative reading. Memory leaves out reclaimable page
 * cache (v1: total_inactive_file, v2: inactive_file): it is not what the app holds.
 */
export function dockerReading(r: RawDockerStats): StatsReading | undefined {
  const atMs = Date.parse(r.read);
  if (!Number.isFinite(atMs)) return undefined;
  const st = r.memory_stats.stats ?? {};
  const cache = st.total_inactive_file ?? st.inactive_file ?? 0;
  const thr = r.cpu_stats.throttling_data ?? { throttled_periods: 0, throttled_time: 0 };
  return {
    atMs,
    cpuNs: r.cpu_stats.cpu_usage.total_usage,
    memBytes: Math.max(0, (r.memory_stats.usage ?? 0) - cache),
    memLimitBytes: r.memory_stats.limit ?? 0,
    throttledPeriods: thr.throttled_periods,
    throttledNs: thr.throttled_time,
    memUsageBytes: r.memory_stats.usage ?? 0,
    // cgroup v1 only (memory.max_usage_in_bytes): the high-water mark over the container's life.
    ...(r.memory_stats.max_usage ? { memPeakBytes: r.memory_stats.max_usage } : {}),
    ...(thr.periods !== undefined ? { cfsPeriods: thr.periods } : {}),
  };
}

/** A container's Docker stats stream as readings, about one a second, until the returned function is called. */
export async function streamReadings(c: Docker.Container, onReading: (r: StatsReading) => void): Promise<() => void> {
  const stream = (await c.stats({ stream: true })) as unknown as NodeJS.ReadableStream & { destroy(): void };
  let buf = '';
  stream.on('data', (chunk: Buffer) => {
    buf += chunk.toString();
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      const r = line ? dockerReading(JSON.parse(line) as RawDockerStats) : undefined;
      if (r) onReading(r);
    }
  });
  stream.on('error', () => {}); // ends when the container goes away
  return () => stream.destroy();
}
