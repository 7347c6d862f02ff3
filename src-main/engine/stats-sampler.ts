import type { ProvisionedTarget, StatsReading } from '../providers/provider.ts';
import type { StatsSecond, StatsSummary } from '../model/types.ts';

/**
 * Turns a target's cumulative cgroup readings (about one a second, whatever the provider) into
 * StatsSeconds: CPU as a percentage of the cell's cap, memory without page cache, throttling deltas.
 */
export class StatsSampler {
  readonly seconds: StatsSecond[] = [];
  /** Cumulative CPU of the target (ns) at each reading's time (epoch ms), for CPU between any two instants. */
  readonly usage: { atMs: number; ns: number }[] = [];
  private prev?: StatsReading;
  private stopStream?: () => void;
  private t0 = Date.now();
  /**
   * Peak memory as the cgroup counts it, page cache included: that is what the memory cap is charged
   * against (the kernel reclaims cache before it OOM-kills, so this is an upper bound of what the app
   * needs). From the cgroup's own high-water mark (v1 max_usage, which covers the container's whole
   * life, start-up included) when the provider has it, else the highest reading's usage.
   */
  private cgroupPeak = 0;
  private samplePeak = 0;

  constructor(
    private readonly target: Pick<ProvisionedTarget, 'stats' | 'memoryPeak'>,
    private readonly cpuMillis: number,
  ) {}

  /** `tap`: each raw reading too, as it comes (a replicated cell sums its replicas' readings from it). */
  async start(onSample?: (s: StatsSecond) => void, tap?: (r: StatsReading) => void): Promise<void> {
    this.t0 = Date.now();
    this.stopStream = await this.target.stats((r) => {
      const s = this.add(r);
      tap?.(r);
      if (s) onSample?.(s);
    });
  }

  /** One reading in; the second it closes, if any (the first reading has no "before"). */
  add(r: StatsReading): StatsSecond | undefined {
    this.cgroupPeak = Math.max(this.cgroupPeak, r.memPeakBytes ?? 0);
    this.samplePeak = Math.max(this.samplePeak, r.memUsageBytes ?? r.memBytes);
    this.usage.push({ atMs: r.atMs, ns: r.cpuNs });
    const prev = this.prev;
    this.prev = r;
    if (!prev || r.atMs <= prev.atMs) return undefined;
    const s: StatsSecond = {
      t: Math.round((r.atMs - this.t0) / 100) / 10,
      cpuPct: this.pctOfCap((r.cpuNs - prev.cpuNs) / 1e9, r.atMs - prev.atMs),
      memBytes: r.memBytes,
      memLimitBytes: r.memLimitBytes,
      throttledPeriods: r.throttledPeriods - prev.throttledPeriods,
      throttledMs: (r.throttledNs - prev.throttledNs) / 1e6,
      // Enforcement periods (100 ms each by default) that ran in this second, throttled or not.
      ...(r.cfsPeriods !== undefined && prev.cfsPeriods !== undefined
        ? { periods: r.cfsPeriods - prev.cfsPeriods }
        : {}),
    };
    this.seconds.push(s);
    return s;
  }

  /** CPU seconds used over `ms` as a percentage of the cap. */
  private pctOfCap(cpuSec: number, ms: number): number {
    return (cpuSec / (ms / 1000) / (this.cpuMillis / 1000)) * 100;
  }

  /** The latest second, for pairing with a load second. */
  latest(): StatsSecond | undefined {
    return this.seconds.at(-1);
  }

  /**
   * The target's CPU seconds between two instants (epoch ms), interpolated between readings; undefined before two
   * readings.
   */
  cpuSecBetween(fromMs: number, toMs: number): number | undefined {
    const at = cumulativeAt(this.usage, toMs);
    const from = cumulativeAt(this.usage, fromMs);
    return at === undefined || from === undefined ? undefined : Math.max(0, at - from) / 1e9;
  }

  stop(): void {
    this.stopStream?.();
  }

  /**
   * The target's peak memory and where it came from (see cgroupPeak): a peak in the readings (v1's
   * max_usage), else one the provider reads elsewhere (v2's memory.peak), else the highest reading.
   * Undefined before any reading.
   */
  memoryPeak(): { bytes: number; source: 'cgroup' | 'samples' } | undefined {
    if (this.cgroupPeak > 0) return { bytes: this.cgroupPeak, source: 'cgroup' };
    const elsewhere = this.target.memoryPeak?.();
    if (elsewhere !== undefined) return { bytes: Math.max(elsewhere, this.samplePeak), source: 'cgroup' };
    return this.samplePeak > 0 ? { bytes: this.samplePeak, source: 'samples' } : undefined;
  }

  /**
   * Summary over readings taken at or after `fromMs` (epoch ms), i.e. after warmup; the memory peak covers the whole
   * container. With `toMs`, the mean CPU is the CPU used between the two instants: a reading's second that began
   * before `fromMs` (readings keep their own phase) would otherwise lend the mean its idle part.
   */
  summary(fromMs = 0, toMs?: number): StatsSummary | undefined {
    const xs = this.seconds.filter((s) => this.t0 + s.t * 1000 >= fromMs);
    if (xs.length === 0) return undefined;
    const sum = (f: (s: StatsSecond) => number): number => xs.reduce((a, s) => a + f(s), 0);
    const peak = this.memoryPeak();
    const periods = xs.every((s) => s.periods !== undefined) ? sum((s) => s.periods ?? 0) : undefined;
    const used = toMs !== undefined && toMs > fromMs ? this.cpuSecBetween(fromMs, toMs) : undefined;
    const windowPct = used !== undefined ? this.pctOfCap(used, toMs! - fromMs) : undefined;
    return {
      cpuPctMean: windowPct ?? sum((s) => s.cpuPct) / xs.length,
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
}

/**
 * A cumulative counter at time `t`, linear between readings and extended at the rate of the nearest
 * two readings outside them (readings come about once a second, so the last measured second usually
 * ends after the last reading).
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
