// The answer's lines of cause (issue 24): for each CPU / memory pair, why its pick stands where it does,
// computed from the runtime probe's seconds (causes.ts, causes-words.ts); across memory caps, what GC
// cost the tighter one. Where the probe recorded nothing, there is no line: never a guess.
import type { ProbeSecond } from '../model/probe.ts';
import type { RunDetail, StoredCell } from '../model/stored.ts';
import type { Sample } from '../model/types.ts';
import { fmtMb, fmtPct } from '../common/format.ts';
import { memoryFromProbe, runtimeSummaries, type CauseCell, type RuntimeSummary } from './causes.ts';
import { memoryCapCause, pairCause, type CauseKind } from './causes-words.ts';
import { configurationKey } from './group.ts';
import type { ScopeDecision } from './types.ts';

/** One line of cause; `scope` is the CPU / memory pair it explains (null: across pairs). */
export interface CauseNote {
  kind: CauseKind;
  /** The configuration it is about. */
  key: string;
  scope: string | null;
  /** "1 CPU / 256 MB", the scope's label; null across pairs. */
  scopeLabel: string | null;
  text: string;
}

const causeCell = (
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

/** A load thread at its ceiling that the probe overruled (engine/client-check.ts), said for the pick. */
function overruled(cells: readonly StoredCell[], key: string): string | null {
  const c = cells.find((x) => configurationKey(x.config) === key && x.load?.clientBoundOverruled);
  return c?.load?.clientBoundOverruled ? `not client-bound: ${c.load.clientBoundOverruled}` : null;
}

/** Every line of cause of a run's decisions; empty when no cell was probed. */
export function causesOf(
  run: RunDetail,
  scopes: readonly ScopeDecision[],
  probe: ReadonlyMap<number, readonly ProbeSecond[]> | undefined,
  samples?: ReadonlyMap<number, readonly Sample[]>,
): CauseNote[] {
  if (!probe || probe.size === 0) return [];
  const cells = run.cells.filter((c) => c.status === 'ok' && c.config.phase !== 'verify');
  const byKey = runtimeSummaries(cells.map((c) => causeCell(c, probe, samples)));
  if (byKey.size === 0) return [];
  const out: CauseNote[] = [];
  for (const s of scopes) {
    const pick = s.knee.key;
    const said = overruled(cells, pick);
    const line = said
      ? { kind: 'not-client-bound' as const, key: pick, text: said }
      : pairCause(
          byKey.get(pick) ?? null,
          s.configurations.map((k) => byKey.get(k) ?? null),
        );
    if (line) out.push({ ...line, scope: s.key, scopeLabel: s.label });
  }
  for (const s of scopes) {
    const pick = s.knee.key;
    const text = memoryWords(cells.filter((c) => configurationKey(c.config) === pick).map((c) => causeCell(c, probe)));
    if (text) out.push({ kind: 'memory', key: pick, scope: s.key, scopeLabel: s.label, text });
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
  `${c.kind === 'memory' ? 'Memory' : 'Why'}${c.scopeLabel ? `, on ${c.scopeLabel}` : ''} (runtime probe): ${c.text}.`;

/** The line of cause of one pair's pick, for the summary ("Why: …"), or null. */
export const pickCause = (causes: readonly CauseNote[], scope: string, pick: string): CauseNote | null => {
  const why = causes.filter((c) => c.scope === scope && c.kind !== 'memory');
  return why.find((c) => c.key === pick) ?? why[0] ?? null;
};
