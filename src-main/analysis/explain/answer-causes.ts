// The answer's lines of cause (issue 24): for each CPU / memory pair, why its pick stands where it does,
// computed from the runtime probe's seconds (causes.ts, causes-words.ts); across memory caps, what GC
// cost the tighter one. Where the probe recorded nothing, there is no line: never a guess.
import type { ProbeSecond } from '../../model/probe.ts';
import type { RunDetail, StoredCell } from '../../model/stored.ts';
import type { Sample } from '../../model/types.ts';
import { fmtMb, fmtNum, fmtPct } from '../../common/format.ts';
import { linkShare } from '../../common/link-share.ts';
import { memoryFromProbe, runtimeSummaries, type CauseCell, type RuntimeSummary } from './causes.ts';
import { memoryCapCause, pairCause, type CauseKind, type CauseLine } from './causes-words.ts';
import { configurationKey, workloadLabel } from '../decide/group.ts';
import type { CauseNote, Exclusion, ScopeDecision } from '../types.ts';

/** A stored cell as the causes read it: its measured seconds and probe records (warm-up left out). */
export const causeCell = (
  c: StoredCell,
  probe: ReadonlyMap<number, readonly ProbeSecond[]>,
  samples?: ReadonlyMap<number, readonly Sample[]>,
): CauseCell => ({
  config: c.config,
  samples: (samples?.get(c.id) ?? []).filter((s) => !s.warmup),
  probe: (probe.get(c.id) ?? []).filter((s) => !s.warmup),
  stats: c.stats,
  load: c.load,
  flags: c.flags,
});

/**
 * The client-bound side of a pick, agreeing with how the decision used it: a pick the answer reads as a
 * lower bound is never said to be "not a lower bound". Cells the probe overruled (engine/client-check.ts)
 * are said as such; null when no cell of the pick met a load thread's ceiling.
 */
function clientLine(mine: readonly StoredCell[], key: string, lowerBound: boolean): CauseLine | null {
  const over = mine.filter((c) => c.load?.clientBoundOverruled);
  if (!over.length) return null;
  if (!lowerBound)
    return { kind: 'not-client-bound', key, text: `not client-bound: ${over[0]!.load!.clientBoundOverruled}` };
  const bound = mine.filter((c) => c.bottleneck === 'client').length;
  return {
    kind: 'client-bound',
    key,
    text:
      `a lower bound: in ${bound} of its ${mine.length} repetitions a load thread was at its ceiling while the ` +
      `server had headroom; in ${over.length} the probe saw the server at its ceiling too (those count as measured)`,
  };
}

/**
 * A pick held by one of its dependencies (its database, its cache at its own cap) in words from the cells' own flag,
 * as the decision read it (their stored bottleneck); null when none of its counted repetitions was.
 */
function dependencyLine(mine: readonly StoredCell[], key: string): CauseLine | null {
  const held = mine.filter((c) => c.bottleneck === 'dependency');
  const reason = held.flatMap((c) => c.flags).find((f) => f.kind === 'dependency-bound')?.reason;
  if (!reason) return null;
  return {
    kind: 'dependency-bound',
    key,
    text: `${held[0]!.config.app}: a lower bound: in ${held.length} of its ${mine.length} repetitions ${reason}`,
  };
}

/**
 * A pick held by its bandwidth cap, from its cells' own flag: where every configuration of its pair was held too,
 * "static [1m]: 236–241 req/s at every worker count here, 95 % of the 2,000 Mbit/s cap: network-bound, not a CPU
 * question"; else its share of repetitions and the flag's words. null when none of its counted repetitions was.
 */
function networkLine(counted: readonly StoredCell[], key: string, pair: readonly StoredCell[]): CauseLine | null {
  const held = counted.filter((c) => c.bottleneck === 'network');
  const first = held[0];
  if (!first?.load || !first.config.load.networkMbps) return null;
  const who = workloadLabel(first.config.app, first.config.requests?.name ?? null);
  const measured = pair.filter((c) => c.rpsMean !== null && c.bottleneck !== null);
  if (measured.length > held.length && measured.every((c) => c.bottleneck === 'network')) {
    const rps = measured.map((c) => c.rpsMean!);
    const [lo, hi] = [Math.min(...rps), Math.max(...rps)];
    const cap = first.config.load.networkMbps * (first.config.replicas ?? 1);
    const shares = measured.map((c) => linkShare(c.load!, first.config.load.networkMbps!).share);
    const share = shares.reduce((a, b) => a + b, 0) / shares.length;
    const range = Math.round(lo) === Math.round(hi) ? fmtNum(lo) : `${fmtNum(lo)}–${fmtNum(hi)}`;
    return {
      kind: 'network-bound',
      key,
      text:
        `${who}: ${range} req/s at every worker count here, ${fmtPct(share * 100)} of the ${fmtNum(cap)} Mbit/s ` +
        'cap: network-bound, not a CPU question',
    };
  }
  const reason = first.flags.find((f) => f.kind === 'network-bound')?.reason;
  if (!reason) return null;
  return {
    kind: 'network-bound',
    key,
    text: `${who}: a lower bound: in ${held.length} of its ${counted.length} repetitions ${reason}`,
  };
}

/**
 * Every line of cause of a run's decisions; empty when no cell was probed. The lines of why read the
 * repetitions the decision counted (`exclusions` left out: a host-busy repetition waited for the CPU
 * because of the host, not the server); the memory lines read every repetition, since a disturbed
 * one's peak is still memory the server used.
 */
