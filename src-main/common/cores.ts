// How many cores a cell needs on one machine: the rule docker/replica-placement.ts places cells by,
// and the Builder warns with (through contract/present.ts). Pure arithmetic.

/**
 * Cores a cell needs on one machine: `apart` with each replica on cores of its own and one for the load,
 * `together` with the replicas sharing the cores of their total cap and one for the load. A single target:
 * both are its cores + 1, as placement.ts plans it.
 */
export function coresNeeded(cell: { cpuMillis: number; replicas?: number }): { apart: number; together: number } {
  const r = Math.max(1, cell.replicas ?? 1);
  return {
    apart: r * Math.ceil(cell.cpuMillis / 1000) + 1,
    together: Math.ceil((r * cell.cpuMillis) / 1000) + 1,
  };
}
