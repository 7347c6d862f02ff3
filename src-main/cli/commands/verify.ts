// `rightsize verify RUN [--cell N]`: runs the run's picked configuration (or the configuration of
// cell N) exactly as each deploy snippet deploys it, stepping the memory limit up after a failure,
// and stores the cells with the run: the snippets of `report --emit` then carry what was verified.
// Works on any stored run, older ones included (the cells are appended).
import { configurationKey } from '../../analysis/decide/group.ts';
import { recommend } from '../../analysis/index.ts';
import { answerKey } from '../../analysis/size/sizing.ts';
import type { Slo } from '../../analysis/types.ts';
import { CellNotDeployableError, findDeployableCell } from '../../deploy/from-cell.ts';
import { nothingToDeploy, SNIPPET_KINDS } from '../../deploy/snippets.ts';
import type { BaseStrategy } from '../../docker/base-image.ts';
import type { RunEvent } from '../../model/events.ts';
import { runPhasesOnRun } from '../../engine/run-matrix.ts';
import { verifyAnswer, type VerifyOutcome } from '../../engine/verify.ts';
import { gridCells } from '../../deploy/verification.ts';
import { describeHolder } from '../../lab-lock/lab-lock.ts';
import { stopReaper } from '../../reaper/reaper.ts';
import { openStore, type GlobalOptions } from '../context.ts';
import { CliError, EXIT } from '../exit-codes.ts';
import { rightsizeCommand } from '../invocation.ts';
import { progressPrinter } from '../progress.ts';
import { cancelOnSignals, failureBeforeStart } from '../run-lifecycle.ts';
import { getRunOrFail } from '../run-ref.ts';
import { parseMarginOption, parseSloOption } from './report.ts';
import { targetProviderOption } from './targets.ts';

/** Version of the `verify --json` document (same rule as `run --json`). */
export const VERIFY_JSON_SCHEMA_VERSION = 1;

export const VERIFY_EXIT_HELP = [
  `  ${EXIT.ok}    every snippet passed when run exactly as emitted`,
  `  ${EXIT.verifyFailed}    a snippet passed at no limit tried: ` +
    'it falls back to the cap the matrix ran clean (report --emit says why)',
  `  ${EXIT.usage}    bad arguments, no such run or cell, a run still running, or nothing to verify: nothing started`,
  `  ${EXIT.docker}    Docker unreachable`,
  `  ${EXIT.runFailed}    the verification could not run (e.g. an image would not build), or stopped before a verdict`,
  `  ${EXIT.labBusy}    another Rightsize run or build holds this Docker engine (use --wait to queue)`,
  `  ${EXIT.targetNotReady}    the run's target is not ready: nothing started`,
  `  ${EXIT.cancelled}  cancelled (Ctrl-C, SIGTERM, SIGHUP)`,
  `  ${EXIT.error}    unexpected error`,
].join('\n');

export interface VerifyCommandOptions extends GlobalOptions {
  /** A cell's # in the run: verify its configuration instead of the answer's pick. */
  cell?: string;
  slo?: string;
  margin?: string;
  wait?: boolean;
  verbose?: boolean;
  base?: BaseStrategy;
  /** Where the cells run (default: where the run's grid ran). */
  target?: string;
}

function parseCellNumber(text: string): number {
  const n = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(n) || n < 1)
    throw new CliError(
      `--cell takes a cell's number in the run (the # column of \`rightsize show\`), e.g. --cell 3, not "${text}".`,
      EXIT.usage,
    );
  return n;
}

/**
 * The listener for a verification: cells and the progress line as `run` prints them, each attempt's
 * verdict (✓ / ✗, printed between cells, where no progress line is drawn) and the phase's announcements.
 */
function verifyPrinter(out: NodeJS.WriteStream, verbose: boolean): (e: RunEvent) => void {
  const progress = progressPrinter(out, verbose);
  return (e) => {
    if (e.type === 'log' && e.message.startsWith('verify: ')) {
      out.write(`  ${e.level === 'warn' ? '✗' : '✓'} ${e.message.slice('verify: '.length)}\n`);
      return;
    }
    progress(e);
  };
}

