// When may measurement start? The warmup goes on until the last few seconds of req/s are flat. Pure,
// and free of statistics libraries: the load agent (load-agent/agent.ts) bundles it.
import { WARM_COUNT_NOISE_Z, WARM_RANGE_Q95, WARM_SPREAD } from '../common/thresholds.ts';

/** Seconds of warmup that must look flat before measurement starts: the fewest that show a trend and a spread. */
export const WARM_WINDOW_SEC = 3;

/** Extra warmup beyond the configured one: at most 3× the configured warmup, and never less than 10 s more. */
const WARMUP_CAP_FACTOR = 3;
const WARMUP_CAP_EXTRA_SEC = 10;

/**
 * The longest warmup a cell configured with `warmupSec` may use (0 stays 0: the user asked for none). The one place
 * this rule lives.
 */
export function warmupCapSec(warmupSec: number): number {
  return warmupSec <= 0 ? 0 : Math.max(WARMUP_CAP_FACTOR * warmupSec, warmupSec + WARMUP_CAP_EXTRA_SEC);
}

/**
 * CPU seconds each Node.js process serves before V8's optimizing compiler has its hot code (TurboFan takes a function
 * once it has run a budget of bytecode). Until then a JS-bound server runs at a fraction of its speed and looks flat,
 * which no flatness test can see (BENCHMARKS.md, "The ramp that looks flat").
 */
export const JIT_WARM_CPU_SEC = 1;

/**
 * A cap below one CPU warms up at one whole CPU (the core it is pinned to), then measures at its own cap: the JIT
 * floor's CPU-seconds come twice as fast or more, and what Node sees (its cores, and its CPU count from the quota,
 * rounded up) is the same at both (BENCHMARKS.md, "Warm at one CPU, measure at the cap").
 */
export const WARM_CPUS = 1;
/**
 * Seconds between the cap's return and the first second that may be measured: the second it came back in, and one
 * for the queues to settle at the lower speed.
 */
export const WARM_DROP_SEC = 2;

/**
 * Where a warm-up runs under more CPU than its cell's cap: that many CPUs until its processes have used `cpuSec`
 * CPU-seconds (their JIT floor, counted by the container's own CPU: a busy host gives less than the cap), at least
 * `untilSec` seconds (what the raised cap allows at best) and at most `latestSec` (where the floor at the cell's own
 * cap would have ended, less WARM_DROP_SEC: a raise never warms longer than no raise would).
 */
export interface WarmupRaise {
  cpus: number;
  untilSec: number;
  latestSec: number;
  cpuSec: number;
}

/**
 * A cell's warm-up bounds, the one place they are set: at least the configured seconds and the time `processes`
 * serving processes sharing `cpus` CPUs take to get JIT_WARM_CPU_SEC each; at most the cap, past that floor. A
 * configured 0 stays 0 (the user asked for none). `canRaise`: the target's cap can be raised for the warm-up; where
 * that shortens it, the bounds say how (`raise`), and the floor is paid at WARM_CPUS, then WARM_DROP_SEC at the cap.
 */
export function warmupBounds(
  warmupSec: number,
  processes: number,
  cpus: number,
  canRaise = false,
): { minSec: number; capSec: number; raise?: WarmupRaise } {
  if (warmupSec <= 0) return { minSec: 0, capSec: 0 };
  const cpuSec = JIT_WARM_CPU_SEC * Math.max(1, processes);
  const floorAt = (c: number): number => (c > 0 ? Math.ceil(cpuSec / c) : 0);
  const ownMinSec = Math.max(warmupSec, floorAt(cpus));
  let minSec = ownMinSec;
  let raise: WarmupRaise | undefined;
  if (canRaise && cpus > 0 && cpus < WARM_CPUS) {
    const untilSec = floorAt(WARM_CPUS);
    const raised = Math.max(warmupSec, untilSec + WARM_DROP_SEC);
    const latestSec = Math.max(untilSec, ownMinSec - WARM_DROP_SEC);
    if (raised < minSec) [minSec, raise] = [raised, { cpus: WARM_CPUS, untilSec, latestSec, cpuSec }];
  }
  return {
    minSec,
    capSec: Math.max(warmupCapSec(warmupSec), minSec + WARMUP_CAP_EXTRA_SEC),
    ...(raise ? { raise } : {}),
  };
}

/**
 * Whether a raised warm-up is over after `heardSec` seconds of load in which its target used `usedCpuSec` CPU-seconds:
 * its processes have had their floor (never before `untilSec`), or it has lasted `latestSec`.
 */
export const raiseOver = (raise: WarmupRaise, heardSec: number, usedCpuSec: number): boolean =>
  heardSec >= raise.untilSec && (usedCpuSec >= raise.cpuSec || heardSec >= raise.latestSec);

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The widest range the last WARM_WINDOW_SEC seconds may span and still count as flat, at a level of `mean` req/s:
 * WARM_SPREAD of it, counting noise at low rates, or what the host's measured per-second noise (`noise`, σ as a
 * share of the level; load/second-noise.ts) spreads three steady seconds over 95 times in 100.
 */
export function warmBound(mean: number, noise?: number): number {
  const hostNoise = noise !== undefined && noise > 0 ? WARM_RANGE_Q95 * noise * mean : 0;
  return Math.max(WARM_SPREAD * mean, WARM_COUNT_NOISE_Z * Math.sqrt(mean), hostNoise);
}

/**
 * Whether the warmup seconds so far end in a flat stretch: no ramp or step beyond the noise, spread within
 * `warmBound`. `noise`: the host's per-second noise this run (absent: a quiet host's, WARM_SPREAD).
 */
export function isWarm(warmupRps: readonly number[], noise?: number): boolean {
  if (warmupRps.length < WARM_WINDOW_SEC) return false;
  const w = warmupRps.slice(-WARM_WINDOW_SEC);
  const m = meanOf(w);
  if (!(m > 0)) return false; // nothing answered yet
  const range = Math.max(...w) - Math.min(...w);
  return range <= warmBound(m, noise);
}
