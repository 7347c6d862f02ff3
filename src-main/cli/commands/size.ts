// `rightsize size`: the cheapest configuration that meets an objective, found by an adaptive search
// (engine/auto-size) instead of a grid. Shares run's pieces: the objective parser, signals and
// cancel, the lab (--wait), the progress printer and the reaper stop.
import type { BaseStrategy } from '../../docker/base-image.ts';
import { cancelOnSignals, failureBeforeStart } from '../run-lifecycle.ts';
import { targetProviderOption } from './targets.ts';
import { runSearch } from '../../engine/auto-size/run-search.ts';
import { SizeSpecInvalidError, validateSizeSpec, type SizeSpecInput } from '../../engine/auto-size/spec.ts';
import type { HostLimits } from '../../engine/matrix.ts';
import type { SearchTrace } from '../../model/search.ts';
import { LAUNCH_MODES } from '../../model/types.ts';
import { didYouMean, type Problem } from '../../common/issues.ts';
import { describeHolder } from '../../lab-lock/lab-lock.ts';
import { stopReaper } from '../../reaper/reaper.ts';
import { openStore, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { rightsizeCommand } from '../invocation.ts';
import { progressPrinter } from '../progress.ts';
import { parseSloOption } from './report.ts';
import { withPrices, type PriceOptions } from '../prices-option.ts';

/** Version of the `size --json` document (bump when a field is removed or changes meaning). */
export const SIZE_JSON_SCHEMA_VERSION = 1;

/** The exit codes of `size`, for its --help. */
export const SIZE_EXIT_HELP = [
  `  ${EXIT.ok}    found: the cheapest configuration meeting the objective, with confidence`,
  `  ${EXIT.sloNotMet}   no configuration was shown to meet it: none within the bounds does, ` +
    'or the budget (--max-cells) ran out undecided (the answer says which)',
  `  ${EXIT.usage}    bad arguments: nothing started`,
  `  ${EXIT.docker}    Docker unreachable`,
  `  ${EXIT.runFailed}    the search failed (e.g. the image would not build)`,
  `  ${EXIT.labBusy}    another Rightsize run or build holds this Docker engine (use --wait to queue)`,
  `  ${EXIT.cancelled}  cancelled (Ctrl-C, SIGTERM, SIGHUP)`,
  `  ${EXIT.error}    unexpected error`,
].join('\n');

export interface SizeCommandOptions extends GlobalOptions, PriceOptions {
  /** --cheapest: the lowest price per hour at the prices, not the smallest CPU. */
  cheapest?: boolean;
  app?: string;
  slo?: string;
  rate?: string;
  cpu?: string;
  memory?: string;
  workers?: string;
  modes?: string;
  maxCells?: string;
  duration?: string;
  warmup?: string;
  cpuStep?: string;
  memoryStep?: string;
  /** false with --no-probe. */
  probe?: boolean;
  name?: string;
  wait?: boolean;
  /** A saved target's name (default: this machine's engine). */
  target?: string;
  base?: BaseStrategy;
  verbose?: boolean;
}

const usage = (message: string): CliError => new CliError(message, EXIT.usage);

/** A problem with one option, named as the user typed it ("--rate"), not as the engine stores it. */
class OptionProblem extends CliError {
  constructor(
    readonly flag: string,
    /** What is wrong, without the option's name. */
    readonly detail: string,
  ) {
    super(`${flag}${detail.startsWith('takes') ? ' ' : ': '}${detail}`, EXIT.usage);
  }
}

function num(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(n)) throw new OptionProblem(flag, `takes a number, not "${text}".`);
  return n;
}

/** "250-2000" (or one value "1000" for min = max). */
export function parseRange(flag: string, text: string | undefined): { min: number; max: number } | undefined {
  if (text === undefined) return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:[-–]\s*(\d+(?:\.\d+)?))?\s*$/.exec(text);
  if (!m) {
    const example = flag === '--cpu' ? '250-2000' : flag === '--memory' ? '128-1024' : '1-4';
    throw new OptionProblem(flag, `takes a range "MIN-MAX" (e.g. ${flag} ${example}), not "${text}".`);
  }
  const min = Number(m[1]);
  return { min, max: m[2] === undefined ? min : Number(m[2]) };
}

/** The objective: p99 and errors; the rate comes from --rate (an rps clause, if any, must say the same). */
export function parseSizeSlo(text: string, rate: number | undefined): { p99Ms: number; maxErrorPct: number } {
  const hasRps = /(^|,)\s*(rps|req\/s)\s*(>=|≥|>|=|<=|<)/i.test(text);
  const hasErrors = /(^|,)\s*(errors?|err)\s*(<=|≤|<|=|>=|>)/i.test(text);
  let slo;
  try {
    slo = parseSloOption([text, hasRps ? '' : 'rps>=0', hasErrors ? '' : 'errors<=100%'].filter(Boolean).join(','));
  } catch (e) {
    throw new OptionProblem('--slo', (e as Error).message.replace(/^--slo: /, ''));
  }
  if (hasRps && rate !== undefined && slo.minRps !== rate)
    throw new OptionProblem(
      '--slo',
      `the rate is --rate ${rate}; leave rps out of the objective (it says ${slo.minRps}).`,
    );
  if (!hasErrors)
    throw new OptionProblem(
      '--slo',
      'needs an error limit too, e.g. "p99<=50ms,errors<=0.1%" (errors<=100% for none).',
    );
  return { p99Ms: slo.p99Ms, maxErrorPct: slo.maxErrorPct };
}

