// What a Node.js process of a cell believed about its box, read once at its start by the probe
// (resources/base-image/launchers/probe.js, `rightsize:probe-runtime {json}`). Plain data: the probe
// writes it, the engine stores it with the cell's probe, the trap checks (analysis/traps/) read it.

export interface RuntimeReading {
  /** Node's version, e.g. "22.12.0". */
  node: string;
  /** os.cpus().length: the host's CPUs, whatever the cgroup's quota (Node does not read it). */
  cpus: number;
  /** os.availableParallelism() (Node ≥ 18.14); null where the runtime has none. */
  parallelism: number | null;
  /** process.constrainedMemory() in bytes (Node ≥ 19.6); null where it has none or says no limit. */
  constrainedMemory: number | null;
  /** V8's heap_size_limit in bytes: what the process lets its heap grow to before it collects in earnest. */
  heapLimitBytes: number;
  /** The libuv pool's size: UV_THREADPOOL_SIZE as libuv reads it (1–1024), else its default 4. */
  threadpool: number;
  /** The cgroup version the process runs under (1 or 2); null where neither is mounted. */
  cgroup: 1 | 2 | null;
  /** Whether it takes `--max-old-space-size-percentage` (asked of the runtime, not of a version table). */
  heapPercentFlag: boolean;
}
