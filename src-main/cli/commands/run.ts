import { readFileSync } from 'node:fs';
import { cancelOnSignals, failureBeforeStart } from '../run-lifecycle.ts';
import type { BaseStrategy } from '../../docker/base-image.ts';
import { runMatrix } from '../../engine/run-matrix.ts';
import { DEFAULT_LOAD, validateMatrix } from '../../engine/matrix.ts';
import { forecastMatrix, hostHistory } from '../../engine/client-forecast.ts';
import { hostLimits } from '../../engine/host.ts';
import { appLibrary, appNames, imageAppsOf } from '../../apps/library.ts';
import { checkEngine } from '../../docker/client.ts';
import type { Store } from '../../store/index.ts';
import { targetProviderOption } from './targets.ts';
import { findPreset, unknownPresetMessage } from '../../presets/presets.ts';
import { openStore, type GlobalOptions } from '../context.ts';
import { cellsTable } from '../describe.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { progressPrinter } from '../progress.ts';
import { rightsizeCommand } from '../invocation.ts';
import { recommend } from '../../analysis/index.ts';
import type { Recommendation } from '../../analysis/types.ts';
import { describeHolder } from '../../lab-lock/lab-lock.ts';
import { stopReaper } from '../../reaper/reaper.ts';
import { deployStatusLine, explainHint, formatRecommendation, parseSloOption } from './report.ts';
import { cancelledSummary } from '../cancelled-summary.ts';
import { withPrices, type PriceOptions } from '../prices-option.ts';
import { recommendedDeployOf } from '../../deploy/from-cell.ts';
import { afterRun, checkBaselineOptions, gateText, type BaselineOptions } from '../baseline-gate.ts';

/**
 * Version of the `run --json` document. Bump it when a field is removed or changes meaning (adding
 * fields is compatible): CI scripts check it before they read the rest.
 */
export const RUN_JSON_SCHEMA_VERSION = 1;

/** Whether every workload has a configuration meeting the objective (false when nothing could be judged). */
export function sloMet(rec: Recommendation | null): boolean {
  return Boolean(rec && rec.sloOutcomes.length > 0 && rec.sloOutcomes.every((o) => o.met !== null));
}

export interface RunCommandOptions extends GlobalOptions, BaselineOptions, PriceOptions {
  preset?: string;
  config?: string;
  name?: string;
  yes?: boolean;
  base?: BaseStrategy;
  verbose?: boolean;
  slo?: string;
  /** Queue behind another run or build holding the lab instead of exiting with EXIT.labBusy. */
  wait?: boolean;
  /** A saved target's name (default: this machine's engine). */
  target?: string;
  /** Load threads per cell (--load-threads), over the matrix's load.threads. */
  loadThreads?: string;
  /** --tls-resume: the matrix's load.tlsResume set (a re-opened TLS connection resumes its session). */
  tlsResume?: boolean;
  /** --settle-budget PCT, over the matrix's settleBudgetPct. */
  settleBudget?: string;
  /** false with --no-verify, over the matrix's verify. */
  verify?: boolean;
  /** false with --no-probe, over the matrix's probe (commander sets true when the flag is absent). */
  probe?: boolean;
  /** Print every sentence of the answer and its methods, not only the headline and summary. */
  explain?: boolean;
  /** --dry-run: check and list the matrix where it would run, start nothing (commands/run-dry.ts). */
  dryRun?: boolean;
}

/**
 * The matrix with --load-threads applied as its `load.threads` (the matrix's validation then checks
 * it against the host's cores and the connections). Only a whole number gets that far.
 */
export function withLoadThreads(matrix: unknown, value: string | undefined): unknown {
  if (value === undefined) return matrix;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new CliError(
      `--load-threads should be a whole number of load threads, 1 or more (got "${value}").`,
      EXIT.usage,
    );
  return withLoad(matrix, { threads: Number(value) });
}

/** The matrix with --tls-resume as its `load.tlsResume` (the validation refuses it where no cell speaks TLS). */
export const withTlsResume = (matrix: unknown, on: boolean | undefined): unknown =>
  on ? withLoad(matrix, { tlsResume: true }) : matrix;

/** The matrix's load (the default when it names none) with `over` applied; a wrong shape is left to the validation. */
function withLoad(matrix: unknown, over: object): unknown {
  if (matrix === null || typeof matrix !== 'object' || Array.isArray(matrix)) return matrix;
  const load = (matrix as { load?: unknown }).load ?? { ...DEFAULT_LOAD, connections: [...DEFAULT_LOAD.connections] };
  if (load === null || typeof load !== 'object' || Array.isArray(load)) return matrix;
  return { ...matrix, load: { ...load, ...over } };
}

