// The answer as a picture, as data: one panel per CPU / memory pair, workers on x, goodput and p99
// with their 95 % intervals, every repetition, the excluded ones, lower bounds, the pick, the knee
// and the contenders still in the running. The UI (Chart.js) and the HTML report (SVG) draw this one
// structure, so they cannot show different answers.
import { envText } from '../names.ts';
import type { StoredCell } from '../../model/stored.ts';
import type { LaunchMode } from '../../model/types.ts';
import { MODE_ORDER, cellGoodput } from '../decide/group.ts';
import type { AnswerState, ConfigurationSummary, MetricStats, Recommendation, ScopeDecision } from '../types.ts';

/** An estimate with its 95 % interval (low / high null where there is none: one repetition, no seconds). */
export interface ChartEstimate {
  mean: number;
  low: number | null;
  high: number | null;
}

/** One repetition's own numbers: goodput (req/s) and p99 (ms). null where an excluded cell measured nothing. */
export interface ChartRepetition {
  cellIndex: number;
  repetition: number;
  rps: number | null;
  p99Ms: number | null;
}

export interface AnswerChartPoint {
  key: string;
  /** "hello cluster×2 1000m/256MB c20". */
  label: string;
  mode: LaunchMode;
  workers: number;
  /** Goodput (req/s); null when every repetition was excluded. */
  rps: ChartEstimate | null;
  p99Ms: ChartEstimate | null;
  /** The included repetitions (faint points). */
  repetitions: ChartRepetition[];
  /** Repetitions left out (hollow points), with why. */
  excluded: (ChartRepetition & { reason: string })[];
  /** Its goodput is a lower bound (client-bound or host-busy): the server was at least that fast. */
  lowerBound: boolean;
  /** The configuration the answer names (its headline pick or a search's found one), said as a pick. */
  pick: boolean;
  /** The pair's knee: the cheapest shown within the margin of the best (not set when the pair is undecided). */
  knee: boolean;
  /** An undecided pair's leading contender (never a pick). */
  leading: boolean;
  /** The highest goodput of the pair's candidates. */
  best: boolean;
  /** Still in the running with others (the pair is equivalent or undecided): drawn as one group. */
  contender: boolean;
  /** Why it could not be picked (errors, OOM kills); null when it could. */
  setAside: string | null;
}

export interface AnswerChartSeries {
  mode: LaunchMode;
  /**
   * The legend's name: the launch mode, and what else sets this series apart from the panel's others
   * (containers, Node.js version, flags): "cluster, 2 containers".
   */
  name: string;
  points: AnswerChartPoint[];
}

export interface AnswerChartPanel {
  /** The pair's scope key. */
  key: string;
  /** "1 CPU / 256 MB — hello, 20 connections". */
  title: string;
  /** How the pair's contest stands; null for an auto-size run, whose answer is its search's. */
  state: AnswerState | null;
  marginPct: number;
  /** Worker counts measured, ascending (the x axis). */
  workers: number[];
  /** One series per launch mode (and per topology, Node.js version and flag set), lightest first. */
  series: AnswerChartSeries[];
  /** Keys of the grouped contenders (two or more; empty when the pair is confident). */
  group: string[];
}

const estimate = (m: MetricStats | null, scale = 1): ChartEstimate | null =>
  m ? { mean: m.mean / scale, low: m.ci ? m.ci.low / scale : null, high: m.ci ? m.ci.high / scale : null } : null;

/** Which configuration the answer names as a pick, or null when it names none (undecided, nothing to deploy). */
function answerPickKey(rec: Recommendation): string | null {
  if (rec.search) return rec.search.foundKey;
  const h = rec.headline;
  return h && h.state !== 'undecided' ? h.key : null;
}

/** The pairs the chart shows: every pair of a matrix; for a search, the found configuration's pair (else all). */
function shownScopes(rec: Recommendation): ScopeDecision[] {
  const found = rec.search?.foundKey;
  if (!found) return rec.scopes;
  const own = rec.scopes.filter((s) => s.configurations.includes(found));
  return own.length ? own : rec.scopes;
}

