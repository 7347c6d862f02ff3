// One round of the probe benchmark in turns: three containers of the same cell (the probe in the
// first; the second without it; the third without it too, for the A/A beside it), loaded ONE AT A
// TIME on the cell's core while the other two wait, unloaded, on the load's core (docker update
// --cpuset-cpus). The loaded one then has the whole core it declares, as a cell does (side by side,
// probe-pair.ts, each gets half of it, which doubles the weight of any fixed cost a second), and every
// probe keeps its own clock: a waiting container runs, idle, so its probe reports each second as in a
// cell (frozen, it would catch up on thaw and pay its seconds' work in its turns). Host noise moves
// between turns, so turns are short, many, and in a mirrored order (0 1 2 2 1 0 …): every container's
// mean position in the round is the same, and a drift that is linear over a pass cancels. Which
// container goes first rotates each round. Used by bench/probe.ts.
import { performance } from 'node:perf_hooks';
import { newHistogram, summarize } from '../src-main/load/histogram.ts';
import type { ProvisionedTarget } from '../src-main/providers/provider.ts';
import { load, sideOf, withContainers, type Counted, type PairContext, type Round, type Side } from './probe-pair.ts';

/** Turns each container gets a round (its measured seconds are shared among them); even: mirrored passes. */
export const TURNS = 8;
/** Seconds of load on the cell's core before a turn counts: its connections made, the core's caches its own. */
export const SETTLE_SEC = 0.3;
/** The first half of a round's order, rotated each round; the second half mirrors it. */
const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
] as const;

/** What a container's turns counted together: latencies merged losslessly, CPU summed. */
function total(turns: Counted[]): Counted {
  if (turns.length === 0) throw new Error('a container had no turn');
  const hist = newHistogram();
  let cpuNs: number | null = 0;
  for (const c of turns) {
    hist.add(c.hist);
    cpuNs = cpuNs !== null && c.cpuNs !== null ? cpuNs + c.cpuNs : null;
  }
  const sum = (k: 'good' | 'bad'): number => turns.reduce((n, c) => n + c[k], 0);
  return { good: sum('good'), bad: sum('bad'), p99Us: summarize(hist).p99, hist, cpuNs, perSec: [] };
}

/** Round `k` in turns; its sides are [with, without] and, for the A/A, [the third, without]. */
export function runTurns(k: number, ctx: PairContext): Promise<Round> {
  const probes = [true, false, false];
  const first = [...ORDERS[k % ORDERS.length]!];
  const pass = [...first, ...[...first].reverse()];
  const turnMs = (ctx.measureSec * 1000) / TURNS;
  const waitOn = ctx.loadCpus;
  if (!waitOn) throw new Error('turns need a core for the load apart from the cell’s (this engine has too few)');
  return withContainers(probes, first, ctx, async (ts, cpusets) => {
    const move = (t: ProvisionedTarget, cpus: string) =>
      ctx.provider.client.getContainer(t.id).update({ CpusetCpus: cpus });
    await Promise.all(ts.map((t) => move(t, waitOn)));
    /** Moves container i onto the cell's core, loads it `leadSec` and then `ms` measured, and moves it back. */
    const turn = async (i: number, leadSec: number, ms: number): Promise<Counted> => {
      const t = ts[i]!;
      await move(t, cpusets[i]!);
      try {
        const from = performance.now() + 50 + leadSec * 1000;
        return await load(t, { from, to: from + ms }, leadSec, ctx);
      } finally {
        await move(t, waitOn).catch(() => {}); // removed next in any case
      }
    };
    const loadFromMs = Date.now();
    // Each warms up once, with the whole core, as a cell does before it measures.
    for (const i of first) await turn(i, ctx.warmupSec, 0);
    const counted: Counted[][] = [[], [], []];
    for (let n = 0; n < TURNS / 2; n++) for (const i of pass) counted[i]!.push(await turn(i, SETTLE_SEC, turnMs));
    // Every report since the first warm-up counts for whether the probe was heard.
    const clock = {
      loadFromMs,
      measureFromMs: loadFromMs,
      measuredSec: Math.ceil((Date.now() - loadFromMs) / 1000) + 1,
    };
    const sides: Side[] = await Promise.all(
      ts.map((t, i) => sideOf(t, probes[i]!, total(counted[i]!), cpusets[i]!, clock, ctx, ctx.measureSec)),
    );
    return { ab: [sides[0]!, sides[1]!], aa: [sides[2]!, sides[1]!] };
  });
}