/**
 * The matrix with --settle-budget and --no-verify applied as its `settleBudgetPct` and `verify`
 * (a bad percentage is named by the matrix's own validation, as from a file).
 */
export function withRunPhases(matrix: unknown, settleBudget: string | undefined, verify: boolean | undefined): unknown {
  if (matrix === null || typeof matrix !== 'object' || Array.isArray(matrix)) return matrix;
  let out = matrix as Record<string, unknown>;
  if (settleBudget !== undefined) {
    const pct = Number(settleBudget.trim().replace(/%$/, ''));
    if (settleBudget.trim() === '' || !Number.isFinite(pct))
      throw new CliError(
        "--settle-budget should be a percentage of the grid's measured time, e.g. 50 (0 turns settling off); " +
          `got "${settleBudget}".`,
        EXIT.usage,
      );
    out = { ...out, settleBudgetPct: pct };
  }
  if (verify === false) out = { ...out, verify: false };
  return out;
}

/** The matrix with --no-probe applied as its `probe: false`; without the flag the matrix's own choice stands. */
export function withProbeSwitch(matrix: unknown, probe: boolean | undefined): unknown {
  if (probe !== false || matrix === null || typeof matrix !== 'object' || Array.isArray(matrix)) return matrix;
  return { ...matrix, probe: false };
}

