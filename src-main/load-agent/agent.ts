// The load agent: the engine's own load code (runLoad: its threads, histograms and warmup rule) as a
// process of its own, run in a container next to a target on another node. It reads an AgentPlan
// from $RIGHTSIZE_LOAD_PLAN (or argv[2]), prints every second and then the result as JSON lines on
// stdout (line-protocol.ts), and exits 0; on failure one error line and exit 1. SIGTERM stops the
// load at once and still prints the result so far, as a cancelled local load returns one.
import { isWarm } from '../load/warmup.ts';
import { runLoadDetailed } from '../load/runner.ts';
import { agentLine, PLAN_ENV, readPlan, type AgentLine } from './line-protocol.ts';

const write = (m: AgentLine): Promise<void> =>
  new Promise((resolve) => process.stdout.write(agentLine(m), () => resolve()));

async function main(): Promise<void> {
  const stop = new AbortController();
  let cancelled = false;
  const onTerm = (): void => {
    if (cancelled) process.exit(143); // a second SIGTERM: give up on the result
    cancelled = true;
    stop.abort();
  };
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onTerm);
  try {
    const { plan, adaptiveWarmup } = readPlan(process.env[PLAN_ENV] ?? process.argv[2]);
    const pending: Promise<void>[] = [];
    const detail = await runLoadDetailed(plan, {
      signal: stop.signal,
      ...(adaptiveWarmup ? { isWarm } : {}),
      onSecond: (s, warmup) => void pending.push(write({ type: 'second', warmup, s })),
    });
    await Promise.all(pending);
    await write({
      type: 'result',
      result: detail.result,
      threadElu: detail.threadElu,
      loadCpuSec: detail.loadCpuSec,
      cancelled,
    });
    process.exit(0); // autocannon's sockets may linger a tick: the result is out, nothing else matters
  } catch (e) {
    await write({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    process.exit(1);
  }
}

void main();
