// The one contract between the UI and the engine, whatever carries it (Electron IPC or HTTP +
// WebSocket). Types and names only — no runtime dependencies — so the preload and the renderer
// can import it without pulling in the engine.
import type { BaseStrategy } from '../docker/base-image.ts';
import type { CellPhase, RunEvent } from '../model/events.ts';
import type { Problem } from '../engine/matrix.ts';
import type { Sample } from '../model/types.ts';
import type { RunEstimate } from '../model/estimate.ts';
import type { Preset } from '../presets/presets.ts';
import type { Recommendation, Slo } from '../analysis/types.ts';
import type { ListRunsQuery, RunDetail, RunList } from '../store/index.ts';
import type { DeployAnswer } from '../deploy/from-cell.ts';
import type { ClientForecast } from '../engine/client-forecast.ts';
import type { ProbeSecond } from '../model/probe.ts';
import type { StoredCellProbe } from '../store/index.ts';

export type { CellPhase, ClientForecast, Problem, Preset, Recommendation, RunDetail, RunList, Sample, Slo };
export type { ProbeSecond, StoredCellProbe };
export type { CellProbe, ProcessRole } from '../model/probe.ts';
export type { ForecastGroup } from '../engine/client-forecast.ts';
export type { RunSummary, StoredCell, ListRunsQuery } from '../store/index.ts';
export type { CellConfig, CellResult, Flag, LaunchMode, RunStatus, HostFacts } from '../model/types.ts';
export type { DeployAnswer, DeployChoice } from '../deploy/from-cell.ts';
export type { DeployConfig, DeployProvenance, SnippetFile, SnippetKind } from '../deploy/snippets.ts';
export type { SearchStatus, SearchStep, SearchTrace, SizeSpec, StepOutcome } from '../model/search.ts';
export type { ProviderNode, TargetCheck, TargetInfo, TargetKind } from '../targets/types.ts';
import type { TargetCheck, TargetInfo } from '../targets/types.ts';
import type { RunBaselineSpec, SavedBaseline } from '../store/baselines.ts';
export type * from '../analysis/baseline-types.ts';
import type { ShownAnswer, ShownComparison, ShownRun } from './views.ts';
export type * from './views.ts';
export type { RunBaselineSpec, SavedBaseline };

export interface EngineStatus {
  docker:
    | { ok: true; version: string; cpus: number; memoryBytes: number; cgroupVersion: string | null }
    | { ok: false; error: string };
  /** Limits the matrix builder works within (host cores and memory as Docker can give them). */
  limits: { cores: number; memoryMb: number; minMemoryMb: number; largeMatrixCells: number };
  activeRunId: number | null;
  checkedAt: string;
}

export type { UserApp, UserAppInput } from '../apps/user-apps.ts';

/** An app as listed: built-in, or the user's own (then `user` is its definition as entered, for editing). */
import type { AppInfo } from '../apps/app-info.ts';
export type { AppInfo };
import type { TryOutResult } from '../apps/try-out.ts';
export type { ProbeAnswer, TryOutResult, TryProbe, TrySuggestion } from '../apps/try-out.ts';
import type { ImportOutcome } from '../mix/import/index.ts';
export type { Dropped, ImportedRoute, ImportFormat, ImportOutcome } from '../mix/import/index.ts';
export type { Capture, MixEntry, RequestSpec, RouteResult, SequenceSpec } from '../model/requests.ts';

/** A HAR or an access log to make a mix of (mix/import/): the file's text as read, and what to keep of it. */
export interface ImportRequestsInput {
  text: string;
  /** Its name: the extension settles .har and .jsonl/.ndjson; the content decides the rest. */
  fileName: string;
  /** Keep scripts, styles, images, fonts and media (dropped by default). */
  keepStatic?: boolean;
  /** Keep requests to every host of a HAR (default: the most frequent one only). */
  allHosts?: boolean;
}

/** The largest file apps.importRequests reads (its text, in UTF-16 code units: about bytes for a HAR or a log). */
export const MAX_IMPORT_CHARS = 20 * 1024 * 1024;

/** The verdict on an app definition: every problem with what to fix, or what Rightsize read from it. */
export interface AppCheck {
  ok: boolean;
  problems: Problem[];
  /** What was read or assumed (the ecosystem file's entry, settings not applied…). */
  notes: string[];
  /** What the app resolves to, when ok. */
  resolved?: { entry: string; args: string[]; env: Record<string, string>; version: string; description: string };
}