function point(
  c: ConfigurationSummary,
  s: ScopeDecision,
  rec: Recommendation,
  cellsByIndex: ReadonlyMap<number, StoredCell>,
): AnswerChartPoint {
  const repOf = (i: number): number => cellsByIndex.get(i)?.config.repetition ?? i;
  const repetitions = c.cellIndexes.map((cellIndex, i) => ({
    cellIndex,
    repetition: repOf(cellIndex),
    rps: c.rps?.values[i] ?? null,
    p99Ms: c.p99Us?.values[i] !== undefined ? c.p99Us.values[i]! / 1000 : null,
  }));
  const excluded = rec.exclusions
    .filter((x) => x.key === c.key)
    .map((x) => {
      const cell = cellsByIndex.get(x.cellIndex);
      const measured = cell && cell.rpsMean !== null;
      return {
        cellIndex: x.cellIndex,
        repetition: x.repetition,
        rps: measured ? cellGoodput(cell) : null,
        p99Ms: measured && cell.p99Us !== null ? cell.p99Us / 1000 : null,
        reason: x.reason,
      };
    });
  const search = rec.search !== undefined;
  const grouped = !search && s.state !== 'confident' && s.contenders.length > 1;
  return {
    key: c.key,
    label: c.label,
    mode: c.mode,
    workers: c.workers,
    rps: estimate(c.rps),
    p99Ms: estimate(c.p99Us, 1000),
    repetitions,
    excluded,
    lowerBound: s.lowerBounds.includes(c.key),
    pick: c.key === answerPickKey(rec),
    knee: !search && s.state !== 'undecided' && c.key === s.knee.key,
    leading: !search && s.state === 'undecided' && c.key === s.knee.key,
    best: c.key === s.bestRps.key,
    contender: grouped && s.contenders.includes(c.key),
    setAside: s.setAside.find((x) => x.key === c.key)?.reason ?? null,
  };
}

/** What sets a configuration's line apart besides its workers: mode, containers, Node.js version, flags, settings. */
const variantOf = (c: ConfigurationSummary) => ({
  mode: c.mode,
  replicas: c.replicas ?? 1,
  node: c.node ?? null,
  flags: (c.nodeFlags ?? []).join(' '),
  env: envText(c.envSet) ?? '',
});

/** One series per variant, lightest mode first; a name says only the parts that vary in this panel. */
function seriesOf(
  configs: ConfigurationSummary[],
): { mode: LaunchMode; name: string; members: ConfigurationSummary[] }[] {
  const groups = new Map<string, { v: ReturnType<typeof variantOf>; members: ConfigurationSummary[] }>();
  for (const c of configs) {
    const v = variantOf(c);
    const k = JSON.stringify(v);
    const g = groups.get(k);
    if (g) g.members.push(c);
    else groups.set(k, { v, members: [c] });
  }
  const all = [...groups.values()];
  const varies = (f: 'replicas' | 'node' | 'flags' | 'env'): boolean => new Set(all.map((g) => g.v[f])).size > 1;
  const name = (v: ReturnType<typeof variantOf>): string =>
    [
      v.mode,
      ...(varies('replicas') ? [`${v.replicas} container${v.replicas === 1 ? '' : 's'}`] : []),
      ...(varies('node') ? [v.node === null ? 'default Node.js' : `Node ${v.node}`] : []),
      ...(varies('flags') ? [v.flags || 'no flags'] : []),
      ...(varies('env') ? [v.env] : []),
    ].join(', ');
  return all
    .sort((a, b) => MODE_ORDER[a.v.mode] - MODE_ORDER[b.v.mode] || a.v.replicas - b.v.replicas)
    .map((g) => ({ mode: g.v.mode, name: name(g.v), members: g.members }));
}

/**
 * The answer's chart, one panel per CPU / memory pair (for an auto-size run, the found configuration's
 * pair). `cells` are the run's stored cells: an excluded repetition is drawn at what it measured.
 */
export function answerChart(rec: Recommendation, cells: readonly StoredCell[]): AnswerChartPanel[] {
  const cellsByIndex = new Map(cells.filter((c) => c.config.phase !== 'verify').map((c) => [c.config.index, c]));
  const byKey = new Map(rec.configurations.map((c) => [c.key, c]));
  return shownScopes(rec).map((s) => {
    // Configurations of the pair whose every repetition was left out still show their hollow points.
    const configs = [
      ...s.configurations.map((k) => byKey.get(k)!).filter(Boolean),
      ...rec.configurations.filter((c) => c.scopeKey === s.key && c.n === 0),
    ];
    const series = seriesOf(configs).map(({ mode, name, members }) => ({
      mode,
      name,
      points: members.sort((a, b) => a.workers - b.workers).map((c) => point(c, s, rec, cellsByIndex)),
    }));
    const search = rec.search !== undefined;
    return {
      key: s.key,
      title: `${s.label} — ${s.context}`,
      state: search ? null : s.state,
      marginPct: rec.marginPct,
      workers: [...new Set(configs.map((c) => c.workers))].sort((a, b) => a - b),
      series,
      group: !search && s.state !== 'confident' && s.contenders.length > 1 ? [...s.contenders] : [],
    };
  });
}

/** Every point of a panel, in series order. */
export const panelPoints = (p: AnswerChartPanel): AnswerChartPoint[] => p.series.flatMap((s) => s.points);
