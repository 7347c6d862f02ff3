// Proves a CPU cap with the kernel's own accounting: a busy loop that wants more than the cap runs
// in a capped container, and the cgroup's CPU time over a window of wall time, divided by the cap,
// should be about 1. Throughput of an app would be at the mercy of CFS bursts and of the load
// generator; CPU time charged to the cgroup is not. Used by cpu-caps.test.ts and bench/caps.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureBaseImage } from '../../src-main/docker/base-image.ts';
import { docker } from '../../src-main/docker/client.ts';
import { LABEL, ownLabels } from '../../src-main/docker/labels.ts';
import { currentSession } from '../../src-main/session/session.ts';

export interface CapReading {
  cpuMillis: number;
  /** Busy threads: one more than the cap in whole cores, so the cap (not the thread count) binds. */
  threads: number;
  wallSec: number;
  cpuSec: number;
  /** (CPU seconds ÷ wall seconds) ÷ cap in cores: 1 means the cgroup got exactly its cap. */
  ratio: number;
  /** CFS periods in the window, and those in which the kernel throttled the cgroup (it wanted more than its quota). */
  periods: number;
  throttledPeriods: number;
}

interface OneShot {
  read: string;
  cpu_stats: { cpu_usage: { total_usage: number }; throttling_data?: { periods: number; throttled_periods: number } };
}

/** The cgroup's CPU time (ns: cpuacct.usage on v1, usage_usec×1000 on v2) and the daemon's time of reading. */
async function usage(c: ReturnType<ReturnType<typeof docker>['getContainer']>): Promise<{ ns: number; atSec: number; periods: number; throttled: number }> {
  const s = (await c.stats({ stream: false, 'one-shot': true } as never)) as unknown as OneShot;
  // `read` has nanosecond digits and Date.parse keeps milliseconds: add the fraction apart.
  const frac = /\.(\d+)/.exec(s.read)?.[1] ?? '0';
  const t = s.cpu_stats.throttling_data ?? { periods: 0, throttled_periods: 0 };
  return { periods: t.periods, throttled: t.throttled_periods, ns: s.cpu_stats.cpu_usage.total_usage, atSec: Date.parse(s.read.replace(/\.\d+/, '')) / 1000 + Number(`0.${frac}`) };
}

/**
 * Runs a busy loop at `cpuMillis` and measures the cgroup's CPU time over `windowSec` of wall time,
 * both read by the daemon in the same call (no exec, no clock of ours in between).
 */
export async function measureCap(cpuMillis: number, windowSec = 5): Promise<CapReading> {
  const base = await ensureBaseImage();
  const threads = Math.ceil(cpuMillis / 1000) + 1;
  const busy = `const { Worker } = require('node:worker_threads'); for (let i = 1; i < ${threads}; i++) new Worker('for (;;) {}', { eval: true }); for (;;) {}`;
  const c = await docker().createContainer({
    Image: base.tag,
    Cmd: ['node', '-e', busy],
    Labels: { ...ownLabels(), [LABEL.session]: currentSession(), [LABEL.app]: 'cpu-cap-probe' },
    HostConfig: { NanoCpus: cpuMillis * 1_000_000, Memory: 128 * 2 ** 20, MemorySwap: 128 * 2 ** 20 },
  });
  try {
    await c.start();
    // Start the window once the loop has been charged CPU time: the process is up and busy.
    let a = await usage(c);
    for (let i = 0; a.ns === 0; i++) {
      if (i > 100) throw new Error('the busy loop was never charged CPU time');
      a = await usage(c);
    }
    await sleep(windowSec * 1000); // the measurement window itself, not a wait for something to happen
    const b = await usage(c);
    if (!(await c.inspect()).State.Running) throw new Error(`the busy loop exited: ${(await c.logs({ stdout: true, stderr: true })).toString()}`);
    const wallSec = b.atSec - a.atSec;
    const cpuSec = (b.ns - a.ns) / 1e9;
    return {
      cpuMillis, threads, wallSec, cpuSec, ratio: cpuSec / wallSec / (cpuMillis / 1000),
      periods: b.periods - a.periods, throttledPeriods: b.throttled - a.throttled,
    };
  } finally {
    await c.remove({ force: true });
  }
}