export interface AppBuildLine {
  name: string;
  line: string;
}

export interface MatrixCheck {
  ok: boolean;
  cells: number;
  /** The estimate's expected duration (`estimate.totalSec`; 0 when invalid). */
  etaSec: number;
  /** How it adds up: the grid at this host's warm-up and overhead, settling and verification as ranges. */
  estimate?: RunEstimate;
  /** K, the cells the estimate runs at once: the target's concurrency (as a run would take it), 1 on this machine. */
  cellsAtOnce: number;
  /** The saved target the check and estimate are for (absent: this machine). */
  target?: string;
  /**
   * Where the check or the estimate is not the target's as it is now, in words: it did not answer in
   * time (checked against what was known of its nodes, or CPU and memory not checked), it is not
   * ready for a run, or the estimate assumes one cell at a time.
   */
  note?: string;
  problems: Problem[];
  /**
   * This machine only, once a cell here has shown the load thread's ceiling: the cells likely
   * client-bound (their predicted rate against the ceiling × their load threads), with the warning
   * and its remedy in `message` (null when none is likely). Absent for a saved target or with no history.
   */
  forecast?: ClientForecast;
}

/** The verdict on an auto-size request: every problem, or what the search may cost. */
export interface SizeCheck {
  ok: boolean;
  problems: Problem[];
  /** Cells the full grid over the same bounds and steps would need (what the search replaces). */
  gridCells: number;
  /** The search's budget: it never runs more cells than this. */
  maxCells: number;
  /** The longest it can take: maxCells × (warmup + duration + overhead). */
  etaSec: number;
  /** The saved target the check is for (absent: this machine). */
  target?: string;
  /** Where the check is not against the target as it is now, in words (as MatrixCheck's). */
  note?: string;
}

export interface Settings {
  baseImage: BaseStrategy;
}

export interface AnswerInput {
  runId: number;
  /** The knee: fewest workers within this % of the best req/s (default 5). */
  marginPct?: number;
  slo?: Slo;
  /** Prices to cost the answer at, over the run's stored ones (common/cost.ts); only those given. */
  prices?: { cpuHour?: number; gbHour?: number; replicaHour?: number };
}

export interface SaveFile {
  filename: string;
  /** Text as is, or binary (PNG) as base64. */
  content: string;
  encoding: 'utf8' | 'base64';
}

export interface RunProbeInput {
  runId: number;
  /** One cell of the run (a stored cell id), e.g. the one that just finished. */
  cellId?: number;
}

/** One cell's runtime probe as stored: what it heard and its seconds. */
export interface CellProbeSeconds {
  cellId: number;
  probe: StoredCellProbe | null;
  seconds: ProbeSecond[];
}

export interface ExportFile {
  filename: string;
  mime: string;
  content: string;
}

