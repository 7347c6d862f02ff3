/**
 * Keeps the target container and the load generator on different cores when the host has cores to
 * spare: otherwise both fight for the same CPU and the numbers measure the fight.
 *
 * The target gets the first cores it needs; the load threads get the cores after it, one thread per
 * core. With three or more cores to spare, the last one is left to the engine and the UI (charts,
 * the per-second merge), so they do not steal time from the load threads either.
 */
export interface Placement {
  /** cpuset for the container, e.g. "0" or "0-1"; undefined = no pinning. */
  targetCpus?: string;
  /**
   * Cores for the load threads, e.g. "1" or "2-3": the load runs one thread per core listed (src-main/load/threads.ts).
   */
  loadCpus?: string;
  warning?: string;
}

/**
 * One load thread and one `hello` process on a whole core both top out near the same rate (here
 * ~66–68k req/s, the thread then ~91 % busy, against ~69k for `wrk -t1`: BENCHMARKS.md "Fidelity"),
 * so two load threads per target core leave headroom; more would only cost memory and start-up time.
 */
const LOAD_THREADS_PER_TARGET_CORE = 2;

const range = (from: number, count: number): string => (count === 1 ? String(from) : `${from}-${from + count - 1}`);

export function planPlacement(cpuMillis: number, hostCores: number, enabled: boolean): Placement {
  if (!enabled) return {};
  const need = Math.ceil(cpuMillis / 1000);
  if (need + 1 > hostCores) {
    return {
      warning:
        `core placement off: the target needs ${need} core(s) and the load generator one more, ` +
        `but this host has ${hostCores}; both share cores and results are pessimistic`,
    };
  }
  const free = hostCores - need;
  const forLoad = Math.min(free >= 3 ? free - 1 : free, need * LOAD_THREADS_PER_TARGET_CORE);
  return { targetCpus: range(0, need), loadCpus: range(need, forLoad) };
}
