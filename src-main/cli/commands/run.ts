import { readFileSync } from 'node:fs';
import type { BaseStrategy } from '../../docker/base-image.ts';
import { DockerUnavailableError } from '../../docker/client.ts';
import { MatrixInvalidError } from '../../engine/matrix.ts';
import { runMatrix } from '../../engine/run-matrix.ts';
import { findPreset, listPresets } from '../../presets/presets.ts';
import { openStore, type GlobalOptions } from '../context.ts';
import { cellsTable } from '../describe.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { progressPrinter } from '../progress.ts';
import { recommend } from '../../analysis/index.ts';
import { formatRecommendation, parseSloOption } from './report.ts';

export interface RunCommandOptions extends GlobalOptions {
  preset?: string;
  config?: string;
  name?: string;
  yes?: boolean;
  base?: BaseStrategy;
  verbose?: boolean;
  slo?: string;
}

function loadMatrix(o: RunCommandOptions): { matrix: Record<string, unknown>; preset?: string } {
  if (Boolean(o.preset) === Boolean(o.config)) throw new CliError('Give exactly one of --preset NAME or --config FILE.', EXIT.usage);
  if (o.preset) {
    const p = findPreset(o.preset);
    if (!p) throw new CliError(`Unknown preset "${o.preset}". Presets: ${listPresets().map((x) => x.name).join(', ')}.`, EXIT.usage);
    return { matrix: p.matrix, preset: p.name };
  }
  let text: string;
  try {
    text = readFileSync(o.config!, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read ${o.config}: ${(e as Error).message}`, EXIT.usage);
  }
  try {
    return { matrix: JSON.parse(text) as Record<string, unknown> };
  } catch (e) {
    throw new CliError(`${o.config} is not valid JSON: ${(e as Error).message}`, EXIT.usage);
  }
}

export async function runCommand(o: RunCommandOptions): Promise<number> {
  const { matrix, preset } = loadMatrix(o);
  const slo = o.slo ? parseSloOption(o.slo) : undefined; // a bad objective fails before anything starts
  const log = o.json ? process.stderr : process.stdout;
  const { store } = await openStore(o, (l) => log.write(`${l}\n`));
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      log.write('\nCancelling: stopping the current cell and removing its container…\n');
      abort.abort();
    } else process.exit(EXIT.cancelled); // a second Ctrl-C: the next start removes what is left
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await runMatrix(
      { ...matrix, ...(o.yes ? { confirmLarge: true } : {}) },
      {
        store,
        ...(o.name ? { name: o.name } : {}),
        ...(preset ? { preset } : {}),
        ...(o.base ? { base: o.base } : {}),
        signal: abort.signal,
        onEvent: progressPrinter(log, Boolean(o.verbose)),
      },
    );
    const run = store.getRun(outcome.runId)!;
    const recommendation = run.cells.length ? recommend(run, slo ? { slo } : {}) : null;
    if (o.json) process.stdout.write(`${JSON.stringify({ runId: run.id, status: run.status, error: run.error, cells: run.cells, recommendation }, null, 2)}\n`);
    else if (recommendation) {
      log.write(`\n${cellsTable(run.cells)}\n\n${formatRecommendation(recommendation)}\n`);
      log.write(`See it again: rightsize show ${run.id}   Report: rightsize report ${run.id} --html report.html   CSV: rightsize export ${run.id} --csv cells.csv\n`);
    }
    if (outcome.status === 'cancelled') return EXIT.cancelled;
    if (outcome.status === 'failed') return EXIT.runFailed;
    return outcome.cells.some((c) => c.status !== 'ok') ? EXIT.cellsFailed : EXIT.ok;
  } catch (e) {
    if (e instanceof MatrixInvalidError) throw new CliError(e.message, EXIT.usage);
    if (e instanceof DockerUnavailableError) throw new CliError(e.message, EXIT.docker);
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    store.close();
  }
}