/** Every call: its input and output. */
export interface Calls {
  'engine.status': { input: Record<string, never>; output: EngineStatus };
  'engine.recheck': { input: Record<string, never>; output: EngineStatus };
  'apps.list': { input: Record<string, never>; output: AppInfo[] };
  /**
   * Checks a user app definition (folder, entry, ecosystem file, image) without saving it. `replacing`: the app being
   * edited.
   */
  'apps.check': { input: { app: unknown; replacing?: string }; output: AppCheck };
  'apps.add': { input: { app: unknown }; output: AppInfo };
  'apps.update': { input: { name: string; app: unknown }; output: AppInfo };
  'apps.remove': { input: { name: string }; output: { removed: boolean } };
  /** Builds (or finds) the app's image now; its log arrives on the apps.buildLog stream. */
  'apps.build': { input: { name: string }; output: { tag: string; built: boolean; seconds: number } };
  /** Builds the app, starts it once and asks its health path and each request: what answered, and what to change. */
  'apps.tryOut': { input: { name: string }; output: TryOutResult };
  /**
   * A HAR or an access log made into a weighted mix, without saving anything: its requests (one per route, with
   * weights), the routes with their shares and an example each, and what was dropped; or the problem, naming the line.
   */
  'apps.importRequests': { input: ImportRequestsInput; output: ImportOutcome };
  'presets.list': { input: Record<string, never>; output: Preset[] };
  /**
   * `target`: checked against that saved target's largest free node (its connection check) and
   * estimated with its cells at once (its concurrency), both asked at most every ~30 s and waited on
   * ≤ ~2 s; unknown, or no node free: a problem at path 'target'.
   */
  /** `name`: the run's name, whose earlier runs tell how much settling and verification to expect. */
  'matrix.validate': { input: { matrix: unknown; target?: string; name?: string }; output: MatrixCheck };
  /** `target`: where to run ('local' when absent); a saved target's name. */
  /** `baseline`: a run id or a saved baseline name to compare with when it is done (thresholdPct default 5). */
  'runs.start': {
    input: {
      matrix: unknown;
      name?: string;
      preset?: string;
      target?: string;
      baseline?: string;
      thresholdPct?: number;
    };
    output: { runId: number };
  };
  /** Checks an auto-size request (SizeSpec input) without starting it; `target` as for matrix.validate. */
  'size.validate': { input: { spec: unknown; target?: string }; output: SizeCheck };
  /**
   * Starts an auto-size search as a run (same events per cell as runs.start; runs.cancel stops it); its path is
   * RunDetail.search.
   */
  'runs.size': { input: { spec: unknown; name?: string; target?: string }; output: { runId: number } };
  'runs.cancel': { input: { runId: number }; output: { cancelled: boolean } };
  'runs.list': { input: ListRunsQuery; output: RunList };
  /** With `view`: the mixes its cells sent, in words (contract/views.ts). */
  'runs.get': { input: { runId: number }; output: ShownRun };
  'runs.delete': { input: { runId: number }; output: { deleted: boolean } };
  'runs.samples': { input: { runId: number }; output: { cellId: number; samples: Sample[] }[] };
  'cells.samples': { input: { cellId: number }; output: Sample[] };
  /**
   * The runtime probe of a run's cells (or of its cell `cellId` alone): what it heard (null: the probe was off) and
   * its seconds per process (t < 0: warm-up), each cell in run order.
   */
  'runs.probe': { input: RunProbeInput; output: CellProbeSeconds[] };
  /** `probe`: the runtime probe's seconds, one row per process and second. */
  'export.csv': {
    input: { runId: number; kind: 'cells' | 'samples' | 'probe' | 'configurations' };
    output: ExportFile;
  };
  /** The sizing answer: winners per CPU / memory pair with 95 % intervals, the SLO pick, flags, plain words. */
  /** With `view`: what the UI shows of it, worded by the engine (contract/views.ts). */
  'runs.recommend': { input: AnswerInput; output: ShownAnswer };
  /** The same answer as one self-contained HTML report. */
  'export.html': { input: AnswerInput; output: ExportFile };
  /**
   * PM2 / Kubernetes / Compose snippets of the recommended configuration, or of the measured cell `cellId` (a stored
   * cell id).
   */
  'deploy.snippets': { input: AnswerInput & { cellId?: number }; output: DeployAnswer };
  /** Save an export where the user chooses (Electron: a save dialog). Browsers download instead: saved=false. */
  'files.save': { input: SaveFile; output: { saved: boolean; path?: string; reason?: string } };
  'settings.get': { input: Record<string, never>; output: Settings };
  'settings.set': { input: Partial<Settings>; output: Settings };
  /** Where cells can run: 'local' (always there) and the saved targets. */
  'targets.list': { input: Record<string, never>; output: TargetInfo[] };
  /**
   * Saves a target ({name, kind, settings}); every problem at once (INVALID_INPUT with fields), nothing saved until all
   * are fixed.
   */
  'targets.add': { input: { target: unknown }; output: TargetInfo };
  'targets.remove': { input: { name: string }; output: { removed: boolean } };
  /**
   * Connects and checks, in words: nodes, free ones, and what is wrong (unreachable, TLS, permissions, no nodes free).
   */
  'targets.check': { input: { name: string }; output: TargetCheck };
  /**
   * A run against a baseline (`baseline`: a run id or a saved name; absent: the one it was compared with when it ran):
   * regressed / improved / unchanged / inconclusive per configuration and metric; comparison null: none asked or
   * stored.
   */
  'runs.compare': {
    input: { runId: number; baseline?: string; thresholdPct?: number };
    output: { comparison: ShownComparison | null; storedBaseline: RunBaselineSpec | null };
  };
  /** The saved baselines (a run per app under a name), for the Baseline picker. */
  'baselines.list': { input: Record<string, never>; output: SavedBaseline[] };
}