function loadMatrix(o: RunCommandOptions): { matrix: unknown; preset?: string } {
  if (Boolean(o.preset) === Boolean(o.config))
    throw new CliError('Give exactly one of --preset NAME or --config FILE.', EXIT.usage);
  if (o.preset) {
    const p = findPreset(o.preset);
    if (!p) throw new CliError(unknownPresetMessage(o.preset), EXIT.usage);
    return { matrix: p.matrix, preset: p.name };
  }
  let text: string;
  try {
    text = readFileSync(o.config!, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read ${o.config}: ${(e as Error).message}`, EXIT.usage);
  }
  try {
    return { matrix: JSON.parse(text) as unknown };
  } catch (e) {
    throw new CliError(`${o.config} is not valid JSON: ${(e as Error).message}`, EXIT.usage);
  }
}

/**
 * The matrix a run gets from its options: the preset or file with every option that shapes it applied
 * (--load-threads, --tls-resume, --settle-budget, --no-verify, --no-probe, --yes). `run --dry-run` checks the same.
 */
export function runInput(o: RunCommandOptions): { input: unknown; preset?: string } {
  const loaded = loadMatrix(o);
  const load = withTlsResume(withLoadThreads(loaded.matrix, o.loadThreads), o.tlsResume);
  const phased = withRunPhases(load, o.settleBudget, o.verify);
  // --cpu-price / --memory-price / --replica-price: stored with the run as the matrix's "prices".
  const matrix = withPrices(withProbeSwitch(phased, o.probe), o);
  // Only a plain object gets the flag: a list or null must reach validation as it is, to be named as such.
  const input =
    o.yes && matrix !== null && typeof matrix === 'object' && !Array.isArray(matrix)
      ? { ...matrix, confirmLarge: true }
      : matrix;
  return { input, ...(loaded.preset ? { preset: loaded.preset } : {}) };
}

/**
 * Before anything starts: the cells likely client-bound on this machine, with the remedy, from this
 * host's history and its load thread's stored ceiling (engine/client-forecast.ts). Undefined when
 * none is likely, when nothing client-bound has been measured here yet (the first such cell
 * calibrates it), or when the matrix is invalid (the run names its problems) or Docker does not answer.
 */
export async function clientForecastLine(store: Store, matrix: unknown): Promise<string | undefined> {
  try {
    const lib = appLibrary(store);
    const limits = hostLimits(await checkEngine(), appNames(lib), imageAppsOf(lib));
    const v = validateMatrix(matrix, limits);
    if (!v.ok) return undefined;
    return forecastMatrix(store, v.matrix, limits.cores, limits.imageApps)?.message ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * After a run: the stored ceiling follows its client-bound cells (the next forecast reads it, even after the run is
 * deleted).
 */
function refreshCeiling(store: Store): void {
  try {
    hostHistory(store);
  } catch {
    // a forecast's bookkeeping never fails a run
  }
}

export async function runCommand(o: RunCommandOptions): Promise<number> {
  const { input, preset } = runInput(o);
  const slo = o.slo ? parseSloOption(o.slo) : undefined; // a bad objective fails before anything starts
  const log = o.json ? process.stderr : process.stdout;
  const cancel = cancelOnSignals(log);
  let store: Awaited<ReturnType<typeof openStore>>['store'] | undefined;
  try {
    store = (await openStore(o, (l) => log.write(`${l}\n`))).store;
    const baselineSpec = checkBaselineOptions(store, o); // a bad --baseline fails before anything starts
    const provider = targetProviderOption(store, o.target);
    if (!provider) {
      const warning = await clientForecastLine(store, input);
      if (warning) log.write(`${warning}\n`);
    }
    const outcome = await runMatrix(input, {
      store,
      ...(o.name ? { name: o.name } : {}),
      ...(preset ? { preset } : {}),
      ...(o.base ? { base: o.base } : {}),
      signal: cancel.signal,
      onEvent: progressPrinter(log, Boolean(o.verbose)),
      waitForLab: Boolean(o.wait),
      onLabWait: (holder) => log.write(`Waiting for the lab: ${describeHolder(holder)}. Ctrl-C to give up.\n`),
      ...(provider ? { provider } : {}),
    });
    refreshCeiling(store);
    const run = store.getRun(outcome.runId)!;
    const recommendation = run.cells.length
      ? recommend(run, {
          samples: store.getRunSamples(run.id),
          probe: store.getRunProbeSeconds(run.id),
          ...(slo ? { slo } : {}),
        })
      : null;
    const met = slo ? sloMet(recommendation) : null;
    const gate = afterRun(store, run, outcome.status === 'cancelled' ? null : baselineSpec, o);
    if (o.json) {
      const doc = {
        schemaVersion: RUN_JSON_SCHEMA_VERSION,
        runId: run.id,
        status: run.status,
        error: run.error,
        slo: slo ? { objective: o.slo, met } : null,
        cells: run.cells,
        recommendation,
        baseline: gate.comparison,
      };
      process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    } else if (outcome.status === 'cancelled') {
      log.write(`\n${cancelledSummary(run)}\n`);
    } else if (recommendation) {
      const deployStatus = deployStatusLine(run.id, recommendedDeployOf(run, recommendation));
      const answer = formatRecommendation(recommendation, Boolean(o.explain));
      log.write(`\n${cellsTable(run.cells)}\n\n${answer}${deployStatus}${o.explain ? '' : explainHint(run.id)}\n`);
      const rs = rightsizeCommand();
      log.write(
        `See it again: ${rs} show ${run.id}   Report: ${rs} report ${run.id} --html report.html   ` +
          `CSV: ${rs} export ${run.id} --csv cells.csv\n`,
      );
    }
    // With --json the verdicts are in the document; stderr still says a missing baseline or the saved name.
    log.write(gateText(o.json ? { ...gate, comparison: null } : gate));
    if (outcome.status === 'cancelled') return EXIT.cancelled;
    if (outcome.status === 'failed') return EXIT.runFailed;
    if (met === false) {
      // "Not met" and "nothing could be judged" (every configuration unstable, failed or over the error limit) read
      // differently.
      const judged = (recommendation?.sloOutcomes.length ?? 0) > 0;
      log.write(
        judged
          ? `No configuration meets the objective "${o.slo}" (exit ${EXIT.sloNotMet}).\n`
          : `No configuration could be judged against the objective "${o.slo}": every one was set aside ` +
              `(unstable, failed or over the error limit; see above). Exit ${EXIT.sloNotMet}.\n`,
      );
      return EXIT.sloNotMet;
    }
    if (gate.comparison?.gateFailed) {
      log.write(`Regressed against the baseline (exit ${EXIT.regressed}).\n`);
      return EXIT.regressed;
    }
    // A verification attempt that failed is how the step-up works, not a failed cell of the experiment.
    return outcome.cells.some((c) => c.status !== 'ok' && c.config.phase !== 'verify') ? EXIT.cellsFailed : EXIT.ok;
  } catch (e) {
    return failureBeforeStart(e, cancel.signal.aborted, log, 'run');
  } finally {
    store?.close();
    await stopReaper().catch(() => {}); // everything of ours is gone: the reaper makes a last pass and leaves
    cancel.dispose();
  }
}
