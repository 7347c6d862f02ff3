/**
 * Keeps the target container and the load generator on different cores when the host has cores to
 * spare: otherwise both fight for the same CPU and the numbers measure the fight.
 */
export interface Placement {
  /** cpuset for the container, e.g. "0" or "0-1"; undefined = no pinning. */
  targetCpus?: string;
  /** Cores for the load-generator thread. */
  loadCpus?: string;
  warning?: string;
}

export function planPlacement(cpuMillis: number, hostCores: number, enabled: boolean): Placement {
  if (!enabled) return {};
  const need = Math.ceil(cpuMillis / 1000);
  if (need + 1 > hostCores) {
    return {
      warning: `core placement off: the target needs ${need} core(s) and the load generator one more, but this host has ${hostCores}; both share cores and results are pessimistic`,
    };
  }
  const last = hostCores - 1;
  return { targetCpus: need === 1 ? '0' : `0-${need - 1}`, loadCpus: String(last) };
}