export type RunProgressEvent = Exclude<RunEvent, { type: 'sample' }>;
export type SampleEvent = Extract<RunEvent, { type: 'sample' }>;
export type CellFinishedEvent = Extract<RunEvent, { type: 'cell-finished' }>;

/** Every event stream: what a subscription asks for and what it receives. */
export interface Streams {
  'engine.status': { input: Record<string, never>; event: EngineStatus };
  'apps.buildLog': { input: { name?: string }; event: AppBuildLine };
  'run.progress': { input: { runId?: number }; event: RunProgressEvent };
  'run.samples': { input: { runId?: number; cellId?: number }; event: SampleEvent };
  'run.cellFinished': { input: { runId?: number }; event: CellFinishedEvent };
}

export type CallName = keyof Calls;
export type StreamName = keyof Streams;
export type CallInput<K extends CallName> = Calls[K]['input'];
export type CallOutput<K extends CallName> = Calls[K]['output'];
export type StreamInput<K extends StreamName> = Streams[K]['input'];
export type StreamEvent<K extends StreamName> = Streams[K]['event'];

/** `{a: true, b: true}` typed against the contract: adding a call without listing it here fails to compile. */
const callNames: { [K in CallName]: true } = {
  'engine.status': true,
  'engine.recheck': true,
  'apps.list': true,
  'presets.list': true,
  'matrix.validate': true,
  'apps.check': true,
  'apps.add': true,
  'apps.update': true,
  'apps.remove': true,
  'apps.build': true,
  'apps.tryOut': true,
  'apps.importRequests': true,
  'runs.start': true,
  'size.validate': true,
  'runs.size': true,
  'runs.cancel': true,
  'runs.list': true,
  'runs.get': true,
  'runs.delete': true,
  'runs.samples': true,
  'cells.samples': true,
  'runs.probe': true,
  'export.csv': true,
  'runs.recommend': true,
  'export.html': true,
  'deploy.snippets': true,
  'files.save': true,
  'settings.get': true,
  'settings.set': true,
  'targets.list': true,
  'targets.add': true,
  'targets.remove': true,
  'targets.check': true,
  'runs.compare': true,
  'baselines.list': true,
};
const streamNames: { [K in StreamName]: true } = {
  'engine.status': true,
  'apps.buildLog': true,
  'run.progress': true,
  'run.samples': true,
  'run.cellFinished': true,
};
export const CALL_NAMES = Object.keys(callNames) as CallName[];
export const STREAM_NAMES = Object.keys(streamNames) as StreamName[];

/** Electron IPC channels, derived from the names above: no channel string is written twice. */
export const callChannel = (name: CallName): string => `rightsize:call:${name}`;
export const STREAM_CHANNELS = {
  subscribe: 'rightsize:stream:subscribe',
  unsubscribe: 'rightsize:stream:unsubscribe',
  event: 'rightsize:stream:event',
} as const;

/** What every call returns over any transport: errors travel as data and are rebuilt on the other side. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: ContractErrorData };

export type ErrorCode =
  | 'INVALID_INPUT'
  | 'MATRIX_INVALID'
  | 'SIZE_INVALID'
  | 'APP_INVALID'
  | 'BUILD_FAILED'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'DOCKER_UNAVAILABLE'
  | 'UNKNOWN_CALL'
  | 'INTERNAL';
export interface ContractErrorData {
  code: ErrorCode;
  message: string;
  /** Field-by-field problems, for forms. */
  fields?: Problem[];
}

export class ContractError extends Error {
  readonly code: ErrorCode;
  readonly fields: Problem[];
  constructor(data: ContractErrorData) {
    super(data.message);
    this.name = 'ContractError';
    this.code = data.code;
    this.fields = data.fields ?? [];
  }
  toData(): ContractErrorData {
    return { code: this.code, message: this.message, ...(this.fields.length ? { fields: this.fields } : {}) };
  }
}

export function unwrap<T>(e: Envelope<T>): T {
  if (e.ok) return e.value;
  throw new ContractError(e.error);
}

/** Messages over the stream socket / IPC stream channels. */
export type StreamClientMessage =
  { op: 'subscribe'; id: number; stream: StreamName; input: unknown } | { op: 'unsubscribe'; id: number };
export type StreamServerMessage =
  { op: 'event'; id: number; event: unknown } | { op: 'error'; id: number; error: ContractErrorData };
