// `rightsize run --dry-run`: the matrix a run would get (same options, same transformations),
// checked where its cells would run by the check the UI's Builder uses before Start
// (service/validation.ts: the target's largest free node from its connection check, never a sweep),
// then listed with its counts and the run's estimate. Nothing is started or written: no run row, no
// lab lock, no image build or pull, no container, no start-up recovery; a history file that does
// not exist is not created. Where Docker does not answer, this machine's cores and memory are the
// limits, said in one line, so a CI machine without Docker can check a matrix file.
import { linkText } from '../../common/labels.ts';
import type { RunEstimate } from '../../model/estimate.ts';
import { OVERHEAD_DEFAULT_SEC, WARMUP_EXTRA_DEFAULT_SEC } from '../../engine/estimate.ts';
import { envText } from '../../analysis/names.ts';
import { existsSync } from 'node:fs';
import { appLibrary, resolveApps } from '../../apps/library.ts';
import { fmtDuration, fmtNum } from '../../common/format.ts';
import { checkEngine, docker, DockerUnavailableError, type EngineInfo } from '../../docker/client.ts';
import { expandMatrix, MatrixInvalidError, MatrixSchema, type Matrix, type Problem } from '../../engine/matrix.ts';
import { coresShortfall } from '../../engine/matrix-dimensions.ts';
import { settleBudgetSec } from '../../engine/settle.ts';
import type { CellConfig } from '../../model/types.ts';
import { Validation } from '../../service/validation.ts';
import { resolveDbPath, Store } from '../../store/index.ts';
import { TargetRegistry } from '../../targets/registry.ts';
import { LOCAL_TARGET } from '../../targets/settings.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { table } from '../format.ts';
import { parseSloOption } from './report.ts';
import { runInput, type RunCommandOptions } from './run.ts';
import { resolveTargetOption } from './targets.ts';

/** Version of the `run --dry-run --json` document (bump when a field is removed or changes meaning). */
export const DRY_RUN_JSON_SCHEMA_VERSION = 1;

/** What `run --dry-run --json` prints: the verdict, and for a valid matrix its cells and estimate. */
export interface DryRunDoc {
  schemaVersion: number;
  dryRun: true;
  valid: boolean;
  /** The run's name as a run would take it (--name, the matrix's name, the preset, or "matrix"). */
  name: string;
  /** Where the cells would run: "local" (this machine) or a saved target's name. */
  target: string;
  /** This machine's limits the matrix was checked against (null for a saved target: its largest free node). */
  limits: { cores: number; memoryMb: number } | null;
  /** Where the check or the estimate is not the target's as it is now, in words. */
  notes: string[];
  problems: Problem[];
  /** The grid's cells in the order a run takes them (empty when invalid). */
  cells: CellConfig[];
  counts: { cells: number; configurations: number; repetitions: number };
  /** The phases a run plans after the grid: settling's budget (only while undecided) and verification. */
  phases: { settleBudgetPct: number; settleBudgetSec: number; verify: boolean };
  /** The estimate the run would announce (the grid), in seconds. */
  estimateSec: number;
  /** How the estimate adds up (engine/estimate.ts): the grid, settling and verification as ranges. */
  estimate?: RunEstimate;
  cellsAtOnce: number;
  /** The cells likely client-bound on this machine, with the remedy; null when none is or nothing is known. */
  forecast: string | null;
}

/** The history as it is, read only for user apps, saved targets and this host's history; never created. */
function openHistory(o: RunCommandOptions): Store {
  const file = resolveDbPath({ ...(o.db ? { db: o.db } : {}), ...(o.dataDir ? { dataDir: o.dataDir } : {}) });
  try {
    return Store.open(existsSync(file) ? file : ':memory:');
  } catch (e) {
    throw new CliError((e as Error).message, EXIT.error);
  }
}

/** This machine's engine, or null with the line that says the limits are this machine's instead. */
async function localEngine(): Promise<{ engine: EngineInfo | null; note?: string }> {
  try {
    return { engine: await checkEngine() };
  } catch (e) {
    if (!(e instanceof DockerUnavailableError)) throw e;
    return { engine: null, note: `Docker did not answer at ${e.target}` };
  }
}