export async function verifyCommand(id: string, o: VerifyCommandOptions): Promise<number> {
  const slo: Slo | undefined = o.slo === undefined ? undefined : parseSloOption(o.slo);
  const marginPct = o.margin === undefined ? undefined : parseMarginOption(o.margin);
  const cellNumber = o.cell === undefined ? undefined : parseCellNumber(o.cell);
  const log = o.json ? process.stderr : process.stdout;
  const cancel = cancelOnSignals(log);
  let store: Awaited<ReturnType<typeof openStore>>['store'] | undefined;
  try {
    store = (await openStore(o, (l) => log.write(`${l}\n`))).store;
    const run = getRunOrFail(store, id);
    if (run.status === 'running')
      throw new CliError(`Run ${run.id} is still running: verify it when it has finished.`, EXIT.usage);
    if (run.search)
      throw new CliError(
        `Run ${run.id} is an auto-size run: its search already ran its found configuration at the memory ` +
          'it deploys; verify runs on matrix runs.',
        EXIT.usage,
      );
    // Everything that can be refused is refused before the lab is taken.
    let cellKey: string | undefined;
    if (cellNumber !== undefined) {
      try {
        cellKey = configurationKey(findDeployableCell(run, cellNumber, 'number').config);
      } catch (e) {
        if (e instanceof CellNotDeployableError) throw new CliError(e.message, EXIT.usage);
        throw e;
      }
    } else {
      const rec = recommend(
        { ...run, cells: gridCells(run.cells) },
        {
          samples: store.getRunSamples(run.id),
          probe: store.getRunProbeSeconds(run.id),
          ...(slo ? { slo } : {}),
          ...(marginPct !== undefined ? { marginPct } : {}),
        },
      );
      if (answerKey(rec) === null)
        throw new CliError(
          `${nothingToDeploy(rec)} There is nothing to verify; ` +
            "--cell N verifies a measured cell's configuration instead.",
          EXIT.usage,
        );
    }
    let outcome: VerifyOutcome | undefined;
    // Verified where it was measured: the run's own target unless another is named.
    const measuredOn = [...gridCells(run.cells)].reverse().find((c) => c.ranOn)?.ranOn?.target ?? 'local';
    const target = o.target ?? measuredOn;
    if (target !== measuredOn)
      log.write(
        `Note: run ${run.id} was measured on "${measuredOn}"; ` +
          `verifying on "${target}" compares goodput across targets.\n`,
      );
    const provider = targetProviderOption(store, target);
    const onEvent = verifyPrinter(log, Boolean(o.verbose));
    const result = await runPhasesOnRun(
      run.id,
      [
        {
          name: 'verify',
          run: async (ctx) => {
            outcome = await verifyAnswer(ctx, {
              ...(cellKey ? { cellKey } : {}),
              ...(slo ? { slo } : {}),
              ...(marginPct !== undefined ? { marginPct } : {}),
            });
          },
        },
      ],
      {
        store,
        signal: cancel.signal,
        onEvent,
        waitForLab: Boolean(o.wait),
        onLabWait: (holder) => log.write(`Waiting for the lab: ${describeHolder(holder)}. Ctrl-C to give up.\n`),
        ...(o.base ? { base: o.base } : {}),
        ...(provider ? { provider } : {}),
      },
    );
    const v = outcome?.verification ?? null;
    if (o.json) {
      const doc = {
        schemaVersion: VERIFY_JSON_SCHEMA_VERSION,
        runId: run.id,
        status: result.status,
        error: result.error ?? null,
        key: outcome?.key ?? null,
        label: outcome?.label ?? null,
        skipped: outcome?.skipped ?? null,
        cells: outcome?.cells ?? 0,
        verification: v,
      };
      process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    }
    if (result.status === 'cancelled' || cancel.signal.aborted) return EXIT.cancelled;
    if (!outcome || result.status === 'failed') {
      log.write(`The verification of run ${run.id} could not run${result.error ? `: ${result.error}` : ''}.\n`);
      return EXIT.runFailed;
    }
    if (outcome.skipped) return EXIT.usage;
    const kinds = SNIPPET_KINDS.filter((k) => v?.kinds[k]);
    if (!o.json) {
      log.write(`\nVerification of ${outcome.label} (run ${run.id}):\n`);
      for (const k of kinds) log.write(`  ${k}: ${v!.kinds[k]!.line}\n`);
      const rs = rightsizeCommand();
      const cell = cellNumber !== undefined ? ` --cell ${cellNumber}` : '';
      log.write(`Snippets: ${rs} report ${run.id} --emit pm2|kubernetes|compose${cell}\n`);
    }
    if (outcome.stopped || kinds.some((k) => v!.kinds[k]!.state === 'incomplete')) return EXIT.runFailed;
    return kinds.some((k) => v!.kinds[k]!.state === 'fallback') ? EXIT.verifyFailed : EXIT.ok;
  } catch (e) {
    return failureBeforeStart(e, cancel.signal.aborted, log, 'run');
  } finally {
    store?.close();
    await stopReaper().catch(() => {});
    cancel.dispose();
  }
}
