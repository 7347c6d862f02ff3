// What `run` and `size` share around a run: Ctrl-C / SIGTERM / SIGHUP cancel it cleanly (a second
// signal exits at once; the reaper removes what is left), and the errors that come before anything
// started become their documented exit codes.
import { DockerUnavailableError } from '../docker/client.ts';
import { MatrixInvalidError } from '../engine/matrix.ts';
import { TargetNotReadyError } from '../engine/run-matrix.ts';
import { LabBusyError } from '../lab-lock/lab-lock.ts';
import { CliError, EXIT } from './exit-codes.ts';

export interface Cancel {
  signal: AbortSignal;
  /** Removes the signal handlers (always, in a finally). */
  dispose(): void;
}

/**
 * Installed before anything touches Docker, so a signal at any moment (start-up sweep, image
 * build, container creation) cancels cleanly; a second one exits at once.
 */
export function cancelOnSignals(log: NodeJS.WritableStream): Cancel {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    interrupts++;
    if (interrupts === 1) {
      log.write(`\n${signal}: cancelling — stopping the current build or cell and removing its container…\n`);
      abort.abort();
    } else process.exit(EXIT.cancelled);
  };
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, onSignal);
  return { signal: abort.signal, dispose: () => signals.forEach((s) => process.off(s, onSignal)) };
}

/**
 * An error thrown before the run existed, as the CLI reports it: a CliError with its exit code, or
 * EXIT.cancelled when the user cancelled first. Anything else is a bug: rethrown.
 */
export function failureBeforeStart(
  e: unknown,
  cancelled: boolean,
  log: NodeJS.WritableStream,
  what: 'run' | 'search',
): number {
  if (e instanceof MatrixInvalidError) throw new CliError(e.message, EXIT.usage);
  if (e instanceof DockerUnavailableError) throw new CliError(e.message, EXIT.docker);
  if (e instanceof LabBusyError)
    throw new CliError(`${e.message} Nothing was started; add --wait to queue behind it.`, EXIT.labBusy);
  if (e instanceof TargetNotReadyError) throw new CliError(e.message, EXIT.targetNotReady);
  if (cancelled) {
    log.write(`Cancelled before the ${what} started: nothing was stored or left running.\n`);
    return EXIT.cancelled;
  }
  throw e;
}