/**
 * An app's image looked up on this engine only: a dry run pulls nothing. Missing or unknown is no
 * problem here (a run pulls it first, and names it if the pull fails); the notes say which.
 */
const lookUpOnly =
  (notes: string[]) =>
  async (image: string): Promise<{ id: string }> => {
    try {
      return { id: (await docker().getImage(image).inspect()).Id };
    } catch (e) {
      notes.push(
        (e as { statusCode?: number }).statusCode === 404
          ? `image ${image} is not on this engine: a run pulls it first`
          : `image ${image} was not looked up: Docker did not answer`,
      );
      return { id: '' };
    }
  };

/** The grid in the order a run takes it; a shuffle without a seed is listed unshuffled (the run picks one). */
function gridOf(m: Matrix, imageApps: Parameters<typeof expandMatrix>[1]): { cells: CellConfig[]; note?: string } {
  if (m.order !== 'shuffle') return { cells: expandMatrix(m, imageApps) };
  if (m.seed !== undefined)
    return { cells: expandMatrix(m, imageApps), note: `shuffled with seed ${m.seed}, as the run will take them` };
  return {
    cells: expandMatrix({ ...m, order: 'fixed' }, imageApps),
    note: 'the run shuffles these cells with a seed it picks at start (give "seed" to fix it); listed unshuffled',
  };
}

/**
 * The columns of a matrix's own dimensions: replicas, Node.js version and flags, each only when some
 * cell has it (a matrix without them lists as before). CPU and memory are per replica.
 */
const DIMENSION_COLUMNS: { head: string; has: (c: CellConfig) => boolean; cell: (c: CellConfig) => string }[] = [
  { head: 'replicas', has: (c) => (c.replicas ?? 1) >= 2, cell: (c) => String(c.replicas ?? 1) },
  { head: 'node', has: (c) => c.node !== undefined, cell: (c) => c.node ?? 'default' },
  { head: 'flags', has: (c) => Boolean(c.nodeFlags?.length), cell: (c) => c.nodeFlags?.join(' ') || 'none' },
  { head: 'settings', has: (c) => Boolean(c.envSet), cell: (c) => envText(c.envSet) ?? 'none' },
];

/** A compact table of planned cells, in `rightsize show`'s words. */
export function plannedCellsTable(cells: readonly CellConfig[]): string {
  const extra = DIMENSION_COLUMNS.filter((d) => cells.some(d.has));
  const perReplica = extra.some((d) => d.head === 'replicas') ? ' each' : '';
  return table(
    [
      '#',
      'app',
      'mode',
      'workers',
      ...extra.map((d) => d.head),
      `cpu${perReplica}`,
      `memory${perReplica}`,
      'load',
      'duration',
      'warm-up',
      'rep',
    ],
    cells.map((c) => [
      String(c.index + 1),
      c.app + (c.requests ? ` [${c.requests.name}]` : ''),
      c.mode,
      String(c.workers),
      ...extra.map((d) => d.cell(c)),
      `${c.cpuMillis}m`,
      `${c.memoryMb} MB`,
      (c.load.model === 'closed' ? `${c.load.connections} conn` : `${c.load.rate} rps`) +
        (c.load.threads !== undefined ? `, ${c.load.threads} thr` : '') +
        linkText(c.load),
      `${c.durationSec} s`,
      `${c.warmupSec} s`,
      String(c.repetition + 1),
    ]),
  );
}

/** Where this machine cannot give the largest cell's replicas and its load cores of their own, in words. */
function coresNote(m: Matrix, cores: number): string | undefined {
  const short = m.placement === 'auto' ? coresShortfall(m, cores) : null;
  if (!short) return undefined;
  const lead = `the largest cell needs ${short.apart} cores to give its target and its load cores of their own`;
  return short.together <= cores
    ? `${lead}; this machine has ${short.have}, so its replicas share ${short.together - 1} (the load keeps its own)`
    : `${lead}; this machine has ${short.have}, so they share cores and results are pessimistic`;
}

