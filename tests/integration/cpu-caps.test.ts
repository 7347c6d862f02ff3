// Caps are real, by the kernel's own accounting: a busy loop under a CPU cap is charged its cap and no
// more. In the quiet lane: its lower bounds (a quarter core is there; a whole core's loop is throttled)
// need the machine, and beside lane B's image build a quarter core got 0.47 of its quota.
import { beforeAll, describe, expect, it } from 'vitest';
import { measureCap } from '../helpers/cpu-cap.ts';
import { requireDocker } from '../helpers/docker.ts';

beforeAll(async () => {
  await requireDocker();
});

describe('caps are real', () => {
  it('a busy loop gets its CPU cap and no more, by the cgroup\'s own accounting, at 0.25 and at 1 CPU', async () => {
    // Two busy threads want 2 cores; over 5 s the kernel charges the cgroup CPU time ≈ cap × wall
    // time. `npm run bench -- caps` (BENCHMARKS.md), 20 runs in a row: at 0.25 CPU the ratio was
    // 0.995–1.017, throttled in every period (0.968–1.019 in another 20 with 10 test processes
    // beside it); at 1 CPU it never passed 1.003, but other work on this 2-core host can only lower
    // it (0.73, throttled in 5 of 50 periods, once; 0.31 with those 10 processes). So the proof is
    // the upper bound, with a margin (without a cap it would be 8 at 250m, 2 at 1000m), plus the
    // kernel's throttling; the lower bounds only show the loop ran.
    // Both at once: 1.25 cores of quota on 2, and the upper bounds are what prove the caps.
    const [quarter, one] = await Promise.all([measureCap(250), measureCap(1000)]);
    console.log(`caps: 250m ratio ${quarter.ratio.toFixed(3)} (throttled ${quarter.throttledPeriods}/${quarter.periods}), 1000m ratio ${one.ratio.toFixed(3)} (throttled ${one.throttledPeriods}/${one.periods})`);
    expect(quarter.ratio).toBeLessThan(1.05);
    expect(quarter.ratio).toBeGreaterThan(0.9); // a quarter core is there (nothing runs beside this lane)
    expect(quarter.throttledPeriods / quarter.periods).toBeGreaterThan(0.5);
    expect(one.ratio).toBeLessThan(1.05);
    expect(one.ratio).toBeGreaterThan(0.2);
    expect(one.throttledPeriods).toBeGreaterThan(0); // it asked for more than its quota, and was held to it
  });
});
