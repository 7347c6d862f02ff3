// `rightsize baseline` (ls, save, rm) and `rightsize compare BASELINE RUN`: saved baselines by name,
// and the verdicts of any stored run against a baseline, with the gate's exit code.
import type { Command } from 'commander';
import { resolveBaseline, baselineNameProblem, comparisonOf } from '../export/baseline-of.ts';
import type { GlobalOptions } from './context.ts';
import { CliError, EXIT } from './exit-codes.ts';
import { table } from './format.ts';
import { getRunOrFail, withStore } from './run-ref.ts';
import { baselineText } from './baseline-text.ts';
import { thresholdOption } from './baseline-gate.ts';
import { rightsizeCommand } from './invocation.ts';

/** Version of the `compare --json` and `baseline ls --json` documents. */
export const COMPARE_JSON_SCHEMA_VERSION = 1;

const out = (text: string): void => void process.stdout.write(`${text}\n`);

export async function baselineListCommand(g: GlobalOptions): Promise<number> {
  return withStore(g, (store) => {
    const saved = store.baselines.list();
    if (g.json) out(JSON.stringify({ schemaVersion: COMPARE_JSON_SCHEMA_VERSION, baselines: saved }, null, 2));
    else if (saved.length === 0)
      out(
        `No baselines saved. Save one: ${rightsizeCommand()} run … --save-baseline NAME (or baseline save NAME RUN).`,
      );
    else
      out(
        table(
          ['name', 'app', 'run', 'saved'],
          saved.map((b) => [b.name, b.app, String(b.runId), b.createdAt]),
        ),
      );
    return EXIT.ok;
  });
}

export async function baselineSaveCommand(name: string, runText: string, g: GlobalOptions): Promise<number> {
  const problem = baselineNameProblem(name);
  if (problem) throw new CliError(`baseline save: ${problem}.`, EXIT.usage);
  return withStore(g, (store) => {
    const run = getRunOrFail(store, runText);
    if (run.status !== 'completed')
      throw new CliError(`Run ${run.id} is ${run.status}: only a completed run can be a baseline.`, EXIT.usage);
    const apps = [...new Set(run.cells.map((c) => c.config.app))];
    store.baselines.save(name, apps, run.id);
    out(`Saved run ${run.id} as baseline "${name}" for ${apps.join(', ')}.`);
    return EXIT.ok;
  });
}

export async function baselineRemoveCommand(name: string, o: GlobalOptions & { app?: string }): Promise<number> {
  return withStore(o, (store) => {
    const n = store.baselines.delete(name, o.app);
    if (n === 0)
      throw new CliError(
        `No baseline "${name}"${o.app ? ` for ${o.app}` : ''} is saved (see baseline ls).`,
        EXIT.usage,
      );
    out(`Removed baseline "${name}" (${n} app${n === 1 ? '' : 's'}); its runs are kept.`);
    return EXIT.ok;
  });
}

/** The verdicts of RUN against BASELINE (a run id or a saved name); exit EXIT.regressed when the gate fails. */
export async function compareCommand(
  baseline: string,
  runText: string,
  o: GlobalOptions & { threshold?: string },
): Promise<number> {
  const thresholdPct = thresholdOption(o.threshold);
  return withStore(o, (store) => {
    const run = getRunOrFail(store, runText);
    const spec = resolveBaseline(store, baseline, thresholdPct);
    if (!spec.ok) throw new CliError(`compare: ${spec.message}.`, EXIT.usage);
    const r = comparisonOf(store, run.id, spec.spec);
    if (!r.ok) throw new CliError(`compare: ${r.message}.`, EXIT.usage);
    if (o.json) out(JSON.stringify({ schemaVersion: COMPARE_JSON_SCHEMA_VERSION, ...r.comparison }, null, 2));
    else out(baselineText(r.comparison));
    return r.comparison.gateFailed ? EXIT.regressed : EXIT.ok;
  });
}

export function baselineCommands(p: Command, globals: () => GlobalOptions): void {
  const b = p.command('baseline').description('saved baselines: a run per app under a name, for run --baseline NAME');
  b.command('ls', { isDefault: true })
    .alias('list')
    .description('list the saved baselines')
    .action(async () => {
      process.exitCode = await baselineListCommand(globals());
    });
  b.command('save <name> <run>')
    .description("save a completed run as each of its apps' baseline under this name")
    .action(async (name: string, run: string) => {
      process.exitCode = await baselineSaveCommand(name, run, globals());
    });
  b.command('rm <name>')
    .description('remove a saved baseline (the run itself is kept)')
    .option('--app <app>', 'only for this app')
    .action(async (name: string, o: { app?: string }) => {
      process.exitCode = await baselineRemoveCommand(name, { ...globals(), ...o });
    });
  p.command('compare <baseline> <run>')
    .description(
      'compare a stored run with a baseline (a run id or a saved name): goodput, p99 and peak memory of every ' +
        'configuration in both, regressed / improved / unchanged / inconclusive',
    )
    .option('--threshold <pct>', 'the noise threshold: a change smaller than this never regresses (default 5)')
    .addHelpText(
      'after',
      `\nExit codes: ${EXIT.ok} nothing regressed (or the runs are not comparable: verdicts only), ` +
        `${EXIT.regressed} something regressed, ${EXIT.usage} unknown run or baseline.\n`,
    )
    .action(async (baselineRef: string, run: string, o: { threshold?: string }) => {
      process.exitCode = await compareCommand(baselineRef, run, { ...globals(), ...o });
    });
}
