// The types of the whole answer (Recommendation) and of what it answers to: the options, the
// service-level objective and its checks, an auto-size run's search, and the parts the answer's
// modules make (headline, alternatives, costs, causes, comparisons). Types only: imports model/ and
// the other type files, never a module with behaviour.
import type { LaunchMode, RunStatus, Sample } from '../model/types.ts';
import type { SearchStatus, Slo } from '../model/search.ts';
import type { ProbeSecond } from '../model/probe.ts';
import type { Sizing } from './sizing-types.ts';
import type { RuntimeSeen, TrapFinding, TrapNote } from './trap-types.ts';
import type { ConfigurationCost, PriceSource, Prices } from '../model/cost.ts';
import type {
  AnswerState,
  ConfigurationSummary,
  Exclusion,
  NoiseNote,
  RivalRelation,
  ScopeDecision,
  UndecidedScope,
} from './decision-types.ts';

export interface RecommendOptions {
  /**
   * The knee: the fewest workers whose goodput is not significantly below the best minus this many percent. Default 5.
   */
  marginPct?: number;
  slo?: Slo;
  /**
   * Stored per-second samples by cell id (Store.getRunSamples). Only needed for cells stored before
   * LoadResult carried `perSecondGood`: their one-repetition interval comes from these seconds.
   */
  samples?: ReadonlyMap<number, readonly Sample[]>;
  /** The runtime probe's seconds by cell id (Store.getRunProbeSeconds): the lines of cause come from them. */
  probe?: ReadonlyMap<number, readonly ProbeSecond[]>;
  /** Prices given now (report --cpu-price …), over those stored with the run, over the example defaults. */
  prices?: Partial<Prices>;
}

export type SloCriterion = 'p99' | 'rps' | 'errors';

export interface SloCheck {
  criterion: SloCriterion;
  /** p99 in ms, req/s, or error percent. */
  value: number;
  limit: number;
  ok: boolean;
  /**
   * How far past the limit, relative to it (0.21 = 21 % over); ≤ 0 when met. Errors against a 0 % limit: Infinity when
   * any failed.
   */
  miss: number;
  /**
   * Whether the whole 95 % interval is on the right side of the limit; null without an interval (one repetition, or
   * errors, which are pooled).
   */
  sure: boolean | null;
}

/** The SLO answer for one workload (app + request set). */
export interface SloOutcome {
  app: string;
  requestSet: string | null;
  /** The cheapest configuration meeting every limit (least CPU, then memory, then workers), or null. */
  met: ConfigurationSummary | null;
  /** When none meets it: the one that missed by the least on its worst criterion. */
  closest: ConfigurationSummary | null;
  /** The checks of `met`, or of `closest`. */
  checks: SloCheck[];
  /** How many configurations meet it. */
  meeting: number;
  considered: number;
}

/** A configuration an auto-size search names. */
export interface SearchConfig {
  mode: LaunchMode;
  workers: number;
  cpuMillis: number;
  memoryMb: number;
}

/** The answer of an auto-size run (analysis/search-answer.ts): what its search found, not a knee over its cells. */
export interface SearchAnswer {
  status: SearchStatus;
  app: string;
  /** The search's objective; minRps is the constant rate it was measured at. */
  slo: Slo;
  rate: number;
  /** "p99 ≤ 50 ms at 2,000 req/s, errors ≤ 0.1 %". */
  objective: string;
  /** The cheapest configuration meeting the objective with confidence; null unless the search ended "found". */
  found: SearchConfig | null;
  /** Its configuration's key among the run's configurations (null when none of its cells finished). */
  foundKey: string | null;
  /** The judge's words on the last cell of it that met. */
  evidence: string | null;
  /** Where its memory came from: the measured peak by the memory rule (verified by a cell), or the bounds' maximum. */
  memoryFrom: 'peak' | 'bounds' | null;
  /** A stopped or undecided search's cheapest meeting configuration so far (cheaper ones not ruled out). */
  bestSoFar: SearchConfig | null;
  /** The search's own words. */
  words: string;
  cells: number;
  gridCells: number;
}

/** A method paragraph under its title. */
export interface MethodNote {
  title: string;
  text: string;
}