/** The option each field of the search request comes from: the engine's problems are said with these names. */
export const SIZE_FLAGS: Record<string, string> = {
  app: '--app',
  slo: '--slo',
  'slo.p99Ms': '--slo',
  'slo.maxErrorPct': '--slo',
  'slo.minRps': '--slo',
  rate: '--rate',
  bounds: '--cpu/--memory/--workers/--modes',
  'bounds.cpuMillis': '--cpu',
  'bounds.memoryMb': '--memory',
  'bounds.workers': '--workers',
  'bounds.modes': '--modes',
  durationSec: '--duration',
  warmupSec: '--warmup',
  maxCells: '--max-cells',
  cpuStepMillis: '--cpu-step',
  memoryStepMb: '--memory-step',
};

/** An engine problem ("bounds.cpuMillis: …") said with the option it came from ("--cpu: …"). */
export function asOptionProblem(p: Problem): Problem {
  const key = Object.keys(SIZE_FLAGS)
    .filter((k) => p.path === k || p.path.startsWith(`${k}.`))
    .sort((a, b) => b.length - a.length)[0];
  return key ? { path: SIZE_FLAGS[key]!, message: p.message } : p;
}

/** Every problem, one line each, the way `run` lists a matrix's. */
export function optionsInvalid(problems: Problem[]): CliError {
  const lines = problems.map((p) => `  - ${p.path}: ${p.message}`);
  return usage(`The options are not valid; nothing was started:\n${lines.join('\n')}`);
}

/**
 * What the search request needs from this machine's limits: none, so that with options already wrong
 * the ranges of the right ones are named too (the real limits are checked when the search starts).
 */
const ANY_HOST = (app: string | undefined): HostLimits => ({
  cores: 1024,
  memoryMb: 1024 * 1024,
  apps: app === undefined ? [] : [app],
});

/**
 * The search request from the command line. Every problem of the options at once: those of reading
 * them, and the engine's own range checks of the ones that read (host limits come later).
 */
export function sizeSpecFromOptions(o: SizeCommandOptions): SizeSpecInput {
  const problems: Problem[] = [];
  const read = <T>(f: () => T): T | undefined => {
    try {
      return f();
    } catch (e) {
      if (!(e instanceof OptionProblem)) throw e;
      problems.push({ path: e.flag, message: e.detail });
      return undefined;
    }
  };
  if (!o.app) problems.push({ path: '--app', message: 'give the app to size: --app NAME (see `rightsize apps`).' });
  const rate = read(() => num('--rate', o.rate));
  if (o.rate === undefined)
    problems.push({ path: '--rate', message: 'give the rate to hold: --rate REQ_PER_SEC (e.g. --rate 2000).' });
  if (!o.slo) problems.push({ path: '--slo', message: 'give the objective: --slo "p99<=50ms,errors<=0.1%".' });
  const slo = o.slo ? read(() => parseSizeSlo(o.slo!, rate)) : undefined;
  const modes = o.modes
    ?.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const unknown = (modes ?? []).filter((m) => !(LAUNCH_MODES as readonly string[]).includes(m));
  for (const m of unknown)
    problems.push({
      path: '--modes',
      message: `unknown launch mode "${m}".${didYouMean(m, LAUNCH_MODES)} Choose from ${LAUNCH_MODES.join(', ')}.`,
    });
  const cpu = read(() => parseRange('--cpu', o.cpu));
  const memory = read(() => parseRange('--memory', o.memory));
  const workers = read(() => parseRange('--workers', o.workers));
  const bounds = {
    ...(cpu ? { cpuMillis: cpu } : {}),
    ...(memory ? { memoryMb: memory } : {}),
    ...(workers ? { workers } : {}),
    ...(modes && !unknown.length ? { modes: modes as (typeof LAUNCH_MODES)[number][] } : {}),
  };
  const opt = (key: keyof SizeSpecInput, flag: string, text: string | undefined): Partial<SizeSpecInput> => {
    const n = read(() => num(flag, text));
    return n === undefined ? {} : { [key]: n };
  };
  const spec = {
    ...(o.app ? { app: o.app } : {}),
    ...(slo ? { slo } : {}),
    ...(rate !== undefined ? { rate } : {}),
    ...(Object.keys(bounds).length ? { bounds } : {}),
    ...opt('maxCells', '--max-cells', o.maxCells),
    ...opt('durationSec', '--duration', o.duration),
    ...opt('warmupSec', '--warmup', o.warmup),
    ...opt('cpuStepMillis', '--cpu-step', o.cpuStep),
    ...opt('memoryStepMb', '--memory-step', o.memoryStep),
    ...(o.probe === false ? { probe: false } : {}),
    ...(o.cheapest ? { cheapest: true } : {}),
  } as SizeSpecInput;
  // The prices (stored with the run as the spec's "prices"); a bad one is named by its option.
  const priced = read(() => {
    try {
      return withPrices(spec, o) as SizeSpecInput;
    } catch (e) {
      const flag = /^--[a-z-]+/.exec((e as Error).message)?.[0] ?? '--cpu-price';
      throw new OptionProblem(flag, (e as Error).message.slice(flag.length).trim());
    }
  });
  if (!problems.length && priced) return priced;
  // The engine's range checks of the options that read, minus what is already said about the same option.
  const v = validateSizeSpec(spec, ANY_HOST(o.app));
  const said = new Set(problems.map((p) => p.path));
  const more = v.ok ? [] : v.problems.filter((p) => p.path !== '(spec)').map(asOptionProblem);
  throw optionsInvalid([...problems, ...more.filter((p) => !said.has(p.path))]);
}

