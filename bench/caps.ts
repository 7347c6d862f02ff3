// npm run bench -- caps: the CPU-cap check of containers.test.ts, 20 times in a row at 0.25 and at
// 1 CPU. A busy loop that wants more than its cap runs in a capped container; the cgroup's own CPU
// time over a 5 s window ÷ wall time ÷ cap should be about 1. Prints the spread the test's bounds
// come from.
import { checkEngine } from '../src-main/docker/client.ts';
import { measureCap } from '../tests/helpers/cpu-cap.ts';
import { median } from './stats.ts';

const RUNS = Number(process.env.CAPS_RUNS ?? 20);
const CAPS = [250, 1000];
const WINDOW_SEC = 5;

await checkEngine();
const ratios = new Map<number, number[]>(CAPS.map((c) => [c, []]));
const throttled = new Map<number, number[]>(CAPS.map((c) => [c, []]));
for (let i = 0; i < RUNS; i++) {
  for (const cap of CAPS) {
    const r = await measureCap(cap, WINDOW_SEC);
    ratios.get(cap)!.push(r.ratio);
    throttled.get(cap)!.push(r.throttledPeriods / r.periods);
    console.error(`run ${i + 1}/${RUNS} ${cap}m: ${r.cpuSec.toFixed(3)} CPU s over ${r.wallSec.toFixed(3)} s wall (${r.threads} busy threads): ratio ${r.ratio.toFixed(4)}, throttled in ${r.throttledPeriods}/${r.periods} periods`);
  }
}
console.log(`\n### CPU caps: cgroup CPU time ÷ wall time ÷ cap, ${RUNS} runs, ${WINDOW_SEC} s window\n`);
console.log('| cap | runs | ratio min | median | max | throttled periods, min share |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const cap of CAPS) {
  const xs = ratios.get(cap)!;
  console.log(`| ${cap}m | ${xs.length} | ${Math.min(...xs).toFixed(4)} | ${median(xs).toFixed(4)} | ${Math.max(...xs).toFixed(4)} | ${(Math.min(...throttled.get(cap)!) * 100).toFixed(0)} % |`);
}
