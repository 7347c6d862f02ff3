// A measured cell's bottleneck — what set its pace — decided here, once: when the cell is measured (the engine's
// flags step, engine/flags.ts), and stored with it (cells.bottleneck; cells stored before it was recorded got it in
// store migration 11 from their stored flags and load, by this same function). Every reader — the answer's
// configurations and contest, its lines of cause, the auto-size judge, the exports — reads the stored value and
// never decides it again. 'client', 'host', 'dependency' and 'network' make the goodput a lower bound on the
// server's: the server was at least that fast.
//
// The evidence is what the cell's own steps measured: the load side's verdict (load/attribution.ts: a load thread
// at its ceiling, or a load side that could not send; which side a missed constant rate was on), checked from the
// server side by the runtime probe (engine/client-check.ts), which together give the `client-bound` flag; and the
// host's CPU on the cores the cell ran on (the `host-busy` flag); each dependency's CPU against its own cap and the
// app's against its cap (the `dependency-bound` flag); the bytes the responses carried against the cell's bandwidth
// cap (the `network-bound` flag).
import type { Bottleneck, BoundPace, FlagKind, LoadResult } from '../model/types.ts';

/** What the decision reads of a cell: its flags and its load result (none: nothing set a measured pace). */
export interface PaceEvidence {
  flags: readonly { kind: FlagKind }[];
  load: Pick<LoadResult, 'shortfallBy'> | null | undefined;
}

/**
 * What set the cell's pace: 'network' — flagged network-bound (its responses filled the bandwidth cap); else
 * 'client' — flagged client-bound, unless a missed constant rate was the server's (every connection waiting on it:
 * one cause per cell, even in cells stored with both, issue 21); else 'dependency' — flagged dependency-bound (a
 * dependency at its own cap while the app had room; never the host's other work); else 'host' — flagged host-busy;
 * else 'server'. null without a load result.
 */
export function cellBottleneck(c: PaceEvidence): Bottleneck | null {
  if (!c.load) return null;
  const has = (kind: FlagKind): boolean => c.flags.some((f) => f.kind === kind);
  // A link at its cap is measured, not inferred: whatever else was busy, no more bytes could leave.
  if (has('network-bound')) return 'network';
  if (has('client-bound') && c.load.shortfallBy !== 'server') return 'client';
  if (has('dependency-bound')) return 'dependency';
  if (has('host-busy')) return 'host';
  return 'server';
}

/**
 * Its goodput is only a lower bound on the server's: the load generator, a dependency or the host set the pace (a
 * cell, or a configuration of cells: analysis/decide/group.ts `bottleneckOf`).
 */
export const isLowerBound = (x: { bottleneck?: Bottleneck | null }): boolean =>
  x.bottleneck === 'client' || x.bottleneck === 'host' || x.bottleneck === 'dependency' || x.bottleneck === 'network';

/** Who set a lower bound's pace, in the answer's words. */
const WHO_SET_THE_PACE: Record<BoundPace, string> = {
  client: 'the load generator',
  dependency: 'a dependency (its database or cache)',
  host: 'other processes on the host',
  network: 'the bandwidth cap',
};

/**
 * "the load generator set the pace", "a dependency (its database or cache) set the pace": who made these goodputs
 * lower bounds, from their stored bottlenecks (several: each named; none known: the three that can).
 */
export function whoSetThePace(xs: readonly { bottleneck?: Bottleneck | null }[]): string {
  const paces = [...new Set(xs.map((x) => x.bottleneck).filter((b): b is BoundPace => !!b && b !== 'server'))];
  const who = (paces.length ? paces : (['client', 'dependency', 'host'] as const)).map((p) => WHO_SET_THE_PACE[p]);
  return `${who.length > 1 ? `${who.slice(0, -1).join(', ')} or ${who.at(-1)}` : who[0]} set the pace`;
}
