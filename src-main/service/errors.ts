// The one place where what the engine throws becomes a contract error: a code the UI can act on,
// the engine's words, and the fields a form can point at. Every handler goes through `guard`, and
// every transport through `contractErrorData`, so no call translates an error its own way.
import { ContractError, type CallName, type ContractErrorData, type Problem } from '../contract/api.ts';
import { CellNotDeployableError, NothingToDeployError } from '../deploy/from-cell.ts';
import { DockerUnavailableError } from '../docker/client.ts';
import { SizeSpecInvalidError } from '../engine/auto-size/spec.ts';
import { MatrixInvalidError } from '../engine/matrix.ts';
import { TargetNotReadyError } from '../engine/run-matrix.ts';
import { LabBusyError } from '../lab-lock/lab-lock.ts';
import { RunInUseError } from '../store/index.ts';
import { UnknownTargetError, UnreadableTargetError } from '../targets/registry.ts';

/** `what`, then one line a problem: "  - path: message". */
export const problemLines = (what: string, problems: Problem[]): string =>
  `${what}:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`;

/** A refusal that names every problem, in the message and as fields. */
export const invalid = (code: ContractErrorData['code'], what: string, problems: Problem[]): ContractError =>
  new ContractError({ code, message: problemLines(what, problems), fields: problems });

/** Docker is down: runs and builds cannot start (`why` as the last check said it). */
export const dockerUnavailable = (why: string): ContractError =>
  new ContractError({ code: 'DOCKER_UNAVAILABLE', message: why });

export const conflict = (message: string): ContractError => new ContractError({ code: 'CONFLICT', message });

export const notFound = (message: string): ContractError => new ContractError({ code: 'NOT_FOUND', message });

/**
 * An error in contract terms, when the engine's kind of error has one; anything else unchanged (an
 * INTERNAL error for the transport), except in a build, where every failure is BUILD_FAILED.
 */
export function toContractError(e: unknown, call?: CallName): unknown {
  if (e instanceof ContractError) return e;
  if (e instanceof MatrixInvalidError)
    return new ContractError({ code: 'MATRIX_INVALID', message: e.message, fields: e.problems });
  if (e instanceof SizeSpecInvalidError)
    return new ContractError({ code: 'SIZE_INVALID', message: e.message, fields: e.problems });
  if (e instanceof DockerUnavailableError) return dockerUnavailable(e.message);
  if (e instanceof LabBusyError)
    return conflict(`${e.message} ${call === 'apps.build' ? 'Build' : 'Try again'} when it is done.`);
  if (e instanceof TargetNotReadyError || e instanceof UnreadableTargetError || e instanceof RunInUseError)
    return conflict(e.message);
  if (e instanceof UnknownTargetError || e instanceof CellNotDeployableError || e instanceof NothingToDeployError)
    return notFound(e.message);
  if (call === 'apps.build' && e instanceof Error)
    return new ContractError({ code: 'BUILD_FAILED', message: e.message });
  return e;
}

/** What a transport sends back for an error: its contract form, or INTERNAL with its message. */
export function contractErrorData(e: unknown, call?: CallName): ContractErrorData {
  const c = toContractError(e, call);
  if (c instanceof ContractError) return c.toData();
  return { code: 'INTERNAL', message: c instanceof Error ? c.message : String(c) };
}

/**
 * A handler whose errors are translated, sync or async as it was: a handler that answers at once
 * (engine.status) still does, so a host may read it without awaiting.
 */
export function guard<A, R>(call: CallName, fn: (input: A) => R): (input: A) => R {
  return (input) => {
    try {
      const r = fn(input);
      return (r instanceof Promise ? r.catch((e: unknown) => Promise.reject(toContractError(e, call))) : r) as R;
    } catch (e) {
      throw toContractError(e, call);
    }
  };
}