/** How the estimate adds up, with what it learned from this machine's history. */
function estimateLine(e: RunEstimate): string {
  const r = (p: RunEstimate['settle']): string =>
    p.sec.high === 0
      ? 'none'
      : `${fmtDuration(p.sec.low)}–${fmtDuration(p.sec.high)}, expected ${fmtDuration(p.sec.expected)}`;
  const learned = e.basis.filter((b) => b.cells > 0);
  const whose = (b: RunEstimate['basis'][number]): string =>
    b.from === 'app'
      ? `${b.app} ${b.mode}`
      : b.from === 'mode'
        ? `${b.mode} (other apps', for ${b.app})`
        : `(any app's, for ${b.app} ${b.mode})`;
  const cells = learned.map((b) => `${b.cells} ${whose(b)}`).join(', ');
  const from = learned.length
    ? `warm-up and start-up as the latest ${cells} cells took here`
    : 'no cell has run here yet: each cell’s least warm-up (as configured or, where longer, its processes’ JIT ' +
      `floor) plus the ${WARMUP_EXTRA_DEFAULT_SEC} s the adaptive warm-up typically adds, none at the bottom of the ` +
      `range and up to its cap at the top, and ${OVERHEAD_DEFAULT_SEC} s around each cell`;
  const worlds = [...new Set(e.basis.filter((b) => b.worldSec).map((b) => b.app))];
  const world = worlds.length
    ? `; ${fmtNum(e.basis.find((b) => b.worldSec)!.worldSec!, 1)} s more around each cell of ${worlds.join(', ')} ` +
      `for ${worlds.length === 1 ? 'its' : 'their'} dependencies, which no cell timed here started`
    : '';
  const runs = e.runs ? `; phases as the latest ${e.runs} run${e.runs === 1 ? '' : 's'} of this name` : '';
  return (
    `Estimate: grid ${fmtDuration(e.gridSec)}; settling ${r(e.settle)}; verification ${r(e.verify)}; ` +
    `${fmtDuration(e.lowSec)}–${fmtDuration(e.highSec)} in all (${from}${world}${runs}).`
  );
}

/** The phases after the grid, in words: what they may add and when. */
function phasesLine(p: DryRunDoc['phases']): string {
  const settle =
    p.settleBudgetPct > 0
      ? `settling, only while the answer is undecided: up to ${p.settleBudgetPct} % of the grid's measured time ` +
        `(${fmtDuration(p.settleBudgetSec)})`
      : 'no settling (budget 0)';
  const verify = p.verify
    ? 'verification: the pick run exactly as its deploy snippets deploy it (one cell or a few more)'
    : 'no verification (--no-verify or "verify": false)';
  return `After the grid: ${settle}; ${verify}.`;
}

function describeValid(d: DryRunDoc, orderNote: string | undefined): string {
  const where =
    d.target === LOCAL_TARGET
      ? `this machine (${d.limits!.cores} cores, ${fmtNum(d.limits!.memoryMb)} MB)`
      : `the target "${d.target}"`;
  const { cells, configurations, repetitions } = d.counts;
  const times = `${configurations} configuration${configurations === 1 ? '' : 's'} × ${repetitions} repetition`;
  const atOnce = d.cellsAtOnce === 1 ? 'one cell at a time' : `${d.cellsAtOnce} cells at once`;
  return [
    `Matrix "${d.name}" is valid on ${where}.`,
    ...d.notes.map((n) => `Note: ${n}.`),
    plannedCellsTable(d.cells),
    ...(orderNote ? [`Order: ${orderNote}.`] : []),
    `${cells} cell${cells === 1 ? '' : 's'} (${times}${repetitions === 1 ? '' : 's'}), ` +
      `about ${fmtDuration(d.estimateSec)} (${atOnce}).`,
    phasesLine(d.phases),
    ...(d.estimate ? [estimateLine(d.estimate)] : []),
    ...(d.forecast ? [d.forecast] : []),
    'Nothing was started (--dry-run).',
  ].join('\n');
}