export interface Recommendation {
  /**
   * An auto-size run's answer: present exactly when the run is a search; then it, not the knee, is what the answer
   * names and deploys.
   */
  search?: SearchAnswer;
  run: {
    id: number;
    name: string;
    status: RunStatus;
    cellsTotal: number;
    cellsIncluded: number;
    cellsExcluded: number;
  };
  marginPct: number;
  slo: Slo | null;
  configurations: ConfigurationSummary[];
  scopes: ScopeDecision[];
  /**
   * The answer's decision per workload (decide/decide.ts decideWorkloads): across every CPU / memory pair on goodput
   * per dollar; with one pair, that pair's own decision. The first workload's is the one the answer deploys.
   */
  decisions?: ScopeDecision[];
  /** What the answer does not deploy but names, labelled as alternatives (analysis/explain/alternatives.ts). */
  alternatives?: Alternative[];
  /** Scopes with results where every configuration was disqualified (errors, OOM). */
  undecided: UndecidedScope[];
  /** One per workload when an SLO was given; empty otherwise. */
  sloOutcomes: SloOutcome[];
  /** What each configuration costs at the run's prices, and the cheapest against its runner-up (decide/cost.ts). */
  costs?: CostAnswer;
  exclusions: Exclusion[];
  noise: NoiseNote[];
  /** Why, per CPU / memory pair, from the runtime probe (explain/answer-causes.ts); empty without probe seconds. */
  causes: CauseNote[];
  /**
   * Configurations that differ only in topology (containers × workers at equal total resources), Node.js version or
   * flags, compared by the same contest (compare/topology.ts, versions.ts). Absent in answers made before it existed.
   */
  comparisons?: ComparisonNote[];
  /** What each configuration's processes believed about their box at start (absent: no reading, or an older answer). */
  runtime?: RuntimeSeen[];
  /** The container traps, decided (decide/traps.ts) and said (explain/trap-words.ts); the deployed one's first. */
  trapFindings?: TrapFinding[];
  traps?: TrapNote[];
  /**
   * Memory and CPU sizing of every configuration with a finished repetition (recommended ones first); the words speak
   * of the recommended ones. Absent in answers made before it existed.
   */
  sizing?: Sizing[];
  /** How the answer was decided, in one paragraph (also the last sentence of `words` when anything was decided). */
  method: string;
  /**
   * The pick and how it stands (confident / equivalent / undecided): the answer's first sentence; null when nothing can
   * be deployed.
   */
  headline?: Headline | null;
  /**
   * At most four short sentences under the headline (explain/summary.ts): the pick's numbers, how it stands against
   * the rest, what to give it, what was left out. Each is said at length in `words`.
   */
  summary: string[];
  /** The methods under their titles, for a reader to show collapsed ("How this was decided"…). */
  methods: MethodNote[];
  /** The answer in plain words, most important first. */
  words: string[];
  /** Those of `words` that size memory and CPU (a UI may show them apart, with the sizing evidence). */
  sizingWords: string[];
}

/** The answer's first sentence: the pick and how it stands (analysis/explain/headline.ts). */
export interface Headline {
  state: AnswerState;
  /** The configuration the answer deploys; for 'undecided' the leading contender (never said as a pick). */
  key: string;
  /** Keys still in the running (the pick first). */
  contenders: string[];
  /** What would decide an undecided answer. */
  decideBy: string[];
  /** One sentence. */
  text: string;
}

/** A configuration the answer names beside its pick, not deployed (analysis/explain/alternatives.ts). */
export interface Alternative {
  key: string;
  /** 'link': another link's own pick (decide.ts decideWorkloads `links`), named with its link. */
  kind: 'latency' | 'throughput' | 'link';
  /** One sentence, starting "Alternative". */
  text: string;
}

/** The cheapest against the runner-up, per workload, in one line. */
export interface CheapestCost {
  app: string;
  requestSet: string | null;
  /**
   * The contest's decision on cost per million (contest.ts): 'decided', shown cheaper than every other; 'equivalent',
   * others shown within the margin of it; 'undecided', not; 'only-one', nothing to compare.
   */
  state: 'decided' | 'equivalent' | 'undecided' | 'only-one' | 'none';
  /** Lowest mean cost (null when none qualifies). */
  cheapest: string | null;
  /** The next lowest mean cost. */
  runnerUp: string | null;
  /** Keys the contest could not show costlier than the cheapest, or showed within the margin of it. */
  notDistinguishable: string[];
  /** The line the answer says. */
  text: string;
}

/** What each configuration costs at the run's prices, and the cheapest per workload (analysis/decide/cost.ts). */
export interface CostAnswer {
  prices: Prices;
  source: PriceSource;
  /** The objective's rate (req/s) when there is one. */
  rate: number | null;
  configurations: ConfigurationCost[];
  cheapest: CheapestCost[];
}

/** What a line of cause is about (analysis/explain/causes-words.ts). */
export type CauseKind =
  | 'client-bound'
  | 'dependency-bound'
  | 'network-bound'
  | 'not-client-bound'
  | 'oversubscribed'
  | 'off-loop'
  | 'gc-pressure'
  | 'imbalance'
  | 'saturated'
  | 'memory'
  /** A mix: the route that sets the pick's p99 (explain/route-causes.ts). */
  | 'route';

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

/** A line of the answer comparing configurations that differ in one dimension. */
export interface ComparisonNote {
  /** Which question it answers: containers or workers, which Node.js, which flags. */
  kind: 'topology' | 'version' | 'flags' | 'tls' | 'http2';
  /** The scope (analysis/decide/group.ts scopeKey) both configurations belong to. */
  scopeKey: string;
  /** The better by goodput first, then the one it was compared with. */
  keys: [string, string];
  relation: RivalRelation;
  /** The sentence. */
  text: string;
}