export function causesOf(
  run: RunDetail,
  scopes: readonly ScopeDecision[],
  probe: ReadonlyMap<number, readonly ProbeSecond[]> | undefined,
  samples?: ReadonlyMap<number, readonly Sample[]>,
  exclusions: readonly Pick<Exclusion, 'cellIndex'>[] = [],
): CauseNote[] {
  if (!probe || probe.size === 0) return [];
  const cells = run.cells.filter((c) => c.status === 'ok' && c.config.phase !== 'verify');
  const read = cells.map((c) => causeCell(c, probe, samples)); // once: the pairs and the memory read the same cells
  const left = new Set(exclusions.map((e) => e.cellIndex)); // a cell's index is unique in its run
  const byKey = runtimeSummaries(read.filter((c) => !left.has(c.config.index)));
  if (byKey.size === 0) return [];
  const out: CauseNote[] = [];
  // With several workloads, a pair's label names its workload too ("1 CPU / 512 MB, hello, 100 connections").
  const contexts = new Set(scopes.map((s) => s.context)).size > 1;
  const labelOf = (s: ScopeDecision): string => (contexts ? `${s.label}, ${s.context}` : s.label);
  for (const s of scopes) {
    const pick = s.knee.key;
    const lowerBound = s.lowerBounds.includes(pick);
    const all = cells.filter((c) => configurationKey(c.config) === pick);
    const own = byKey.get(pick) ?? null;
    const rivals = s.configurations.map((k) => byKey.get(k) ?? null);
    const cause = (clientBound: boolean): CauseLine | null => (own ? pairCause({ ...own, clientBound }, rivals) : null);
    // The client-bound check speaks of the pick as the decision read it: from its counted cells' stored bottleneck.
    // A lower-bound pick is never explained as "not client-bound" (its seconds pooled may reach the server's ceiling
    // where each repetition's own check did not): the next line of cause is said instead.
    const clientPaced = lowerBound && all.some((c) => c.bottleneck === 'client' && !left.has(c.config.index));
    const said = cause(clientPaced);
    const counted = all.filter((c) => !left.has(c.config.index));
    const inPair = new Set(s.configurations);
    const pair = cells.filter((c) => inPair.has(configurationKey(c.config)) && !left.has(c.config.index));
    const line =
      networkLine(counted, pick, pair) ??
      dependencyLine(counted, pick) ??
      clientLine(all, pick, lowerBound) ??
      (said?.kind === 'not-client-bound' ? cause(false) : said);
    if (line) out.push({ ...line, scope: s.key, scopeLabel: labelOf(s) });
  }
  for (const s of scopes) {
    const pick = s.knee.key;
    const text = memoryWords(read.filter((c) => configurationKey(c.config) === pick));
    if (text) out.push({ kind: 'memory', key: pick, scope: s.key, scopeLabel: labelOf(s), text });
  }
  // Across memory caps: the same configuration otherwise, its GC at the tighter caps.
  const families = new Map<string, RuntimeSummary[]>();
  for (const s of byKey.values()) {
    const f = JSON.stringify([s.app, s.mode, s.workers, s.cpuMillis, s.threadpool]);
    families.set(f, [...(families.get(f) ?? []), s]);
  }
  for (const caps of families.values()) {
    if (new Set(caps.map((c) => c.memoryMb)).size < 2) continue;
    const line = memoryCapCause(caps);
    if (line && !out.some((o) => o.text === line.text)) out.push({ ...line, scope: null, scopeLabel: null });
  }
  return out;
}

/**
 * What the pick's server processes measured of memory: "each worker's heap peaked at 38 MB of its 2,096 MB limit
 * (2 %), its RSS at 71 MB" (and against PM2's max_memory_restart where the cells set one). null without probe seconds.
 */
function memoryWords(cells: readonly CauseCell[]): string | null {
  const m = memoryFromProbe(cells);
  if (!m || m.heapUsedPeakBytes <= 0) return null;
  const servers = m.processes.filter((p) => p.role === 'worker' || p.role === 'single');
  const whose = servers.some((p) => p.role === 'worker') ? "each worker's" : "the server process's";
  const limit = servers.find((p) => p.heapShare === m.heapShareMax)?.heapLimitBytes ?? 0;
  const heap =
    limit > 0
      ? `heap peaked at ${fmtMb(m.heapUsedPeakBytes)} of its ${fmtMb(limit)} limit (${fmtPct(m.heapShareMax * 100)})`
      : `heap peaked at ${fmtMb(m.heapUsedPeakBytes)}`;
  const restart =
    m.recycleRssBytes !== null && m.rssShareOfRestartMax !== null
      ? `, ${fmtPct(m.rssShareOfRestartMax * 100)} of max_memory_restart (${fmtMb(m.recycleRssBytes)})`
      : '';
  return `${whose} ${heap}, its RSS at ${fmtMb(m.rssPeakBytes)}${restart}`;
}

/** The sentence of a line of cause in the answer's words: "Why, on 1 CPU / 256 MB (runtime probe): …". */
export const causeSentence = (c: CauseNote): string =>
  `${c.kind === 'memory' ? 'Memory' : c.kind === 'route' ? 'Routes' : 'Why'}` +
  `${c.scopeLabel ? `, on ${c.scopeLabel}` : ''} (${c.kind === 'route' ? 'load side' : 'runtime probe'}): ${c.text}.`;

/** The line of cause of one pair's pick, for the summary ("Why: …"), or null. */
export const pickCause = (causes: readonly CauseNote[], scope: string, pick: string): CauseNote | null => {
  const why = causes.filter((c) => c.scope === scope && c.kind !== 'memory' && c.kind !== 'route');
  return why.find((c) => c.key === pick) ?? why[0] ?? null;
};
