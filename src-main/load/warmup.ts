// When may measurement start? The warmup goes on until the last few seconds of req/s are flat. Pure,
// and free of statistics libraries: the load agent (load-agent/agent.ts) bundles it.

/** Seconds of warmup that must look flat before measurement starts: the fewest that show a trend and a spread. */
export const WARM_WINDOW_SEC = 3;

/**
 * The last WARM_WINDOW_SEC seconds count as flat when their range (max − min) is within this share
 * of their mean. Basis: a steady `hello`/`json` cell on this 2-core host varies by 2.5–4 % (CV) from
 * second to second when the host is quiet (measured: hello cluster×1 3.5 %, json cluster×1 2.5 %,
 * over 14 s each), 5–10 % while other work shares it. The range of three seconds at 3.5 % exceeds
 * 12 % in 4 % of windows (20 % at 5 %), so a steady cell seldom waits a second more, while a ramp
 * of 6 %/s or more, or a step of 12 %, keeps it warming (the cap bounds what noise can cost).
 */
export const WARM_SPREAD = 0.12;

/**
 * At low rates a second's count is noisy by itself (about √count for independent arrivals: ±22 %
 * at 20 req/s), so the allowed range never drops below this many √mean: otherwise a slow app
 * would always warm up to the cap.
 */
const COUNT_NOISE_Z = 3.5;

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

const meanOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Whether the warmup seconds so far end in a flat stretch: no ramp, no step, spread within bound. */
export function isWarm(warmupRps: readonly number[]): boolean {
  if (warmupRps.length < WARM_WINDOW_SEC) return false;
  const w = warmupRps.slice(-WARM_WINDOW_SEC);
  const m = meanOf(w);
  if (!(m > 0)) return false; // nothing answered yet
  const range = Math.max(...w) - Math.min(...w);
  return range <= Math.max(WARM_SPREAD * m, COUNT_NOISE_Z * Math.sqrt(m));
}