/** `rightsize run --dry-run`: exit 0 when the matrix is valid where it would run, else the run's refusal. */
export async function dryRunCommand(o: RunCommandOptions): Promise<number> {
  const { input, preset } = runInput(o);
  if (o.slo) parseSloOption(o.slo); // a bad objective is refused as a run refuses it
  const store = openHistory(o);
  try {
    const target = o.target ?? LOCAL_TARGET;
    if (target !== LOCAL_TARGET) resolveTargetOption(store, target); // an unknown name: the run's usage error
    const local = target === LOCAL_TARGET ? await localEngine() : { engine: null };
    const validation = new Validation(store, () => local.engine, new TargetRegistry(store));
    // As a run names it; its earlier runs tell the estimate what to expect.
    const name = o.name ?? nameOf(input) ?? preset ?? 'matrix';
    const check = await validation.matrix(input, target === LOCAL_TARGET ? undefined : target, name);
    const limits = validation.localLimits();
    const notes = [
      ...(local.note
        ? [`${local.note}: checked against this machine's ${limits.cores} cores and ${fmtNum(limits.memoryMb)} MB`]
        : []),
      ...(check.note ? [check.note] : []),
    ];
    let problems = check.problems;
    let matrix: Matrix | undefined;
    if (check.ok) {
      matrix = MatrixSchema.parse(input); // valid: its defaults filled in, as the run's validation gives it
      // User apps are checked as a run checks them (folder, entry, ecosystem file); images only looked up.
      const resolved = await resolveApps(appLibrary(store), matrix.apps, lookUpOnly(notes));
      if (!resolved.ok) problems = resolved.problems;
    }
    const doc: DryRunDoc = {
      schemaVersion: DRY_RUN_JSON_SCHEMA_VERSION,
      dryRun: true,
      valid: problems.length === 0,
      name,
      target,
      limits: target === LOCAL_TARGET ? { cores: limits.cores, memoryMb: limits.memoryMb } : null,
      notes,
      problems,
      cells: [],
      counts: { cells: 0, configurations: 0, repetitions: 0 },
      phases: { settleBudgetPct: 0, settleBudgetSec: 0, verify: false },
      estimateSec: 0,
      cellsAtOnce: check.cellsAtOnce,
      forecast: null,
    };
    if (!doc.valid || !matrix) return refuse(doc, o);
    const grid = gridOf(matrix, limits.imageApps);
    const cores = target === LOCAL_TARGET ? coresNote(matrix, limits.cores) : undefined;
    if (cores) doc.notes.push(cores);
    Object.assign(doc, {
      cells: grid.cells,
      counts: {
        cells: grid.cells.length,
        configurations: grid.cells.length / matrix.repetitions,
        repetitions: matrix.repetitions,
      },
      phases: {
        settleBudgetPct: matrix.settleBudgetPct,
        settleBudgetSec: settleBudgetSec(grid.cells, matrix.settleBudgetPct),
        verify: matrix.verify,
      },
      estimateSec: check.etaSec,
      ...(check.estimate ? { estimate: check.estimate } : {}),
      forecast: check.forecast?.message ?? null,
    } satisfies Partial<DryRunDoc>);
    process.stdout.write(o.json ? `${JSON.stringify(doc, null, 2)}\n` : `${describeValid(doc, grid.note)}\n`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}

const nameOf = (input: unknown): string | undefined => {
  const n = input !== null && typeof input === 'object' ? (input as { name?: unknown }).name : undefined;
  return typeof n === 'string' && n ? n : undefined;
};

/**
 * The run's refusal, word for word, with its exit code: a target not ready (exit 7) or an invalid
 * matrix (exit 2). With --json the document goes to stdout first.
 */
function refuse(doc: DryRunDoc, o: RunCommandOptions): number {
  if (o.json) process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  const code = doc.problems.some((p) => p.path === 'target') ? EXIT.targetNotReady : EXIT.usage;
  const notes = doc.notes.map((n) => `Note: ${n}.\n`).join('');
  process.stderr.write(`${notes}rightsize: ${new MatrixInvalidError(doc.problems).message}\n`);
  return code;
}