const OUTCOME_MARK: Record<string, string> = {
  meets: 'meets',
  misses: 'misses',
  undecided: 'undecided',
  failed: 'failed',
};

/** The search's path as the terminal shows it at the end. */
export function formatTrace(t: SearchTrace): string {
  const lines = t.steps.map(
    (s, i) =>
      `  ${String(i + 1).padStart(2)}. ${s.mode}×${s.workers} ${s.cpuMillis}m/${s.memoryMb}MB — ${s.reason}\n` +
      `      → ${OUTCOME_MARK[s.outcome]}: ${s.detail}`,
  );
  return [
    `The path (${t.steps.length} cells; a full grid over the same bounds: ${t.gridCells}):`,
    ...lines,
    '',
    `Answer (${t.status}): ${t.words}`,
  ].join('\n');
}

export async function sizeCommand(o: SizeCommandOptions): Promise<number> {
  const spec = sizeSpecFromOptions(o); // bad arguments fail before anything starts
  const log = o.json ? process.stderr : process.stdout;
  const cancel = cancelOnSignals(log);
  let store: Awaited<ReturnType<typeof openStore>>['store'] | undefined;
  try {
    store = (await openStore(o, (l) => log.write(`${l}\n`))).store;
    const printer = progressPrinter(log, Boolean(o.verbose));
    const s = store;
    const provider = targetProviderOption(store, o.target);
    const outcome = await runSearch(spec, {
      store: s,
      ...(provider ? { provider } : {}),
      ...(o.name ? { name: o.name } : {}),
      ...(o.base ? { base: o.base } : {}),
      signal: cancel.signal,
      onEvent: (e) => {
        if (e.type === 'search-step') {
          // The step just stored: why this cell was run and what it showed.
          log.write(`    why: ${e.step.reason}\n    → ${e.step.outcome}: ${e.step.detail}\n`);
          return;
        }
        printer(e);
      },
      waitForLab: Boolean(o.wait),
      onLabWait: (holder) => log.write(`Waiting for the lab: ${describeHolder(holder)}. Ctrl-C to give up.\n`),
    });
    const run = store.getRun(outcome.runId)!;
    const trace = run.search ?? outcome.trace;
    if (o.json) {
      const doc = {
        schemaVersion: SIZE_JSON_SCHEMA_VERSION,
        runId: run.id,
        status: run.status,
        error: run.error,
        search: trace,
        cells: run.cells,
      };
      process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    } else {
      log.write(`\n${formatTrace(trace)}\n`);
      const rs = rightsizeCommand();
      // Only a found configuration has something to deploy.
      const deploy = trace.status === 'found' ? `   Deploy: ${rs} report ${run.id} --emit kubernetes` : '';
      log.write(`See it again: ${rs} show ${run.id}   Report: ${rs} report ${run.id} --html report.html${deploy}\n`);
    }
    if (outcome.status === 'cancelled') return EXIT.cancelled;
    if (outcome.status === 'failed') return EXIT.runFailed;
    if (trace.status === 'found') return EXIT.ok;
    log.write(`No configuration was shown to meet the objective (${trace.status}; exit ${EXIT.sloNotMet}).\n`);
    return EXIT.sloNotMet;
  } catch (e) {
    if (e instanceof SizeSpecInvalidError) throw optionsInvalid(e.problems.map(asOptionProblem));
    return failureBeforeStart(e, cancel.signal.aborted, log, 'search');
  } finally {
    store?.close();
    await stopReaper().catch(() => {}); // everything of ours is gone: the reaper makes a last pass and leaves
    cancel.dispose();
  }
}
