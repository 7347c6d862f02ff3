// What one Node.js process believed about its box, as the CLI, the report and the run page show it:
// the same words everywhere (model/runtime.ts). Pure: the renderer bundles it.
import type { RuntimeReading } from '../model/runtime.ts';

const mb = (bytes: number): string => `${Math.round(bytes / 2 ** 20)} MB`;

/** The readings in table order: label, value. */
export function runtimeFields(r: RuntimeReading): [string, string][] {
  return [
    ['Node.js', r.node],
    ['os.cpus()', String(r.cpus)],
    ['availableParallelism()', r.parallelism === null ? 'n/a' : String(r.parallelism)],
    ['constrainedMemory()', r.constrainedMemory === null ? 'none' : mb(r.constrainedMemory)],
    ['heap limit', mb(r.heapLimitBytes)],
    ['UV_THREADPOOL_SIZE', String(r.threadpool)],
    ['cgroup', r.cgroup === null ? 'none' : `v${r.cgroup}`],
  ];
}

/** "Node 20.20.2 · os.cpus() 2 · availableParallelism() 1 · …": one line. */
export const runtimeLine = (r: RuntimeReading): string =>
  runtimeFields(r)
    .map(([k, v]) => (k === 'Node.js' ? `Node ${v}` : `${k} ${v}`))
    .join(' · ');
